// /{v}/triggers (docs/triggers.md): the SDK's seven methods. Run is POST …/triggers/{id}/executions
// and listExecutions GET of the same path, as @google/genai 3.3 sends them.

import { Router } from "express";
import { z } from "zod";
import type { ListTriggerExecutionsResponseBody, ListTriggersResponseBody } from "../wire/openapi-types.js";
import { renderExecution, renderTrigger } from "../triggers/render-trigger.js";
import { createTriggerSchema, runTriggerSchema, updateTriggerSchema } from "../triggers/trigger-schemas.js";
import type { TriggerService } from "../triggers/trigger-service.js";
import { ownerOfRequest } from "./auth.js";
import { sendJson } from "./json-stream-writer.js";
import { listQuery, mountResourceRoutes } from "./resource-routes.js";
import { parseOrThrow } from "./zod-errors.js";

const triggersQuery = listQuery.extend({ filter: z.string().optional() });

export function triggersRouter(service: TriggerService, options: { pageBytes: number }): Router {
  const router = Router();

  mountResourceRoutes(router, {
    collection: "triggers",
    render: renderTrigger,
    // Its fields (the interaction's as a full interactions.create request) are held to what the SDK
    // declares before this (declared-fields-only.ts, "triggers.create").
    create: (owner, body) => service.create(owner, parseOrThrow(createTriggerSchema, body)),
    listQuery: triggersQuery,
    list: (owner, query) => {
      const page = service.list(owner, query.page_size, query.page_token, query.filter, options.pageBytes);
      return { triggers: page.triggers.map(renderTrigger), next_page_token: page.nextPageToken } satisfies ListTriggersResponseBody;
    },
    get: (owner, id) => service.get(owner, id),
    update: (owner, id, body, updateMask) => service.update(owner, id, parseOrThrow(updateTriggerSchema, body), updateMask),
    delete: (owner, id) => service.delete(owner, id),
  });

  router.post("/triggers/:id/executions", async (req, res) => {
    parseOrThrow(runTriggerSchema, req.body ?? {});
    res.status(200).json(renderExecution(await service.runNow(ownerOfRequest(req), req.params.id)));
  });

  router.get("/triggers/:id/executions", async (req, res) => {
    const query = parseOrThrow(triggersQuery, req.query);
    const page = service.executions(ownerOfRequest(req), req.params.id, query.page_size, query.page_token);
    const body = {
      trigger_executions: page.executions.map(renderExecution),
      next_page_token: page.nextPageToken,
    } satisfies ListTriggerExecutionsResponseBody;
    await sendJson(res, body);
  });

  return router;
}
