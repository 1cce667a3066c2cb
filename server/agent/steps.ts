// The step shapes this emulator writes into an interaction, in the SDK's wire names.
// code_execution uses the SDK's own step types; the file tools have no step type in the SDK, so they
// appear as function_call / function_result (see docs/wire-protocol.md#steps).

export interface TextContent {
  type: "text";
  text: string;
}

/**
 * A part of the input that is not text, kept verbatim as the client sent it (docs/api.md#whole-inputs):
 * its bytes as base64 `data` or a `uri`, and whatever else the SDK's Content types carry. A part of a
 * type the SDK does not know is kept the same way.
 */
export interface MediaContent {
  type: "image" | "audio" | "document" | "video";
  data?: string;
  uri?: string;
  mime_type?: string;
  [field: string]: unknown;
}

/** What a user_input step holds: the input's Content, in the order sent. */
export type InputContent = TextContent | MediaContent;

/**
 * A step of an input given as a list of steps (a history), recorded verbatim; only its `type` is
 * known to be a string.
 */
export type InputStep = { type: string } & Record<string, unknown>;

/**
 * `is_error` is absent only while a result step is still streaming (step.start sends the result step
 * empty; its last step.delta carries `is_error`). Every finished step has it.
 */
export type Step =
  | { type: "user_input"; content: InputContent[] }
  | { type: "model_output"; content: TextContent[] }
  | { type: "code_execution_call"; id: string; arguments: { code: string; language: "bash" | "python" } }
  | { type: "code_execution_result"; call_id: string; result: string; is_error?: boolean }
  | { type: "function_call"; id: string; name: string; arguments: Record<string, unknown> }
  | { type: "function_result"; call_id: string; name: string; result: string; is_error?: boolean }
  | { type: "mcp_server_tool_call"; id: string; name: string; server_name: string; arguments: Record<string, unknown> }
  /** `is_error` is the emulator's addition: the SDK's MCPServerToolResultStep has no such field (docs/fidelity.md). */
  | { type: "mcp_server_tool_result"; call_id: string; name: string; server_name: string; result: string; is_error?: boolean }
  /** A model's thought (the SDK's ThoughtStep), from a model-backed planner (docs/model-agent.md). */
  | { type: "thought"; summary?: TextContent[]; signature?: string }
  /** A function's result as the client sent it, in the interaction that answers the call (docs/api.md#function-calling). */
  | ClientFunctionResultStep;

/** A function's result as the client sent it (FunctionResultStep.result): text, Content items, or an object. */
export type FunctionResultValue = string | Array<Record<string, unknown>> | Record<string, unknown>;

/** Recorded whole when the interaction starts: `name` from the call when the client left it out, `is_error` false unless it said so. */
export interface ClientFunctionResultStep {
  type: "function_result";
  call_id: string;
  name: string;
  result: FunctionResultValue;
  is_error: boolean;
}

/** What a step.delta carries (docs/wire-protocol.md#step-deltas), for the step types above. */
export type StepDelta =
  | { type: "text"; text: string }
  | { type: "thought_summary"; content: TextContent }
  /** A function call's arguments as (a piece of) their JSON text, as the streaming page shows it. */
  | { type: "arguments_delta"; arguments: string }
  | { type: "code_execution_result"; result: string; is_error?: boolean }
  | { type: "function_result"; result: string; name?: string; is_error?: boolean }
  | { type: "mcp_server_tool_result"; result: string; name?: string; server_name?: string; is_error?: boolean };

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
