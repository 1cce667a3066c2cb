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

export class TriggerStore {
  constructor(private readonly db: Db) {}

  insert(record: TriggerRecord): void {
    this.db
      .prepare("INSERT INTO triggers (id, owner, status, record) VALUES (?, ?, ?, ?)")
      .run(record.id, record.owner, record.status, JSON.stringify(record));
  }

  save(record: TriggerRecord): void {
    this.db.prepare("UPDATE triggers SET status = ?, record = ? WHERE id = ?").run(record.status, JSON.stringify(record), record.id);
  }

  /** Any owner's trigger (for the scheduler); routes use get(owner, id). */
  byId(id: string): TriggerRecord | null {
    const row = this.db.prepare("SELECT record FROM triggers WHERE id = ?").get(id) as { record: string } | undefined;
    return row ? (JSON.parse(row.record) as TriggerRecord) : null;
  }

  get(owner: string, id: string): TriggerRecord | null {
    const record = this.byId(id);
    return record && record.owner === owner ? record : null;
  }

  /** A page in id order after `afterId`, optionally of one status. */
  list(owner: string, limit: number, afterId: string | null, status: TriggerStatus | null): TriggerRecord[] {
    const rows = this.db
      .prepare("SELECT record FROM triggers WHERE owner = ? AND id > ? AND (? IS NULL OR status = ?) ORDER BY id LIMIT ?")
      .all(owner, afterId ?? "", status, status, limit) as Array<{ record: string }>;
    return rows.map((row) => JSON.parse(row.record) as TriggerRecord);
  }

  active(): TriggerRecord[] {
    const rows = this.db.prepare("SELECT record FROM triggers WHERE status = 'active'").all() as Array<{ record: string }>;
    return rows.map((row) => JSON.parse(row.record) as TriggerRecord);
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
        .prepare("UPDATE trigger_executions SET status = ?, record = ? WHERE id = ?")
        .run(record.status, JSON.stringify(record), record.id).changes === 1
    );
  }

  /** A page of the trigger's executions, newest first, before `beforeSeq`; with each one's position. */
  executions(triggerId: string, limit: number, beforeSeq: number | null): Array<{ seq: number; execution: ExecutionRecord }> {
    const rows = this.db
      .prepare("SELECT seq, record FROM trigger_executions WHERE trigger_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?")
      .all(triggerId, beforeSeq ?? Number.MAX_SAFE_INTEGER, limit) as Array<{ seq: number; record: string }>;
    return rows.map((row) => ({ seq: row.seq, execution: JSON.parse(row.record) as ExecutionRecord }));
  }

  inProgressExecutions(): ExecutionRecord[] {
    const rows = this.db.prepare("SELECT record FROM trigger_executions WHERE status = 'in_progress'").all() as Array<{ record: string }>;
    return rows.map((row) => JSON.parse(row.record) as ExecutionRecord);
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
