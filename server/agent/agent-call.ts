// A call the agent makes on its own (not one it hands to the client): a built-in sandbox tool
// (ToolCall, guarded by hooks and run in the sandbox) or a tool of an MCP server the request declared
// (McpToolCall, which the emulator calls itself, outside the sandbox, with no hook firing).

import type { ToolCall } from "../tools/tool-call.js";

export interface McpToolCall {
  /** The declared mcp_server's name (the steps' `server_name`). */
  server: string;
  /** The tool's name as the server lists it. */
  name: string;
  args: Record<string, unknown>;
}

export type AgentCall = ToolCall | McpToolCall;

/** Takes any call of a plan (function calls included): only an MCP tool call names a server. */
export function isMcpCall(call: { name: string }): call is McpToolCall {
  return "server" in call;
}
