// The deterministic planner behind the emulated agent (docs/api.md#the-emulated-agent), the first
// implementation of the Planner interface. It reads the input once, in one of two ways: an exact
// ```tool_calls script (script-reader.ts, for tests), or the plain phrasings the seed documentation uses
// (phrasing-reader.ts). Turn by turn it asks for the calls it read, in order: each run of consecutive
// sandbox tool calls as one move, each run of consecutive function calls as one ask_client move (the
// run then waits for the client; the interaction that brings the results resumes the planner, which
// goes on with the rest of the script). When the calls are done it answers with the report of what
// happened (report.ts, function-report.ts). The readers are deliberately literal: the point of the
// emulator is a known sequence of tool calls for hooks.

import { type AgentCall, isMcpCall } from "../../agent/agent-call.js";
import { outcomesOf, type Conversation } from "../../agent/conversation.js";
import type { DeclaredFunctions } from "../../agent/declared-functions.js";
import { FunctionCallChecker, isFunctionCall, type PlannedCall } from "../../agent/function-calls.js";
import { reportWithFunctionResults } from "./function-report.js";
import { keepDeclaredMcpCalls } from "./mcp-phrasing.js";
import { describeUnderstanding, planFromPhrasing } from "./phrasing-reader.js";
import type { Move, Planner, PlannerState } from "../../agent/planner.js";
import { noCallAnswer, reportAfterSandboxFailure, reportOutcomes } from "./report.js";
import { readToolCallsScript } from "./script-reader.js";
import {
  pendingScript,
  rememberConversation,
  rememberedRuns,
  scriptedState,
  SCRIPTED_PLANNER,
  type PendingScript,
  type RememberedRun,
} from "./scripted-planner-state.js";
import { unreadOnlySentence, unreadSentence, withUnreadParts } from "../../agent/unread-parts.js";
import { fixedAnswerFor, type UsableFormat } from "./fixed-answer.js";
import { readResponseBlock } from "./response-block.js";
import type { SchemaBounds } from "./schema-bounds.js";

