// What an interaction's end sends: interaction.completed, interaction.failed,
// interaction.requires_action or interaction.cancelled (an incomplete or requires_continuation one has
// no event in the references' lists, so none), to the interaction's own webhook_config.uris when it gives them, else to every enabled
// webhook of its API key subscribed to the event. The interaction service calls interactionEnded for
// every stored interaction as it ends ([choice]: background or not; a store: false one has nothing
// to GET, so no event).

import type { OwnerClock } from "../common/test-clocks.js";
import { eventPayload } from "./webhook-payload.js";
import type { WebhookDeliveries } from "./webhook-deliveries.js";
import type { WebhookStore } from "./webhook-store.js";

/** The part of an interaction's record this needs (interactions/interaction-store.ts has it whole). */
export interface EndedInteraction {
  id: string;
  owner: string;
  status: string;
  echo: Record<string, unknown>;
}

const EVENT_OF_STATUS: Readonly<Record<string, string>> = {
  completed: "interaction.completed",
  failed: "interaction.failed",
  requires_action: "interaction.requires_action",
  cancelled: "interaction.cancelled",
};

interface WebhookConfig {
  uris: string[] | null;
  userMetadata: Record<string, unknown> | null;
}

function webhookConfigOf(echo: Record<string, unknown>): WebhookConfig {
  const config = echo.webhook_config as { uris?: unknown; user_metadata?: unknown } | undefined;
  const uris = Array.isArray(config?.uris) ? config.uris.filter((uri): uri is string => typeof uri === "string") : [];
  const metadata = config?.user_metadata;
  return {
    uris: uris.length > 0 ? uris : null,
    userMetadata:
      typeof metadata === "object" && metadata !== null && !Array.isArray(metadata) ? (metadata as Record<string, unknown>) : null,
  };
}

export class InteractionWebhooks {
  constructor(
    private readonly store: WebhookStore,
    private readonly deliveries: WebhookDeliveries,
    private readonly clocks: OwnerClock,
  ) {}

  interactionEnded(interaction: EndedInteraction): void {
    const type = EVENT_OF_STATUS[interaction.status];
    if (type === undefined) return;
    const config = webhookConfigOf(interaction.echo);
    const payload = eventPayload(type, this.clocks.now(interaction.owner), {
      id: interaction.id,
      ...(config.userMetadata !== null ? { user_metadata: config.userMetadata } : {}),
    });
    const targets =
      config.uris !== null
        ? [...new Set(config.uris)].map((uri) => ({ webhookId: null, uri }))
        : this.store.subscribedTo(interaction.owner, type).map((webhook) => ({ webhookId: webhook.id, uri: webhook.uri }));
    for (const target of targets) {
      this.deliveries.enqueue({ owner: interaction.owner, ...target, eventType: type, payload, retries: true });
    }
  }
}
