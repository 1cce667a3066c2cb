// The hook trace's entry for an MCP tool call. Hooks guard only the sandbox's built-in tools (the
// service's documentation, Limitations: they do not fire for "external Model Context Protocol
// (mcp_server) tools handled outside the container"), so no hooks.json is read and no rule is tried
// for such a call. The trace still lists it, saying so, so that a user whose `.*` matcher did not run
// for it sees why (docs/hooks.md#the-hook-trace). Same shape as the entry of a function call.

import type { InjectedFault } from "../faults/fault-plan.js";
import { TOOL_NAMES } from "../tools/tool-call.js";
import type { McpToolCall } from "./agent-call.js";
import { previewOfCall, type ToolCallPreview } from "./call-preview.js";

export interface McpCallHooks {
  call_id: string;
  /** The call as the trace shows it: the tool's name, `server_name` and the arguments (previewed). */
  tool_call: ToolCallPreview;
  /** Always null: no hook ran before or after the call. */
  pre: null;
  post: null;
  /** Why no hook ran. */
  hooks_not_run: { code: "not_a_sandbox_tool"; tool_type: "mcp_server"; reason: string };
  /** The fault rule that stood in for the server's answer to this call (docs/faults.md#mcp-servers), or null. */
  injected_fault: InjectedFault | null;
}

export function mcpCallHooks(callId: string, call: McpToolCall): McpCallHooks {
  return {
    call_id: callId,
    tool_call: previewOfCall(call),
    pre: null,
    post: null,
    hooks_not_run: {
      code: "not_a_sandbox_tool",
      tool_type: "mcp_server",
      reason:
        `${call.name} is a tool of the MCP server "${call.server}", which the emulator calls from outside the sandbox, not a sandbox tool: ` +
        `hooks fire only for ${TOOL_NAMES.join(", ")}, so no hooks.json was read and no matcher (".*" included) was tried for this call.`,
    },
    injected_fault: null,
  };
}
