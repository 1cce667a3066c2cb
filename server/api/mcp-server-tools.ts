// The `{"type": "mcp_server", name, url, headers, allowed_tools}` entries of a request's `tools`, as
// the SDK types them (`MCPServer`), checked and read into the MCP client's configuration. A mistake is
// a 400 naming the entry and field, before anything runs; whether the server answers is only known
// when the agent calls it, and a server that does not is an error result then, never a refusal here.

import { hostAllowed } from "../common/host-allowlist.js";
import { isInjectableHeaderName, isInjectableHeaderValue } from "../../proxy/index.js";
import { InvalidArgumentError } from "../common/errors.js";
import type { AllowedToolsEntry, McpServerConfig } from "../mcp/mcp-server-config.js";
import type { CreateInteractionRequest } from "./create-interaction.js";

export interface McpServerToolsOptions {
  /**
   * Hosts (name or address, optionally with :port) MCP servers may be on (EMULATOR_MCP_HOSTS); null
   * for any host.
   */
  allowedHosts?: readonly string[] | null;
}

const EXAMPLE = '{"type": "mcp_server", "name": "docs", "url": "http://127.0.0.1:3000/mcp"}';

/** The request's MCP servers, in the order declared; [] when it declares none. */
export function mcpServersOf(tools: CreateInteractionRequest["tools"], options: McpServerToolsOptions = {}): McpServerConfig[] {
  const servers: McpServerConfig[] = [];
  (tools ?? []).forEach((tool, index) => {
    if (tool.type !== "mcp_server") return;
    const server = readServer(tool as Record<string, unknown>, `tools[${index}]`, options);
    const twin = servers.find((other) => other.name === server.name);
    if (twin) {
      throw new InvalidArgumentError(
        `tools[${index}].name: another mcp_server is already named "${server.name}"; give each MCP server its own name, which is how a script calls it.`,
      );
    }
    servers.push(server);
  });
  return servers;
}

function readServer(tool: Record<string, unknown>, where: string, options: McpServerToolsOptions): McpServerConfig {
  const { name, url, headers, allowed_tools: allowedTools } = tool;
  if (typeof name !== "string" || name.trim() === "") {
    throw new InvalidArgumentError(
      `${where}.name: an mcp_server needs a name (a non-empty string), which scripts call it by, e.g. ${EXAMPLE}.`,
    );
  }
  return {
    name,
    url: readUrl(url, `${where}.url`, options),
    headers: readHeaders(headers, `${where}.headers`),
    allowedTools: readAllowedTools(allowedTools, `${where}.allowed_tools`),
  };
}

function readUrl(url: unknown, where: string, options: McpServerToolsOptions): string {
  if (typeof url !== "string" || url === "") {
    throw new InvalidArgumentError(`${where}: an mcp_server needs the URL of its streamable HTTP endpoint, e.g. ${EXAMPLE}.`);
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidArgumentError(`${where}: "${url}" is not a URL; write the server's endpoint in full, like http://127.0.0.1:3000/mcp.`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new InvalidArgumentError(
      `${where}: MCP servers are reached over streamable HTTP, so the URL must start with http:// or https://, not ${parsed.protocol}//.`,
    );
  }
  const allowed = options.allowedHosts ?? null;
  if (allowed !== null && !hostAllowed(parsed, allowed)) {
    throw new InvalidArgumentError(
      `${where}: this emulator may reach MCP servers only on ${allowed.join(", ")} (EMULATOR_MCP_HOSTS), not on ${parsed.host}; ask its operator to add the host, or run your server there.`,
    );
  }
  return url;
}

function readHeaders(headers: unknown, where: string): Record<string, string> {
  if (headers === undefined) return {};
  if (typeof headers !== "object" || headers === null || Array.isArray(headers)) {
    throw new InvalidArgumentError(`${where}: must be an object of header names to strings, e.g. {"Authorization": "Bearer …"}.`);
  }
  const read: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!isInjectableHeaderName(name)) {
      throw new InvalidArgumentError(
        `${where}: "${name}" cannot be sent: it is not a header name (a token), or it frames or routes the request (Host, Content-Length, Transfer-Encoding, Connection, Proxy-*, …).`,
      );
    }
    if (typeof value !== "string") throw new InvalidArgumentError(`${where}.${name}: header values must be strings.`);
    if (!isInjectableHeaderValue(value)) {
      throw new InvalidArgumentError(
        `${where}.${name}: header values may not contain control characters (CR, LF, NUL, …) nor be that long.`,
      );
    }
    read[name] = value;
  }
  return read;
}

function readAllowedTools(allowedTools: unknown, where: string): AllowedToolsEntry[] | null {
  if (allowedTools === undefined || allowedTools === null) return null;
  const shape = 'a list of {"mode"?, "tools"?: [names]} objects, e.g. [{"tools": ["search"]}]';
  if (!Array.isArray(allowedTools)) throw new InvalidArgumentError(`${where}: must be ${shape}.`);
  return allowedTools.map((entry: unknown, index): AllowedToolsEntry => {
    const at = `${where}[${index}]`;
    if (typeof entry === "string") {
      throw new InvalidArgumentError(`${at}: "${entry}" is a bare name; allowed_tools is ${shape}, so write [{"tools": ["${entry}"]}].`);
    }
    if (typeof entry !== "object" || entry === null || Array.isArray(entry))
      throw new InvalidArgumentError(`${at}: must be an object, ${shape}.`);
    const { mode, tools } = entry as { mode?: unknown; tools?: unknown };
    if (mode !== undefined && typeof mode !== "string")
      throw new InvalidArgumentError(`${at}.mode: must be a string such as "auto" or "none".`);
    if (tools !== undefined && !(Array.isArray(tools) && tools.every((name) => typeof name === "string"))) {
      throw new InvalidArgumentError(`${at}.tools: must be a list of tool names (strings).`);
    }
    const read: AllowedToolsEntry = {};
    if (mode !== undefined) read.mode = mode;
    if (tools !== undefined) read.tools = tools as string[];
    return read;
  });
}

/**
 * An mcp_server tool as shown back (an interaction's echo, an agent's GET): its header values (an
 * Authorization header, an API key) are credentials, shown as "[redacted]" like the network policy's
 * injected headers.
 */
export function redactMcpHeaders<T extends { type: string }>(tool: T): T {
  const { headers } = tool as { headers?: unknown };
  if (tool.type !== "mcp_server" || typeof headers !== "object" || headers === null || Array.isArray(headers)) return tool;
  return { ...tool, headers: Object.fromEntries(Object.keys(headers).map((name) => [name, "[redacted]"])) };
}
