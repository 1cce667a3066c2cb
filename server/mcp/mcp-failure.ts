// One sentence for a person about why an MCP server could not be used, for the result step of the call
// that met it. The MCP SDK and fetch fail in several shapes (a TypeError whose cause names the socket
// error, the SDK's HTTP error with the status, a JSON-RPC error, a timeout); each becomes a reason
// that says what happened and, for a timeout, which setting bounds it.

import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpListTooLargeError } from "./mcp-list-bounds.js";
import type { McpServerConfig } from "./mcp-server-config.js";

/** What the emulator was doing when the failure happened. */
export type McpStage = { kind: "connect" } | { kind: "list" } | { kind: "call"; tool: string };

/** The MCP SDK's code for a request that got no answer in time (ErrorCode.RequestTimeout). */
const REQUEST_TIMEOUT_CODE = -32001;

export class McpResponseTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the server's answer was larger than ${maxBytes} bytes (EMULATOR_MCP_RESPONSE_BYTES), so it was cut off`);
    this.name = "McpResponseTooLargeError";
  }
}

export function describeMcpFailure(
  server: McpServerConfig,
  stage: McpStage,
  error: unknown,
  context: { timeoutMs: number; lastTransportError?: Error | undefined },
): string {
  const where = `the MCP server "${server.name}" at ${shownUrl(server.url)}`;
  const reason = reasonOf(error, context);
  switch (stage.kind) {
    case "connect":
      return `Could not connect to ${where}: ${reason}.`;
    case "list":
      return `Could not list the tools of ${where}: ${reason}.`;
    case "call":
      return `The call of tool "${stage.tool}" on ${where} failed: ${reason}.`;
  }
}

function reasonOf(error: unknown, context: { timeoutMs: number; lastTransportError?: Error | undefined }): string {
  if (isTimeout(error)) {
    const seconds = context.timeoutMs / 1000;
    const transport = context.lastTransportError ? ` (the connection reported: ${messageOf(context.lastTransportError)})` : "";
    return `no answer within ${seconds} s (EMULATOR_MCP_TIMEOUT_SECONDS)${transport}`;
  }
  return messageOf(error);
}

/** The SDK's own timeout: its code, with the timeout in its data (an abort it reports with the same code has none). */
function isTimeout(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, data } = error as { code?: unknown; data?: { timeout?: unknown } };
  return code === REQUEST_TIMEOUT_CODE && typeof data?.timeout === "number";
}

/** The most telling message: fetch's "fetch failed" hides the socket error in its cause. */
function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error instanceof McpResponseTooLargeError || error instanceof McpListTooLargeError) return error.message;
  const cause = (error as { cause?: unknown }).cause;
  if (error.message === "fetch failed" && cause instanceof Error) return trimStop(cause.message || String(cause));
  // The SDK's HTTP error carries the status as its code, and the server's answer (maybe a whole page) in its message.
  if (error instanceof StreamableHTTPError && typeof error.code === "number") {
    return trimStop(`HTTP ${error.code}: ${error.message.replace(/^Streamable HTTP error: /, "")}`);
  }
  return trimStop(error.message || error.name);
}

/** Reasons stay one readable line's worth, whatever a server answered. */
const MAX_REASON_CHARS = 500;

function trimStop(text: string): string {
  const trimmed = text.trim().replace(/[.\s]+$/, "");
  return trimmed.length > MAX_REASON_CHARS ? `${trimmed.slice(0, MAX_REASON_CHARS - 1)}…` : trimmed;
}

/**
 * The URL as results show it: scheme, host and path, without user information or query, which may
 * hold credentials (a developer's tokens belong in `headers`, but not everyone puts them there).
 */
export function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return "(an invalid URL)";
  }
}
