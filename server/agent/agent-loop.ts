// The emulated agent: a turn loop over a planner (docs/architecture.md#the-agent-as-a-turn-loop). At
// every turn the planner sees the conversation so far and names the next move; the loop runs the tools
// it asks for (each guarded by the hooks), records what came of them, and asks again, until the
// planner answers, hands the turn to the client, or the run is stopped. The loop never writes the
// final answer's text itself: how a run is told is the planner's business.

import { turnShare } from "../common/turn-share.js";
import type { ErrorCode } from "../common/errors.js";
import { newCallId } from "../common/ids.js";
import type { McpServers } from "../mcp/mcp-servers.js";
import { type AgentCall, isMcpCall } from "./agent-call.js";
import { clientCallHooks, type ClientCallHooks } from "./client-call-trace.js";
import {
  newConversation,
  type CallOutcome,
  type ClientFunctionCall,
  type ClientFunctionResult,
  type Conversation,
  type PendingClientCall,
} from "./conversation.js";
import { runGuardedCall, type AgentSandbox, type CallContext, type CallEnd, type ToolCallHooks } from "./guarded-call.js";
import { runMcpCall } from "./mcp-call.js";
import type { McpCallHooks } from "./mcp-call-trace.js";
import type { Move, Planner, PlannerOutput, PlannerState } from "./planner.js";
import type { StepSink } from "./step-sink.js";
import type { UnreadPart } from "./unread-parts.js";

export { CANCELLED_TEXT, denialText, type AgentSandbox, type ToolCallHooks } from "./guarded-call.js";

/** How often the planner may be asked for a move in one run, unless the caller says otherwise. */
export const DEFAULT_MAX_TURNS = 50;
/** How many sandbox tool calls one run may make, unless the caller says otherwise (EMULATOR_MAX_TOOL_CALLS). */
export const DEFAULT_MAX_TOOL_CALLS = 1000;

export type AgentEnding =
  /** `written`: the planner already wrote the answer's model_output step as it arrived. */
  | { kind: "answered"; text: string; written?: boolean }
  /** The planner gave up (its model failed, or the token budget ran out); `text` is a last model_output to write. */
  | { kind: "planner_failed"; status: "failed" | "incomplete"; error: { code: ErrorCode; message: string }; text?: string }
  /** Function calls were handed to the client (their steps are recorded); the run waits for their results. */
  | { kind: "asked_client"; calls: PendingClientCall[] }
  /** The signal stopped the run (cancel, shutdown); nothing after the running call happened. */
  | { kind: "stopped" }
  /** The sandbox stopped answering (lost: for good, with its files); `text` is the planner's answer that says so. */
  | { kind: "sandbox_failed"; message: string; text: string; lost: boolean }
  /** The planner did not answer within the allowed turns. */
  | { kind: "turn_limit"; text: string }
  /** The planner asked for more tool calls than one run may make; the calls of that move did not run. */
  | { kind: "call_limit"; text: string };

export interface AgentRun {
  conversation: Conversation;
  /** One entry per tool call that reached the hooks, in order. */
  hooks: ToolCallHooks[];
  /**
   * The hook trace of the run: the entries of `hooks`, and one per function call handed to the client
   * and per MCP tool call (no hook ran for either, and the entry says why), in the order the calls were made.
   */
  trace: Array<ToolCallHooks | ClientCallHooks | McpCallHooks>;
  /** Set when the loop has returned. */
  ending?: AgentEnding;
  /** The planner's saved state, set when the loop has returned (also after a stop or a failure). */
  plannerState?: PlannerState;
}

export interface AgentContext {
  /** The environment's sandbox; null when the interaction has none (a planner that needs no tools). */
  sandbox: AgentSandbox | null;
  /** Whether the request enabled code_execution (it is on when `tools` is omitted). */
  codeExecutionEnabled: boolean;
  /** The MCP servers the request declared (the caller closes them after the run); absent when none. */
  mcp?: McpServers | null;
  /** Where steps go, as they happen. */
  steps: StepSink;
  /** Stops the run: a running tool or hook is killed with its process tree, and nothing later starts. */
  signal?: AbortSignal;
  /** How often the planner may be asked for a move; default DEFAULT_MAX_TURNS. */
  maxTurns?: number;
  /** How many tool calls the run may make; default DEFAULT_MAX_TOOL_CALLS. */
  maxToolCalls?: number;
  /** Makes call IDs (call_…); tests pass a counter. */
  newCallId?: () => string;
  /** Where a planner streams its text and thoughts and reports a model's token counts; absent, it writes none. */
  output?: PlannerOutput;
}

/**
 * `unread`: the input's parts the agent cannot read. `functionResults`: the client's answers to the
 * previous interaction's function calls, when the input holds them.
 */
export function newAgentRun(inputText: string, unread: readonly UnreadPart[] = [], functionResults?: ClientFunctionResult[]): AgentRun {
  return { conversation: newConversation(inputText, unread, functionResults), hooks: [], trace: [] };
}

/**
 * Runs the planner's moves until the run ends, and says how it ended. `run` is filled as it goes, so a
 * caller sees the progress, and the planner's state is saved even if this throws.
 */
export async function runAgent(planner: Planner, context: AgentContext, run: AgentRun): Promise<AgentEnding> {
  try {
    run.ending = await takeTurns(planner, context, run);
    return run.ending;
  } finally {
    run.plannerState = planner.saveState(run.conversation);
  }
}

