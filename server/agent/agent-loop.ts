// The emulated agent's loop: take the planned tool calls one at a time, run each in the sandbox,
// record call/result steps, and finish with one model_output that reports what happened.
// The hooks engine slots in between "propose a call" and "run it" (next issue).

import { newCallId } from "../ids.js";
import type { Step } from "../interactions/steps.js";
import { SandboxUnavailableError, type SandboxChannel } from "../sandbox/runtime.js";
import { runTool, type ToolContext } from "../tools/tool-runner.js";
import type { CallOutcome } from "./report.js";
import type { ToolCall } from "./tool-call.js";

export interface AgentRun {
  steps: Step[];
  outcomes: CallOutcome[];
  /** Set when the sandbox stopped answering; the calls after the failed one did not run. */
  failure?: string;
}

export interface AgentContext {
  calls: ToolCall[];
  /** Whether the request enabled code_execution (it is on when `tools` is omitted). */
  codeExecutionEnabled: boolean;
  channel: () => Promise<SandboxChannel>;
  limits: ToolContext;
}

export async function runCalls(context: AgentContext): Promise<AgentRun> {
  const steps: Step[] = [];
  const outcomes: CallOutcome[] = [];
  for (const call of context.calls) {
    if (call.name === "code_execution" && !context.codeExecutionEnabled) {
      outcomes.push({
        call,
        status: "skipped",
        output: "",
        skippedReason: 'code_execution is not enabled for this interaction; add {"type":"code_execution"} to tools',
      });
      continue;
    }
    const id = newCallId();
    steps.push(callStep(id, call));
    let execution;
    try {
      execution = await runTool(await context.channel(), call, context.limits);
    } catch (error) {
      if (!(error instanceof SandboxUnavailableError)) throw error;
      steps.push(resultStep(id, call, `The sandbox stopped answering: ${error.message}`, true));
      outcomes.push({ call, status: "error", output: error.message });
      return { steps, outcomes, failure: error.message };
    }
    steps.push(resultStep(id, call, execution.result, execution.isError));
    const outcome: CallOutcome = { call, status: execution.isError ? "error" : "ok", output: execution.result };
    if (execution.exitCode !== undefined) outcome.exitCode = execution.exitCode;
    outcomes.push(outcome);
  }
  return { steps, outcomes };
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
