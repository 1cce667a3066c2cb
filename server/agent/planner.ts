// What drives the agent's turn loop (docs/architecture.md#the-agent-as-a-turn-loop). At every turn the
// loop shows its planner the conversation so far and gets the next move back; the loop does the rest
// (hooks, tools, steps, streaming). The scripted planner is the first implementation; a model-backed
// one, function calling and MCP tools are meant to fit behind the same interface.

import type { AgentCall } from "./agent-call.js";
import type { ClientFunctionCall, Conversation } from "./conversation.js";

export type Move =
  /** Run these tools, in order (hooks guard each sandbox tool; MCP tools are called by the emulator), then ask again. */
  | { kind: "call_tools"; calls: AgentCall[] }
  /** Hand these function calls to the client: the run ends waiting for their results. */
  | { kind: "ask_client"; calls: ClientFunctionCall[] }
  /** The final answer: the run ends with it as its model_output. */
  | { kind: "answer"; text: string };

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
  next(conversation: Readonly<Conversation>, signal?: AbortSignal): Promise<Move>;
  /** The state to keep after the run, however it ended; plain JSON. */
  saveState(conversation: Readonly<Conversation>): PlannerState;
}
