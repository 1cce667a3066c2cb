// The emulator's own debug API, outside /{version}/ so it can never collide with the real protocol.
// GET /emulator/interactions/{id}/hooks: what the hooks did around each tool call of an interaction.
// GET /emulator/interactions/{id}/planner: the agent's planner state after the run, which a later
// interaction naming this one (previous_interaction_id) resumes (null while it runs).
// GET /emulator/interactions/{id}/model-turns: each model turn of a model-driven run, once it ended.
// GET /emulator/environments/{id}/egress: every connection attempt the environment's sandbox made.

import { Router } from "express";
import { z } from "zod";
import type { EgressLogStore } from "../egress/egress-log-store.js";
import { InvalidArgumentError, NotFoundError } from "../common/errors.js";
import type { InteractionService } from "../interactions/interaction-service.js";
import type { EnvironmentStore } from "../environments/environment-store.js";
import { modelTurnsOf } from "../planners/model/model-planner-state.js";
import { ownerOfRequest } from "./auth.js";
import { sendJson } from "./json-stream-writer.js";
import { parseOrThrow } from "./zod-errors.js";

const pageQuery = z.looseObject({
  page_size: z.coerce.number().int().min(1).max(1000).default(100),
  page_token: z.string().regex(/^\d+$/, "must be the next_page_token of the previous page").optional(),
});

export interface EmulatorRouteSources {
  interactions: InteractionService;
  environments: EnvironmentStore;
  egressLog: EgressLogStore;
}

export function emulatorRouter({ interactions: service, environments, egressLog }: EmulatorRouteSources): Router {
  const router = Router();

  router.get("/environments/:id/egress", (req, res) => {
    const environment = environments.get(req.params.id, ownerOfRequest(req));
    if (!environment) throw new NotFoundError(`Environment ${req.params.id} not found.`);
    const query = parseOrThrow(pageQuery, req.query);
    const after = query.page_token === undefined ? 0 : Number(query.page_token);
    if (!Number.isSafeInteger(after)) throw new InvalidArgumentError("page_token is out of range.");
    const page = egressLog.list(environment.id, query.page_size, after);
    const full = page.entries.length === query.page_size;
    res.status(200).json({
      environment_id: environment.id,
      entries: page.entries,
      next_page_token: full && page.lastSeq !== null ? String(page.lastSeq) : "",
    });
  });

  // Written piece by piece: an interaction of a thousand calls has a thousand traces (json-stream-writer.ts).
  router.get("/interactions/:id/hooks", async (req, res) => {
    const record = service.get(req.params.id, ownerOfRequest(req));
    await sendJson(res, {
      interaction_id: record.id,
      environment_id: record.environmentId,
      tool_calls: record.hookTraces,
    });
  });

  // The model turns of a model-driven run (docs/model-agent.md#the-dashboard); none for a scripted one.
  router.get("/interactions/:id/model-turns", async (req, res) => {
    const record = service.get(req.params.id, ownerOfRequest(req));
    await sendJson(res, { interaction_id: record.id, turns: modelTurnsOf(record.plannerState) });
  });

  router.get("/interactions/:id/planner", async (req, res) => {
    const record = service.get(req.params.id, ownerOfRequest(req));
    await sendJson(res, {
      interaction_id: record.id,
      previous_interaction_id: record.previousInteractionId,
      planner_state: record.plannerState ?? null,
    });
  });
  return router;
}