export type PlanResult =
  | {
      kind: "calls";
      /** Sandbox tool calls and calls of declared functions, in the order the input gives them. */
      calls: PlannedCall[];
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

/**
 * `functions` knows the request's declared functions, and `options` its MCP servers, which the input
 * may call as well as the sandbox tools.
 */
export function planFromInput(
  text: string,
  functions: FunctionCallChecker = new FunctionCallChecker(),
  options: PlanOptions = {},
): PlanResult {
  // Windows line endings and stray placeholder characters must not change how anything is read.
  const normalized = text.replace(/\r\n?/g, "\n").replace(/[\uE000\uE001]/g, "");
  const mcpServers = options.mcpServers ?? [];
  const script = readToolCallsScript(normalized, functions, { mcpServers });
  if (script.kind === "invalid") return script;
  if (script.kind === "calls") return { kind: "calls", calls: script.calls, source: "script" };
  const read = planFromPhrasing(normalized, functions);
  if (read.invalid) return { kind: "invalid", message: read.invalid.join("\n") };
  const declared = keepDeclaredMcpCalls(read.calls, mcpServers);
  const phrased = { calls: declared.calls, notes: [...read.notes, ...declared.notes] };
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
  /** The functions the request declares in `tools`; the input may call them. */
  functions?: DeclaredFunctions;
  /**
   * The input answers the function calls the previous interaction handed to the client: the planner
   * reads no new input and goes on with the rest of that interaction's script.
   */
  continuing?: boolean;
  /** The names of the request's mcp_server tools: the servers a script or phrasing may call. */
  mcpServers?: readonly string[];
  /** What the request's JSON Schemas may cost (schema-bounds.ts); the defaults when absent. */
  schemaBounds?: SchemaBounds;
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
  const earlierRuns = rememberedRuns(previous);
  const format = options.responseFormat ?? { kind: "text" };
  if (options.continuing) {
    // The answer the original input scripted (or the JSON it asked for) is still this conversation's final answer.
    const pending = pendingScript(previous);
    const fixed = fixedAnswerFor(pending?.response, format, options.schemaBounds);
    if (fixed.kind === "invalid") return fixed;
    const planner = new ScriptedPlanner(continuedPlan(pending), earlierRuns, true, fixed.kind === "fixed" ? fixed.text : undefined);
    return { kind: "ready", planner };
  }
  const response = readResponseBlock(inputText);
  if (response.kind === "invalid") return response;
  const functions = new FunctionCallChecker(options.functions, options.schemaBounds?.maxSchemaChars);
  const plan = planFromInput(response.rest, functions, { mcpServers: options.mcpServers ?? [] });
  if (plan.kind === "invalid") return plan;
  const fixed = fixedAnswerFor(response.kind === "found" ? response.text : undefined, format, options.schemaBounds);
  if (fixed.kind === "invalid") return fixed;
  return { kind: "ready", planner: new ScriptedPlanner(plan, earlierRuns, false, fixed.kind === "fixed" ? fixed.text : undefined) };
}

/** The rest of the previous run's script; with none kept, nothing is left to do but report the results. */
function continuedPlan(pending: PendingScript | null): ReadablePlan {
  if (!pending) return { kind: "calls", calls: [], source: "script" };
  const { source, calls, notes } = pending;
  return { kind: "calls", calls, source, ...(notes.length > 0 ? { notes } : {}) };
}

export class ScriptedPlanner implements Planner {
  readonly name = SCRIPTED_PLANNER;
  /** How many of the plan's calls have been asked for so far in this run. */
  private asked = 0;

  constructor(
    readonly plan: ReadablePlan,
    /** The earlier runs of the conversation, from the previous interaction's state. */
    readonly earlierRuns: readonly RememberedRun[] = [],
    /** Whether this run goes on with the script of a run that handed function calls to the client. */
    readonly continued = false,
    /**
     * [choice] The final answer, when the input scripts it or the request asks for JSON: given instead of
     * the report once the calls have run (the steps still show each call and hook decision). A run cut
     * off by its sandbox still ends with the report that says what did not run.
     */
    readonly fixedAnswer?: string,
  ) {}

  /**
   * Whether any sandbox tool call is left: the environment is then opened for the whole script. Function
   * calls are the client's and MCP tools are called by the emulator itself: a run of only those needs none.
   */
  get needsSandbox(): boolean {
    return this.plan.kind === "calls" && this.plan.calls.some((call) => !isFunctionCall(call) && !isMcpCall(call));
  }

  /** The sandbox calls this interaction makes: those before the script's first function call. */
  get plannedCalls(): number {
    if (this.plan.kind !== "calls") return 0;
    const firstFunction = this.plan.calls.findIndex(isFunctionCall);
    return firstFunction < 0 ? this.plan.calls.length : firstFunction;
  }

  async next(conversation: Readonly<Conversation>): Promise<Move> {
    const { plan } = this;
    const { unread } = conversation.input;
    if (plan.kind === "none") {
      return { kind: "answer", text: this.fixedAnswer ?? noCallAnswer(understoodWithUnread(plan.understood, conversation.input)) };
    }
    if (conversation.failure === undefined) {
      const move = this.nextCalls(plan.calls);
      if (move) return move;
      // Exactly as fixed: a JSON answer must stay JSON, so nothing is added to it.
      if (this.fixedAnswer !== undefined) return { kind: "answer", text: this.fixedAnswer };
    }
    return { kind: "answer", text: withUnreadParts(this.report(conversation, plan.notes ?? []), unread) };
  }

  saveState(conversation: Readonly<Conversation>): PlannerState {
    const read = this.continued ? "function_results" : this.plan.kind === "calls" ? this.plan.source : "none";
    const run = rememberConversation(read, conversation);
    // A run that handed calls to the client keeps the rest of its script for the run that answers them.
    const waiting = conversation.turns[conversation.turns.length - 1]?.kind === "ask_client";
    const { plan } = this;
    const pending: PendingScript | undefined =
      waiting && plan.kind === "calls"
        ? {
            source: plan.source,
            calls: plan.calls.slice(this.asked),
            notes: plan.notes ?? [],
            ...(this.fixedAnswer !== undefined ? { response: this.fixedAnswer } : {}),
          }
        : undefined;
    return scriptedState([...this.earlierRuns, run], pending);
  }

  /** The next group of calls of one kind: sandbox tools run together, function calls go to the client together. */
  private nextCalls(calls: readonly PlannedCall[]): Move | undefined {
    const rest = calls.slice(this.asked);
    const first = rest[0];
    if (!first) return undefined;
    const end = rest.findIndex((call) => isFunctionCall(call) !== isFunctionCall(first));
    const group = end < 0 ? rest : rest.slice(0, end);
    this.asked += group.length;
    if (!isFunctionCall(first)) return { kind: "call_tools", calls: group as AgentCall[] };
    return { kind: "ask_client", calls: group.filter(isFunctionCall).map((call) => ({ name: call.name, arguments: call.args })) };
  }

  private report(conversation: Readonly<Conversation>, notes: readonly string[]): string {
    const outcomes = outcomesOf(conversation);
    const { failure, input } = conversation;
    if (input.functionResults) return reportWithFunctionResults(input.functionResults, outcomes, notes, failure);
    return failure === undefined ? reportOutcomes(outcomes, notes) : reportAfterSandboxFailure(outcomes, notes, failure);
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
