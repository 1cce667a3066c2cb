// GET /emulator/interactions: the key's stored interactions, newest first, as summaries, filtered by
// status, agent (or model) and environment, paged; with ?stream=true, the live feed of their changes
// instead (server-sent events: `interaction.summary` when one is created, finishes a step or changes
// status, `interaction.deleted`). The dashboard's list is these two (docs/api.md, docs/dashboard.md).

import { Router } from "express";
import { z } from "zod";
import { decodePageToken, encodePageToken } from "../common/page-token.js";
import type { InteractionService } from "../interactions/interaction-service.js";
import type { InteractionListFilter, ListPosition } from "../interactions/interaction-listing.js";
import type { FeedEvent } from "../interactions/interaction-feed.js";
import { INTERACTION_STATUSES } from "../agent/steps.js";
import { ownerOfRequest } from "./auth.js";
import { sendFeed } from "./feed-stream.js";
import { listQuery } from "./resource-routes.js";
import { parseOrThrow } from "./zod-errors.js";

/** Every status an interaction can have, as the list's status filter accepts them. */
const STATUSES = INTERACTION_STATUSES;

const interactionsQuery = listQuery.extend({
  status: z.enum(STATUSES, { error: `must be one of ${STATUSES.join(", ")}` }).optional(),
  agent: z.string().min(1, "must name an agent or a model").optional(),
  environment_id: z.string().min(1, "must be an environment ID (env_…)").optional(),
  stream: z.enum(["true", "false"], { error: 'must be "true" (the live feed) or "false"' }).optional(),
});

export function interactionListRouter(service: InteractionService): Router {
  const router = Router();

  router.get("/interactions", (req, res) => {
    const query = parseOrThrow(interactionsQuery, req.query);
    const owner = ownerOfRequest(req);
    if (query.stream === "true") {
      sendFeed<FeedEvent>(res, (listener) => service.watch(owner, listener));
      return;
    }
    const filter: InteractionListFilter = {
      ...(query.status !== undefined ? { status: query.status } : {}),
      ...(query.agent !== undefined ? { agent: query.agent } : {}),
      ...(query.environment_id !== undefined ? { environmentId: query.environment_id } : {}),
    };
    const token = query.page_token ? decodePageToken(query.page_token, isListPosition) : null;
    const after: ListPosition | null = token ? { created: token[0], seq: token[1] } : null;
    const page = service.list(owner, filter, query.page_size + 1, after);
    const shown = page.slice(0, query.page_size);
    const last = shown.at(-1);
    res.status(200).json({
      interactions: shown.map((listed) => listed.summary),
      next_page_token: page.length > query.page_size && last ? encodePageToken([last.position.created, last.position.seq]) : "",
    });
  });

  return router;
}

function isListPosition(value: unknown): value is [string, number] {
  return Array.isArray(value) && value.length === 2 && typeof value[0] === "string" && Number.isSafeInteger(value[1]);
}
