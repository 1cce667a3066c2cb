// What the scripted planner keeps after a run, for a later interaction that continues the conversation
// (previous_interaction_id): a short record of each run, oldest first. The planner's behaviour for a
// new input does not depend on it; it is the conversation's memory, small on purpose (call names, IDs
// and outcomes, never arguments or results, which the steps already hold).
//
// One exception: a run that handed function calls to the client keeps the rest of its script
// (`pending`, arguments included), because the interaction that answers those calls goes on with it,
// in the same environment (docs/api.md#function-calling).

import { isToolName } from "../../tools/tool-call.js";
import { isMcpCall } from "../../agent/agent-call.js";
import type { CallOutcome, Conversation } from "../../agent/conversation.js";
import type { PlannedCall } from "../../agent/function-calls.js";
import type { JsonValue, PlannerState } from "../../agent/planner.js";

export const SCRIPTED_PLANNER = "scripted";

/** Beyond this many runs, the oldest are forgotten, so a long conversation keeps a bounded state. */
export const MAX_REMEMBERED_RUNS = 20;

export type RememberedCall =
  | {
      /** A sandbox tool's name, or (status "asked_client") a declared function's. */
      name: string;
      /** null for a call that was not run (it has no steps). */
      call_id: string | null;
      /** asked_client: a function call handed to the client; its result comes with the next interaction. */
      status: CallOutcome["status"] | "asked_client";
    }
  /** An MCP tool call: the server's name and the tool's. */
  | { server: string; name: string; call_id: string | null; status: CallOutcome["status"] };

export type RememberedRun = {
  /**
   * How the input was read: a tool_calls script, plain phrasings, or nothing to run; function_results:
   * the input answered the previous run's function calls, and the run went on with the rest of its script.
   */
  read: "script" | "phrasing" | "none" | "function_results";
  calls: RememberedCall[];
  /** Set when the sandbox stopped answering during the run. */
  failure?: string;
};

/** The rest of a script whose run stopped to hand function calls to the client. */
export type PendingScript = {
  source: "script" | "phrasing";
  /** The calls after the ones handed to the client, in order, as they were read (arguments checked then). */
  calls: PlannedCall[];
  /** The reader's notes about steps it could not read, for the final answer. */
  notes: string[];
  /** The final answer the input fixed (a ```response block, or the JSON a response format asked for). */
  response?: string;
};

export type ScriptedPlannerData = { runs: RememberedRun[]; pending?: PendingScript };

export function rememberRun(read: RememberedRun["read"], outcomes: readonly CallOutcome[], failure: string | undefined): RememberedRun {
  const calls = outcomes.map(({ call, callId, status }): RememberedCall => {
    const callIdOrNull = callId ?? null;
    return isMcpCall(call)
      ? { server: call.server, name: call.name, call_id: callIdOrNull, status }
      : { name: call.name, call_id: callIdOrNull, status };
  });
  return failure === undefined ? { read, calls } : { read, calls, failure };
}

/** A run's record from its turns, in order: the tools it ran, and the function calls it handed to the client. */
export function rememberConversation(read: RememberedRun["read"], conversation: Readonly<Conversation>): RememberedRun {
  const calls: RememberedCall[] = conversation.turns.flatMap((turn): RememberedCall[] =>
    turn.kind === "tool_calls"
      ? rememberRun(read, turn.outcomes, undefined).calls
      : turn.calls.map((call) => ({ name: call.name, call_id: call.id, status: "asked_client" })),
  );
  return conversation.failure === undefined ? { read, calls } : { read, calls, failure: conversation.failure };
}

export function scriptedState(runs: readonly RememberedRun[], pending?: PendingScript): PlannerState {
  const data: ScriptedPlannerData = { runs: runs.slice(-MAX_REMEMBERED_RUNS), ...(pending ? { pending } : {}) };
  // A pending call's arguments came from JSON (the script, or the JSON of a phrasing), so they are JSON.
  return { planner: SCRIPTED_PLANNER, data: data as unknown as JsonValue };
}

/**
 * The rest of the script the previous run stopped in to hand function calls to the client; null when it
 * kept none, or one this version cannot read (the answering interaction then only reports the results).
 */
export function pendingScript(previous: PlannerState | null | undefined): PendingScript | null {
  if (!previous || previous.planner !== SCRIPTED_PLANNER || !isRecord(previous.data)) return null;
  const { pending } = previous.data;
  if (!isRecord(pending) || (pending.source !== "script" && pending.source !== "phrasing")) return null;
  if (!Array.isArray(pending.calls) || !pending.calls.every(isPlannedCall)) return null;
  if (!Array.isArray(pending.notes) || !pending.notes.every((note) => typeof note === "string")) return null;
  if (pending.response !== undefined && typeof pending.response !== "string") return null;
  return pending as unknown as PendingScript;
}

function isPlannedCall(value: unknown): boolean {
  if (!isRecord(value) || !isRecord(value.args)) return false;
  if (value.kind === "function") return typeof value.name === "string" && value.name !== "";
  // An MCP tool call: called, when its turn comes, on the server of that name the answering request declares.
  if (value.server !== undefined) return typeof value.server === "string" && typeof value.name === "string" && value.name !== "";
  return value.kind === undefined && isToolName(value.name);
}

/**
 * The runs remembered in a previous interaction's state. [choice] A state of another planner, or one
 * this version cannot read, starts the conversation's memory afresh rather than failing the request.
 */
export function rememberedRuns(previous: PlannerState | null | undefined): RememberedRun[] {
  if (!previous || previous.planner !== SCRIPTED_PLANNER) return [];
  const { data } = previous;
  if (!isRecord(data) || !Array.isArray(data.runs)) return [];
  return data.runs.every(isRememberedRun) ? (data.runs as RememberedRun[]) : [];
}

const READS = new Set(["script", "phrasing", "none", "function_results"]);
const STATUSES = new Set(["ok", "error", "denied", "skipped", "asked_client"]);

function isRememberedRun(value: unknown): boolean {
  if (!isRecord(value) || !READS.has(value.read as string) || !Array.isArray(value.calls)) return false;
  if (value.failure !== undefined && typeof value.failure !== "string") return false;
  return value.calls.every(
    (call) =>
      isRecord(call) &&
      (call.status === "asked_client"
        ? typeof call.name === "string" && call.name !== ""
        : isToolName(call.name) || (typeof call.server === "string" && typeof call.name === "string")) &&
      (call.call_id === null || typeof call.call_id === "string") &&
      STATUSES.has(call.status as string),
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
