// The emulated agent's loop: take the planned tool calls one at a time; before each, the hooks engine
// decides (pre_tool_execution); an allowed call runs in the sandbox and the post_tool_execution hooks
// observe it. Call/result steps and a hook trace are recorded for every call.

import { runPostToolHooks, runPreToolHooks } from "../hooks/engine.js";
import type { HookHost } from "../hooks/hook-host.js";
import type { HookTrace } from "../hooks/trace.js";
import { newCallId } from "../ids.js";
import type { Step } from "../interactions/steps.js";
import { SandboxUnavailableError, type SandboxChannel } from "../sandbox/runtime.js";
import { runTool, type ToolContext, type ToolExecution } from "../tools/tool-runner.js";
import type { CallOutcome } from "./report.js";
import type { ToolCall } from "./tool-call.js";

/** What the hooks did around one tool call, as the emulator's debug API serves it. */
export interface ToolCallHooks {
  call_id: string;
  tool_call: { name: string; args: Record<string, unknown> };
  pre: HookTrace;
  /** null when the call was denied (post hooks fire only after a tool ran) or never finished. */
  post: HookTrace | null;
}

export interface AgentRun {
  steps: Step[];
  outcomes: CallOutcome[];
  hooks: ToolCallHooks[];
  /** Set when the sandbox stopped answering; the calls after the failed one did not run. */
  failure?: string;
}

export interface AgentContext {
  calls: ToolCall[];
  environmentId: string;
  /** Whether the request enabled code_execution (it is on when `tools` is omitted). */
  codeExecutionEnabled: boolean;
  channel: SandboxChannel;
  hooks: HookHost;
  limits: ToolContext;
}

export function denialText(group: string, reason: string): string {
  return `Tool call denied by hook "${group}": ${reason}`;
}

export async function runCalls(context: AgentContext): Promise<AgentRun> {
  const run: AgentRun = { steps: [], outcomes: [], hooks: [] };
  for (const call of context.calls) {
    if (call.name === "code_execution" && !context.codeExecutionEnabled) {
      run.outcomes.push({
        call,
        status: "skipped",
        output: "",
        skippedReason: 'code_execution is not enabled for this interaction; add {"type":"code_execution"} to tools',
      });
      continue;
    }
    const id = newCallId();
    run.steps.push(callStep(id, call));
    try {
      await runOneCall(context, call, id, run);
    } catch (error) {
      if (!(error instanceof SandboxUnavailableError)) throw error;
      run.steps.push(resultStep(id, call, `The sandbox stopped answering: ${error.message}`, true));
      run.outcomes.push({ call, status: "error", output: error.message });
      run.failure = error.message;
      return run;
    }
  }
  return run;
}

async function runOneCall(context: AgentContext, call: ToolCall, id: string, run: AgentRun): Promise<void> {
  const pre = await runPreToolHooks(context.hooks, call, context.environmentId);
  const hooks: ToolCallHooks = { call_id: id, tool_call: { name: call.name, args: call.args }, pre: pre.trace, post: null };
  run.hooks.push(hooks);
  if (pre.decision === "deny") {
    const text = denialText(pre.group, pre.reason);
    run.steps.push(resultStep(id, call, text, true));
    run.outcomes.push({ call, status: "denied", output: text, denial: { group: pre.group, reason: pre.reason } });
    return;
  }
  const execution: ToolExecution = await runTool(context.channel, call, context.limits);
  run.steps.push(resultStep(id, call, execution.result, execution.isError));
  const outcome: CallOutcome = { call, status: execution.isError ? "error" : "ok", output: execution.result };
  if (execution.exitCode !== undefined) outcome.exitCode = execution.exitCode;
  run.outcomes.push(outcome);
  hooks.post = await runPostToolHooks(context.hooks, call, context.environmentId, execution.errorText);
}

function callStep(id: string, call: ToolCall): Step {
  if (call.name === "code_execution") {
    return {
      type: "code_execution_call",
      id,
      arguments: { code: String(call.args.code ?? ""), language: call.args.language === "python" ? "python" : "bash" },
    };
  }
  return { type: "function_call", id, name: call.name, arguments: call.args };
}

function resultStep(callId: string, call: ToolCall, result: string, isError: boolean): Step {
  if (call.name === "code_execution") return { type: "code_execution_result", call_id: callId, result, is_error: isError };
  return { type: "function_result", call_id: callId, name: call.name, result, is_error: isError };
}
