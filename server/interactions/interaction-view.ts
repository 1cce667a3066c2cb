// The Interaction resource in wire form (docs/wire-protocol.md#the-interaction-resource), and the
// snapshots the stream events carry. The SDK computes output_text itself.

import type { Step } from "../agent/steps.js";
import { inputAsSent } from "../api/interaction-input.js";
import { LazyArray } from "../common/lazy-array.js";
import type { Interaction } from "../wire/openapi-types.js";
import { redactEnvironmentEcho } from "../environments/redact-env.js";
import type { InteractionRecord } from "./interaction-store.js";

export interface RenderOptions {
  /**
   * GET ?include_input=true: the Interaction carries `input`, exactly as the request sent it, rebuilt
   * from the steps that record it (it is stored once, as those steps). Without it there is no `input`.
   */
  includeInput?: boolean;
  /**
   * The answer to a unary (or background) create: only the steps the run produced, without the steps
   * that record the input, as the service's ("POST /interactions returns only output steps; GET
   * /interactions/{id} returns the full timeline, including the initial user_input step").
   */
  outputStepsOnly?: boolean;
}

/**
 * The Interaction as the emulator answers it: the document's (server/wire/openapi-types.ts), plus `object`,
 * which the service's answers and the document's own examples carry and its schema does not declare.
 */
export type InteractionResource = Interaction & { id: string; object: "interaction" };

/** The Interaction with the record's steps: tsc holds it to the document's (the steps' own check: server/agent/steps.ts). */
export function renderInteraction(record: InteractionRecord, options: RenderOptions = {}): InteractionResource {
  return rendered(record, options, options.outputStepsOnly ? record.steps.slice(inputStepCount(record)) : record.steps);
}

/**
 * The same, for the streaming JSON writer, with `steps` in place of the record's own: a list, or a
 * LazyArray of the steps read from the store one at a time, written as the same JSON list. Only a list
 * can be cut to the output steps: a create answer always has one (its run's record); steps read lazily
 * (GET) are never asked for without the input.
 */
export function renderStreamedInteraction(
  record: InteractionRecord,
  options: RenderOptions,
  steps: readonly Step[] | LazyArray<Step>,
): Omit<InteractionResource, "steps"> & { steps: readonly Step[] | LazyArray<Step> } {
  if (!options.outputStepsOnly) return rendered(record, options, steps);
  if (steps instanceof LazyArray) throw new Error("outputStepsOnly needs the steps as a list");
  return rendered(record, options, steps.slice(inputStepCount(record)));
}

function rendered<S>(record: InteractionRecord, options: RenderOptions, steps: S): Omit<InteractionResource, "steps"> & { steps: S } {
  const input = options.includeInput ? inputOf(record) : undefined;
  return {
    id: record.id,
    object: "interaction",
    status: record.status,
    created: record.created,
    updated: record.updated,
    ...record.echo,
    ...(input !== undefined ? { input } : {}),
    // Echoes are stored redacted; this covers interactions stored before variables were (redact-env.ts).
    ...(record.echo.environment !== undefined
      ? { environment: redactEnvironmentEcho(record.echo.environment) as Interaction["environment"] }
      : {}),
    ...(record.environmentId ? { environment_id: record.environmentId } : {}),
    ...(record.previousInteractionId ? { previous_interaction_id: record.previousInteractionId } : {}),
    steps,
    ...(record.errors.length > 0 ? { errors: record.errors } : {}),
    ...(record.usage ? { usage: record.usage } : {}),
  };
}

/**
 * interaction.created carries the interaction without steps (they follow as step events, so a client
 * that accumulates them never counts one twice).
 */
export function renderCreatedSnapshot(record: InteractionRecord): Omit<InteractionResource, "steps" | "usage"> {
  // Nor usage: it is final only at the end (usage-meter.ts), and this snapshot is rebuilt from the
  // finished record when a stream is replayed.
  const { steps: _steps, usage: _usage, ...rest } = renderInteraction(record);
  return rest;
}

/**
 * interaction.completed carries the finished interaction without its steps, as the documentation's
 * streams show it (the steps came as step events; GET has them all): status, usage, errors, and a
 * continuation_token when it stopped at requires_continuation (docs/fidelity.md#streams).
 */
export function renderCompletedSnapshot(record: InteractionRecord): Omit<InteractionResource, "steps"> {
  const { steps: _steps, ...rest } = renderInteraction(record);
  return rest;
}

/**
 * The input as sent. An interaction stored before inputs were kept whole has no shape: its user_input
 * step's content is the best there is.
 */
function inputOf(record: InteractionRecord): Interaction["input"] {
  // As validated when it was sent (create-interaction.ts), rebuilt from the steps that record it.
  if (record.inputShape) return inputAsSent(record.inputShape, record.steps);
  const first = record.steps[0];
  return first?.type === "user_input" ? first.content : undefined;
}

/** How many of the first steps record the input: its shape says; an interaction stored before shapes were kept has one user_input step. */
export function inputStepCount(record: InteractionRecord): number {
  if (record.inputShape) return record.inputShape.steps;
  return record.steps[0]?.type === "user_input" ? 1 : 0;
}
