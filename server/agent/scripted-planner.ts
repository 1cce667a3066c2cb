// The deterministic planner behind the emulated agent (docs/api.md#the-emulated-agent), the first
// implementation of the Planner interface. It reads the input once, in one of two ways: an exact
// ```tool_calls script (script-reader.ts, for tests), or the plain phrasings the seed documentation uses
// (phrasing-reader.ts). On its first turn it asks for the calls it read; on the next it answers with
// the report of what happened (report.ts). It never asks the client. The readers are deliberately
// literal: the point of the emulator is a known sequence of tool calls for hooks.

import type { ToolCall } from "../tools/tool-call.js";
import { outcomesOf, type Conversation } from "./conversation.js";
import { describeUnderstanding, planFromPhrasing } from "./phrasing-reader.js";
import type { Move, Planner, PlannerState } from "./planner.js";
import { noCallAnswer, reportAfterSandboxFailure, reportOutcomes } from "./report.js";
import { readToolCallsScript } from "./script-reader.js";
import { fixedAnswerFor, type UsableFormat } from "./fixed-answer.js";
import { readResponseBlock } from "./response-block.js";
import { rememberedRuns, rememberRun, scriptedState, SCRIPTED_PLANNER, type RememberedRun } from "./scripted-planner-state.js";

export type PlanResult =
  | {
      kind: "calls";
      calls: ToolCall[];
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

export function planFromInput(text: string): PlanResult {
  // Windows line endings and stray placeholder characters must not change how anything is read.
  const normalized = text.replace(/\r\n?/g, "\n").replace(/[\uE000\uE001]/g, "");
  const script = readToolCallsScript(normalized);
  if (script.kind === "invalid") return script;
  if (script.kind === "calls") return { kind: "calls", calls: script.calls, source: "script" };
  const phrased = planFromPhrasing(normalized);
  if (phrased.calls.length > 0) {
    return { kind: "calls", calls: phrased.calls, source: "phrasing", ...(phrased.notes.length > 0 ? { notes: phrased.notes } : {}) };
  }
  return { kind: "none", understood: describeUnderstanding(normalized, phrased.notes) };
}

export type ScriptedPlannerStart =
  /** `field`: the request field to fix; the input when absent. */
  { kind: "invalid"; message: string; field?: string } | { kind: "ready"; planner: ScriptedPlanner };

export interface ScriptedPlannerOptions {
  /** The form the final answer must take (response-format.ts); plain text when absent. */
  responseFormat?: UsableFormat;
}

/**
 * Reads the input (a malformed script is refused here, before anything runs) and resumes the memory of
 * the previous interaction's state, when there is one. A ```response block, or a JSON response format,
 * fixes the final answer up front (fixed-answer.ts); the rest of the input is read as before.
 */
export function startScriptedPlanner(
  inputText: string,
  previous?: PlannerState | null,
  options: ScriptedPlannerOptions = {},
): ScriptedPlannerStart {
  const response = readResponseBlock(inputText);
  if (response.kind === "invalid") return response;
  const plan = planFromInput(response.rest);
  if (plan.kind === "invalid") return plan;
  const fixed = fixedAnswerFor(response.kind === "found" ? response.text : undefined, options.responseFormat ?? { kind: "text" });
  if (fixed.kind === "invalid") return fixed;
  return { kind: "ready", planner: new ScriptedPlanner(plan, rememberedRuns(previous), fixed.kind === "fixed" ? fixed.text : undefined) };
}

export class ScriptedPlanner implements Planner {
  readonly name = SCRIPTED_PLANNER;

  constructor(
    readonly plan: ReadablePlan,
    /** The earlier runs of the conversation, from the previous interaction's state. */
    readonly earlierRuns: readonly RememberedRun[] = [],
    /**
     * [choice] The final answer, when the input scripts it or the request asks for JSON: given instead of
     * the report once the calls have run (the steps still show each call and hook decision). A run cut
     * off by its sandbox still ends with the report that says what did not run.
     */
    readonly fixedAnswer?: string,
  ) {}

  get needsSandbox(): boolean {
    return this.plan.kind === "calls";
  }

  get plannedCalls(): number {
    return this.plan.kind === "calls" ? this.plan.calls.length : 0;
  }

  async next(conversation: Readonly<Conversation>): Promise<Move> {
    const { plan } = this;
    if (plan.kind === "none") return { kind: "answer", text: this.fixedAnswer ?? noCallAnswer(plan.understood) };
    if (conversation.turns.length === 0) return { kind: "call_tools", calls: plan.calls };
    const outcomes = outcomesOf(conversation);
    const notes = plan.notes ?? [];
    const text =
      conversation.failure === undefined
        ? (this.fixedAnswer ?? reportOutcomes(outcomes, notes))
        : reportAfterSandboxFailure(outcomes, notes, conversation.failure);
    return { kind: "answer", text };
  }

  saveState(conversation: Readonly<Conversation>): PlannerState {
    const read = this.plan.kind === "calls" ? this.plan.source : "none";
    return scriptedState([...this.earlierRuns, rememberRun(read, outcomesOf(conversation), conversation.failure)]);
  }
}
