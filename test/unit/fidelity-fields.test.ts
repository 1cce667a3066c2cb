// Every top-level field the SDK declares for POST /interactions (either variant) is documented: named in
// wire-protocol.md's request-body table (what the emulator does with it) or in fidelity.md's list of
// declared fields it accepts without emulating them. A field a newer SDK adds fails here until the docs
// say what becomes of it.

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { type ObjectNode, declaredFieldsTable } from "../../server/api/declared-fields.js";
import { projectRoot } from "../../server/common/paths.js";

function section(file: string, heading: string): string {
  const text = fs.readFileSync(path.join(projectRoot, "docs", file), "utf8");
  const start = text.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `${file} has "${heading}"`);
  const level = heading.split(" ")[0]!;
  const next = text.indexOf(`\n${level} `, start + heading.length + 2);
  return text.slice(start, next === -1 ? undefined : next);
}

/** The fields named in backticks in the first cell of a table's rows. */
function firstCellFields(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split("\n")) {
    const cell = /^\| ([^|]+) \|/.exec(line)?.[1] ?? "";
    for (const match of cell.matchAll(/`([a-z_]+)`/g)) names.add(match[1]!);
  }
  return names;
}

describe("the docs name every declared create field", () => {
  it("in wire-protocol.md's request body or fidelity.md's fields not emulated", () => {
    const table = declaredFieldsTable();
    const variants = ["CreateAgentInteraction", "CreateModelInteraction"].map((name) => table.types[name] as ObjectNode);
    const declared = new Set(variants.flatMap((variant) => Object.keys(variant.fields)));
    const documented = new Set([
      ...firstCellFields(section("wire-protocol.md", "## The request body")),
      ...firstCellFields(section("fidelity.md", "## Unknown fields")),
    ]);
    const missing = [...declared].filter((field) => !documented.has(field)).sort();
    assert.deepEqual(missing, [], `declared by the SDK but documented nowhere: ${missing.join(", ")}`);
  });
});
