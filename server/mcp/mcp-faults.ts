// Faults at MCP tool calls (docs/faults.md#mcp-servers). The fault stands in for the server's answer to
// tools/call, after the connection and its tool list are made for real (a fault never makes an unknown
// tool or a refused one callable). Each effect becomes the very error the SDK would raise for the real
// failure, so the result step reads through the same describeMcpFailure as a real one:
//   error       → the tool's own error result (isError, the message as its text content)
//   http_status → the transport's HTTP error for that status (as a server's error page gives)
//   refuse      → fetch's "fetch failed" with a refused connection as its cause
//   timeout     → held for EMULATOR_MCP_TIMEOUT_SECONDS, then the SDK's request timeout
//   latency     → held, then the real call (a latency past the timeout is that timeout)

import { StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { faultDelay } from "../faults/fault-delay.js";
import type { FaultPlan, InjectedFault } from "../faults/fault-plan.js";
import type { FaultEffect } from "../faults/fault-rules.js";

/** Whose calls these are: the run's key and its environment (known once the environment is open). */
export interface McpFaultScope {
  plan: FaultPlan;
  owner: string;
  environmentId: () => string | null;
}

/** What stands in for the server's answer: its result, or an error to throw as the SDK would. */
export type InjectedAnswer =
  | { kind: "result"; result: { content: Array<{ type: "text"; text: string }>; isError: true } }
  | { kind: "forward" };

export function takeMcpFault(scope: McpFaultScope | undefined, server: string, tool: string): InjectedFault | null {
  if (!scope?.plan.hasRules(scope.owner)) return null;
  return scope.plan.take({ owner: scope.owner, environmentId: scope.environmentId(), site: { kind: "mcp", server, tool } });
}

/**
 * Plays the fault on the request's own deadline and signal. Resolves to the tool's error result, or
 * to "forward" (after a latency); rejects with the SDK's error for a transport failure or a timeout.
 */
export async function standInForServer(
  effect: FaultEffect,
  url: string,
  deadline: { timeoutMs: number; signal: AbortSignal },
): Promise<InjectedAnswer> {
  const hold = async (ms: number) => {
    await faultDelay(Math.min(ms, deadline.timeoutMs), deadline.signal);
    if (ms >= deadline.timeoutMs) throw requestTimeout(deadline.timeoutMs);
  };
  switch (effect.kind) {
    case "error":
      return { kind: "result", result: { content: [{ type: "text", text: effect.message }], isError: true } };
    case "latency":
      await hold(effect.ms);
      return { kind: "forward" };
    case "timeout":
      await hold(deadline.timeoutMs);
      throw requestTimeout(deadline.timeoutMs);
    case "http_status":
      if (effect.latency_ms !== undefined) await hold(effect.latency_ms);
      throw new StreamableHTTPError(effect.status, `Error POSTing to endpoint: ${effect.status} ${statusText(effect.status)}`);
    case "refuse": {
      const { host } = new URL(url);
      throw new TypeError("fetch failed", { cause: Object.assign(new Error(`connect ECONNREFUSED ${host}`), { code: "ECONNREFUSED" }) });
    }
    default:
      return { kind: "forward" };
  }
}

/** The SDK's own timeout error (Protocol.request): code RequestTimeout with the timeout in its data. */
function requestTimeout(timeoutMs: number): McpError {
  return new McpError(ErrorCode.RequestTimeout, "Request timed out", { timeout: timeoutMs });
}

function statusText(status: number): string {
  return (
    { 500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout", 429: "Too Many Requests" }[
      status
    ] ?? "Error"
  );
}
