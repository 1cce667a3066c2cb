// Reads a state file's records.json ({"tables": {"<table>": [row, …], …}}) without ever holding the
// event loop and without materialising more rows than the bounds allow (issue 29: a 29.5 KB file of
// ten million empty rows held the server 10-14 s while JSON.parse and the schema built and checked
// them all). One pass over the bytes, in slices that yield to the event loop:
// - it follows the nesting (strings and escapes skipped) and counts each table's rows as it meets them,
//   refusing at the first row past EMULATOR_STATE_MAX_RECORDS (all tables) or, for a table of
//   resources, EMULATOR_STATE_MAX_RESOURCES_PER_KIND, before it is parsed;
// - each row is parsed on its own (a small JSON.parse) and checked (column → string, number or null);
// - what lies outside the rows (the two levels of objects, the table names) is parsed at the end as a
//   skeleton in which each row is a 0, and checked against the format; it is bounded, so nothing can
//   hide a large value there.
// UTF-8 never uses bytes below 0x80 inside a multi-byte character, so the structural bytes scanned
// for ("{}[]," and quotes) are found in the raw bytes.

import { z } from "zod";
import { yieldToEventLoop } from "../common/event-loop.js";
import { StateBoundError, UnreadableStateError } from "./state-errors.js";
import { STATE_TABLES, type StateTable, type StateTables } from "./state-format.js";

export interface RecordsBounds {
  /** EMULATOR_STATE_MAX_RECORDS: rows of all tables together. */
  maxRecords: number;
  /** EMULATOR_STATE_MAX_RESOURCES_PER_KIND: rows of each resource table (RESOURCE_TABLES). */
  maxResourcesPerKind: number;
}

/** The tables whose rows are resources a key creates one by one (the rest are their parts). */
export const RESOURCE_TABLES: ReadonlySet<StateTable> = new Set([
  "environments",
  "interactions",
  "agents",
  "credentials",
  "triggers",
  "webhooks",
]);

/** The longest table name looked at (the longest real one is far shorter). */
const MAX_TABLE_NAME_BYTES = 256;
/** What the skeleton may hold besides one "0" and a comma per row: table names and punctuation. */
const SKELETON_SPARE_BYTES = 64 * 1024;
/** How long one slice may hold the event loop before it yields. */
const SLICE_MS = 10;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const isSpace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

const skeletonSchema = z.strictObject({
  tables: z.strictObject(
    Object.fromEntries(STATE_TABLES.map((table) => [table, z.array(z.literal(0))])) as Record<StateTable, z.ZodArray<z.ZodLiteral<0>>>,
  ),
});

const TABLE_NAMES: ReadonlySet<string> = new Set(STATE_TABLES);

function isRow(value: unknown): value is Record<string, string | number | null> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  for (const cell of Object.values(value)) {
    if (cell !== null && typeof cell !== "string" && typeof cell !== "number") return false;
  }
  return true;
}

