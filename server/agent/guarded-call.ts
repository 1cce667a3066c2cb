// One sandbox tool call of the agent, guarded by the hooks: the call step is recorded, the
// pre_tool_execution hooks decide, an allowed call runs in the sandbox while its output streams into
// the result step, and the post_tool_execution hooks observe it. A denied call gets an error result and
// the agent moves on. A hook trace is kept for every call (docs/hooks.md).

import { hookConfigFiles, preToolHooksToConfirm, runPostToolHooks, runPreToolHooks, type HookEvaluationObserver } from "../hooks/engine.js";
import type { FaultPort } from "../faults/fault-port.js";
import type { FaultSite } from "../faults/fault-rules.js";
import type { HookHost } from "../hooks/hook-host.js";
import type { HookTrace } from "../hooks/trace.js";
import type { McpServers } from "../mcp/mcp-servers.js";
import { SandboxFilesChangedError, SandboxLostError, SandboxUnavailableError, type SandboxChannel } from "../sandbox/runtime.js";
import type { ToolCall } from "../tools/tool-call.js";
import { runTool, type ToolContext, type ToolExecution, type ToolObserver } from "../tools/tool-runner.js";
import { previewOfCall, type ToolCallPreview } from "./call-preview.js";
import { runToolWithFaults } from "./tool-faults.js";
import type { CallOutcome } from "./conversation.js";
import type { ResultStep, ResultWriter, StepSink } from "./step-sink.js";
import type { AgentStep } from "./steps.js";

/** What the hooks did around one tool call, as the emulator's debug API serves it. */
export interface ToolCallHooks {
  call_id: string;
  /** The call, with long arguments cut to a preview (call-preview.ts); the call's step holds them whole. */
  tool_call: ToolCallPreview;
  pre: HookTrace;
  /** null when the call was denied (post hooks fire only after a tool ran) or never finished. */
  post: HookTrace | null;
}

/** The environment's sandbox, where tools and hooks run. */
export interface AgentSandbox {
  environmentId: string;
  channel: SandboxChannel;
  hooks: HookHost;
  limits: ToolContext;
  /** Told of every hook evaluation in this sandbox (hook coverage); absent, nobody is. */
  hookObserver?: HookEvaluationObserver;
  /** The key's fault rules for this environment (docs/faults.md); absent when none can apply. */
  faults?: FaultPort;
}

export interface CallContext {
  /** null when the interaction has no environment: sandbox tools are then not run. */
  sandbox: AgentSandbox | null;
  /** Whether the request enabled code_execution (it is on when `tools` is omitted). */
  codeExecutionEnabled: boolean;
  steps: StepSink;
  signal?: AbortSignal;
  /** The MCP servers the request declared; null when it declared none. */
  mcp?: McpServers | null;
  /** Makes the IDs that pair a call step with its result step (call_…). */
  newCallId: () => string;
}

/** How the call left the run: it may go on, it was stopped by the signal, or the sandbox is gone. */
export type CallEnd = { kind: "done" } | { kind: "stopped" } | { kind: "sandbox_failed"; message: string; lost: boolean };

export function denialText(group: string, reason: string): string {
  return `Tool call denied by hook "${group}": ${reason}`;
}

export const CANCELLED_TEXT = "[cancelled]";

export const CODE_EXECUTION_DISABLED = 'code_execution is not enabled for this interaction; add {"type":"code_execution"} to tools';
export const NO_SANDBOX = "this interaction has no environment to run tools in";

/** Runs one call, adding its outcome to `outcomes` and its hook trace to `hooks` as they happen. */
export async function runGuardedCall(
  call: ToolCall,
  context: CallContext,
  outcomes: CallOutcome[],
  hooks: Pick<ToolCallHooks[], "push">,
): Promise<CallEnd> {
  const { signal, sandbox } = context;
  if (call.name === "code_execution" && !context.codeExecutionEnabled) return skip(call, CODE_EXECUTION_DISABLED, outcomes);
  if (!sandbox) return skip(call, NO_SANDBOX, outcomes);
  const id = context.newCallId();
  context.steps.complete(callStep(id, call));
  const result = lazyResult(context.steps, id, call);
  try {
    await runAllowedOrDenied(call, id, sandbox, context, result, outcomes, hooks);
  } catch (error) {
    // A result already recorded (the failure hit the post hooks) stays as it is.
    const recorded = result.finished();
    if (signal?.aborted) {
      if (!recorded) {
        result.get().finish(CANCELLED_TEXT, true);
        outcomes.push({ call, callId: id, status: "error", output: CANCELLED_TEXT });
      }
      return { kind: "stopped" };
    }
    if (!(error instanceof SandboxUnavailableError)) throw error;
    if (!recorded) {
      result.get().finish(`The sandbox stopped answering: ${error.message}`, true);
      outcomes.push({ call, callId: id, status: "error", output: error.message });
    }
    return { kind: "sandbox_failed", message: error.message, lost: error instanceof SandboxLostError };
  }
  return signal?.aborted ? { kind: "stopped" } : { kind: "done" };
}

