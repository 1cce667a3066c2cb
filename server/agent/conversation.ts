// The agent's own record of a run, which the turn loop hands its planner at every turn: what the client
// asked, and what each earlier move led to. It is deliberately not the wire steps: a planner reasons
// about calls and their outcomes, not about stream events or step indexes, and the record stays small
// and plain JSON so a planner may keep any part of it in its saved state.

import type { AgentCall } from "./agent-call.js";
import type { UnreadPart } from "./unread-parts.js";
import type { FunctionResultValue } from "./steps.js";

export type { FunctionResultValue };

/** One tool call the agent made (or meant to make) and how it ended. */
export interface CallOutcome {
  /** A sandbox tool call, or an MCP tool call (isMcpCall). */
  call: AgentCall;
  /** skipped: never run (code_execution not enabled, no sandbox), so it has no steps. */
  status: "ok" | "error" | "denied" | "skipped";
  /** The result text as recorded in the step: stdout+stderr, file content, listing, or error text. */
  output: string;
  /** The call's ID in the steps (call_…); absent for a skipped call, which has no steps. */
  callId?: string;
  exitCode?: number | null;
  denial?: { group: string; reason: string };
  skippedReason?: string;
}

/** A function the client runs itself: the agent hands it over and the interaction waits for its result. */
export interface ClientFunctionCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** A client function call as handed over, with the ID its function_call step carries. */
export interface PendingClientCall extends ClientFunctionCall {
  id: string;
}

/** The client's answer to one function call of the previous interaction (docs/api.md#function-calling). */
export interface ClientFunctionResult {
  callId: string;
  /** The called function's name, from the call (the client may leave it out of its result). */
  name: string;
  result: FunctionResultValue;
  isError: boolean;
}

/** What one move of the planner led to. */
export type Turn =
  /** The tools asked for ran (or were denied, skipped, or failed), in order. */
  | { kind: "tool_calls"; outcomes: CallOutcome[] }
  /** Calls handed to the client; the run ended there, waiting for their results. */
  | { kind: "ask_client"; calls: PendingClientCall[] };

export interface ConversationInput {
  /** The text of the interaction's input, as the agent reads it (docs/wire-protocol.md#input-forms). */
  text: string;
  /** The parts of that input which are not text (images, …): kept, but not readable by the agent. */
  unread?: UnreadPart[];
  /**
   * Set when the input answers the function calls the previous interaction handed to the client: one
   * result per call, in the order the client sent them.
   */
  functionResults?: ClientFunctionResult[];
}

export interface Conversation {
  input: ConversationInput;
  /** This run's turns so far, oldest first. */
  turns: Turn[];
  /**
   * Set when the sandbox stopped answering: no tool can run any more. The loop asks the planner once
   * more, for an answer that says so.
   */
  failure?: string;
}

export function newConversation(text: string, unread: readonly UnreadPart[] = [], functionResults?: ClientFunctionResult[]): Conversation {
  return {
    input: { text, ...(unread.length > 0 ? { unread: [...unread] } : {}), ...(functionResults ? { functionResults } : {}) },
    turns: [],
  };
}

/** Every tool call of the run so far, in the order they were made. */
export function outcomesOf(conversation: Conversation): CallOutcome[] {
  return conversation.turns.flatMap((turn) => (turn.kind === "tool_calls" ? turn.outcomes : []));
}
