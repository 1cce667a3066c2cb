// The stored interactions of one owner, newest first, as summaries (interaction-summary.ts), for the
// emulator's list (GET /emulator/interactions) and so the dashboard. [choice] A page is read with a few
// small queries per interaction and never folds its steps: an interaction may hold megabytes of input and
// output, and a list of fifty must not read them. SQLite's JSON functions pick out the input's text and
// count the hook decisions inside the store.

import type { InteractionStatus } from "../agent/steps.js";
import type { Statement } from "better-sqlite3";
import type { Db } from "../store/database.js";
import { PreparedStatements } from "../store/prepared-statements.js";
import { type InteractionRecord, type InteractionRow, recordColumns } from "./interaction-record.js";
import { INPUT_PREVIEW_CHARS, previewOfTexts, summaryFields, type InteractionSummary } from "./interaction-summary.js";
import type { Usage } from "./usage.js";

export interface InteractionListFilter {
  status?: InteractionStatus;
  /** An agent or a model name, matched exactly. */
  agent?: string;
  environmentId?: string;
}

/** Where a page starts: after this interaction (its created time and row number). */
export interface ListPosition {
  created: string;
  seq: number;
}

export interface ListedInteraction {
  summary: InteractionSummary;
  position: ListPosition;
}

/** The columns a summary needs, and the row's position in the table. */
type Row = Omit<InteractionRow, "planner_state" | "input_shape"> & { seq: number };

// The first step of a run is always its third event (interaction.created, interaction.status_update,
// then the first step's step.start: interaction-runner.ts start()).
const FIRST_STEP_EVENT_SEQ = 3;

export class InteractionListing {
  /** Prepared once per store: a page runs two small queries per interaction listed. */
  private readonly statements: PreparedStatements;

  constructor(db: Db) {
    this.statements = new PreparedStatements(db);
  }

  private prepared(sql: string): Statement {
    return this.statements.get(sql);
  }

  /** Up to `limit` interactions of `owner` matching `filter`, newest first, after `after` when given. */
  page(owner: string, filter: InteractionListFilter, limit: number, after: ListPosition | null): ListedInteraction[] {
    const rows = this.prepared(
      `SELECT rowid AS seq, id, owner, status, environment_id, previous_interaction_id, echo, errors, created, updated, usage
         FROM interactions
         WHERE owner = @owner
           AND (@status IS NULL OR status = @status)
           AND (@environmentId IS NULL OR environment_id = @environmentId)
           AND (@agent IS NULL OR json_extract(echo, '$.agent') = @agent OR json_extract(echo, '$.model') = @agent)
           AND (@afterCreated IS NULL OR created < @afterCreated OR (created = @afterCreated AND rowid < @afterSeq))
         ORDER BY created DESC, rowid DESC
         LIMIT @limit`,
    ).all({
      owner,
      status: filter.status ?? null,
      environmentId: filter.environmentId ?? null,
      agent: filter.agent ?? null,
      afterCreated: after?.created ?? null,
      afterSeq: after?.seq ?? 0,
      limit,
    }) as Row[];
    return rows.map((row) => ({ summary: this.summarize(row), position: { created: row.created, seq: row.seq } }));
  }

  private summarize(row: Row): InteractionSummary {
    const record: Omit<InteractionRecord, "steps" | "hookTraces"> = {
      ...recordColumns(row),
      ...(row.usage !== null ? { usage: JSON.parse(row.usage) as Usage } : {}),
    };
    return { ...summaryFields(record), input_preview: previewOfTexts(this.inputTexts(row.id)), ...this.hookCounts(row.id) };
  }

  /** The text parts of the first step when it is a user_input step (stored as a step, or as its event). */
  private inputTexts(id: string): string[] {
    const fromSteps = this.prepared(
      `SELECT substr(json_extract(part.value, '$.text'), 1, @chars) AS text
         FROM steps, json_each(steps.step, '$.content') AS part
         WHERE steps.interaction_id = @id AND steps.idx = 0 AND json_extract(steps.step, '$.type') = 'user_input'
           AND json_extract(part.value, '$.type') = 'text'`,
    ).all({ id, chars: INPUT_PREVIEW_CHARS * 2 }) as Array<{ text: string | null }>;
    const rows =
      fromSteps.length > 0
        ? fromSteps
        : (this.prepared(
            `SELECT substr(json_extract(part.value, '$.text'), 1, @chars) AS text
               FROM interaction_events AS e, json_each(e.event, '$.step.content') AS part
               WHERE e.interaction_id = @id AND e.seq = @seq AND json_extract(e.event, '$.event_type') = 'step.start'
                 AND json_extract(e.event, '$.step.type') = 'user_input' AND json_extract(part.value, '$.type') = 'text'`,
          ).all({ id, seq: FIRST_STEP_EVENT_SEQ, chars: INPUT_PREVIEW_CHARS * 2 }) as Array<{ text: string | null }>);
    return rows.flatMap((row) => (row.text === null ? [] : [row.text]));
  }

  private hookCounts(id: string): Pick<InteractionSummary, "tool_calls" | "denied_calls" | "failed_open_hooks"> {
    const row = this.prepared(
      `SELECT count(*) AS calls,
                coalesce(sum(json_extract(trace, '$.pre.decision') = 'deny'), 0) AS denied,
                coalesce(sum((SELECT count(*) FROM json_each(trace, '$.pre.handlers') AS handler
                              WHERE json_type(handler.value, '$.fail_open') = 'object')), 0) AS failed_open
         FROM hook_traces WHERE interaction_id = ?`,
    ).get(id) as { calls: number; denied: number; failed_open: number };
    return { tool_calls: row.calls, denied_calls: row.denied, failed_open_hooks: row.failed_open };
  }
}