/** The tables of a records.json, each row checked; refuses past the bounds before parsing the row past them. */
export async function readRecords(bytes: Buffer, bounds: RecordsBounds, entry: string): Promise<StateTables> {
  const tables = Object.fromEntries(STATE_TABLES.map((table) => [table, []])) as unknown as StateTables;
  const shape = (why: string) => new UnreadableStateError(`${entry} does not have the expected shape (${why})`);
  // Containers open: "o" object, "a" array. Depth 1 the file, 2 "tables", 3 a table's array, 4 a row.
  const stack: Array<"o" | "a"> = [];
  const skeleton: Buffer[] = [];
  let skeletonBytes = 0;
  let copyFrom = 0;
  let inString = false;
  let escaped = false;
  let stringStart = -1;
  let lastKey: string | null = null;
  let table: StateTable | null = null;
  const seenTables = new Set<string>();
  let rowStart = -1;
  let total = 0;
  let sliceStart = performance.now();

  const addSkeleton = (part: Buffer) => {
    skeletonBytes += part.length;
    if (skeletonBytes > SKELETON_SPARE_BYTES + 2 * total) throw shape("it holds something besides the tables and their rows");
    skeleton.push(part);
  };

  for (let index = 0; index < bytes.length; index++) {
    if ((index & 0xffff) === 0 && performance.now() - sliceStart > SLICE_MS) {
      await yieldToEventLoop();
      sliceStart = performance.now();
    }
    const byte = bytes[index]!;
    if (inString) {
      if (escaped) escaped = false;
      else if (byte === BACKSLASH) escaped = true;
      else if (byte === QUOTE) {
        inString = false;
        // A key of the "tables" object: the table whose array follows.
        if (stack.length === 2 && stringStart >= 0) {
          if (index - stringStart > MAX_TABLE_NAME_BYTES) throw shape("tables: a table name is longer than any this format has");
          try {
            lastKey = JSON.parse(bytes.toString("utf8", stringStart, index + 1)) as string;
          } catch {
            throw shape("a table name is not a JSON string");
          }
          if (!TABLE_NAMES.has(lastKey)) throw shape(`tables: it has no table ${JSON.stringify(lastKey.slice(0, 100))}`);
          if (seenTables.has(lastKey)) throw shape(`tables: ${lastKey} is given twice`);
          seenTables.add(lastKey);
          stringStart = -1;
        }
      }
      continue;
    }
    if (stack.length === 3 && stack[2] === "a" && rowStart < 0 && !isSpace(byte) && byte !== COMMA && byte !== CLOSE_ARRAY) {
      if (byte !== OPEN_OBJECT) throw shape(`tables.${table}: each row is an object`);
      total += 1;
      if (total > bounds.maxRecords) {
        throw new StateBoundError(
          `it holds more than ${bounds.maxRecords} records in all (EMULATOR_STATE_MAX_RECORDS); raise the setting to import it`,
        );
      }
      const count = tables[table!].length + 1;
      if (RESOURCE_TABLES.has(table!) && count > bounds.maxResourcesPerKind) {
        throw new StateBoundError(
          `it holds more than ${bounds.maxResourcesPerKind} ${table} (EMULATOR_STATE_MAX_RESOURCES_PER_KIND); raise the setting to import it`,
        );
      }
      rowStart = index;
      addSkeleton(bytes.subarray(copyFrom, index));
      addSkeleton(Buffer.from("0"));
    }
    if (byte === QUOTE) {
      inString = true;
      if (stack.length === 2 && stack[1] === "o") stringStart = index;
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      // A row's values are plain: nothing nests inside it.
      if (stack.length >= 4) throw shape(`tables.${table}: a row's values are strings, numbers or null`);
      if (stack.length === 2) {
        if (byte !== OPEN_ARRAY || lastKey === null) throw shape("tables: each table is an array of rows");
        table = lastKey as StateTable;
        lastKey = null;
      }
      stack.push(byte === OPEN_OBJECT ? "o" : "a");
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
      if (stack.pop() !== (byte === CLOSE_OBJECT ? "o" : "a")) throw shape("its brackets do not match");
      if (stack.length === 3 && rowStart >= 0) {
        let row: unknown;
        try {
          row = JSON.parse(bytes.toString("utf8", rowStart, index + 1));
        } catch {
          throw shape(`tables.${table}.${tables[table!].length}: not JSON`);
        }
        if (!isRow(row)) throw shape(`tables.${table}.${tables[table!].length}: a row maps columns to strings, numbers or null`);
        tables[table!].push(row);
        rowStart = -1;
        copyFrom = index + 1;
      }
    }
  }
  if (inString || stack.length > 0) throw shape("it is cut short");
  addSkeleton(bytes.subarray(copyFrom));
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.concat(skeleton).toString("utf8"));
  } catch {
    throw new UnreadableStateError(`${entry} is not JSON`);
  }
  const checked = skeletonSchema.safeParse(parsed);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw shape(`${issue.path.join(".") || "top level"}: ${issue.message}`);
  }
  return tables;
}
