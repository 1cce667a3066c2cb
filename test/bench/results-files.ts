// Where the benchmark keeps its runs: bench/results/<UTC time>.json for each run and latest.json, a copy
// of the last one, which the next run compares itself with. The folder is git-ignored: figures belong
// to the machine they were taken on (docs/benchmarks.md#the-json).

import fs from "node:fs";
import path from "node:path";
import { projectRoot } from "../../server/common/paths.js";
import { type BenchDocument, isBenchDocument, resultFileName } from "./results.js";

export const RESULTS_DIRECTORY = path.join(projectRoot, "bench", "results");
export const LATEST_RESULTS = path.join(RESULTS_DIRECTORY, "latest.json");

/** A results document read from `file`, or why it cannot be used (absent, not JSON, another format). */
export function readResults(file: string): BenchDocument | string {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? `${file} does not exist` : `${file}: ${String(error)}`;
  }
  try {
    const parsed: unknown = JSON.parse(text);
    return isBenchDocument(parsed) ? parsed : `${file} is not a results file of this benchmark`;
  } catch {
    return `${file} is not JSON`;
  }
}

/** Writes the run's own file and replaces latest.json with it (through a rename, so a reader never sees half). */
export function writeResults(document: BenchDocument, directory = RESULTS_DIRECTORY): { file: string; latest: string } {
  fs.mkdirSync(directory, { recursive: true });
  const text = `${JSON.stringify(document, null, 2)}\n`;
  const file = path.join(directory, resultFileName(new Date(document.startedAt)));
  fs.writeFileSync(file, text);
  const latest = path.join(directory, "latest.json");
  const temporary = `${latest}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, text);
  fs.renameSync(temporary, latest);
  return { file, latest };
}
