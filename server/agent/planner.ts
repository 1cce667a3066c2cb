// What drives the agent's turn loop (docs/architecture.md#the-agent-as-a-turn-loop). At every turn the
// loop shows its planner the conversation so far and gets the next move back; the loop does the rest
// (hooks, tools, steps, streaming). Two planners implement it: the scripted one
// (server/planners/scripted/) and the model-backed one (server/planners/model/).

import type { ErrorCode } from "../common/errors.js";
import type { AgentCall } from "./agent-call.js";
import type { ClientFunctionCall, Conversation } from "./conversation.js";

export type Move =
  /** Run these tools, in order (hooks guard each sandbox tool; MCP tools are called by the emulator), then ask again. */
  | { kind: "call_tools"; calls: AgentCall[] }
  /** Hand these function calls to the client: the run ends waiting for their results. */
  | { kind: "ask_client"; calls: ClientFunctionCall[] }
  /**
   * The final answer: the run ends with it as its model_output. `written`: the planner already wrote
   * it as it arrived (PlannerOutput.startText), so the loop writes nothing more.
   */
  | { kind: "answer"; text: string; written?: boolean }
  /**
   * The planner cannot go on (its model failed, or the run passed its token budget): the run ends with
   * this status and error; `text`, when given, is written as a last model_output first.
   */
  | { kind: "fail"; status: "failed" | "incomplete"; error: { code: ErrorCode; message: string }; text?: string };

/** A model_output step whose text arrives in pieces (a model's stream). */
export interface TextWriter {
  append(text: string): void;
  /** Stops the step; nothing more may be appended. */
  finish(): void;
}

/** Tokens a model reported for one of its turns. */
export interface ReportedUsage {
  input: number;
  output: number;
  thought: number;
}

/**
 * What a planner may write while it thinks, beside its move: the scripted planner writes nothing; a
 * model's planner streams its text and thoughts as they arrive and reports each turn's tokens (the
 * interaction's usage is then the sum of what the model reported, not the emulator's own count).
 */
export interface PlannerOutput {
  startText(): TextWriter;
  /** A thought step (the SDK's ThoughtStep: a text summary, and the model's signature when it gave one). */
  thought(text: string, signature?: string): void;
  reportUsage(usage: ReportedUsage): void;
}

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * A planner's state after a run, kept with the interaction so that a later interaction naming it
 * (previous_interaction_id) can resume the planner. Tagged with the planner's name: a planner resumes
 * only a state of its own kind and starts afresh from any other.
 */
export interface PlannerState {
  planner: string;
  data: JsonValue;
}

export interface Planner {
  /** Names the kind of planner; it tags the state the planner saves. */
  readonly name: string;
  /**
   * Whether this run may call sandbox tools. The interaction then opens an environment (a fresh one
   * when the request names none) and its channel before the run starts, so an unusable environment is
   * refused up front instead of mid-run.
   */
  readonly needsSandbox: boolean;
  /**
   * How many tool calls the planner knows up front it will ask for (a script's), when it does: a run
   * that would make more than one interaction may is then refused before it starts.
   */
  readonly plannedCalls?: number;
  /**
   * The next move, given the conversation so far. When `conversation.failure` is set the sandbox is
   * gone: the loop asks once more and takes only an answer (any other move ends the run with the
   * failure alone). A rejection that is not the signal's ends the interaction as failed.
   */
  next(conversation: Readonly<Conversation>, signal?: AbortSignal, output?: PlannerOutput): Promise<Move>;
  /** The state to keep after the run, however it ended; plain JSON. */
  saveState(conversation: Readonly<Conversation>): PlannerState;
}
