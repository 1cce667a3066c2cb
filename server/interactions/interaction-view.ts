// The Interaction resource in wire form (docs/wire-protocol.md#the-interaction-resource), and the
// snapshots the stream events carry. The SDK computes output_text itself.

import type { InteractionRecord } from "./interaction-store.js";

export function renderInteraction(record: InteractionRecord): Record<string, unknown> {
  return {
    id: record.id,
    object: "interaction",
    status: record.status,
    created: record.created,
    updated: record.updated,
    ...record.echo,
    ...(record.environmentId ? { environment_id: record.environmentId } : {}),
    ...(record.previousInteractionId ? { previous_interaction_id: record.previousInteractionId } : {}),
    steps: record.steps,
    ...(record.errors.length > 0 ? { errors: record.errors } : {}),
    ...(record.usage ? { usage: record.usage } : {}),
  };
}

/**
 * interaction.created carries the interaction without steps (they follow as step events, so a client
 * that accumulates them never counts one twice). [choice] interaction.completed carries the whole
 * Interaction, exactly what GET returns afterwards.
 */
export function renderCreatedSnapshot(record: InteractionRecord): Record<string, unknown> {
  // Nor usage: it is final only at the end (usage-meter.ts), and this snapshot is rebuilt from the
  // finished record when a stream is replayed.
  const { steps: _steps, usage: _usage, ...rest } = renderInteraction(record);
  return rest;
}
