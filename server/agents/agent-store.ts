// Custom agents, per owner, and the definition each interaction ran with (so deleting an agent never
// breaks a conversation made with it: its continuations run the definition their first turn ran).

import type { Db } from "../store/database.js";
import type { AgentDefinition } from "./agent-schemas.js";
import { insertRows, selectRows, type StoredRow } from "../store/owned-rows.js";

export interface AgentRecord {
  owner: string;
  id: string;
  /** The whole definition as created (inline source contents and variable values included). */
  definition: AgentDefinition;
  createTime: string;
}

interface Row {
  owner: string;
  id: string;
  definition: string;
  create_time: string;
}

const fromRow = (row: Row): AgentRecord => ({
  owner: row.owner,
  id: row.id,
  definition: JSON.parse(row.definition) as AgentDefinition,
  createTime: row.create_time,
});

export class AgentStore {
  constructor(private readonly db: Db) {}

  /** False when the owner already has an agent with this id. */
  insert(record: AgentRecord): boolean {
    const result = this.db
      .prepare(
        `INSERT INTO agents (owner, id, definition, create_time) VALUES (?, ?, ?, ?)
         ON CONFLICT (owner, id) DO NOTHING`,
      )
      .run(record.owner, record.id, JSON.stringify(record.definition), record.createTime);
    return result.changes === 1;
  }

  get(owner: string, id: string): AgentRecord | null {
    const row = this.db.prepare("SELECT * FROM agents WHERE owner = ? AND id = ?").get(owner, id) as Row | undefined;
    return row ? fromRow(row) : null;
  }

  /** A page in id order, starting after `afterId`, read one row at a time (a caller that stops early reads no more). */
  *list(owner: string, limit: number, afterId: string | null): Generator<AgentRecord> {
    const rows = this.db
      .prepare("SELECT * FROM agents WHERE owner = ? AND id > ? ORDER BY id LIMIT ?")
      .iterate(owner, afterId ?? "", limit);
    for (const row of rows) yield fromRow(row as Row);
  }

  delete(owner: string, id: string): boolean {
    return this.db.prepare("DELETE FROM agents WHERE owner = ? AND id = ?").run(owner, id).changes === 1;
  }

  /** Remembers the definition an interaction ran with. */
  recordUse(interactionId: string, owner: string, definition: AgentDefinition): void {
    this.db
      .prepare("INSERT OR REPLACE INTO agent_uses (interaction_id, owner, agent_id, definition) VALUES (?, ?, ?, ?)")
      .run(interactionId, owner, definition.id, JSON.stringify(definition));
  }

  /** The definition an interaction ran with, when it ran a custom agent. */
  usedBy(interactionId: string, owner: string): AgentDefinition | null {
    const row = this.db.prepare("SELECT definition FROM agent_uses WHERE interaction_id = ? AND owner = ?").get(interactionId, owner) as
      | { definition: string }
      | undefined;
    return row ? (JSON.parse(row.definition) as AgentDefinition) : null;
  }

  /** The owner's agents and the definitions their interactions ran with (server/snapshots). */
  exportOwned(owner: string): Record<"agents" | "agent_uses", StoredRow[]> {
    return {
      agents: selectRows(this.db, "SELECT * FROM agents WHERE owner = ? ORDER BY id", owner),
      agent_uses: selectRows(this.db, "SELECT * FROM agent_uses WHERE owner = ? ORDER BY interaction_id", owner),
    };
  }

  importOwned(tables: Record<"agents" | "agent_uses", StoredRow[]>, owner: string): void {
    insertRows(this.db, "agents", tables.agents, { owner });
    insertRows(this.db, "agent_uses", tables.agent_uses, { owner });
  }
}
