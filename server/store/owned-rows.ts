// Rows as they are stored, for a state snapshot (server/snapshots): each store exports the rows one API
// key owns and imports them back. A snapshot file is input from outside, so its column names are never
// trusted into SQL: insertRows takes only the table's real columns (PRAGMA table_info) and only plain
// values, and refuses anything else rather than dropping it silently.

import type { Statement } from "better-sqlite3";
import type { Db } from "./database.js";

export type RowValue = string | number | null;
export type StoredRow = Record<string, RowValue>;

export function selectRows(db: Db, sql: string, ...params: RowValue[]): StoredRow[] {
  return db.prepare(sql).all(...params) as StoredRow[];
}

function columnsOf(db: Db, table: string): Set<string> {
  const rows = db.prepare("SELECT name FROM pragma_table_info(?)").all(table) as { name: string }[];
  if (rows.length === 0) throw new Error(`no table ${table}`);
  return new Set(rows.map((row) => row.name));
}

/** Inserts the rows into `table`, each with `overrides` set (the importing key's owner); call inside a transaction. */
export function insertRows(db: Db, table: string, rows: readonly StoredRow[], overrides: StoredRow = {}): void {
  const known = columnsOf(db, table);
  // One statement per set of columns (a file's rows of one table share theirs), not one per row.
  const statements = new Map<string, Statement<RowValue[]>>();
  for (const row of rows) {
    const full = { ...row, ...overrides };
    const names = Object.keys(full);
    const unknown = names.filter((name) => !known.has(name));
    if (unknown.length > 0) throw new Error(`${table} has no column ${unknown.join(", ")}`);
    const quoted = names.map((name) => `"${name}"`).join(", ");
    let statement = statements.get(quoted);
    if (!statement) {
      statement = db.prepare<RowValue[]>(`INSERT INTO "${table}" (${quoted}) VALUES (${names.map(() => "?").join(", ")})`);
      statements.set(quoted, statement);
    }
    statement.run(...names.map((name) => full[name]!));
  }
}

/** Which of `ids` already exist in `table`'s `column` (for any owner, or for `owner` when given). */
export function existingValues(db: Db, table: string, column: string, ids: readonly string[], owner?: string): string[] {
  const known = columnsOf(db, table);
  if (!known.has(column)) throw new Error(`${table} has no column ${column}`);
  const statement = db.prepare(
    owner === undefined ? `SELECT 1 FROM "${table}" WHERE "${column}" = ?` : `SELECT 1 FROM "${table}" WHERE "${column}" = ? AND owner = ?`,
  );
  return ids.filter((id) => (owner === undefined ? statement.get(id) : statement.get(id, owner)) !== undefined);
}
