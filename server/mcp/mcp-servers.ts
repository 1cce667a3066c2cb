// The MCP servers of one interaction run, as the agent sees them: call a tool, get its result back.
// The agent loop depends on this interface only, never on the MCP SDK; sdk-mcp-servers.ts implements
// it with the official SDK over streamable HTTP, and tests may pass any other implementation.

import type { InjectedFault } from "../faults/fault-plan.js";

/** What came of one MCP tool call, as the result step records it. */
export interface McpToolOutcome {
  /** The result text: the tool's content, or a sentence saying why the call failed or was refused. */
  text: string;
  /** The tool reported an error, the call was refused (allowed_tools), or the server could not be used. */
  isError: boolean;
  /** The fault rule that stood in for the server's answer (docs/faults.md#mcp-servers), when one did. */
  injectedFault?: InjectedFault;
}

/** A tool a server lists, as a model is told of it. */
export interface McpToolInfo {
  name: string;
  description: string;
  /** The tool's inputSchema as the server gave it (a JSON Schema object). */
  inputSchema: Record<string, unknown>;
}

export interface McpServers {
  /** Whether the request declared a server of this name. */
  has(server: string): boolean;
  /**
   * Calls `tool` on `server` with `args`. Never rejects for anything the server or the network does
   * (unreachable, a protocol error, a timeout, a tool error, a call outside allowed_tools): those
   * come back as an `isError` outcome. `signal` aborts the call (the run was cancelled).
   */
  call(server: string, tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<McpToolOutcome>;
  /**
   * The tools `server` lists that its allowed_tools let the agent call (connecting if need be), for a
   * model's function declarations; a server that cannot be used gives the sentence its calls would.
   * Never rejects for anything the server does.
   */
  tools(server: string, signal?: AbortSignal): Promise<{ tools: McpToolInfo[] } | { error: string }>;
  /** Ends every connection the run opened (their sessions too); never rejects. */
  close(): Promise<void>;
}
