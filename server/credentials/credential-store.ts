// Credentials live on the host side only: secrets are stored here (the emulator's local SQLite file)
// and injected on the wire by the egress proxy; they are never returned by the API and never enter a
// sandbox.

import type { Db } from "../store/database.js";
import type { CreateCredentialRequest } from "./credential-schemas.js";
import { insertRows, selectRows, type StoredRow } from "../store/owned-rows.js";

export interface CredentialRecord {
  owner: string;
  id: string;
  type: CreateCredentialRequest["type"];
  /** needs_secret: imported from a state snapshot without its secret (docs/state-snapshots.md); set it again with PATCH. */
  status: "active" | "revoked" | "needs_secret";
  /** The whole create request, secrets included. */
  config: CreateCredentialRequest;
  createTime: string;
  updateTime: string;
}

interface Row {
  owner: string;
  id: string;
  type: CredentialRecord["type"];
  status: CredentialRecord["status"];
  config: string;
  create_time: string;
  update_time: string;
}

const fromRow = (row: Row): CredentialRecord => ({
  owner: row.owner,
  id: row.id,
  type: row.type,
  status: row.status,
  config: JSON.parse(row.config) as CreateCredentialRequest,
  createTime: row.create_time,
  updateTime: row.update_time,
});

export class CredentialStore {
  constructor(private readonly db: Db) {}

  /** False when the owner already has a credential with this id. */
  insert(record: CredentialRecord): boolean {
    const result = this.db
      .prepare(
        `INSERT INTO credentials (owner, id, type, status, config, create_time, update_time)
         VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (owner, id) DO NOTHING`,
      )
      .run(record.owner, record.id, record.type, record.status, JSON.stringify(record.config), record.createTime, record.updateTime);
    return result.changes === 1;
  }

  get(owner: string, id: string): CredentialRecord | null {
    const row = this.db.prepare("SELECT * FROM credentials WHERE owner = ? AND id = ?").get(owner, id) as Row | undefined;
    return row ? fromRow(row) : null;
  }

  /** A page in id order, starting after `afterId`, read one row at a time (a caller that stops early reads no more). */
  *list(owner: string, limit: number, afterId: string | null): Generator<CredentialRecord> {
    const rows = this.db
      .prepare("SELECT * FROM credentials WHERE owner = ? AND id > ? ORDER BY id LIMIT ?")
      .iterate(owner, afterId ?? "", limit);
    for (const row of rows) yield fromRow(row as Row);
  }

  replaceConfig(owner: string, id: string, config: CreateCredentialRequest, updateTime: string): void {
    this.db
      .prepare("UPDATE credentials SET config = ?, update_time = ? WHERE owner = ? AND id = ?")
      .run(JSON.stringify(config), updateTime, owner, id);
  }

  setStatus(owner: string, id: string, status: CredentialRecord["status"]): void {
    this.db.prepare("UPDATE credentials SET status = ? WHERE owner = ? AND id = ?").run(status, owner, id);
  }

  delete(owner: string, id: string): boolean {
    return this.db.prepare("DELETE FROM credentials WHERE owner = ? AND id = ?").run(owner, id).changes === 1;
  }

  /** The owner's credentials as stored, secrets included: the snapshot decides what leaves (server/snapshots). */
  exportOwned(owner: string): { credentials: StoredRow[] } {
    return { credentials: selectRows(this.db, "SELECT * FROM credentials WHERE owner = ? ORDER BY id", owner) };
  }

  importOwned(tables: { credentials: StoredRow[] }, owner: string): void {
    insertRows(this.db, "credentials", tables.credentials, { owner });
  }
}
