// The /{v}/agents resource (ai.agents in the SDK): create, list, get, delete. No update: the SDK has none.

import { Router } from "express";
import { z } from "zod";
import { createAgentSchema } from "../agents/agent-schemas.js";
import { renderAgent, type AgentService } from "../agents/agent-service.js";
import { idOf } from "../api/resource-names.js";
import { ownerOfRequest } from "./auth.js";
import { sendJson } from "./json-stream-writer.js";
import { parseOrThrow } from "./zod-errors.js";

const listQuery = z.looseObject({
  page_size: z.coerce.number().int().min(1).max(1000).default(50),
  page_token: z.string().optional(),
});

export function agentsRouter(service: AgentService, options: { pageBytes: number }): Router {
  const router = Router();

  router.post("/agents", (req, res) => {
    const record = service.create(ownerOfRequest(req), parseOrThrow(createAgentSchema, req.body));
    res.status(200).json(renderAgent(record));
  });

  // Pages bounded in bytes (EMULATOR_LIST_PAGE_BYTES), written piece by piece: never one string.
  router.get("/agents", async (req, res) => {
    const query = parseOrThrow(listQuery, req.query);
    const page = service.list(ownerOfRequest(req), query.page_size, query.page_token, options.pageBytes);
    await sendJson(res, { agents: page.agents.map(renderAgent), next_page_token: page.nextPageToken });
  });

  router.get("/agents/:id", (req, res) => {
    res.status(200).json(renderAgent(service.get(ownerOfRequest(req), idOf("agents", req.params.id))));
  });

  router.delete("/agents/:id", (req, res) => {
    service.delete(ownerOfRequest(req), idOf("agents", req.params.id));
    res.status(200).json({});
  });

  return router;
}
