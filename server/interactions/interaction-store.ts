import type { Db } from "../store/database.js";
import type { PlannerState } from "../agent/planner.js";
import type { InputShape } from "../api/interaction-input.js";
import type { Step } from "../agent/steps.js";
import { EventStore, foldableEvents, isSnapshotEvent, type StoredEvent } from "./event-store.js";
import type { InteractionEvent } from "./events.js";
import { foldEvents, foldStepsOneByOne } from "./step-accumulator.js";
import { usageOfStoredSteps, type Usage } from "./usage.js";
import { InteractionListing, type InteractionListFilter, type ListedInteraction, type ListPosition } from "./interaction-listing.js";
import { insertRows, selectRows, type StoredRow } from "../store/owned-rows.js";
import { PreparedStatements } from "../store/prepared-statements.js";
import { recordColumns, type InteractionRecord, type InteractionRow } from "./interaction-record.js";
import { inTransaction } from "../store/transactions.js";

// The record lives in interaction-record.ts, which the listing and the summaries share; its importers
// may keep importing it from here.
export type { InteractionRecord } from "./interaction-record.js";

export interface SaveOptions {
  /**
   * The record's steps are already stored as its events (a run stores every event as it happens), so
   * they are not written a second time: reading the record folds them from the events.
   */
  stepsInEvents?: boolean;
}

/**
 * An interaction to be written out step by step: the record without its steps (`steps` is empty) and
 * the steps, read from the store one at a time each time `steps()` is called.
 */
export interface InteractionReading {
  record: InteractionRecord;
  steps(): AsyncIterable<Step> | readonly Step[];
}

/** Steps (of a record stored with its steps, not as events) read per page of the steps table. */
const STEP_PAGE = 16;

export class InteractionStore {
  /** The list's queries, prepared on first use (interaction-listing.ts). */
  private listing: InteractionListing | null = null;
  /** The interaction_events table read page by page (readFoldedSteps). */
  private eventPages: EventStore | null = null;

  /** What every run saves and reads twice or more (save, read, get): prepared once. */
  private readonly statements: PreparedStatements;

  constructor(private readonly db: Db) {
    this.statements = new PreparedStatements(db);
  }

  /** Writes the interaction and its steps in one transaction: a reader never sees half of it. */
  save(record: InteractionRecord, options: SaveOptions = {}): void {
    inTransaction(this.db, () => {
      this.statements
        .get(
          `INSERT INTO interactions (id, owner, status, environment_id, previous_interaction_id, echo, errors, created, updated, planner_state, input_shape, usage)
           VALUES (@id, @owner, @status, @environmentId, @previousInteractionId, @echo, @errors, @created, @updated, @plannerState, @inputShape, @usage)
           ON CONFLICT (id) DO UPDATE SET status = excluded.status, errors = excluded.errors, updated = excluded.updated,
             environment_id = excluded.environment_id, planner_state = excluded.planner_state, usage = excluded.usage,
             echo = excluded.echo`,
        )
        .run({
          id: record.id,
          owner: record.owner,
          status: record.status,
          environmentId: record.environmentId,
          previousInteractionId: record.previousInteractionId,
          echo: JSON.stringify(record.echo),
          errors: record.errors.length > 0 ? JSON.stringify(record.errors) : null,
          created: record.created,
          updated: record.updated,
          plannerState: record.plannerState === undefined ? null : JSON.stringify(record.plannerState),
          inputShape: record.inputShape === undefined ? null : JSON.stringify(record.inputShape),
          usage: record.usage === undefined ? null : JSON.stringify(record.usage),
        });
      this.statements.get("DELETE FROM steps WHERE interaction_id = ?").run(record.id);
      const insertStep = this.statements.get("INSERT INTO steps (interaction_id, idx, step) VALUES (?, ?, ?)");
      if (!options.stepsInEvents) {
        for (const [index, step] of record.steps.entries()) insertStep.run(record.id, index, JSON.stringify(step));
      }
      this.statements.get("DELETE FROM hook_traces WHERE interaction_id = ?").run(record.id);
      const insertTrace = this.statements.get("INSERT INTO hook_traces (interaction_id, idx, trace) VALUES (?, ?, ?)");
      for (const [index, trace] of record.hookTraces.entries()) insertTrace.run(record.id, index, JSON.stringify(trace));
    });
  }

  /** Runs `work` in one transaction (e.g. the last events and the final record of a run). */
  atomically<T>(work: () => T): T {
    return inTransaction(this.db, work);
  }

  /**
   * The interaction for writing out (GET, a stream's closing snapshot) without holding its steps: they
   * are read one by one as the writer reaches them. A row stored before usage was kept is read whole
   * (its usage is counted from its steps).
   */
  read(id: string, owner: string): InteractionReading | null {
    const row = this.statements.get("SELECT * FROM interactions WHERE id = ? AND owner = ?").get(id, owner) as InteractionRow | undefined;
    if (!row) return null;
    if (row.usage === null) {
      const whole = this.hydrate(row);
      return { record: whole, steps: () => whole.steps };
    }
    const record: InteractionRecord = { ...recordColumns(row), steps: [], hookTraces: [], usage: JSON.parse(row.usage) as Usage };
    if (row.planner_state !== null) record.plannerState = JSON.parse(row.planner_state) as PlannerState;
    if (row.input_shape !== null) record.inputShape = JSON.parse(row.input_shape) as InputShape;
    const stepsInTable = this.statements.get("SELECT 1 FROM steps WHERE interaction_id = ? LIMIT 1").get(id) !== undefined;
    return { record, steps: () => (stepsInTable ? this.readStepRows(id) : this.readFoldedSteps(id)) };
  }

