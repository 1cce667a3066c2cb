// An interaction as the service keeps it (its record) and as the interactions table holds it (its row),
// with the record's own columns read from a row: shared by the store, its listing and the summaries,
// which import this and not each other.

import type { PlannerState } from "../agent/planner.js";
import type { InteractionStatus, Step } from "../agent/steps.js";
import type { InputShape } from "../api/interaction-input.js";
import type { ErrorCode } from "../common/errors.js";
import type { Usage } from "./usage.js";

export interface InteractionRecord {
  id: string;
  owner: string;
  status: InteractionStatus;
  environmentId: string | null;
  previousInteractionId: string | null;
  /** Request fields echoed back on every read (agent, tools, labels, …), and the continuation_token it handed out. */
  echo: Record<string, unknown>;
  errors: Array<{ code: ErrorCode; message: string }>;
  created: string;
  updated: string;
  steps: Step[];
  /** One entry per tool call: what the hooks did around it (served by the emulator's debug API). */
  hookTraces: object[];
  /**
   * The agent's planner state after the run, which a later interaction naming this one resumes. Set
   * when the run has ended; never part of the public Interaction.
   */
  plannerState?: PlannerState;
  /**
   * How the input was given (a string, Content, a list of Steps) and how many of the first steps record
   * it, so GET ?include_input=true can give it back as sent without storing it twice. Absent for
   * interactions stored before inputs were kept whole.
   */
  inputShape?: InputShape;
  /** Its token usage so far (docs/api.md#usage): the input's from the start, the run's steps as they finish. */
  usage?: Usage;
}

/** The record's own columns of a row (no steps, traces, planner state, input shape or usage). */
export function recordColumns(
  row: Omit<InteractionRow, "planner_state" | "input_shape" | "usage">,
): Omit<InteractionRecord, "steps" | "hookTraces" | "usage"> {
  return {
    id: row.id,
    owner: row.owner,
    status: row.status,
    environmentId: row.environment_id,
    previousInteractionId: row.previous_interaction_id,
    echo: JSON.parse(row.echo) as Record<string, unknown>,
    errors: row.errors ? (JSON.parse(row.errors) as InteractionRecord["errors"]).map(withDocumentedCode) : [],
    created: row.created,
    updated: row.updated,
  };
}

/** The codes older emulators stored (Google's canonical statuses), as the documented codes that replaced them. */
const LEGACY_CODES: Readonly<Record<string, ErrorCode>> = {
  INTERNAL: "api_error",
  UNKNOWN: "api_error",
  ABORTED: "aborted",
  UNAVAILABLE: "service_unavailable",
  RESOURCE_EXHAUSTED: "quota_exceeded",
  FAILED_PRECONDITION: "failed_precondition",
  DEADLINE_EXCEEDED: "deadline_exceeded",
};

/** A stored error as the API shows it today: one an older emulator stored keeps its message, with today's code. */
function withDocumentedCode(error: InteractionRecord["errors"][number]): InteractionRecord["errors"][number] {
  const code = Object.hasOwn(LEGACY_CODES, error.code) ? LEGACY_CODES[error.code] : undefined;
  return code === undefined ? error : { ...error, code };
}

/** A row of the interactions table, as SQLite gives it. */
export interface InteractionRow {
  id: string;
  owner: string;
  status: InteractionStatus;
  environment_id: string | null;
  previous_interaction_id: string | null;
  echo: string;
  errors: string | null;
  created: string;
  updated: string;
  planner_state: string | null;
  input_shape: string | null;
  usage: string | null;
}
