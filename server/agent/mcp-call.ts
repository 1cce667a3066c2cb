// One MCP tool call of the agent: the call step is recorded, the emulator calls the server (through
// the McpServers interface, never from the sandbox) and the result step records what came back. No
// hook fires: hooks guard the sandbox's built-in tools only, as the service's documentation says; the
// hook trace gets an entry that says so (mcp-call-trace.ts), so a user sees why their ".*" matcher
// did not run.

import { injectedMark } from "../faults/fault-port.js";
import type { McpServers, McpToolOutcome } from "../mcp/mcp-servers.js";
import type { McpToolCall } from "./agent-call.js";
import type { CallOutcome } from "./conversation.js";
import { CANCELLED_TEXT, type CallContext, type CallEnd } from "./guarded-call.js";
import { type McpCallHooks, mcpCallHooks } from "./mcp-call-trace.js";

export async function runMcpCall(
  call: McpToolCall,
  context: CallContext,
  outcomes: CallOutcome[],
  trace: Pick<McpCallHooks[], "push">,
): Promise<CallEnd> {
  const id = context.newCallId();
  context.steps.complete({ type: "mcp_server_tool_call", id, name: call.name, server_name: call.server, arguments: call.args });
  const traced = mcpCallHooks(id, call);
  trace.push(traced);
  const writer = context.steps.startResult({
    type: "mcp_server_tool_result",
    call_id: id,
    name: call.name,
    server_name: call.server,
    result: "",
  });
  const outcome = await callServer(context.mcp ?? null, call, context.signal);
  if (context.signal?.aborted) {
    writer.finish(CANCELLED_TEXT, true);
    outcomes.push({ call, callId: id, status: "error", output: CANCELLED_TEXT });
    return { kind: "stopped" };
  }
  // An injected failure reads as the real one, plus the mark every target ends its failure text with.
  const fault = outcome.injectedFault ?? null;
  traced.injected_fault = fault;
  const text = fault !== null && outcome.isError ? `${outcome.text}${injectedMark(fault)}` : outcome.text;
  writer.finish(text, outcome.isError);
  outcomes.push({ call, callId: id, status: outcome.isError ? "error" : "ok", output: text });
  return { kind: "done" };
}

async function callServer(mcp: McpServers | null, call: McpToolCall, signal: AbortSignal | undefined): Promise<McpToolOutcome> {
  if (!mcp?.has(call.server))
    return { text: `No MCP server named "${call.server}" is declared in this interaction's tools.`, isError: true };
  try {
    return await mcp.call(call.server, call.name, call.args, signal);
  } catch (error) {
    // McpServers promises never to reject; should one still do, the call fails, not the interaction.
    return { text: `The emulator's MCP client failed: ${error instanceof Error ? error.message : String(error)}`, isError: true };
  }
}
