// GET /emulator/hooks/coverage: which rules of which hooks.json the caller's tool calls exercised
// (docs/hooks-coverage.md). Always scoped by the API key; optionally by environment and a start time.

import { Router } from "express";
import { z } from "zod";
import { InvalidArgumentError } from "../common/errors.js";
import type { CoverageService } from "../coverage/coverage-service.js";
import { ownerOfRequest } from "./auth.js";
import { sendJson } from "./json-stream-writer.js";
import { parseOrThrow } from "./zod-errors.js";

const coverageQuery = z.looseObject({
  environment: z.string().min(1, "must name an environment (its ID)").max(256).optional(),
  since: z.iso.datetime({ offset: true, error: "must be an RFC 3339 time such as 2026-01-01T00:00:00Z" }).optional(),
  include_text: z.enum(["true", "false"], { error: 'must be "true" or "false"' }).optional(),
});

export function coverageRouter(coverage: CoverageService): Router {
  const router = Router();
  router.get("/hooks/coverage", async (req, res) => {
    // [choice] Environments have no labels in this API, so there is nothing a label could select.
    if (req.query.label !== undefined) {
      throw new InvalidArgumentError("label: environments have no labels; scope coverage with environment=ID and since=TIME instead.");
    }
    const query = parseOrThrow(coverageQuery, req.query);
    const report = coverage.report(ownerOfRequest(req), {
      ...(query.environment !== undefined ? { environmentId: query.environment } : {}),
      ...(query.since !== undefined ? { sinceMs: Date.parse(query.since) } : {}),
      includeText: query.include_text === "true",
    });
    await sendJson(res, report);
  });
  return router;
}
