// The one list of the places where the emulator's request validation differs on purpose from the
// service's OpenAPI document (schemas/interactions.requests.exceptions.json): stricter (a safety bound,
// a reserved path, a newer page's rule) or looser (what a newer reference, the documentation or
// @google/genai 3.3.0, allows, or a defect of the document). The request audit
// (test/integration/openapi-requests.test.ts) fails on a difference not listed here and on an entry no
// case shows; the parity table (docs/coverage.md) marks a field this file says is refused, and
// docs/fidelity.md's section on requests is written from it.

import fs from "node:fs";
import path from "node:path";
import { projectRoot } from "../../server/common/paths.js";

export const REQUEST_EXCEPTIONS_FILE = path.join(projectRoot, "schemas", "interactions.requests.exceptions.json");

export interface RequestException {
  /** The field's row id in docs/coverage.md (`CreateAgentInteraction.webhook_config.uris`); it holds for the fields below it too. */
  field: string;
  /** stricter: the emulator refuses what the document allows; looser: it accepts what the document refuses. */
  direction: "stricter" | "looser";
  /**
   * For a stricter entry, what is refused: the field whatever its value (`field`), some of the values
   * the document allows (`some values`), or only the document's bare minimum at this place, which the
   * emulator needs more of (`minimal`, with `base`).
   */
  refuses?: "field" | "some values" | "minimal";
  /** Which values, for `some values` (a few words, shown in docs/coverage.md). */
  values?: string;
  why: string;
  /** Which reference wins, and so which side the emulator follows. */
  wins: string;
  /**
   * An open difference: found by the request audit and not triaged yet (neither fixed nor argued as a
   * choice). Listed so that the audit fails on anything new and on a gap once closed; shown as open in
   * docs/fidelity.md, and a stricter one marks its field in docs/coverage.md all the same.
   */
  open?: boolean;
  /** What the emulator needs at this place beyond the document's required fields (the audit's cases build on it). */
  base?: unknown;
}

export function readRequestExceptions(file = REQUEST_EXCEPTIONS_FILE): RequestException[] {
  const parsed = JSON.parse(fs.readFileSync(file, "utf8")) as { exceptions?: RequestException[] };
  const exceptions = parsed.exceptions ?? [];
  for (const entry of exceptions) {
    if (typeof entry.field !== "string" || !["stricter", "looser"].includes(entry.direction) || !entry.why?.trim() || !entry.wins?.trim()) {
      throw new Error(
        `${path.basename(file)}: each exception needs a field, a direction (stricter or looser), a why and a wins: ${JSON.stringify(entry)}`,
      );
    }
  }
  return exceptions;
}
