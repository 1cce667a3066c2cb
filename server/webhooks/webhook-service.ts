// The /{v}/webhooks resource: create, list, get, update (PATCH with update_mask), delete, :ping and
// :rotateSigningSecret. A signing secret is shown whole once (new_signing_secret at creation, secret
// in the rotation's answer); afterwards signing_secrets lists each truncated with its expire_time.

import { randomBytes } from "node:crypto";
import type { Webhook } from "../wire/openapi-types.js";
import type { OwnerClock } from "../common/test-clocks.js";
import { FailedPreconditionError, InvalidArgumentError, NotFoundError } from "../common/errors.js";
import { pageById } from "../common/page-token.js";
import { fieldsToUpdate } from "../common/update-mask.js";
import { nowTimestamp, timestampOf } from "../common/timestamps.js";
import { newSigningSecret, truncateSecret } from "./signing-secret.js";
import type { WebhookDeliveries } from "./webhook-deliveries.js";
import { type DeliveryReach, whyNotDeliverable } from "./webhook-hosts.js";
import {
  UPDATABLE_FIELDS,
  type CreateWebhookRequest,
  type RotateSigningSecretRequest,
  type UpdateWebhookRequest,
} from "./webhook-schemas.js";
import type { WebhookRecord, WebhookStore } from "./webhook-store.js";
import { eventPayload } from "./webhook-payload.js";

/** How long the secrets before a rotation keep signing with revoke_previous_secrets_after_h24 (the default). */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** The Webhook as the emulator answers it: the document's (server/wire/openapi-types.ts), every field but the name and the once-shown secret given. */
export type WebhookResource = Webhook & Required<Pick<Webhook, "id" | "state" | "signing_secrets" | "create_time" | "update_time">>;

export interface WebhookServiceOptions {
  /** Where deliveries may go (EMULATOR_WEBHOOK_HOSTS, EMULATOR_WEBHOOK_LOOPBACK_PORTS). */
  reach: DeliveryReach;
  /** Webhooks one API key may have (EMULATOR_MAX_WEBHOOKS_PER_KEY): each takes a delivery of every event. */
  maxPerKey: number;
}

export class WebhookService {
  constructor(
    private readonly store: WebhookStore,
    private readonly deliveries: WebhookDeliveries,
    /** Each owner's clock: a rotated secret's overlap is on its owner's. */
    private readonly clocks: OwnerClock,
    private readonly options: WebhookServiceOptions,
  ) {}

  render(record: WebhookRecord): WebhookResource {
    const now = this.clocks.now(record.owner);
    const secrets = this.store
      .secrets(record.owner, record.id)
      .filter((secret) => secret.expireMs === null || secret.expireMs > now)
      .map((secret) => ({
        truncated_secret: truncateSecret(secret.secret),
        ...(secret.expireMs !== null ? { expire_time: timestampOf(secret.expireMs) } : {}),
      }));
    return {
      id: record.id,
      ...(record.name !== null ? { name: record.name } : {}),
      uri: record.uri,
      subscribed_events: record.subscribedEvents,
      state: record.state,
      signing_secrets: secrets,
      create_time: record.createTime,
      update_time: record.updateTime,
    };
  }

  create(owner: string, request: CreateWebhookRequest): WebhookResource {
    this.checkUri(request.uri);
    if (this.store.count(owner) >= this.options.maxPerKey) {
      throw new FailedPreconditionError(
        `this API key has ${this.options.maxPerKey} webhooks, the most one key may have (EMULATOR_MAX_WEBHOOKS_PER_KEY); delete one it no longer needs first.`,
      );
    }
    const now = nowTimestamp();
    const record: WebhookRecord = {
      owner,
      id: `wh_${randomBytes(12).toString("hex")}`,
      name: request.name ?? null,
      uri: request.uri,
      subscribedEvents: [...new Set(request.subscribed_events)],
      state: "enabled",
      createTime: now,
      updateTime: now,
    };
    const secret = newSigningSecret();
    this.store.insert(record, secret);
    return { ...this.render(record), new_signing_secret: secret };
  }

