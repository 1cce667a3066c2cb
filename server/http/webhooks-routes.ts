// The /{v}/webhooks routes as the SDK calls them (custom methods as "{id}:ping" and
// "{id}:rotateSigningSecret"), and GET /emulator/webhooks/deliveries: every delivery with each attempt.

import { Router } from "express";
import { z } from "zod";
import type { ListWebhooksResponseBody } from "../wire/openapi-types.js";
import { InvalidArgumentError, NotFoundError } from "../common/errors.js";
import { isoOf } from "../common/timestamps.js";
import type { WebhookService } from "../webhooks/webhook-service.js";
import type { WebhookStore, DeliveryRecord } from "../webhooks/webhook-store.js";
import { createWebhookSchema, pingWebhookSchema, rotateSigningSecretSchema, updateWebhookSchema } from "../webhooks/webhook-schemas.js";
import { ownerOfRequest } from "./auth.js";
import { listQuery, updateQuery } from "./resource-routes.js";
import { parseOrThrow } from "./zod-errors.js";

/**
 * [choice] Stored bytes (payload and attempts) of one page of the deliveries list, about: a page stops
 * before the delivery that would pass it (it always holds one), so the answer's size is bounded
 * whatever page_size asks for, and next_page_token goes on from there.
 */
export const DELIVERIES_PAGE_BYTES = 1024 * 1024;

const deliveriesQuery = z.looseObject({
  webhook_id: z.string().optional(),
  page_size: z.coerce.number().int().min(1).max(1000).default(100),
  page_token: z.string().regex(/^\d+$/, "must be the next_page_token of the previous page").optional(),
});

export function webhooksRouter(service: WebhookService): Router {
  const router = Router();

  router.post("/webhooks", (req, res) => {
    res.status(200).json(service.create(ownerOfRequest(req), parseOrThrow(createWebhookSchema, req.body ?? {})));
  });

  router.get("/webhooks", (req, res) => {
    const query = parseOrThrow(listQuery, req.query);
    const page = service.list(ownerOfRequest(req), query.page_size, query.page_token);
    res.status(200).json({
      webhooks: page.webhooks.map((record) => service.render(record)),
      ...(page.nextPageToken !== "" ? { next_page_token: page.nextPageToken } : {}),
    } satisfies ListWebhooksResponseBody);
  });

  // The webhooks page's REST example rotates at {id}/rotate_secret; the document and the SDK at
  // {id}:rotateSigningSecret (below): both (docs/fidelity.md#webhooks).
  router.post("/webhooks/:id/rotate_secret", (req, res) => {
    res
      .status(200)
      .json(service.rotateSigningSecret(ownerOfRequest(req), req.params.id, parseOrThrow(rotateSigningSecretSchema, req.body ?? {})));
  });

  // "{id}:ping" and "{id}:rotateSigningSecret" are one path segment: split here.
  router.post("/webhooks/:target", async (req, res) => {
    const [id, method, ...rest] = req.params.target.split(":");
    const owner = ownerOfRequest(req);
    if (rest.length === 0 && id && method === "ping") {
      parseOrThrow(pingWebhookSchema, req.body ?? {});
      await service.ping(owner, id);
      return res.status(200).json({});
    }
    if (rest.length === 0 && id && method === "rotateSigningSecret") {
      return res.status(200).json(service.rotateSigningSecret(owner, id, parseOrThrow(rotateSigningSecretSchema, req.body ?? {})));
    }
    throw new NotFoundError(
      `POST /webhooks/${req.params.target}: the webhook methods are {id}:ping and {id}:rotateSigningSecret (or {id}/rotate_secret).`,
    );
  });

  router.get("/webhooks/:id", (req, res) => {
    res.status(200).json(service.render(service.get(ownerOfRequest(req), req.params.id)));
  });

  router.patch("/webhooks/:id", (req, res) => {
    const { update_mask } = parseOrThrow(updateQuery, req.query);
    const record = service.update(ownerOfRequest(req), req.params.id, parseOrThrow(updateWebhookSchema, req.body ?? {}), update_mask);
    res.status(200).json(service.render(record));
  });

  router.delete("/webhooks/:id", (req, res) => {
    service.delete(ownerOfRequest(req), req.params.id);
    res.status(200).json({});
  });

  return router;
}

function renderDelivery(delivery: DeliveryRecord) {
  return {
    id: delivery.id,
    webhook_id: delivery.webhookId,
    uri: delivery.uri,
    event_type: delivery.eventType,
    status: delivery.status,
    create_time: delivery.createTime,
    next_attempt_time: delivery.nextAttemptMs !== null ? isoOf(delivery.nextAttemptMs) : null,
    attempts: delivery.attempts,
    payload: JSON.parse(delivery.body) as unknown,
  };
}

/** Mounted under /emulator: the key's deliveries, newest first. */
export function webhookDeliveriesRouter(store: WebhookStore): Router {
  const router = Router();
  router.get("/webhooks/deliveries", (req, res) => {
    const query = parseOrThrow(deliveriesQuery, req.query);
    const before = query.page_token === undefined ? null : Number(query.page_token);
    if (before !== null && !Number.isSafeInteger(before)) throw new InvalidArgumentError("page_token is out of range.");
    const filter = query.webhook_id !== undefined ? { webhookId: query.webhook_id } : {};
    const { page, more } = store.listDeliveries(ownerOfRequest(req), filter, query.page_size, before, DELIVERIES_PAGE_BYTES);
    res.status(200).json({
      deliveries: page.map((entry) => renderDelivery(entry.delivery)),
      ...(more && page.length > 0 ? { next_page_token: String(page[page.length - 1]!.seq) } : {}),
    });
  });
  return router;
}
