// The emulated agent's loop: take the planned tool calls one at a time; before each, the hooks engine
// decides (pre_tool_execution); an allowed call runs in the sandbox and the post_tool_execution hooks
// observe it. Call/result steps and a hook trace are recorded for every call.

import { runPostToolHooks, runPreToolHooks } from "../hooks/engine.js";
import type { HookHost } from "../hooks/hook-host.js";
import type { HookTrace } from "../hooks/trace.js";
import { newCallId } from "../common/ids.js";
import type { Step } from "./steps.js";
import type { ResultWriter, StepSink } from "./step-sink.js";
import { SandboxUnavailableError, type SandboxChannel } from "../sandbox/runtime.js";
import { runTool, type ToolContext, type ToolExecution } from "../tools/tool-runner.js";
import type { CallOutcome } from "./report.js";
import type { ToolCall } from "../tools/tool-call.js";

/** What the hooks did around one tool call, as the emulator's debug API serves it. */
export interface ToolCallHooks {
  call_id: string;
  tool_call: { name: string; args: Record<string, unknown> };
  pre: HookTrace;
  /** null when the call was denied (post hooks fire only after a tool ran) or never finished. */
  post: HookTrace | null;
}

export interface AgentRun {
  outcomes: CallOutcome[];
  hooks: ToolCallHooks[];
  /** Set when the sandbox stopped answering; the calls after the failed one did not run. */
  failure?: string;
  /** Set when the signal stopped the run (cancel, shutdown); the calls after it did not run. */
  stopped?: boolean;
}

export interface AgentContext {
  calls: ToolCall[];
  environmentId: string;
  /** Whether the request enabled code_execution (it is on when `tools` is omitted). */
  codeExecutionEnabled: boolean;
  channel: SandboxChannel;
  hooks: HookHost;
  limits: ToolContext;
  /** Where call and result steps go, as they happen. */
  steps: StepSink;
  /** Stops the run: a running tool or hook is killed with its process tree, and no later call starts. */
  signal?: AbortSignal;
}

export function denialText(group: string, reason: string): string {
  return `Tool call denied by hook "${group}": ${reason}`;
}

export const CANCELLED_TEXT = "[cancelled]";

export function newAgentRun(): AgentRun {
  return { outcomes: [], hooks: [] };
}

/** Runs the calls in order, filling `run` as it goes (so a caller sees the progress even if this throws). */
export async function runCalls(context: AgentContext, run: AgentRun = newAgentRun()): Promise<AgentRun> {
  const { signal } = context;
  for (const call of context.calls) {
    if (signal?.aborted) {
      run.stopped = true;
      return run;
    }
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
    context.steps.complete(callStep(id, call));
    const result = lazyResult(context.steps, id, call);
    try {
      await runOneCall(context, call, id, result, run);
    } catch (error) {
      // A result already recorded (the failure hit the post hooks) stays as it is.
      const recorded = result.finished();
      if (signal?.aborted) {
        if (!recorded) {
          result.get().finish(CANCELLED_TEXT, true);
          run.outcomes.push({ call, status: "error", output: CANCELLED_TEXT });
        }
        run.stopped = true;
        return run;
      }
      if (!(error instanceof SandboxUnavailableError)) throw error;
      if (!recorded) {
        result.get().finish(`The sandbox stopped answering: ${error.message}`, true);
        run.outcomes.push({ call, status: "error", output: error.message });
      }
      run.failure = error.message;
      return run;
    }
  }
  if (signal?.aborted) run.stopped = true;
  return run;
}

/** The result step opens when the tool starts (or is denied), not while the pre hooks decide. */
interface LazyResult {
  get(): ResultWriter;
  finished(): boolean;
}

function lazyResult(steps: StepSink, id: string, call: ToolCall): LazyResult {
  let writer: ResultWriter | null = null;
  return { get: () => (writer ??= steps.startResult(resultStep(id, call))), finished: () => writer?.finished === true };
}

async function runOneCall(context: AgentContext, call: ToolCall, id: string, result: LazyResult, run: AgentRun): Promise<void> {
  const hookOptions = context.signal ? { signal: context.signal } : {};
  const pre = await runPreToolHooks(context.hooks, call, context.environmentId, hookOptions);
  const hooks: ToolCallHooks = { call_id: id, tool_call: { name: call.name, args: call.args }, pre: pre.trace, post: null };
  run.hooks.push(hooks);
  if (pre.decision === "deny") {
    const text = denialText(pre.group, pre.reason);
    result.get().finish(text, true);
    run.outcomes.push({ call, status: "denied", output: text, denial: { group: pre.group, reason: pre.reason } });
    return;
  }
  const writer = result.get();
  let streamed = "";
  const execution: ToolExecution = await runTool(context.channel, call, context.limits, {
    onOutput: (text) => {
      streamed += text;
      writer.append(text);
    },
    ...hookOptions,
  });
  // The tool's result begins with what it streamed; the rest (status notes, or a file tool's whole
  // answer) closes the step.
  const tail = execution.result.startsWith(streamed) ? execution.result.slice(streamed.length) : execution.result;
  writer.finish(tail, execution.isError);
  const outcome: CallOutcome = { call, status: execution.isError ? "error" : "ok", output: execution.result };
  if (execution.exitCode !== undefined) outcome.exitCode = execution.exitCode;
  run.outcomes.push(outcome);
  if (context.signal?.aborted) return;
  hooks.post = await runPostToolHooks(context.hooks, call, context.environmentId, execution.errorText, hookOptions);
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

function resultStep(callId: string, call: ToolCall): Extract<Step, { type: "code_execution_result" | "function_result" }> {
  if (call.name === "code_execution") return { type: "code_execution_result", call_id: callId, result: "" };
  return { type: "function_result", call_id: callId, name: call.name, result: "" };
}
