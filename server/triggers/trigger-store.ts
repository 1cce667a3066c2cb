// Triggers and their executions in SQLite, so a restart loses neither a trigger nor its schedule (its
// next run time is stored; the service schedules it again at start).

import type { Db } from "../store/database.js";
import type { CreateTriggerRequest } from "./trigger-schemas.js";
import { insertRows, selectRows, type StoredRow } from "../store/owned-rows.js";

export type TriggerStatus = "active" | "paused" | "error";
export type ExecutionStatus = "in_progress" | "completed" | "failed" | "skipped" | "timed_out";

export interface TriggerRecord {
  owner: string;
  id: string;
  /** The create request as given (schedule, time zone, interaction, limits). */
  config: CreateTriggerRequest;
  displayName?: string;
  status: TriggerStatus;
  consecutiveFailures: number;
  /** On the emulator's clock, ms since the epoch; null while the trigger is not scheduled. */
  nextRunMs: number | null;
  lastRunTime?: string;
  lastPauseTime?: string;
  lastResumeTime?: string;
  previousInteractionId?: string;
  createTime: string;
  updateTime: string;
}

export interface ExecutionRecord {
  id: string;
  triggerId: string;
  status: ExecutionStatus;
  interactionId?: string;
  environmentId?: string;
  error?: string;
  scheduledTime: string;
  startTime?: string;
  endTime?: string;
}

interface TriggerRow {
  id: string;
  owner: string;
  record: string;
}

interface ExecutionRow {
  id: string;
  trigger_id: string;
  record: string;
}

// A record's identity is its row's (the columns every lookup and update goes by), never what its JSON
// repeats: a record whose JSON named another row could otherwise be saved over that row (issue 29).
const triggerOf = (row: TriggerRow): TriggerRecord => ({ ...(JSON.parse(row.record) as TriggerRecord), id: row.id, owner: row.owner });
const executionOf = (row: ExecutionRow): ExecutionRecord => ({
  ...(JSON.parse(row.record) as ExecutionRecord),
  id: row.id,
  triggerId: row.trigger_id,
});

export class TriggerStore {
  constructor(private readonly db: Db) {}

  insert(record: TriggerRecord): void {
    this.db
      .prepare("INSERT INTO triggers (id, owner, status, record) VALUES (?, ?, ?, ?)")
      .run(record.id, record.owner, record.status, JSON.stringify(record));
  }

  /** Writes the record back over its own row only: the row of its id and its owner. */
  save(record: TriggerRecord): void {
    this.db
      .prepare("UPDATE triggers SET status = ?, record = ? WHERE id = ? AND owner = ?")
      .run(record.status, JSON.stringify(record), record.id, record.owner);
  }

  /** Any owner's trigger (for the scheduler); routes use get(owner, id). Its identity is the row's, whatever its JSON says. */
  byId(id: string): TriggerRecord | null {
    const row = this.db.prepare("SELECT id, owner, record FROM triggers WHERE id = ?").get(id) as TriggerRow | undefined;
    return row ? triggerOf(row) : null;
  }

  get(owner: string, id: string): TriggerRecord | null {
    const record = this.byId(id);
    return record && record.owner === owner ? record : null;
  }

  /** A page in id order after `afterId`, optionally of one status, read one row at a time. */
  *list(owner: string, limit: number, afterId: string | null, status: TriggerStatus | null): Generator<TriggerRecord> {
    const rows = this.db
      .prepare("SELECT id, owner, record FROM triggers WHERE owner = ? AND id > ? AND (? IS NULL OR status = ?) ORDER BY id LIMIT ?")
      .iterate(owner, afterId ?? "", status, status, limit);
    for (const row of rows) yield triggerOf(row as TriggerRow);
  }

  active(): TriggerRecord[] {
    const rows = this.db.prepare("SELECT id, owner, record FROM triggers WHERE status = 'active'").all() as TriggerRow[];
    return rows.map(triggerOf);
  }

  /** Deletes the trigger and its executions. */
  delete(owner: string, id: string): boolean {
    return this.db.prepare("DELETE FROM triggers WHERE owner = ? AND id = ?").run(owner, id).changes === 1;
  }

  insertExecution(record: ExecutionRecord): void {
    this.db
      .prepare("INSERT INTO trigger_executions (id, trigger_id, status, record) VALUES (?, ?, ?, ?)")
      .run(record.id, record.triggerId, record.status, JSON.stringify(record));
  }

  /** False when the execution is gone (its trigger was deleted). */
  saveExecution(record: ExecutionRecord): boolean {
    return (
      this.db
        .prepare("UPDATE trigger_executions SET status = ?, record = ? WHERE id = ? AND trigger_id = ?")
        .run(record.status, JSON.stringify(record), record.id, record.triggerId).changes === 1
    );
  }

  /** A page of the trigger's executions, newest first, before `beforeSeq`; with each one's position. */
  executions(triggerId: string, limit: number, beforeSeq: number | null): Array<{ seq: number; execution: ExecutionRecord }> {
    const rows = this.db
      .prepare("SELECT seq, id, trigger_id, record FROM trigger_executions WHERE trigger_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?")
      .all(triggerId, beforeSeq ?? Number.MAX_SAFE_INTEGER, limit) as Array<ExecutionRow & { seq: number }>;
    return rows.map((row) => ({ seq: row.seq, execution: executionOf(row) }));
  }

  inProgressExecutions(): ExecutionRecord[] {
    const rows = this.db
      .prepare("SELECT id, trigger_id, record FROM trigger_executions WHERE status = 'in_progress'")
      .all() as ExecutionRow[];
    return rows.map(executionOf);
  }

  /** The owner's triggers and their executions (without the store's own sequence numbers), for a snapshot. */
  exportOwned(owner: string): Record<"triggers" | "trigger_executions", StoredRow[]> {
    return {
      triggers: selectRows(this.db, "SELECT * FROM triggers WHERE owner = ? ORDER BY id", owner),
      trigger_executions: selectRows(
        this.db,
        "SELECT id, trigger_id, status, record FROM trigger_executions WHERE trigger_id IN (SELECT id FROM triggers WHERE owner = ?) ORDER BY seq",
        owner,
      ),
    };
  }

  /** Rows of a snapshot made the owner's: the owner is in the record's JSON too. */
  importOwned(tables: Record<"triggers" | "trigger_executions", StoredRow[]>, owner: string): void {
    const triggers = tables.triggers.map((row) => ({ ...row, record: JSON.stringify({ ...JSON.parse(String(row.record)), owner }) }));
    insertRows(this.db, "triggers", triggers, { owner });
    insertRows(this.db, "trigger_executions", tables.trigger_executions);
  }
}
