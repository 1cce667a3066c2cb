// The deterministic planner behind the emulated agent (docs/api.md#the-emulated-agent), the first
// implementation of the Planner interface. It reads the input once, in one of two ways: an exact
// ```tool_calls script (script-reader.ts, for tests), or the plain phrasings the seed documentation uses
// (phrasing-reader.ts). On its first turn it asks for the calls it read; on the next it answers with
// the report of what happened (report.ts). It never asks the client. The readers are deliberately
// literal: the point of the emulator is a known sequence of tool calls for hooks.

import { type AgentCall, isMcpCall } from "./agent-call.js";
import { outcomesOf, type Conversation } from "./conversation.js";
import { keepDeclaredMcpCalls } from "./mcp-phrasing.js";
import { describeUnderstanding, planFromPhrasing } from "./phrasing-reader.js";
import type { Move, Planner, PlannerState } from "./planner.js";
import { noCallAnswer, reportAfterSandboxFailure, reportOutcomes } from "./report.js";
import { readToolCallsScript } from "./script-reader.js";
import { rememberedRuns, rememberRun, scriptedState, SCRIPTED_PLANNER, type RememberedRun } from "./scripted-planner-state.js";

export type PlanResult =
  | {
      kind: "calls";
      calls: AgentCall[];
      source: "script" | "phrasing";
      /** Steps of a plain request that could not be read, as sentences for the final answer. */
      notes?: string[];
    }
  | {
      kind: "none";
      /** What the agent made of the input, as sentences; `noCallAnswer` turns it into the answer. */
      understood: string;
    }
  | { kind: "invalid"; message: string };

export type ReadablePlan = Exclude<PlanResult, { kind: "invalid" }>;

/** What the request declares beside the input, which the reading depends on. */
export interface PlanOptions {
  /** The names of the request's mcp_server tools: the servers a script or phrasing may call. */
  mcpServers?: readonly string[];
}

export function planFromInput(text: string, options: PlanOptions = {}): PlanResult {
  // Windows line endings and stray placeholder characters must not change how anything is read.
  const normalized = text.replace(/\r\n?/g, "\n").replace(/[\uE000\uE001]/g, "");
  const mcpServers = options.mcpServers ?? [];
  const script = readToolCallsScript(normalized, { mcpServers });
  if (script.kind === "invalid") return script;
  if (script.kind === "calls") return { kind: "calls", calls: script.calls, source: "script" };
  const read = planFromPhrasing(normalized);
  const declared = keepDeclaredMcpCalls(read.calls, mcpServers);
  const phrased = { calls: declared.calls, notes: [...read.notes, ...declared.notes] };
  if (phrased.calls.length > 0) {
    return { kind: "calls", calls: phrased.calls, source: "phrasing", ...(phrased.notes.length > 0 ? { notes: phrased.notes } : {}) };
  }
  return { kind: "none", understood: describeUnderstanding(normalized, phrased.notes) };
}

export type ScriptedPlannerStart = { kind: "invalid"; message: string } | { kind: "ready"; planner: ScriptedPlanner };

/**
 * Reads the input (a malformed script is refused here, before anything runs) and resumes the memory of
 * the previous interaction's state, when there is one.
 */
export function startScriptedPlanner(inputText: string, previous?: PlannerState | null, options: PlanOptions = {}): ScriptedPlannerStart {
  const plan = planFromInput(inputText, options);
  if (plan.kind === "invalid") return plan;
  return { kind: "ready", planner: new ScriptedPlanner(plan, rememberedRuns(previous)) };
}

export class ScriptedPlanner implements Planner {
  readonly name = SCRIPTED_PLANNER;

  constructor(
    readonly plan: ReadablePlan,
    /** The earlier runs of the conversation, from the previous interaction's state. */
    readonly earlierRuns: readonly RememberedRun[] = [],
  ) {}

  /** MCP tools are called by the emulator itself: a run that calls only those needs no sandbox. */
  get needsSandbox(): boolean {
    return this.plan.kind === "calls" && this.plan.calls.some((call) => !isMcpCall(call));
  }

  get plannedCalls(): number {
    return this.plan.kind === "calls" ? this.plan.calls.length : 0;
  }

  async next(conversation: Readonly<Conversation>): Promise<Move> {
    const { plan } = this;
    if (plan.kind === "none") return { kind: "answer", text: noCallAnswer(plan.understood) };
    if (conversation.turns.length === 0) return { kind: "call_tools", calls: plan.calls };
    const outcomes = outcomesOf(conversation);
    const notes = plan.notes ?? [];
    const text =
      conversation.failure === undefined
        ? reportOutcomes(outcomes, notes)
        : reportAfterSandboxFailure(outcomes, notes, conversation.failure);
    return { kind: "answer", text };
  }

  saveState(conversation: Readonly<Conversation>): PlannerState {
    const read = this.plan.kind === "calls" ? this.plan.source : "none";
    return scriptedState([...this.earlierRuns, rememberRun(read, outcomesOf(conversation), conversation.failure)]);
  }
}