const STOPPED: AgentEnding = { kind: "stopped" };

async function takeTurns(planner: Planner, context: AgentContext, run: AgentRun): Promise<AgentEnding> {
  const { signal } = context;
  const maxTurns = context.maxTurns ?? DEFAULT_MAX_TURNS;
  const callContext: CallContext = {
    sandbox: context.sandbox,
    codeExecutionEnabled: context.codeExecutionEnabled,
    steps: context.steps,
    mcp: context.mcp ?? null,
    newCallId: context.newCallId ?? newCallId,
    ...(signal ? { signal } : {}),
  };
  const maxToolCalls = context.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS;
  let callsAsked = 0;
  for (let turn = 1; ; turn++) {
    if (signal?.aborted) return STOPPED;
    if (turn > maxTurns) return { kind: "turn_limit", text: turnLimitText(maxTurns) };
    const move = await askPlanner(planner, run.conversation, signal, context.output);
    if (move === null) return STOPPED;
    switch (move.kind) {
      case "answer":
        return { kind: "answered", text: move.text, ...(move.written ? { written: true } : {}) };
      case "fail":
        return { kind: "planner_failed", status: move.status, error: move.error, ...(move.text !== undefined ? { text: move.text } : {}) };
      case "ask_client":
        return handToClient(move.calls, run, callContext);
      case "call_tools": {
        // A move that would pass the limit does not start: a run never ends half-way through a move.
        if (callsAsked + move.calls.length > maxToolCalls)
          return { kind: "call_limit", text: callLimitText(callsAsked, move.calls.length, maxToolCalls) };
        callsAsked += move.calls.length;
        const end = await runToolCalls(move.calls, callContext, run);
        if (end.kind === "stopped") return STOPPED;
        if (end.kind === "sandbox_failed") return concludeAfterFailure(planner, run.conversation, end, signal, context.output);
      }
    }
  }
}

/** The planner's move, or null when the signal stopped the run while (or before) it was asked. */
async function askPlanner(
  planner: Planner,
  conversation: Conversation,
  signal: AbortSignal | undefined,
  output?: PlannerOutput,
): Promise<Move | null> {
  try {
    const move = await planner.next(conversation, signal, output);
    return signal?.aborted ? null : move;
  } catch (error) {
    if (signal?.aborted) return null;
    throw error;
  }
}

async function runToolCalls(calls: readonly AgentCall[], context: CallContext, run: AgentRun): Promise<CallEnd> {
  const outcomes: CallOutcome[] = [];
  run.conversation.turns.push({ kind: "tool_calls", outcomes });
  for (const call of calls) {
    // Hundreds of runs at once: each call waits for its turn's share, so the loop reads its I/O between.
    const share = turnShare();
    if (share) await share;
    if (context.signal?.aborted) return { kind: "stopped" };
    const end = isMcpCall(call)
      ? await runMcpCall(call, context, outcomes, run.trace)
      : await runGuardedCall(call, context, outcomes, {
          push: (...entries) => {
            run.trace.push(...entries);
            return run.hooks.push(...entries);
          },
        });
    if (end.kind !== "done") return end;
  }
  return { kind: "done" };
}

/**
 * [choice] Function calls for the client are recorded as function_call steps and end the run; the
 * interaction then waits in requires_action, the status the API uses for it. Hooks do not fire for
 * them: they guard only the sandbox's built-in tools (docs/hooks.md); the hook trace says so for each.
 */
function handToClient(calls: readonly ClientFunctionCall[], run: AgentRun, context: CallContext): AgentEnding {
  if (calls.length === 0) throw new Error("the planner asked the client for nothing: an ask_client move needs at least one function call");
  const pending: PendingClientCall[] = calls.map((call) => ({ id: context.newCallId(), name: call.name, arguments: call.arguments }));
  for (const call of pending) {
    context.steps.complete({ type: "function_call", id: call.id, name: call.name, arguments: call.arguments });
    run.trace.push(clientCallHooks(call));
  }
  run.conversation.turns.push({ kind: "ask_client", calls: pending });
  return { kind: "asked_client", calls: pending };
}

/** After the sandbox failed, the planner has the last word: an answer that says what did not run. */
async function concludeAfterFailure(
  planner: Planner,
  conversation: Conversation,
  { message, lost }: { message: string; lost: boolean },
  signal: AbortSignal | undefined,
  output: PlannerOutput | undefined,
): Promise<AgentEnding> {
  conversation.failure = message;
  const move = await askPlanner(planner, conversation, signal, output);
  if (move === null) return STOPPED;
  const text = move.kind === "answer" ? move.text : `The sandbox stopped answering, so the run could not go on: ${message}`;
  return { kind: "sandbox_failed", message, text, lost };
}

function callLimitText(asked: number, more: number, max: number): string {
  return `The agent stopped: it asked for ${more} more tool calls after ${asked}, more than the ${max} one interaction may make (EMULATOR_MAX_TOOL_CALLS); those calls did not run, the steps so far are kept.`;
}

function turnLimitText(maxTurns: number): string {
  return `The agent stopped after ${maxTurns} turns without reaching an answer, the most one interaction may take; the steps so far are kept.`;
}
