// The /{v}/agents resource (ai.agents in the SDK): create, list, get, delete. No update: the SDK has none.

import { Router } from "express";
import { createAgentSchema } from "../agents/agent-schemas.js";
import { renderAgent, type AgentService } from "../agents/agent-service.js";
import { idOf } from "../api/resource-names.js";
import type { ListAgentsResponseBody } from "../wire/openapi-types.js";
import { mountResourceRoutes } from "./resource-routes.js";
import { parseOrThrow } from "./zod-errors.js";

export function agentsRouter(service: AgentService, options: { pageBytes: number }): Router {
  const router = Router();
  mountResourceRoutes(router, {
    collection: "agents",
    render: renderAgent,
    create: (owner, body) => service.create(owner, parseOrThrow(createAgentSchema, body)),
    list: (owner, query) => {
      const page = service.list(owner, query.page_size, query.page_token, options.pageBytes);
      return { agents: page.agents.map(renderAgent), next_page_token: page.nextPageToken } satisfies ListAgentsResponseBody;
    },
    // An agent may be named "agents/{id}" as well as "{id}" (resource-names.ts).
    get: (owner, id) => service.get(owner, idOf("agents", id)),
    delete: (owner, id) => service.delete(owner, idOf("agents", id)),
  });
  return router;
}
