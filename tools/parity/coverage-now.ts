// The parity table as the repository holds it now: the installed SDK, the OpenAPI document, the test
// files, the notes. Shared by the generator (write-coverage.ts) and the staleness test.

import fs from "node:fs";
import path from "node:path";
import { projectRoot } from "../../server/common/paths.js";
import { sdkRequestFieldsTable, sdkVersion } from "../sdk-request-fields.js";
import { coverageMarkdown, type DocumentTables } from "./coverage-markdown.js";
import { DOC_EXAMPLE_NOTES } from "./doc-examples.js";
import { openApiOperations, openApiRequestFields, readOpenApi } from "./openapi-surface.js";
import { PARITY_NOTES } from "./parity-notes.js";
import { buildParityTable } from "./parity-table.js";
import { readRequestExceptions } from "./request-exceptions.js";
import { requestsSection, withRequestRefusals, withRequestsSection } from "./request-refusals.js";
import { sdkMethods, sdkRequestPaths } from "./sdk-surface.js";
import { REFERENCE_SAMPLE_NOTES, referenceSampleRows, referenceSamples } from "./reference-samples.js";
import { readDocExamples, readReferenceSampleLines, readTestCovers } from "./test-covers.js";

export const COVERAGE_FILE = path.join(projectRoot, "docs", "coverage.md");
export const FIDELITY_FILE = path.join(projectRoot, "docs", "fidelity.md");

/** docs/fidelity.md with its section on requests as the exceptions file gives it now. */
export function fidelityNow(): string {
  return withRequestsSection(fs.readFileSync(FIDELITY_FILE, "utf8"), requestsSection(readRequestExceptions()));
}

export function parityTableNow(): { problems: string[]; markdown: string } {
  const document = readOpenApi();
  const openApiFields = openApiRequestFields(document);
  const otherIds = new Set(Object.entries(openApiFields).flatMap(([request, fields]) => fields.map((field) => `${request}.${field}`)));
  const covers = readTestCovers();
  const methods = sdkMethods();
  const sdkFields = sdkRequestPaths(sdkRequestFieldsTable());
  const sdkIds = new Set([
    ...Object.values(methods).flat(),
    ...Object.entries(sdkFields).flatMap(([request, fields]) => fields.map((field) => `${request}.${field}`)),
  ]);
  const table = buildParityTable({
    methods,
    fields: sdkFields,
    covers,
    notes: PARITY_NOTES,
    otherIds,
  });
  // The document's other request bodies: a field no test or note declares is listed as such, not a problem
  // (the table shows what is not shown yet rather than hiding it).
  const bodies = buildParityTable({ methods: {}, fields: openApiFields, covers, notes: PARITY_NOTES, otherIds: sdkIds });
  // A served field the emulator refuses (some values of) where the document allows it says so.
  const exceptions = readRequestExceptions();
  for (const [request, rows] of Object.entries(table.fields)) table.fields[request] = withRequestRefusals(rows, exceptions);
  const samples = referenceSampleRows(referenceSamples(document), readReferenceSampleLines(), REFERENCE_SAMPLE_NOTES);
  const problems = [...table.problems, ...samples.problems];
  const unshown = new Set(
    bodies.problems
      .map((problem) => /^(\S+): no mark and no covering test/.exec(problem)?.[1])
      .filter((id): id is string => id !== undefined),
  );
  const documentTables: DocumentTables = {
    operations: openApiOperations(document),
    fields: Object.fromEntries(
      Object.entries(openApiFields).map(([request, fields]) => [
        request,
        withRequestRefusals(
          fields.map((field) => {
            const id = `${request}.${field}`;
            return bodies.fields[request]?.find((row) => row.id === id) ?? { id, mark: "no test yet" as const, from: id, tests: [] };
          }),
          exceptions,
        ),
      ]),
    ),
    unshown: unshown.size,
    examples: readDocExamples(),
    exampleNotes: DOC_EXAMPLE_NOTES,
    referenceSamples: samples.rows,
  };
  return { problems, markdown: coverageMarkdown(table, `@google/genai ${sdkVersion()}`, documentTables) };
}
