// The parity table's marks, worked out from declarations only: what the SDK offers (sdk-surface.ts),
// what the tests say they cover (`// covers:` lines, test-covers.ts) and the notes on what is echoed,
// refused or not emulated (parity-notes.ts). Pure: no files, so its rules are unit-tested on small
// made-up surfaces. A method or field with no mark, and a declaration naming something the SDK does
// not have, are problems: a new SDK version shows what is new, a renamed field shows what went stale.

export type Mark = "served" | "echoed" | "refused" | "not emulated";

/** What the emulator does with something it does not serve, or where the same thing is shown. */
export type ParityNote =
  | {
      mark: Exclude<Mark, "served">;
      /** What the emulator does instead, or why not; for `refused`, which error the caller gets. */
      why: string;
    }
  | {
      /**
       * The same field of another request, handled by the same code (a model interaction's `stream`
       * is an agent interaction's): the row takes that field's mark and tests, and says so.
       */
      sameAs: string;
    };

/** One row: an SDK method (`environments.files.upload`) or a request field (`CreateAgentInteraction.tools(function).name`). */
export interface ParityRow {
  id: string;
  mark: Mark;
  /** The declaration the mark comes from: the row's own id, or the nearest parent's (inherited). */
  from: string;
  /** The note's text, for the marks a note gives. */
  why?: string;
  /** The field whose mark and tests this row takes (a `sameAs` note). */
  sameAs?: string;
  /**
   * For a served row, the documented values the emulator refuses all the same (from
   * schemas/interactions.requests.exceptions.json): shown as `served (some values refused: …)`.
   */
  refusedValues?: string;
  /** The test files that declare they cover `from`'s test level (relative to the repository). */
  tests: string[];
}

export interface ParityInput {
  /** Every SDK method by resource, and every field path by request (without the request's name). */
  methods: Readonly<Record<string, readonly string[]>>;
  fields: Readonly<Record<string, readonly string[]>>;
  /** Test file → the ids its `// covers:` lines name. */
  covers: ReadonlyMap<string, readonly string[]>;
  notes: Readonly<Record<string, ParityNote>>;
  /** Ids a `// covers:` line or a note may name that another table lists (the OpenAPI document's request fields). */
  otherIds?: ReadonlySet<string>;
}

export interface ParityTable {
  methods: Record<string, ParityRow[]>;
  fields: Record<string, ParityRow[]>;
  /** Each one a sentence saying what to change; the generator writes nothing while there are any. */
  problems: string[];
}

export const NOTES_FILE = "tools/parity/parity-notes.ts";

/** The ids above one: `a.b(c).d` → `a.b(c)`, `a.b`, `a` (a tagged alternative's parent is the untagged field). */
export function parentsOf(id: string): string[] {
  const parts = id.split(/(?=[.(])/);
  const parents: string[] = [];
  for (let length = parts.length - 1; length >= 1; length--) parents.push(parts.slice(0, length).join(""));
  return parents;
}

export function buildParityTable(input: ParityInput): ParityTable {
  const problems: string[] = [];
  const methodIds = new Set(Object.values(input.methods).flat());
  const fieldIds = new Set(Object.entries(input.fields).flatMap(([request, paths]) => paths.map((field) => `${request}.${field}`)));
  const resources = new Set(Object.keys(input.methods));

  const testsOf = new Map<string, string[]>();
  for (const [file, ids] of [...input.covers.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    for (const id of ids) {
      if (!methodIds.has(id) && !fieldIds.has(id)) {
        if (input.otherIds?.has(id)) continue;
        problems.push(
          `${file}: "// covers: ${id}" names no SDK method or request field; fix the name (e.g. interactions.create, CreateAgentInteraction.tools(function))`,
        );
        continue;
      }
      const files = testsOf.get(id) ?? [];
      if (!files.includes(file)) files.push(file);
      testsOf.set(id, files);
    }
  }
  for (const [id, note] of Object.entries(input.notes)) {
    // A note on the other table's field (an OpenAPI body's, beside the SDK's) is that table's to check.
    if (!methodIds.has(id) && !fieldIds.has(id) && !resources.has(id) && !input.otherIds?.has(id)) {
      problems.push(`${NOTES_FILE}: the note on "${id}" names nothing the SDK has; remove it or rename it`);
    }
    if ("sameAs" in note) {
      if (!fieldIds.has(note.sameAs) && !methodIds.has(note.sameAs)) {
        problems.push(`${NOTES_FILE}: the note on "${id}" is the same as "${note.sameAs}", which the SDK does not have`);
      }
    } else if (note.why.trim() === "") problems.push(`${NOTES_FILE}: the note on "${id}" says no why; say what the emulator does instead`);
  }

  const rowOf = (id: string, hops = 0): ParityRow | null => {
    const levels = [id, ...parentsOf(id)];
    const noteLevel = levels.findIndex((level) => level in input.notes);
    const testLevel = levels.findIndex((level) => testsOf.has(level));
    // The nearest declaration wins; at the same level a note says what the tests there show.
    if (noteLevel >= 0 && (testLevel < 0 || noteLevel <= testLevel)) {
      const from = levels[noteLevel] as string;
      const note = input.notes[from] as ParityNote;
      if ("sameAs" in note) {
        const target = `${note.sameAs}${id.slice(from.length)}`;
        const same = hops < 5 && (fieldIds.has(target) || methodIds.has(target)) ? rowOf(target, hops + 1) : null;
        if (same === null) {
          problems.push(
            `${id}: the note on "${from}" points to "${target}", which has no mark of its own (or the notes go round in a loop)`,
          );
          return null;
        }
        return { ...same, id, from, sameAs: target };
      }
      const tests = testLevel >= 0 && testLevel <= noteLevel ? (testsOf.get(levels[testLevel] as string) ?? []) : [];
      return { id, mark: note.mark, from, why: note.why, tests: [...tests] };
    }
    if (testLevel >= 0) {
      const from = levels[testLevel] as string;
      return { id, mark: "served", from, tests: [...(testsOf.get(from) ?? [])] };
    }
    problems.push(
      `${id}: no mark and no covering test; add "// covers: ${id}" to a test that calls it and asserts its outcome, or a note in ${NOTES_FILE}`,
    );
    return null;
  };
  const rows = (ids: readonly string[]) => ids.map((id) => rowOf(id)).filter((row): row is ParityRow => row !== null);

  const methods: Record<string, ParityRow[]> = {};
  for (const [resource, ids] of Object.entries(input.methods)) methods[resource] = rows(ids);
  const fields: Record<string, ParityRow[]> = {};
  for (const [request, paths] of Object.entries(input.fields)) fields[request] = rows(paths.map((field) => `${request}.${field}`));
  return { methods, fields, problems };
}
