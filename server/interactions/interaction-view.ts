// The Interaction resource in wire form (docs/wire-protocol.md#the-interaction-resource), and the
// snapshots the stream events carry. The SDK computes output_text itself.

import { redactEnvironmentEcho } from "../environments/redact-env.js";
import type { InteractionRecord } from "./interaction-store.js";

export function renderInteraction(record: InteractionRecord): Record<string, unknown> {
  return {
    id: record.id,
    object: "interaction",
    status: record.status,
    created: record.created,
    updated: record.updated,
    ...record.echo,
    // Echoes are stored redacted; this covers interactions stored before variables were (redact-env.ts).
    ...(record.echo.environment !== undefined ? { environment: redactEnvironmentEcho(record.echo.environment) } : {}),
    ...(record.environmentId ? { environment_id: record.environmentId } : {}),
    ...(record.previousInteractionId ? { previous_interaction_id: record.previousInteractionId } : {}),
    steps: record.steps,
    ...(record.errors.length > 0 ? { errors: record.errors } : {}),
  };
}

/**
 * interaction.created carries the interaction without steps (they follow as step events, so a client
 * that accumulates them never counts one twice). [choice] interaction.completed carries the whole
 * Interaction, exactly what GET returns afterwards.
 */
export function renderCreatedSnapshot(record: InteractionRecord): Record<string, unknown> {
  const { steps: _steps, ...rest } = renderInteraction(record);
  return rest;
}
