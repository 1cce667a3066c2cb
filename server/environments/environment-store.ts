import type { Db } from "../store/database.js";
import type { NetworkInput } from "../egress/network-config.js";
import type { EnvCredentials } from "../egress/env-credentials.js";
import type { SourceSummary } from "../sources/source-summary.js";
import { insertRows, selectRows, type StoredRow } from "../store/owned-rows.js";
import { PreparedStatements } from "../store/prepared-statements.js";

/** lost: its sandbox went with the machine holding it (a Swarm node down; docs/scale-out.md#losing-a-machine). */
export type EnvironmentStatus = "creating" | "active" | "expired" | "lost" | "deleted";

/** What the environment was created or last updated with; inline content is not kept. */
export interface EnvironmentConfig {
  sources: SourceSummary[];
  /** Variables every tool command sees (environment.env). */
  env?: Record<string, string>;
  /** Variables of `env` backed by a credential: they hold a placeholder the egress proxy replaces on the wire. */
  envCredentials?: EnvCredentials;
  /** environment.network as last sent; omitted means public egress allowed. */
  network?: NetworkInput;
  /**
   * Where files API uploads placed files outside /workspace and /.agents (absolute paths), so that the
   * environment's file_count and size_bytes count them too.
   */
  uploads?: string[];
  /** Why the environment is lost (status "lost"): the machine that held its files, and that they are gone. */
  lostReason?: string;
}

export interface EnvironmentRecord {
  id: string;
  owner: string;
  status: EnvironmentStatus;
  sandboxId: string | null;
  config: EnvironmentConfig;
  created: string;
  updated: string;
  lastAccessed: string;
}

interface Row {
  id: string;
  owner: string;
  status: EnvironmentStatus;
  sandbox_id: string | null;
  config: string;
  created: string;
  updated: string;
  last_accessed: string;
}

const fromRow = (row: Row): EnvironmentRecord => ({
  id: row.id,
  owner: row.owner,
  status: row.status,
  sandboxId: row.sandbox_id,
  config: JSON.parse(row.config) as EnvironmentConfig,
  created: row.created,
  updated: row.updated,
  lastAccessed: row.last_accessed,
});

export class EnvironmentStore {
  /** Prepared once and kept: every interaction in an environment reads it and touches it. */
  private readonly statements: PreparedStatements;

  constructor(private readonly db: Db) {
    this.statements = new PreparedStatements(db);
  }

  insert(record: EnvironmentRecord): void {
    this.statements
      .get(
        `INSERT INTO environments (id, owner, status, sandbox_id, config, created, updated, last_accessed)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        record.id,
        record.owner,
        record.status,
        record.sandboxId,
        JSON.stringify(record.config),
        record.created,
        record.updated,
        record.lastAccessed,
      );
  }

  /** The environment if it exists and belongs to owner; another owner's environment is "not found". */
  get(id: string, owner: string): EnvironmentRecord | null {
    const row = this.statements.get("SELECT * FROM environments WHERE id = ? AND owner = ?").get(id, owner) as Row | undefined;
    return row ? fromRow(row) : null;
  }

  getById(id: string): EnvironmentRecord | null {
    const row = this.statements.get("SELECT * FROM environments WHERE id = ?").get(id) as Row | undefined;
    return row ? fromRow(row) : null;
  }

  /**
   * One page of the owner's environments that were not deleted, newest first (ties by id, descending),
   * starting after the cursor of the previous page's last one.
   */
  listByOwner(owner: string, limit: number, after: { created: string; id: string } | null): EnvironmentRecord[] {
    const rows = after
      ? this.statements
          .get(
            `SELECT * FROM environments WHERE owner = ? AND status != 'deleted' AND (created < ? OR (created = ? AND id < ?))
             ORDER BY created DESC, id DESC LIMIT ?`,
          )
          .all(owner, after.created, after.created, after.id, limit)
      : this.statements
          .get("SELECT * FROM environments WHERE owner = ? AND status != 'deleted' ORDER BY created DESC, id DESC LIMIT ?")
          .all(owner, limit);
    return (rows as Row[]).map(fromRow);
  }

  /** How many environments have a sandbox (creating or active): of one owner, or of everyone. */
  countLive(owner?: string): number {
    const row = (
      owner === undefined
        ? this.statements.get("SELECT COUNT(*) AS n FROM environments WHERE status IN ('creating', 'active')").get()
        : this.statements.get("SELECT COUNT(*) AS n FROM environments WHERE status IN ('creating', 'active') AND owner = ?").get(owner)
    ) as { n: number };
    return row.n;
  }

  listLive(): EnvironmentRecord[] {
    const rows = this.statements.get("SELECT * FROM environments WHERE status IN ('creating', 'active')").all() as Row[];
    return rows.map(fromRow);
  }

  update(id: string, changes: Partial<Pick<EnvironmentRecord, "status" | "sandboxId" | "config" | "updated" | "lastAccessed">>): void {
    const current = this.statements.get("SELECT * FROM environments WHERE id = ?").get(id) as Row | undefined;
    if (!current) return;
    const next = { ...fromRow(current), ...changes };
    this.statements
      .get("UPDATE environments SET status = ?, sandbox_id = ?, config = ?, updated = ?, last_accessed = ? WHERE id = ?")
      .run(next.status, next.sandboxId, JSON.stringify(next.config), next.updated, next.lastAccessed, id);
  }

  delete(id: string): void {
    this.statements.get("DELETE FROM environments WHERE id = ?").run(id);
  }

  /** The owner's environment rows as stored, for a state snapshot (server/snapshots). */
  exportOwned(owner: string): { environments: StoredRow[] } {
    return { environments: selectRows(this.db, "SELECT * FROM environments WHERE owner = ? ORDER BY created, id", owner) };
  }

  /** Rows of a snapshot, made the owner's; run inside the import's transaction. */
  importOwned(tables: { environments: StoredRow[] }, owner: string): void {
    insertRows(this.db, "environments", tables.environments, { owner });
  }
}
