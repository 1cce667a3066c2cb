// The webhooks' records: endpoints, their signing secrets and the deliveries with every attempt. The
// secrets are kept whole (the emulator's local SQLite file, like credentials) because every delivery
// is signed with them; the API only ever shows them truncated.

import type { InjectedFault } from "../faults/fault-plan.js";
import type { Db } from "../store/database.js";
import type { WebhookEvent, WebhookState } from "./webhook-schemas.js";
import { insertRows, selectRows, type StoredRow } from "../store/owned-rows.js";
import { PreparedStatements } from "../store/prepared-statements.js";
import { inTransaction } from "../store/transactions.js";

export interface WebhookRecord {
  owner: string;
  id: string;
  name: string | null;
  uri: string;
  subscribedEvents: WebhookEvent[];
  state: WebhookState;
  createTime: string;
  updateTime: string;
}

export interface SecretRecord {
  secret: string;
  /** On the emulator's clock; null while it has no end (the newest secret). */
  expireMs: number | null;
}

export interface DeliveryAttempt {
  attempt: number;
  /** When it left, on the emulator's clock (ISO). */
  time: string;
  /** delivered: a 2xx answer; failed: anything else, or no answer. */
  status: "delivered" | "failed";
  response_code: number | null;
  latency_ms: number;
  error?: string;
  /** When the next attempt is due (emulator clock, ISO); absent when there is none. */
  next_retry_time?: string;
  /** The fault rule that stood in for the receiver (docs/faults.md#webhooks); null for a real attempt. */
  injected_fault?: InjectedFault | null;
}

export type DeliveryStatus = "pending" | "delivered" | "given_up";

export interface DeliveryRecord {
  id: string;
  owner: string;
  /** The registered webhook it goes to; null for an interaction's own webhook_config.uris. */
  webhookId: string | null;
  uri: string;
  eventType: string;
  body: string;
  status: DeliveryStatus;
  /** false for a ping: one attempt, never retried, never disables its webhook. */
  retries: boolean;
  firstAttemptMs: number;
  nextAttemptMs: number | null;
  attempts: DeliveryAttempt[];
  createTime: string;
}

interface WebhookRow {
  owner: string;
  id: string;
  name: string | null;
  uri: string;
  subscribed_events: string;
  state: WebhookState;
  create_time: string;
  update_time: string;
}

interface DeliveryRow {
  seq: number;
  id: string;
  owner: string;
  webhook_id: string | null;
  uri: string;
  event_type: string;
  body: string;
  status: DeliveryStatus;
  retries: number;
  first_attempt_ms: number;
  next_attempt_ms: number | null;
  attempts: string;
  create_time: string;
}

const webhookFromRow = (row: WebhookRow): WebhookRecord => ({
  owner: row.owner,
  id: row.id,
  name: row.name,
  uri: row.uri,
  subscribedEvents: JSON.parse(row.subscribed_events) as WebhookEvent[],
  state: row.state,
  createTime: row.create_time,
  updateTime: row.update_time,
});

const deliveryFromRow = (row: DeliveryRow): DeliveryRecord => ({
  id: row.id,
  owner: row.owner,
  webhookId: row.webhook_id,
  uri: row.uri,
  eventType: row.event_type,
  body: row.body,
  status: row.status,
  retries: row.retries === 1,
  firstAttemptMs: row.first_attempt_ms,
  nextAttemptMs: row.next_attempt_ms,
  attempts: JSON.parse(row.attempts) as DeliveryAttempt[],
  createTime: row.create_time,
});

export class WebhookStore {
  /** Prepared once and kept: every interaction's end looks up its owner's webhooks. */
  private readonly statements: PreparedStatements;

  constructor(private readonly db: Db) {
    this.statements = new PreparedStatements(db);
  }

