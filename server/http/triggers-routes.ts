// /{v}/triggers (docs/triggers.md): the SDK's seven methods. Run is POST …/triggers/{id}/executions
// and listExecutions GET of the same path, as @google/genai 3.3 sends them.

import { Router } from "express";
import { z } from "zod";
import { renderExecution, renderTrigger } from "../triggers/render-trigger.js";
import { createTriggerSchema, updateTriggerSchema } from "../triggers/trigger-schemas.js";
import type { TriggerService } from "../triggers/trigger-service.js";
import { ownerOfRequest } from "./auth.js";
import { sendJson } from "./json-stream-writer.js";
import { parseOrThrow } from "./zod-errors.js";

const listQuery = z.looseObject({
  page_size: z.coerce.number().int().min(1).max(1000).default(50),
  page_token: z.string().optional(),
  filter: z.string().optional(),
});
const updateQuery = z.looseObject({ update_mask: z.string().optional() });

export function triggersRouter(service: TriggerService, options: { pageBytes: number }): Router {
  const router = Router();

  router.post("/triggers", (req, res) => {
    // Its fields (the interaction's as a full interactions.create request) are held to what the SDK
    // declares before this (declared-fields-only.ts, "triggers.create").
    const request = parseOrThrow(createTriggerSchema, req.body ?? {});
    res.status(200).json(renderTrigger(service.create(ownerOfRequest(req), request)));
  });

  // Pages bounded in bytes (EMULATOR_LIST_PAGE_BYTES), written piece by piece: never one string.
  router.get("/triggers", async (req, res) => {
    const query = parseOrThrow(listQuery, req.query);
    const page = service.list(ownerOfRequest(req), query.page_size, query.page_token, query.filter, options.pageBytes);
    await sendJson(res, { triggers: page.triggers.map(renderTrigger), next_page_token: page.nextPageToken });
  });

  router.get("/triggers/:id", (req, res) => {
    res.status(200).json(renderTrigger(service.get(ownerOfRequest(req), req.params.id)));
  });

  router.patch("/triggers/:id", (req, res) => {
    const { update_mask } = parseOrThrow(updateQuery, req.query);
    const record = service.update(ownerOfRequest(req), req.params.id, parseOrThrow(updateTriggerSchema, req.body ?? {}), update_mask);
    res.status(200).json(renderTrigger(record));
  });

  router.delete("/triggers/:id", (req, res) => {
    service.delete(ownerOfRequest(req), req.params.id);
    res.status(200).json({});
  });

  router.post("/triggers/:id/executions", async (req, res) => {
    res.status(200).json(renderExecution(await service.runNow(ownerOfRequest(req), req.params.id)));
  });

  router.get("/triggers/:id/executions", async (req, res) => {
    const query = parseOrThrow(listQuery, req.query);
    const page = service.executions(ownerOfRequest(req), req.params.id, query.page_size, query.page_token);
    await sendJson(res, { trigger_executions: page.executions.map(renderExecution), next_page_token: page.nextPageToken });
  });

  return router;
}
