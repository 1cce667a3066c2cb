// *Threat:* a hand-made state file whose row is checked by its columns (its `id` is free, its parent is
// the file's own) while the JSON stored beside them names something else: a trigger row with a new `id`
// whose record says `"id": "<another key's trigger>"`. The stores write a record back by the identity
// in its JSON (a trigger's save is `UPDATE … WHERE id = record.id`), so the first save would overwrite
// the other key's trigger and make it the importer's. Every JSON column that repeats a row's identity
// must repeat exactly the identity that was checked, or the file is refused.

import { InvalidArgumentError } from "../common/errors.js";
import type { StateTable, StateTables } from "./state-format.js";

/** For each table: its JSON column, and which fields of that JSON must equal which columns of the row. */
const REPEATED_IDENTITY: ReadonlyArray<{ table: StateTable; json: string; fields: ReadonlyArray<[field: string, column: string]> }> = [
  {
    table: "triggers",
    json: "record",
    fields: [
      ["id", "id"],
      ["status", "status"],
    ],
  },
  {
    table: "trigger_executions",
    json: "record",
    fields: [
      ["id", "id"],
      ["triggerId", "trigger_id"],
      ["status", "status"],
    ],
  },
  { table: "agents", json: "definition", fields: [["id", "id"]] },
  { table: "agent_uses", json: "definition", fields: [["id", "agent_id"]] },
  {
    table: "credentials",
    json: "config",
    fields: [
      ["id", "id"],
      ["type", "type"],
    ],
  },
];

function refused(table: string, row: Record<string, unknown>, why: string): InvalidArgumentError {
  return new InvalidArgumentError(`This state file's ${table} row ${JSON.stringify(row.id ?? null)} ${why}. Nothing was imported.`);
}

/** Refuses the file when a row's JSON names another identity than the row's own columns. */
export function refuseMismatchedIdentity(tables: StateTables): void {
  for (const { table, json, fields } of REPEATED_IDENTITY) {
    for (const row of tables[table]) {
      let value: unknown;
      try {
        value = JSON.parse(String(row[json]));
      } catch {
        throw refused(table, row, `has a ${json} that is not JSON`);
      }
      if (value === null || typeof value !== "object" || Array.isArray(value))
        throw refused(table, row, `has a ${json} that is not a JSON object`);
      for (const [field, column] of fields) {
        const named = (value as Record<string, unknown>)[field];
        if (named !== row[column]) {
          throw refused(
            table,
            row,
            `says ${column} ${JSON.stringify(row[column] ?? null)} but its ${json} says ${field} ${JSON.stringify(named ?? null)}; a record's identity must be the row's own`,
          );
        }
      }
    }
  }
}