  get(id: string, owner: string): InteractionRecord | null {
    const row = this.statements.get("SELECT * FROM interactions WHERE id = ? AND owner = ?").get(id, owner) as InteractionRow | undefined;
    return row ? this.hydrate(row) : null;
  }

  /** The owner's interactions as summaries, newest first (interaction-listing.ts). */
  listPage(owner: string, filter: InteractionListFilter, limit: number, after: ListPosition | null): ListedInteraction[] {
    this.listing ??= new InteractionListing(this.db);
    return this.listing.page(owner, filter, limit, after);
  }

  /** Interactions still marked in_progress or queued, of every owner (at start-up, these were interrupted). */
  listInProgress(): InteractionRecord[] {
    const rows = this.db
      .prepare("SELECT * FROM interactions WHERE status IN ('in_progress', 'queued') ORDER BY created")
      .all() as InteractionRow[];
    return rows.map((row) => this.hydrate(row));
  }

  /** Deletes the interaction with its steps, hook traces and events; false when there was none. */
  delete(id: string, owner: string): boolean {
    return this.db.prepare("DELETE FROM interactions WHERE id = ? AND owner = ?").run(id, owner).changes > 0;
  }

  private hydrate(row: InteractionRow): InteractionRecord {
    const id = row.id;
    const steps = this.stepsOf(id);
    const hookTraces = (
      this.db.prepare("SELECT trace FROM hook_traces WHERE interaction_id = ? ORDER BY idx").all(id) as Array<{ trace: string }>
    ).map((traceRow) => JSON.parse(traceRow.trace) as object);
    const record: InteractionRecord = { ...recordColumns(row), steps, hookTraces };
    if (row.planner_state !== null) record.plannerState = JSON.parse(row.planner_state) as PlannerState;
    if (row.input_shape !== null) record.inputShape = JSON.parse(row.input_shape) as InputShape;
    // Stored before usage was kept: counted from its steps, by the same rule.
    record.usage = row.usage !== null ? (JSON.parse(row.usage) as Usage) : usageOfStoredSteps(steps, record.echo.system_instruction);
    return record;
  }

  private async *readStepRows(id: string): AsyncGenerator<Step, void, undefined> {
    const page = this.db.prepare("SELECT idx, step FROM steps WHERE interaction_id = ? AND idx > ? ORDER BY idx LIMIT ?");
    let after = -1;
    for (;;) {
      const rows = page.all(id, after, STEP_PAGE) as Array<{ idx: number; step: string }>;
      if (rows.length === 0) return;
      for (const row of rows) {
        after = row.idx;
        yield JSON.parse(row.step) as Step;
      }
    }
  }

  private readFoldedSteps(id: string): AsyncIterable<Step> {
    this.eventPages ??= new EventStore(this.db);
    const pages = this.eventPages;
    async function* stepEvents(): AsyncGenerator<InteractionEvent, void, undefined> {
      for await (const { event } of pages.read(id)) if (!isSnapshotEvent(event)) yield event as InteractionEvent;
    }
    return foldStepsOneByOne(stepEvents());
  }

  /** The steps as stored with the record or, when there are none (saved with stepsInEvents), folded from its events. */
  private stepsOf(id: string): Step[] {
    const rows = this.db.prepare("SELECT step FROM steps WHERE interaction_id = ? ORDER BY idx").all(id) as Array<{ step: string }>;
    if (rows.length > 0) return rows.map((stepRow) => JSON.parse(stepRow.step) as Step);
    const events = (
      this.db.prepare("SELECT event FROM interaction_events WHERE interaction_id = ? ORDER BY seq").all(id) as Array<{ event: string }>
    ).map((eventRow) => JSON.parse(eventRow.event) as StoredEvent);
    return foldEvents(foldableEvents(events)).steps;
  }

  /** The owner's interactions with their steps, hook traces and events, as stored (server/snapshots). */
  exportOwned(owner: string): Record<"interactions" | "steps" | "hook_traces" | "interaction_events", StoredRow[]> {
    const mine = "SELECT id FROM interactions WHERE owner = ?";
    return {
      interactions: selectRows(this.db, "SELECT * FROM interactions WHERE owner = ? ORDER BY created, id", owner),
      steps: selectRows(this.db, `SELECT * FROM steps WHERE interaction_id IN (${mine}) ORDER BY interaction_id, idx`, owner),
      hook_traces: selectRows(this.db, `SELECT * FROM hook_traces WHERE interaction_id IN (${mine}) ORDER BY interaction_id, idx`, owner),
      interaction_events: selectRows(
        this.db,
        `SELECT * FROM interaction_events WHERE interaction_id IN (${mine}) ORDER BY interaction_id, seq`,
        owner,
      ),
    };
  }

  /** Rows of a snapshot, made the owner's (parents first, for the foreign keys); inside the import's transaction. */
  importOwned(tables: Record<"interactions" | "steps" | "hook_traces" | "interaction_events", StoredRow[]>, owner: string): void {
    insertRows(this.db, "interactions", tables.interactions, { owner });
    insertRows(this.db, "steps", tables.steps);
    insertRows(this.db, "hook_traces", tables.hook_traces);
    insertRows(this.db, "interaction_events", tables.interaction_events);
  }
}
