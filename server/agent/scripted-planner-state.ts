// What the scripted planner keeps after a run, for a later interaction that continues the conversation
// (previous_interaction_id): a short record of each run, oldest first. The planner's behaviour for a
// new input does not depend on it; it is the conversation's memory, small on purpose (call names, IDs
// and outcomes, never arguments or results, which the steps already hold).

import { isToolName, type ToolName } from "../tools/tool-call.js";
import { isMcpCall } from "./agent-call.js";
import type { CallOutcome } from "./conversation.js";
import type { PlannerState } from "./planner.js";

export const SCRIPTED_PLANNER = "scripted";

/** Beyond this many runs, the oldest are forgotten, so a long conversation keeps a bounded state. */
export const MAX_REMEMBERED_RUNS = 20;

export type RememberedCall =
  | {
      name: ToolName;
      /** null for a call that was not run (it has no steps). */
      call_id: string | null;
      status: CallOutcome["status"];
    }
  /** An MCP tool call: the server's name and the tool's. */
  | { server: string; name: string; call_id: string | null; status: CallOutcome["status"] };

export type RememberedRun = {
  /** How the input was read: a tool_calls script, plain phrasings, or nothing to run. */
  read: "script" | "phrasing" | "none";
  calls: RememberedCall[];
  /** Set when the sandbox stopped answering during the run. */
  failure?: string;
};

export type ScriptedPlannerData = { runs: RememberedRun[] };

export function rememberRun(read: RememberedRun["read"], outcomes: readonly CallOutcome[], failure: string | undefined): RememberedRun {
  const calls = outcomes.map(({ call, callId, status }): RememberedCall => {
    const callIdOrNull = callId ?? null;
    return isMcpCall(call)
      ? { server: call.server, name: call.name, call_id: callIdOrNull, status }
      : { name: call.name, call_id: callIdOrNull, status };
  });
  return failure === undefined ? { read, calls } : { read, calls, failure };
}

export function scriptedState(runs: readonly RememberedRun[]): PlannerState {
  const data: ScriptedPlannerData = { runs: runs.slice(-MAX_REMEMBERED_RUNS) };
  return { planner: SCRIPTED_PLANNER, data };
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

const READS = new Set(["script", "phrasing", "none"]);
const STATUSES = new Set(["ok", "error", "denied", "skipped"]);

function isRememberedRun(value: unknown): boolean {
  if (!isRecord(value) || !READS.has(value.read as string) || !Array.isArray(value.calls)) return false;
  if (value.failure !== undefined && typeof value.failure !== "string") return false;
  return value.calls.every(
    (call) =>
      isRecord(call) &&
      (isToolName(call.name) || (typeof call.server === "string" && typeof call.name === "string")) &&
      (call.call_id === null || typeof call.call_id === "string") &&
      STATUSES.has(call.status as string),
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
