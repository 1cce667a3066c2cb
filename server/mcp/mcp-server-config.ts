// An MCP server as a request declares it ({"type": "mcp_server", name, url, headers, allowed_tools}),
// read into the shape the MCP client uses, and the allowed_tools rule. The request schema (server/api)
// builds these; the client (sdk-mcp-servers.ts) honours them.

/** One entry of `allowed_tools`, as the SDK types it (`AllowedTools`: `{mode?, tools?}`). */
export interface AllowedToolsEntry {
  /** The SDK's ToolChoiceType ("auto", "any", "none", "validated", …); only "none" forbids. */
  mode?: string;
  /** Tool names the entry applies to; absent: every tool of the server. */
  tools?: string[];
}

export interface McpServerConfig {
  /** How scripts and steps name the server (`server_name`). */
  name: string;
  url: string;
  /** Sent with every request to the server (the SDK's `headers`), e.g. an Authorization header. */
  headers: Record<string, string>;
  /** null when the request gave none: every tool the server lists may be called. */
  allowedTools: AllowedToolsEntry[] | null;
}

/**
 * Whether `allowed_tools` lets the agent call `tool`. [choice] A tool is allowed when an entry whose
 * mode is not "none" applies to it and no entry with mode "none" does; an entry without `tools`
 * applies to every tool. So `[]` allows nothing, `[{"mode": "none"}]` nothing, `[{"tools": ["a"]}]`
 * only `a`, and leaving `allowed_tools` out allows every tool the server lists.
 */
export function isToolAllowed(allowed: readonly AllowedToolsEntry[] | null, tool: string): boolean {
  if (allowed === null) return true;
  const applies = (entry: AllowedToolsEntry) => entry.tools === undefined || entry.tools.includes(tool);
  const forbidden = allowed.some((entry) => entry.mode === "none" && applies(entry));
  return !forbidden && allowed.some((entry) => entry.mode !== "none" && applies(entry));
}

/** The allowed tools as a person reads them in a refusal: the listed names, or what the rule says. */
export function describeAllowedTools(allowed: readonly AllowedToolsEntry[]): string {
  const named = [...new Set(allowed.filter((entry) => entry.mode !== "none").flatMap((entry) => entry.tools ?? []))];
  if (allowed.some((entry) => entry.mode !== "none" && entry.tools === undefined)) return 'every tool but those with mode "none"';
  return named.length === 0 ? "none" : named.join(", ");
}
