// The Webhook resource as the official SDK sends it (WebhookInput, WebhookUpdate and
// RotateSigningSecretRequest in @google/genai 3.3). Output-only fields (id, state on create, secrets,
// times) are the server's; a body naming a field the SDK does not declare is refused, saying which.

import { z } from "zod";
import type { Assignable } from "../wire/assignable.js";
import type {
  CreateWebhookRequestBody,
  PingWebhookRequestBody,
  RotateSigningSecretRequestBody,
  UpdateWebhookRequestBody,
} from "../wire/openapi-types.js";

/**
 * Every event the references name: the OpenAPI document's and SDK 3.3's seven, and the newer SDK
 * reference's batch.cancelled and interaction.cancelled (docs/fidelity.md#webhooks). The emulator
 * sends the interaction ones (and webhook.ping); it has no batches or videos, so their events never fire.
 */
export const WEBHOOK_EVENTS = [
  "batch.succeeded",
  "batch.cancelled",
  "batch.expired",
  "batch.failed",
  "interaction.requires_action",
  "interaction.completed",
  "interaction.failed",
  "interaction.cancelled",
  "video.generated",
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const WEBHOOK_STATES = ["enabled", "disabled", "disabled_due_to_failed_deliveries"] as const;
export type WebhookState = (typeof WEBHOOK_STATES)[number];

const events = z
  .array(z.enum(WEBHOOK_EVENTS, { error: `each event must be one of ${WEBHOOK_EVENTS.join(", ")}` }))
  .min(1, `name at least one event, e.g. ["interaction.completed"]; available: ${WEBHOOK_EVENTS.join(", ")}`);

const uri = z.string().min(1, "give the URL the emulator should POST events to, e.g. http://127.0.0.1:8080/hook");

const name = z.string().max(512, "a webhook's name is at most 512 characters");

export const createWebhookSchema = z.strictObject({
  name: name.optional(),
  uri,
  subscribed_events: events,
});
export type CreateWebhookRequest = z.infer<typeof createWebhookSchema>;
/** What each schema lets through is the document's body of the operation (server/wire/assignable.ts). */
export type CreateWebhookConforms = Assignable<CreateWebhookRequest, CreateWebhookRequestBody>;

export const updateWebhookSchema = z.strictObject({
  name: name.optional(),
  uri: uri.optional(),
  subscribed_events: events.optional(),
  state: z.enum(WEBHOOK_STATES, { error: `state must be one of ${WEBHOOK_STATES.join(", ")}` }).optional(),
});
export type UpdateWebhookRequest = z.infer<typeof updateWebhookSchema>;
export type UpdateWebhookConforms = Assignable<UpdateWebhookRequest, UpdateWebhookRequestBody>;
export const UPDATABLE_FIELDS = ["name", "uri", "subscribed_events", "state"] as const;

export const REVOCATION_BEHAVIORS = ["revoke_previous_secrets_after_h24", "revoke_previous_secrets_immediately"] as const;
// The OpenAPI document lists the values in lower case; the webhooks page's examples send the proto enum's
// names (REVOKE_PREVIOUS_SECRETS_AFTER_H24), as Google's JSON accepts them: either case (docs/fidelity.md#webhooks).
export const rotateSigningSecretSchema = z.strictObject({
  revocation_behavior: z
    .preprocess(
      (value) => (typeof value === "string" ? value.toLowerCase() : value),
      z.enum(REVOCATION_BEHAVIORS, { error: `revocation_behavior must be one of ${REVOCATION_BEHAVIORS.join(", ")} (either case)` }),
    )
    .optional(),
});
export type RotateSigningSecretRequest = z.infer<typeof rotateSigningSecretSchema>;
export type RotateSigningSecretConforms = Assignable<RotateSigningSecretRequest, RotateSigningSecretRequestBody>;

/**
 * POST {id}:ping: the document's PingWebhookRequest and the SDK's have no fields, so the body is an empty
 * object or none (the route names a field it holds as unknown first, in Google's words).
 */
export const pingWebhookSchema = z.strictObject({});
export type PingWebhookRequest = z.infer<typeof pingWebhookSchema>;
export type PingWebhookConforms = Assignable<PingWebhookRequest, PingWebhookRequestBody>;
