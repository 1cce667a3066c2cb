import type { Db } from "../store/database.js";
import type { PlannerState } from "../agent/planner.js";
import type { InteractionStatus, Step } from "../agent/steps.js";

export interface InteractionRecord {
  id: string;
  owner: string;
  status: InteractionStatus;
  environmentId: string | null;
  previousInteractionId: string | null;
  /** Request fields echoed back on every read (agent, tools, labels, …). */
  echo: Record<string, unknown>;
  errors: Array<{ code: string; message: string }>;
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
}

interface Row {
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
}

export class InteractionStore {
  constructor(private readonly db: Db) {}

  /** Writes the interaction and its steps in one transaction: a reader never sees half of it. */
  save(record: InteractionRecord): void {
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO interactions (id, owner, status, environment_id, previous_interaction_id, echo, errors, created, updated, planner_state)
           VALUES (@id, @owner, @status, @environmentId, @previousInteractionId, @echo, @errors, @created, @updated, @plannerState)
           ON CONFLICT (id) DO UPDATE SET status = excluded.status, errors = excluded.errors, updated = excluded.updated,
             environment_id = excluded.environment_id, planner_state = excluded.planner_state`,
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
        });
      this.db.prepare("DELETE FROM steps WHERE interaction_id = ?").run(record.id);
      const insertStep = this.db.prepare("INSERT INTO steps (interaction_id, idx, step) VALUES (?, ?, ?)");
      for (const [index, step] of record.steps.entries()) insertStep.run(record.id, index, JSON.stringify(step));
      this.db.prepare("DELETE FROM hook_traces WHERE interaction_id = ?").run(record.id);
      const insertTrace = this.db.prepare("INSERT INTO hook_traces (interaction_id, idx, trace) VALUES (?, ?, ?)");
      for (const [index, trace] of record.hookTraces.entries()) insertTrace.run(record.id, index, JSON.stringify(trace));
    })();
  }

  /** Runs `work` in one transaction (e.g. the last events and the final record of a run). */
  atomically<T>(work: () => T): T {
    return this.db.transaction(work)();
  }

  get(id: string, owner: string): InteractionRecord | null {
    const row = this.db.prepare("SELECT * FROM interactions WHERE id = ? AND owner = ?").get(id, owner) as Row | undefined;
    return row ? this.hydrate(row) : null;
  }

  /** Interactions still marked in_progress, of every owner (at start-up, these were interrupted). */
  listInProgress(): InteractionRecord[] {
    const rows = this.db.prepare("SELECT * FROM interactions WHERE status = 'in_progress' ORDER BY created").all() as Row[];
    return rows.map((row) => this.hydrate(row));
  }

  /** Deletes the interaction with its steps, hook traces and events; false when there was none. */
  delete(id: string, owner: string): boolean {
    return this.db.prepare("DELETE FROM interactions WHERE id = ? AND owner = ?").run(id, owner).changes > 0;
  }

  private hydrate(row: Row): InteractionRecord {
    const id = row.id;
    const steps = (this.db.prepare("SELECT step FROM steps WHERE interaction_id = ? ORDER BY idx").all(id) as Array<{ step: string }>).map(
      (stepRow) => JSON.parse(stepRow.step) as Step,
    );
    const hookTraces = (
      this.db.prepare("SELECT trace FROM hook_traces WHERE interaction_id = ? ORDER BY idx").all(id) as Array<{ trace: string }>
    ).map((traceRow) => JSON.parse(traceRow.trace) as object);
    const record: InteractionRecord = {
      id: row.id,
      owner: row.owner,
      status: row.status,
      environmentId: row.environment_id,
      previousInteractionId: row.previous_interaction_id,
      echo: JSON.parse(row.echo) as Record<string, unknown>,
      errors: row.errors ? (JSON.parse(row.errors) as InteractionRecord["errors"]) : [],
      created: row.created,
      updated: row.updated,
      steps,
      hookTraces,
    };
    if (row.planner_state !== null) record.plannerState = JSON.parse(row.planner_state) as PlannerState;
    return record;
  }
}