  /** The webhook and its first secret, together or not at all. */
  insert(record: WebhookRecord, secret: string): void {
    inTransaction(this.db, () => {
      this.statements
        .get(
          `INSERT INTO webhooks (owner, id, name, uri, subscribed_events, state, create_time, update_time)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          record.owner,
          record.id,
          record.name,
          record.uri,
          JSON.stringify(record.subscribedEvents),
          record.state,
          record.createTime,
          record.updateTime,
        );
      this.statements
        .get("INSERT INTO webhook_secrets (owner, webhook_id, secret, expire_ms) VALUES (?, ?, ?, NULL)")
        .run(record.owner, record.id, secret);
    });
  }

  get(owner: string, id: string): WebhookRecord | null {
    const row = this.statements.get("SELECT * FROM webhooks WHERE owner = ? AND id = ?").get(owner, id) as WebhookRow | undefined;
    return row ? webhookFromRow(row) : null;
  }

  /** A page in id order, starting after `afterId`. */
  list(owner: string, limit: number, afterId: string | null): WebhookRecord[] {
    const rows = this.statements
      .get("SELECT * FROM webhooks WHERE owner = ? AND id > ? ORDER BY id LIMIT ?")
      .all(owner, afterId ?? "", limit) as WebhookRow[];
    return rows.map(webhookFromRow);
  }

  /** The owner's webhooks that take this event now. */
  subscribedTo(owner: string, event: string): WebhookRecord[] {
    return this.enabled(owner).filter((webhook) => (webhook.subscribedEvents as string[]).includes(event));
  }

  /** Every webhook of the owner that is not disabled by hand (for signing deliveries to webhook_config.uris). */
  enabled(owner: string): WebhookRecord[] {
    const rows = this.statements.get("SELECT * FROM webhooks WHERE owner = ? AND state = 'enabled' ORDER BY id").all(owner) as WebhookRow[];
    return rows.map(webhookFromRow);
  }

  replace(record: WebhookRecord): void {
    this.statements
      .get("UPDATE webhooks SET name = ?, uri = ?, subscribed_events = ?, state = ?, update_time = ? WHERE owner = ? AND id = ?")
      .run(record.name, record.uri, JSON.stringify(record.subscribedEvents), record.state, record.updateTime, record.owner, record.id);
  }

  setState(owner: string, id: string, state: WebhookState, updateTime: string): void {
    this.statements.get("UPDATE webhooks SET state = ?, update_time = ? WHERE owner = ? AND id = ?").run(state, updateTime, owner, id);
  }

  delete(owner: string, id: string): boolean {
    return this.statements.get("DELETE FROM webhooks WHERE owner = ? AND id = ?").run(owner, id).changes === 1;
  }

  /** How many webhooks the owner has. */
  count(owner: string): number {
    return (this.statements.get("SELECT COUNT(*) AS n FROM webhooks WHERE owner = ?").get(owner) as { n: number }).n;
  }

  /** Oldest first; expired ones included (the caller decides against its clock). */
  secrets(owner: string, webhookId: string): SecretRecord[] {
    const rows = this.statements
      .get("SELECT secret, expire_ms FROM webhook_secrets WHERE owner = ? AND webhook_id = ? ORDER BY seq")
      .all(owner, webhookId) as { secret: string; expire_ms: number | null }[];
    return rows.map((row) => ({ secret: row.secret, expireMs: row.expire_ms }));
  }

  /**
   * A new secret; the ones before it end at `previousExpireMs` (never later than they already do), or
   * are dropped when it is null (revoked at once). One transaction: a crash leaves the old set.
   */
  rotate(owner: string, webhookId: string, secret: string, previousExpireMs: number | null, updateTime: string): void {
    inTransaction(this.db, () => {
      if (previousExpireMs === null) {
        this.statements.get("DELETE FROM webhook_secrets WHERE owner = ? AND webhook_id = ?").run(owner, webhookId);
      } else {
        this.statements
          .get("UPDATE webhook_secrets SET expire_ms = MIN(COALESCE(expire_ms, ?), ?) WHERE owner = ? AND webhook_id = ?")
          .run(previousExpireMs, previousExpireMs, owner, webhookId);
      }
      this.statements
        .get("INSERT INTO webhook_secrets (owner, webhook_id, secret, expire_ms) VALUES (?, ?, ?, NULL)")
        .run(owner, webhookId, secret);
      this.statements.get("UPDATE webhooks SET update_time = ? WHERE owner = ? AND id = ?").run(updateTime, owner, webhookId);
    });
  }

  /** Secrets that ended before `nowMs` are of no more use: forgotten. */
  dropExpiredSecrets(nowMs: number): void {
    this.statements.get("DELETE FROM webhook_secrets WHERE expire_ms IS NOT NULL AND expire_ms <= ?").run(nowMs);
  }

  insertDelivery(delivery: DeliveryRecord): void {
    this.statements
      .get(
        `INSERT INTO webhook_deliveries (id, owner, webhook_id, uri, event_type, body, status, retries, first_attempt_ms, next_attempt_ms, attempts, create_time)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        delivery.id,
        delivery.owner,
        delivery.webhookId,
        delivery.uri,
        delivery.eventType,
        delivery.body,
        delivery.status,
        delivery.retries ? 1 : 0,
        delivery.firstAttemptMs,
        delivery.nextAttemptMs,
        JSON.stringify(delivery.attempts),
        delivery.createTime,
      );
  }

  saveDelivery(delivery: DeliveryRecord): void {
    this.statements
      .get("UPDATE webhook_deliveries SET status = ?, next_attempt_ms = ?, attempts = ? WHERE id = ?")
      .run(delivery.status, delivery.nextAttemptMs, JSON.stringify(delivery.attempts), delivery.id);
  }

  getDelivery(id: string): DeliveryRecord | null {
    const row = this.statements.get("SELECT * FROM webhook_deliveries WHERE id = ?").get(id) as DeliveryRow | undefined;
    return row ? deliveryFromRow(row) : null;
  }

  pendingDeliveries(): DeliveryRecord[] {
    const rows = this.statements.get("SELECT * FROM webhook_deliveries WHERE status = 'pending' ORDER BY seq").all() as DeliveryRow[];
    return rows.map(deliveryFromRow);
  }

  /**
   * The owner's deliveries, newest first, a page before `beforeSeq` of at most `limit` rows and about
   * `maxBytes` of stored body and attempts (one row when it alone is larger: a page always moves on);
   * `more` says whether any are left after it. Sizes are measured in SQL, so rows past the page are
   * never read.
   */
  listDeliveries(
    owner: string,
    filter: { webhookId?: string },
    limit: number,
    beforeSeq: number | null,
    maxBytes: number,
  ): { page: { seq: number; delivery: DeliveryRecord }[]; more: boolean } {
    const sizes = this.statements
      .get(
        `SELECT seq, length(CAST(body AS BLOB)) + length(CAST(attempts AS BLOB)) AS bytes FROM webhook_deliveries
         WHERE owner = ? AND seq < ? AND (? IS NULL OR webhook_id = ?) ORDER BY seq DESC LIMIT ?`,
      )
      .all(owner, beforeSeq ?? Number.MAX_SAFE_INTEGER, filter.webhookId ?? null, filter.webhookId ?? null, limit + 1) as {
      seq: number;
      bytes: number;
    }[];
    const taken: number[] = [];
    let bytes = 0;
    for (const row of sizes.slice(0, limit)) {
      if (taken.length > 0 && bytes + row.bytes > maxBytes) break;
      taken.push(row.seq);
      bytes += row.bytes;
    }
    const read = this.statements.get("SELECT * FROM webhook_deliveries WHERE seq = ?");
    const page = taken.map((seq) => {
      const row = read.get(seq) as DeliveryRow;
      return { seq, delivery: deliveryFromRow(row) };
    });
    return { page, more: sizes.length > taken.length };
  }

  /**
   * Deletes the owner's finished (delivered or given up) deliveries but the newest `keep`; pending
   * ones stay, as they are still to be sent.
   */
  pruneDeliveries(owner: string, keep: number): void {
    this.statements
      .get(
        `DELETE FROM webhook_deliveries WHERE owner = ? AND status != 'pending' AND seq <= (
           SELECT seq FROM webhook_deliveries WHERE owner = ? AND status != 'pending' ORDER BY seq DESC LIMIT 1 OFFSET ?)`,
      )
      .run(owner, owner, keep);
  }

  /**
   * The owner's webhooks and their signing secrets, for a snapshot (which decides whether the secrets
   * leave). Deliveries are history bound to receivers of the exporting machine: not exported.
   */
  exportOwned(owner: string): Record<"webhooks" | "webhook_secrets", StoredRow[]> {
    return {
      webhooks: selectRows(this.db, "SELECT * FROM webhooks WHERE owner = ? ORDER BY id", owner),
      webhook_secrets: selectRows(this.db, "SELECT webhook_id, secret, expire_ms FROM webhook_secrets WHERE owner = ? ORDER BY seq", owner),
    };
  }

  importOwned(tables: Record<"webhooks" | "webhook_secrets", StoredRow[]>, owner: string): void {
    insertRows(this.db, "webhooks", tables.webhooks, { owner });
    insertRows(this.db, "webhook_secrets", tables.webhook_secrets, { owner });
  }
}