/** A call that cannot run leaves no step; the final answer says why it was not run. */
function skip(call: ToolCall, reason: string, outcomes: CallOutcome[]): CallEnd {
  outcomes.push({ call, status: "skipped", output: "", skippedReason: reason });
  return { kind: "done" };
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

async function runAllowedOrDenied(
  call: ToolCall,
  id: string,
  sandbox: AgentSandbox,
  context: CallContext,
  result: LazyResult,
  outcomes: CallOutcome[],
  hooks: Pick<ToolCallHooks[], "push">,
): Promise<void> {
  // While the key has fault rules, the hooks ask before each handler and read their files in a round
  // trip of their own (a handler a fault stands in for confirms nothing), and the tool runs on its own.
  const faults = sandbox.faults?.armed() ? sandbox.faults : undefined;
  const hookOptions = {
    ...(context.signal ? { signal: context.signal } : {}),
    ...(sandbox.hookObserver ? { observer: sandbox.hookObserver } : {}),
    ...(faults ? { faults: (site: FaultSite) => faults.take(site) } : {}),
  };
  const newTrace = (pre: HookTrace): ToolCallHooks => {
    const trace: ToolCallHooks = { call_id: id, tool_call: previewOfCall(call), pre, post: null };
    hooks.push(trace);
    return trace;
  };
  // The tool's own request (a command's, a file operation's) can read the hooks' files around it:
  // before it, to confirm what the pre hooks decided on (runConfirmingPreHooks); after it, for the post hooks.
  const readAfter = hookConfigFiles();
  let run = faults ? null : await runConfirmingPreHooks(call, sandbox, context, result, newTrace, readAfter);
  if (run === null) {
    const pre = await runPreToolHooks(sandbox.hooks, call, sandbox.environmentId, hookOptions);
    const trace = newTrace(pre.trace);
    if (pre.decision === "deny") {
      const text = denialText(pre.group, pre.reason);
      result.get().finish(text, true);
      outcomes.push({ call, callId: id, status: "denied", output: text, denial: { group: pre.group, reason: pre.reason } });
      return;
    }
    // The result step opens as the tool starts.
    result.get();
    run = { trace, ...(await runStreaming(call, sandbox, context, result, { readAfter })) };
  }
  const { trace, execution, streamed } = run;
  // The tool's result begins with what it streamed; the rest (status notes, or a file tool's whole
  // answer) closes the step.
  const tail = execution.result.startsWith(streamed) ? execution.result.slice(streamed.length) : execution.result;
  result.get().finish(tail, execution.isError);
  const outcome: CallOutcome = { call, callId: id, status: execution.isError ? "error" : "ok", output: execution.result };
  if (execution.exitCode !== undefined) outcome.exitCode = execution.exitCode;
  outcomes.push(outcome);
  if (context.signal?.aborted) return;
  const toolReads = execution.readsAfter ? { toolReads: execution.readsAfter } : {};
  trace.post = await runPostToolHooks(sandbox.hooks, call, sandbox.environmentId, execution.errorText, { ...hookOptions, ...toolReads });
}

interface ToolRun {
  trace: ToolCallHooks;
  execution: ToolExecution;
  /** What the tool streamed into its result step. */
  streamed: string;
}

/**
 * When the hooks' files as last read would have the pre hooks run nothing for this call, the tool's own
 * request (its command's, or its file operation's) confirms them unchanged right before it starts, and
 * the pre hooks allowed (hooks.json is still read before the call; it costs no round trip of its own).
 * Null when that cannot be done, or the files had changed: then the pre hooks run the usual way.
 */
async function runConfirmingPreHooks(
  call: ToolCall,
  sandbox: AgentSandbox,
  context: CallContext,
  result: LazyResult,
  newTrace: (pre: HookTrace) => ToolCallHooks,
  readAfter: { paths: string[]; maxBytes: number },
): Promise<ToolRun | null> {
  context.signal?.throwIfAborted();
  const toConfirm = preToolHooksToConfirm(
    sandbox.hooks,
    call,
    sandbox.environmentId,
    sandbox.hookObserver ? { observer: sandbox.hookObserver } : {},
  );
  if (toConfirm === null) return null;
  const startedAt = new Date();
  const started = performance.now();
  const confirmed: { trace: ToolCallHooks | null } = { trace: null };
  const onStarted = (): void => {
    confirmed.trace = newTrace(toConfirm.trace(startedAt, performance.now() - started));
    result.get();
  };
  try {
    const ran = await runStreaming(call, sandbox, context, result, { unlessChanged: toConfirm.check, onStarted, readAfter });
    // Never started: cancelled while the files were being confirmed, as if during the pre hooks.
    if (confirmed.trace === null) throw context.signal?.reason ?? new Error("the tool call was cancelled before it started");
    return { trace: confirmed.trace, ...ran };
  } catch (error) {
    if (error instanceof SandboxFilesChangedError) return null;
    throw error;
  }
}

async function runStreaming(
  call: ToolCall,
  sandbox: AgentSandbox,
  context: CallContext,
  result: LazyResult,
  reads: ToolObserver["reads"],
): Promise<{ execution: ToolExecution; streamed: string }> {
  let streamed = "";
  const observer: ToolObserver = {
    onOutput: (text) => {
      streamed += text;
      result.get().append(text);
    },
    ...(context.signal ? { signal: context.signal } : {}),
    reads,
  };
  const execution = await runToolWithFaults(sandbox.faults, call, sandbox.channel, sandbox.limits, context.signal, () =>
    runTool(sandbox.channel, call, sandbox.limits, observer),
  );
  return { execution, streamed };
}

function callStep(id: string, call: ToolCall): AgentStep {
  if (call.name === "code_execution") {
    return {
      type: "code_execution_call",
      id,
      arguments: { code: String(call.args.code ?? ""), language: call.args.language === "python" ? "python" : "bash" },
    };
  }
  return { type: "function_call", id, name: call.name, arguments: call.args };
}

function resultStep(callId: string, call: ToolCall): ResultStep {
  if (call.name === "code_execution") return { type: "code_execution_result", call_id: callId, result: "" };
  return { type: "function_result", call_id: callId, name: call.name, result: "" };
}