  get(owner: string, id: string): WebhookRecord {
    const record = this.store.get(owner, id);
    if (!record) throw new NotFoundError(`Webhook ${id} not found.`);
    return record;
  }

  list(owner: string, pageSize: number, pageToken: string | undefined): { webhooks: WebhookRecord[]; nextPageToken: string } {
    const { items, nextPageToken } = pageById(pageSize, pageToken, (limit, afterId) => this.store.list(owner, limit, afterId));
    return { webhooks: items, nextPageToken };
  }

  update(owner: string, id: string, changes: UpdateWebhookRequest, updateMask: string | undefined): WebhookRecord {
    const record = this.get(owner, id);
    const given = Object.keys(changes).filter((key) => (changes as Record<string, unknown>)[key] !== undefined);
    const masked = fieldsToUpdate(updateMask, given);
    const wrong = masked.filter((field) => !(UPDATABLE_FIELDS as readonly string[]).includes(field));
    if (wrong.length > 0) {
      throw new InvalidArgumentError(`update_mask: cannot update ${wrong.join(", ")}; updatable fields: ${UPDATABLE_FIELDS.join(", ")}.`);
    }
    const next: WebhookRecord = { ...record, updateTime: nowTimestamp() };
    for (const field of masked) {
      if (field === "name") next.name = changes.name ?? null;
      if (field === "uri") {
        if (changes.uri === undefined) throw new InvalidArgumentError("uri is in update_mask but not in the body; a webhook needs a URI.");
        this.checkUri(changes.uri);
        next.uri = changes.uri;
      }
      if (field === "subscribed_events") {
        if (changes.subscribed_events === undefined) {
          throw new InvalidArgumentError("subscribed_events is in update_mask but not in the body; a webhook needs at least one event.");
        }
        next.subscribedEvents = [...new Set(changes.subscribed_events)];
      }
      if (field === "state") {
        if (changes.state === undefined)
          throw new InvalidArgumentError('state is in update_mask but not in the body; give "enabled" or "disabled".');
        // [choice] The emulator alone sets disabled_due_to_failed_deliveries; a user re-enables with "enabled".
        if (changes.state === "disabled_due_to_failed_deliveries") {
          throw new InvalidArgumentError(
            'state: disabled_due_to_failed_deliveries is set by the service when deliveries fail; set "enabled" or "disabled".',
          );
        }
        next.state = changes.state;
      }
    }
    this.store.replace(next);
    return next;
  }

  delete(owner: string, id: string): void {
    if (!this.store.delete(owner, id)) throw new NotFoundError(`Webhook ${id} not found.`);
  }

  /** Rotates the secret; the ones before it sign for 24 more hours of the emulator's clock, or stop at once. */
  rotateSigningSecret(owner: string, id: string, request: RotateSigningSecretRequest): { secret: string } {
    this.get(owner, id);
    const secret = newSigningSecret();
    const immediately = request.revocation_behavior === "revoke_previous_secrets_immediately";
    this.store.rotate(owner, id, secret, immediately ? null : this.clocks.now(owner) + ROTATION_OVERLAP_MS, nowTimestamp());
    return { secret };
  }

  /**
   * [choice] A ping is one signed delivery of a `webhook.ping` event, made before the answer (to a
   * disabled webhook too), listed with the other deliveries, never retried and never disabling.
   */
  async ping(owner: string, id: string): Promise<void> {
    const webhook = this.get(owner, id);
    await this.deliveries.sendNow({
      owner,
      webhookId: webhook.id,
      uri: webhook.uri,
      eventType: "webhook.ping",
      payload: eventPayload("webhook.ping", this.clocks.now(owner), { id: webhook.id }),
      retries: false,
    });
  }

  private checkUri(uri: string): void {
    const why = whyNotDeliverable(uri, this.options.reach);
    if (why !== null) throw new InvalidArgumentError(`uri: ${why}.`);
  }
}
