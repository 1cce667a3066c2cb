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
import { rememberedRuns, rememberRun, scriptedState, SCRIPTED_PLANNER, type RememberedRun } from "./scripted-planner-state.js";
import { unreadOnlySentence, unreadSentence, withUnreadParts } from "./unread-parts.js";

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

export type ScriptedPlannerStart = { kind: "invalid"; message: string } | { kind: "ready"; planner: ScriptedPlanner };

/**
 * Reads the input (a malformed script is refused here, before anything runs) and resumes the memory of
 * the previous interaction's state, when there is one.
 */
export function startScriptedPlanner(inputText: string, previous?: PlannerState | null): ScriptedPlannerStart {
  const plan = planFromInput(inputText);
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

  get needsSandbox(): boolean {
    return this.plan.kind === "calls";
  }

  get plannedCalls(): number {
    return this.plan.kind === "calls" ? this.plan.calls.length : 0;
  }

  async next(conversation: Readonly<Conversation>): Promise<Move> {
    const { plan } = this;
    const { unread } = conversation.input;
    if (plan.kind === "none") return { kind: "answer", text: noCallAnswer(understoodWithUnread(plan.understood, conversation.input)) };
    if (conversation.turns.length === 0) return { kind: "call_tools", calls: plan.calls };
    const outcomes = outcomesOf(conversation);
    const notes = plan.notes ?? [];
    const text =
      conversation.failure === undefined
        ? reportOutcomes(outcomes, notes)
        : reportAfterSandboxFailure(outcomes, notes, conversation.failure);
    return { kind: "answer", text: withUnreadParts(text, unread) };
  }

  saveState(conversation: Readonly<Conversation>): PlannerState {
    const read = this.plan.kind === "calls" ? this.plan.source : "none";
    return scriptedState([...this.earlierRuns, rememberRun(read, outcomesOf(conversation), conversation.failure)]);
  }
}

/**
 * What the agent made of an input in which it found nothing to run, with the parts it could not read
 * (docs/api.md#whole-inputs): an input of only images is not "empty", it is unreadable, and says so.
 */
function understoodWithUnread(understood: string, input: Readonly<Conversation["input"]>): string {
  const unread = input.unread ?? [];
  if (unread.length === 0) return understood;
  if (input.text.trim() === "") return unreadOnlySentence(unread);
  return `${understood.trim()} ${unreadSentence(unread)}`;
}
