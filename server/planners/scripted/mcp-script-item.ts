// How a ```tool_calls script names an MCP tool (docs/api.md#mcp-server-tools): an item with a
// "server" key, `{"server": "docs", "name": "search", "args": {"q": "hooks"}}`, mirroring the steps'
// `server_name` and `name`. [choice] A separate key rather than "docs.search": MCP tool names may hold
// dots themselves, and a script should say exactly which server it means. The server must be one the
// request's tools declare; whether the server has the tool is only known when it is called.

import { describeValueKind } from "../../tools/tool-call.js";
import type { McpToolCall } from "../../agent/agent-call.js";

const EXAMPLE = '{"server": "docs", "name": "search", "args": {"q": "hooks"}}';

/** The call an item with a "server" key names, or one sentence saying what to fix. */
export function readMcpScriptItem(record: Record<string, unknown>, servers: readonly string[]): McpToolCall | string {
  const { server, name, args } = record;
  if (typeof server !== "string" || server === "") {
    return `"server" must name one of the request's mcp_server tools (a string), got ${describeValueKind(server)}; an MCP call looks like ${EXAMPLE}`;
  }
  if (!servers.includes(server)) return undeclaredServer(server, servers);
  if (typeof name !== "string" || name === "") {
    return `an MCP call needs "name", the tool's name as server "${server}" lists it (a string), got ${describeValueKind(name)}; e.g. ${EXAMPLE}`;
  }
  const givenArgs = args === undefined ? {} : args;
  if (typeof givenArgs !== "object" || givenArgs === null || Array.isArray(givenArgs)) {
    return `"args" of the MCP tool "${name}" must be an object, got ${describeValueKind(givenArgs)}`;
  }
  return { server, name, args: givenArgs as Record<string, unknown> };
}

function undeclaredServer(server: string, servers: readonly string[]): string {
  if (servers.length === 0) {
    return `the request declares no mcp_server tools, so there is no server "${server}"; add {"type": "mcp_server", "name": "${server}", "url": "…"} to tools`;
  }
  return `no mcp_server named "${server}" in the request's tools; declared: ${servers.map((name) => `"${name}"`).join(", ")}`;
}

/**
 * For an unknown tool name that looks like "server.tool" or "server/tool" with a declared server: how
 * to write that call instead.
 */
export function mcpNameHint(name: unknown, servers: readonly string[]): string | undefined {
  if (typeof name !== "string") return undefined;
  const server = servers.find((candidate) => name.startsWith(`${candidate}.`) || name.startsWith(`${candidate}/`));
  if (server === undefined) return undefined;
  const tool = name.slice(server.length + 1);
  return `to call the tool "${tool}" of the MCP server "${server}", write {"server": "${server}", "name": "${tool}", "args": {…}}`;
}
