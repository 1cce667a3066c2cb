// The step shapes this emulator writes into an interaction, in the SDK's wire names.
// code_execution uses the SDK's own step types; the file tools have no step type in the SDK, so they
// appear as function_call / function_result (see docs/wire-protocol.md#steps).

export interface TextContent {
  type: "text";
  text: string;
}

/**
 * `is_error` is absent only while a result step is still streaming (step.start sends the result step
 * empty; its last step.delta carries `is_error`). Every finished step has it.
 */
export type Step =
  | { type: "user_input"; content: TextContent[] }
  | { type: "model_output"; content: TextContent[] }
  | { type: "code_execution_call"; id: string; arguments: { code: string; language: "bash" | "python" } }
  | { type: "code_execution_result"; call_id: string; result: string; is_error?: boolean }
  | { type: "function_call"; id: string; name: string; arguments: Record<string, unknown> }
  | { type: "function_result"; call_id: string; name: string; result: string; is_error?: boolean }
  | { type: "mcp_server_tool_call"; id: string; name: string; server_name: string; arguments: Record<string, unknown> }
  /** `is_error` is the emulator's addition: the SDK's MCPServerToolResultStep has no such field (docs/fidelity.md). */
  | { type: "mcp_server_tool_result"; call_id: string; name: string; server_name: string; result: string; is_error?: boolean };

/** What a step.delta carries (docs/wire-protocol.md#step-deltas), for the step types above. */
export type StepDelta =
  | { type: "text"; text: string }
  | { type: "code_execution_result"; result: string; is_error?: boolean }
  | { type: "function_result"; result: string; name?: string; is_error?: boolean }
  | { type: "mcp_server_tool_result"; result: string; name?: string; server_name?: string; is_error?: boolean };

/** requires_action: the agent handed function calls to the client and waits for their results. */
export type InteractionStatus = "in_progress" | "requires_action" | "completed" | "failed" | "cancelled";
