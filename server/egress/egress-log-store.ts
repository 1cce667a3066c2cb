// Every egress attempt of every sandbox, as the proxy reports it (never header values), kept with the
// environment so a user can see what their agent and hooks tried to reach and why it was refused.

import type { Db } from "../store/database.js";
import { inTransaction } from "../store/transactions.js";

export interface EgressLogEntry {
  time: string;
  environment_id: string;
  [field: string]: unknown;
}

/** Entries kept per environment unless told otherwise (EMULATOR_EGRESS_LOG_ENTRIES). */
export const DEFAULT_EGRESS_LOG_ENTRIES = 1000;

export class EgressLogStore {
  /**
   * [choice] Only the newest `maxPerEnvironment` entries of each environment are kept: a sandbox that
   * loops over `curl` would otherwise grow the store without end (docs/security.md#limits).
   */
  constructor(
    private readonly db: Db,
    private readonly maxPerEnvironment = DEFAULT_EGRESS_LOG_ENTRIES,
  ) {}

  append(entry: EgressLogEntry): void {
    inTransaction(this.db, () => {
      this.db
        .prepare("INSERT INTO egress_log (environment_id, time, entry) VALUES (?, ?, ?)")
        .run(entry.environment_id, entry.time, JSON.stringify(entry));
      // Whatever of this environment is older than its newest N entries (nothing while it has fewer).
      this.db
        .prepare(
          `DELETE FROM egress_log WHERE environment_id = ? AND seq <= (
             SELECT seq FROM egress_log WHERE environment_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)`,
        )
        .run(entry.environment_id, entry.environment_id, this.maxPerEnvironment);
    });
  }

  /** Oldest first, after the entry numbered `afterSeq`. */
  list(environmentId: string, limit: number, afterSeq: number): { entries: EgressLogEntry[]; lastSeq: number | null } {
    const rows = this.db
      .prepare("SELECT seq, entry FROM egress_log WHERE environment_id = ? AND seq > ? ORDER BY seq LIMIT ?")
      .all(environmentId, afterSeq, limit) as Array<{ seq: number; entry: string }>;
    return {
      entries: rows.map((row) => JSON.parse(row.entry) as EgressLogEntry),
      lastSeq: rows.length > 0 ? rows[rows.length - 1]!.seq : null,
    };
  }
}
