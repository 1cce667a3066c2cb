// What the model-backed planner keeps with an interaction (its planner state, docs/architecture.md#planner-state):
// the conversation with the model so far, so an interaction naming it as previous_interaction_id goes
// on where it ended; the function calls it handed to the client, so their results can be given back to
// the model under the model's own call IDs; and this run's model turns, for the dashboard. A state that
// does not parse (another version's, a hand-edited row) is ignored and the conversation starts afresh.

import { z } from "zod";
import type { JsonValue, PlannerState } from "../../agent/planner.js";
import type { ModelMessage, ModelToolResult, ModelTurnRecord } from "./model-backend.js";

export const MODEL_PLANNER = "model";

const toolCall = z.object({ id: z.string(), name: z.string(), arguments: z.string(), signature: z.string().optional() });
const toolResult = z.object({ id: z.string(), name: z.string(), output: z.string(), isError: z.boolean() });
const message = z.discriminatedUnion("role", [
  z.object({ role: z.literal("user"), text: z.string() }),
  z.object({ role: z.literal("model"), text: z.string(), calls: z.array(toolCall) }),
  z.object({ role: z.literal("tool"), results: z.array(toolResult) }),
]);
const usage = z.object({ input: z.number(), output: z.number(), thought: z.number() });
const turn = z.object({
  backend: z.string(),
  model: z.string(),
  usage,
  latencyMs: z.number(),
  source: z.enum(["live", "recorded", "replayed"]),
  injectedFault: z.object({ rule_id: z.string(), effect: z.record(z.string(), z.unknown()) }).optional(),
  error: z.string().optional(),
});

const stateSchema = z.object({
  messages: z.array(message),
  pending: z
    .object({
      /** The model's IDs of the calls of its last message, in its order. */
      order: z.array(z.string()),
      /** The emulator's call ID (the function_call step's) of each call handed to the client → the model's ID. */
      clientCalls: z.record(z.string(), z.string()),
      /** Results already known for that message's other calls (the agent's own, malformed ones). */
      results: z.array(toolResult),
    })
    .optional(),
  turns: z.array(turn),
});

export interface PendingClientCalls {
  order: string[];
  clientCalls: Record<string, string>;
  results: ModelToolResult[];
}

export interface ModelPlannerData {
  messages: ModelMessage[];
  pending?: PendingClientCalls;
  /** This run's turns only. */
  turns: ModelTurnRecord[];
}

export function modelPlannerState(data: ModelPlannerData): PlannerState {
  return { planner: MODEL_PLANNER, data: data as unknown as JsonValue };
}

/** The previous interaction's conversation, or null to start afresh (none, another planner's, unreadable). */
export function readModelPlannerState(state: PlannerState | null | undefined): ModelPlannerData | null {
  if (!state || state.planner !== MODEL_PLANNER) return null;
  const parsed = stateSchema.safeParse(state.data);
  return parsed.success ? (parsed.data as ModelPlannerData) : null;
}

/** An interaction's model turns as the debug API and the dashboard show them; [] for a scripted run. */
export function modelTurnsOf(state: PlannerState | null | undefined): Array<Record<string, unknown>> {
  return (readModelPlannerState(state)?.turns ?? []).map((turn, index) => ({
    turn: index + 1,
    backend: turn.backend,
    model: turn.model,
    input_tokens: turn.usage.input,
    output_tokens: turn.usage.output,
    thought_tokens: turn.usage.thought,
    latency_ms: turn.latencyMs,
    source: turn.source,
    // The rule that stood in for the model's server in this turn (docs/faults.md#the-model), and the failure it made.
    injected_fault: turn.injectedFault ?? null,
    ...(turn.error !== undefined ? { error: turn.error } : {}),
  }));
}
