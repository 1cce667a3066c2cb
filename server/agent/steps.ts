// The step shapes this emulator writes into an interaction, in the SDK's wire names.
// code_execution uses the SDK's own step types; the file tools have no step type in the SDK, so they
// appear as function_call / function_result (see docs/wire-protocol.md#steps).

import type { Assignable } from "../wire/assignable.js";
import type * as Wire from "../wire/openapi-types.js";

/** The text this emulator writes (the document's TextContent, without annotations). */
export interface TextContent {
  type: "text";
  text: string;
}

/**
 * A part of the input, kept verbatim as the client sent it (docs/api.md#whole-inputs): the document's
 * Content, its bytes as base64 `data` or a `uri`. The edge holds it there: the document check
 * (server/http/documented-requests.ts) and readInput (server/api/interaction-input.ts), which also
 * refuses, under EMULATOR_LOOSE, a type or a media `mime_type` the document does not list.
 */
export type InputContent = Wire.Content;

/**
 * A step of an input given as a list of steps (a history), recorded as sent: the document's Step, held
 * to it at the edge as the Content above (readInput refuses a `type` the document does not list).
 */
export type InputStep = Wire.Step;

/** A step as an interaction records it: the emulator's own, or a history's step as the client sent it. */
export type Step = AgentStep | InputStep;

/**
 * A step the emulator writes (the agent, the run, a client's function results as recorded). `StepsConform`
 * holds these to the document's Step.
 *
 * `is_error` is absent only while a result step is still streaming (step.start sends the result step
 * empty; its last step.delta carries `is_error`). Every finished step has it.
 */
export type AgentStep =
  | { type: "user_input"; content: InputContent[] }
  | { type: "model_output"; content: TextContent[] }
  | { type: "code_execution_call"; id: string; arguments: { code: string; language: "bash" | "python" } }
  | { type: "code_execution_result"; call_id: string; result: string; is_error?: boolean }
  | { type: "function_call"; id: string; name: string; arguments: Record<string, unknown> }
  | { type: "function_result"; call_id: string; name: string; result: string; is_error?: boolean }
  | { type: "mcp_server_tool_call"; id: string; name: string; server_name: string; arguments: Record<string, unknown> }
  | McpServerToolResultStep
  /** A model's thought (the SDK's ThoughtStep), from a model-backed planner (docs/model-agent.md). */
  | { type: "thought"; summary?: TextContent[]; signature?: string }
  /** A function's result as the client sent it, in the interaction that answers the call (docs/api.md#function-calling). */
  | ClientFunctionResultStep;

/**
 * An MCP tool's result. [extension] `is_error`: the document's McpServerToolResultStep (and the SDK's)
 * has no such field; the emulator adds it as on the other result steps (docs/fidelity.md).
 */
export interface McpServerToolResultStep {
  type: "mcp_server_tool_result";
  call_id: string;
  name: string;
  server_name: string;
  result: string;
  is_error?: boolean;
}

/**
 * A function's result as the client sent it (the document's FunctionResultStep.result): text, text and
 * image Content items, or an object (server/api/function-results.ts holds it there at the edge).
 */
export type FunctionResultValue = Wire.FunctionResultStep["result"];

/** Recorded whole when the interaction starts: `name` from the call when the client left it out, `is_error` false unless it said so. */
export interface ClientFunctionResultStep {
  type: "function_result";
  call_id: string;
  name: string;
  result: FunctionResultValue;
  is_error: boolean;
}

/** The text of a step's content: its text parts, joined (a part of another kind adds nothing). */
export function contentText(content: ReadonlyArray<TextContent | Wire.Content> | undefined): string {
  return (content ?? []).map((part) => (part.type === "text" ? part.text : "")).join("");
}

/** What a step.delta carries (docs/wire-protocol.md#step-deltas), for the step types above. */
export type StepDelta =
  | { type: "text"; text: string }
  | { type: "thought_summary"; content: TextContent }
  /** A function call's arguments as (a piece of) their JSON text, as the streaming page shows it. */
  | { type: "arguments_delta"; arguments: string }
  | { type: "code_execution_result"; result: string; is_error?: boolean }
  | { type: "function_result"; result: string; name?: string; is_error?: boolean }
  /** [extension] `is_error`, as on McpServerToolResultStep. */
  | { type: "mcp_server_tool_result"; result: string; name?: string; server_name?: string; is_error?: boolean };

/**
 * The steps and deltas as the document declares them (server/wire/openapi-types.ts): tsc fails here when
 * a field's type drifts from the document's. The `is_error` extensions are extra fields, which such a
 * check lets through; step.start and step.delta are checked in server/interactions/events.ts.
 */
export type StepsConform = [Assignable<AgentStep, Wire.Step>, Assignable<StepDelta, Wire.StepDeltaData>];

/**
 * requires_action: the agent handed function calls to the client and waits for their results.
 * incomplete: the run ended with its results cut short (a model-driven run passed
 * agent_config.max_total_tokens, or a fault rule said so). budget_exceeded: what such a run ended as
 * before the service's document deprecated it for incomplete; only interactions stored then have it.
 * queued: created on the flex service tier (or by a fault rule), not yet running.
 * requires_continuation: stopped at the per-request decode limit (a fault rule); a create with its
 * continuation_token continues it (docs/api.md#continuation).
 */
export const INTERACTION_STATUSES = [
  "queued",
  "in_progress",
  "requires_action",
  "requires_continuation",
  "completed",
  "incomplete",
  "failed",
  "cancelled",
  "budget_exceeded",
] as const;
export type InteractionStatus = (typeof INTERACTION_STATUSES)[number];
