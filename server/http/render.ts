import type { InteractionRecord } from "../store/interaction-store.js";

/** The Interaction resource in wire form (wire-protocol.md §4). The SDK computes output_text itself. */
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
  };
}
