// What the tests say they cover: every `// covers: id, id …` line of the test files (test/**/*.test.ts).
// An id is an SDK method (`interactions.create`, `environments.files.upload`) or a request field
// (`CreateAgentInteraction.tools(function)`, as docs/coverage.md writes them). A test names a method
// only when it calls it, through the SDK or HTTP, and asserts what comes back; a field, when it sends
// the field and asserts what the emulator does with it. The parity table checks every id exists.

import fs from "node:fs";
import path from "node:path";
import { projectRoot } from "../../server/common/paths.js";
import { type ReferenceSampleLine, referenceSampleLinesOf } from "./reference-samples.js";

const COVERS_LINE = /^\s*\/\/\s*covers:(.*)$/gm;

/** The ids one file's `// covers:` lines name, in order, without repeats. */
export function coversOf(text: string): string[] {
  const ids: string[] = [];
  for (const match of text.matchAll(COVERS_LINE)) {
    for (const id of (match[1] ?? "").split(/[\s,]+/)) if (id !== "" && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

/** Every test file that declares covers (relative path with forward slashes → its ids). */
export function readTestCovers(root = projectRoot): Map<string, string[]> {
  const covers = new Map<string, string[]>();
  for (const [file, text] of testFiles(root)) {
    const ids = coversOf(text);
    if (ids.length > 0) covers.set(file, ids);
  }
  return new Map([...covers.entries()].sort(([a], [b]) => a.localeCompare(b)));
}

/** Every test file (each `.test.ts` under test/): its path relative to the root, with forward slashes, and its text. */
function testFiles(root: string): Array<[string, string]> {
  const files: Array<[string, string]> = [];
  const walk = (relative: string): void => {
    for (const entry of fs.readdirSync(path.join(root, relative), { withFileTypes: true })) {
      const child = path.posix.join(relative, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (entry.name.endsWith(".test.ts")) files.push([child, fs.readFileSync(path.join(root, child), "utf8")]);
    }
  };
  walk("test");
  return files;
}

const EXAMPLE_LINE = /^\s*\/\/\s*(doc-example:|\(fails\))\s*(.+)$/gm;

/** One documentation example a test sends: its `page#section: what (languages)` and whether the test is a known failure. */
export interface DocExampleLine {
  example: string;
  fails: boolean;
  file: string;
}

/** Every `// doc-example:` and `// (fails)` line of the test files. */
export function readDocExamples(root = projectRoot): DocExampleLine[] {
  const lines: DocExampleLine[] = [];
  for (const [file, text] of testFiles(root)) {
    for (const match of text.matchAll(EXAMPLE_LINE)) lines.push({ example: (match[2] ?? "").trim(), fails: match[1] === "(fails)", file });
  }
  return lines.sort((a, b) => a.example.localeCompare(b.example) || a.file.localeCompare(b.file));
}

/** Every `// reference-sample:` line of the test files (tools/parity/reference-samples.ts). */
export function readReferenceSampleLines(root = projectRoot): ReferenceSampleLine[] {
  return testFiles(root).flatMap(([file, text]) => referenceSampleLinesOf(text, file));
}
