// The parity table as the repository holds it now: the installed SDK, the test files, the notes.
// Shared by the generator (write-coverage.ts) and the staleness test.

import path from "node:path";
import { projectRoot } from "../common/paths.js";
import { sdkRequestFieldsTable, sdkVersion } from "../sdk-request-fields.js";
import { coverageMarkdown } from "./coverage-markdown.js";
import { PARITY_NOTES } from "./parity-notes.js";
import { buildParityTable } from "./parity-table.js";
import { sdkMethods, sdkRequestPaths } from "./sdk-surface.js";
import { readTestCovers } from "./test-covers.js";

export const COVERAGE_FILE = path.join(projectRoot, "docs", "coverage.md");

export function parityTableNow(): { problems: string[]; markdown: string } {
  const table = buildParityTable({
    methods: sdkMethods(),
    fields: sdkRequestPaths(sdkRequestFieldsTable()),
    covers: readTestCovers(),
    notes: PARITY_NOTES,
  });
  return { problems: table.problems, markdown: coverageMarkdown(table, `@google/genai ${sdkVersion()}`) };
}
