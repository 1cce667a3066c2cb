// Deliveries: each event for each receiver is one delivery (one webhook-id, one body), stored before
// its first attempt and after every attempt, and sent again on the emulator's clock (retry-policy.ts)
// until a 2xx or the end of its window, when it is given up and its webhook set to
// disabled_due_to_failed_deliveries. Attempts run outside the scheduler's pass (a slow receiver holds
// up no trigger); settled() waits for them, for tests that move the clock. Attempts run in bounded
// numbers, in total and per key, keys served in turn (delivery-slots.ts); one that finds the waiting
// lines full is not sent and is recorded as a failed attempt saying so, retried on the usual schedule.
// Each key keeps its newest EMULATOR_WEBHOOK_DELIVERIES_KEPT finished deliveries; older ones are pruned.

import { randomBytes } from "node:crypto";
import type { FaultPlan, InjectedFault } from "../faults/fault-plan.js";
import type { OwnerScheduler } from "../common/test-clocks.js";
import { isoOf, nowTimestamp, timestampOf } from "../common/timestamps.js";
import { nextAttemptAt } from "./retry-policy.js";
import { DeliverySlots, type SlotBounds } from "./delivery-slots.js";
import { type DeliveryReach, loopbackGuard, portOf, whyNotDeliverable } from "./webhook-hosts.js";
import { sendDelivery, type SendBounds } from "./webhook-sender.js";
import { signatureHeader } from "./signing-secret.js";
import type { DeliveryAttempt, DeliveryRecord, WebhookStore } from "./webhook-store.js";

export interface DeliveryOptions extends SendBounds {
  /** Where deliveries may go (EMULATOR_WEBHOOK_HOSTS, EMULATOR_WEBHOOK_LOOPBACK_PORTS). */
  reach: DeliveryReach;
  /** Attempts at once and waiting (EMULATOR_WEBHOOK_CONCURRENCY, _CONCURRENCY_PER_KEY, _QUEUE, _QUEUE_PER_KEY). */
  slots: SlotBounds;
  /** Finished deliveries kept per key (EMULATOR_WEBHOOK_DELIVERIES_KEPT); older ones are deleted. */
  keptPerKey: number;
  /** Faults on demand (docs/faults.md#webhooks), asked once per attempt after the host is allowed. */
  faults?: FaultPlan;
}

export interface NewDelivery {
  owner: string;
  webhookId: string | null;
  uri: string;
  eventType: string;
  payload: unknown;
  retries: boolean;
}

export class WebhookDeliveries {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly stop = new AbortController();
  private readonly slots: DeliverySlots;
  private closed = false;

  constructor(
    private readonly store: WebhookStore,
    /** Each owner's clock: a delivery's retries and its window are on its owner's (docs/clock.md). */
    private readonly clocks: OwnerScheduler,
    private readonly options: DeliveryOptions,
  ) {
    this.slots = new DeliverySlots(options.slots);
  }

  /** Attempts holding a slot now (all keys, or one key's). */
  running(owner?: string): number {
    return this.slots.inFlight(owner);
  }

  /** At start: every delivery still pending is due again at its time (at once if that passed while down). */
  resume(): number {
    const pending = this.store.pendingDeliveries();
    for (const delivery of pending) this.schedule(delivery.owner, delivery.id, delivery.nextAttemptMs ?? Date.now());
    return pending.length;
  }

  /** Stores the delivery and has its first attempt made as soon as the scheduler runs. */
  enqueue(request: NewDelivery): DeliveryRecord {
    const delivery = this.newRecord(request);
    this.store.insertDelivery(delivery);
    this.schedule(delivery.owner, delivery.id, delivery.firstAttemptMs);
    return delivery;
  }

  /** Stores the delivery and makes its one attempt now, answering when it is over (ping). */
  async sendNow(request: NewDelivery): Promise<DeliveryRecord> {
    const delivery = this.newRecord(request);
    this.store.insertDelivery(delivery);
    await this.track(this.attemptInSlot(delivery.id));
    return this.store.getDelivery(delivery.id) ?? delivery;
  }

  /** Resolves once no attempt is running and none is due on any owner's clock as it stands. */
  async settled(): Promise<void> {
    for (;;) {
      await this.clocks.runDue();
      if (this.inFlight.size === 0) return;
      await Promise.allSettled([...this.inFlight]);
    }
  }

  /** Attempts in flight are cut off and not recorded: their deliveries stay pending for the next start. */
  async close(): Promise<void> {
    this.closed = true;
    this.stop.abort();
    this.slots.close();
    await Promise.allSettled([...this.inFlight]);
  }

  private newRecord(request: NewDelivery): DeliveryRecord {
    const now = this.clocks.now(request.owner);
    return {
      id: `msg_${randomBytes(16).toString("hex")}`,
      owner: request.owner,
      webhookId: request.webhookId,
      uri: request.uri,
      eventType: request.eventType,
      body: JSON.stringify(request.payload),
      status: "pending",
      retries: request.retries,
      firstAttemptMs: now,
      nextAttemptMs: now,
      attempts: [],
      createTime: timestampOf(now),
    };
  }

  private schedule(owner: string, id: string, atMs: number): void {
    if (this.closed) return;
    this.clocks.at(owner, atMs, () => {
      void this.track(this.attemptInSlot(id));
    });
  }

  private track(work: Promise<void>): Promise<void> {
    const tracked = work
      .catch((error) => console.error("a webhook delivery failed unexpectedly:", error))
      .finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
    return tracked;
  }

  /** The attempt, once a slot is free; when the waiting lines are full, a failed attempt saying so. */
  private async attemptInSlot(id: string): Promise<void> {
    const delivery = this.store.getDelivery(id);
    if (delivery?.status !== "pending" || this.closed) return;
    const full = await this.slots.run(delivery.owner, () => this.attempt(id));
    if (full === null) return;
    const error = `not sent: ${full}; the emulator sends at most ${this.options.slots.perKey} attempts of one API key at once (EMULATOR_WEBHOOK_CONCURRENCY_PER_KEY)`;
    this.record(
      delivery,
      { startedMs: this.clocks.now(delivery.owner), ok: false, responseCode: null, latencyMs: 0, error, sent: false },
      delivery.retries,
    );
  }

  private async attempt(id: string): Promise<void> {
    const delivery = this.store.getDelivery(id);
    if (delivery?.status !== "pending" || this.closed) return;
    const startedMs = this.clocks.now(delivery.owner);
    const refusal = this.refusal(delivery);
    if (refusal !== null) {
      return this.record(delivery, { startedMs, ok: false, responseCode: null, latencyMs: 0, error: refusal, sent: false }, false);
    }
    const timestamp = new Date(); // the wall clock, so a standard verifier's 5-minute tolerance holds
    const secrets = this.secretsFor(delivery, startedMs);
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "user-agent": "interactions-emulator-webhooks",
      "webhook-id": delivery.id,
      "webhook-timestamp": String(Math.floor(timestamp.getTime() / 1000)),
    };
    if (secrets.length > 0) headers["webhook-signature"] = signatureHeader(secrets, delivery.id, timestamp, delivery.body);
    // After the refusal: a fault stands in for a receiver the delivery may reach, never for a refused host.
    const fault =
      this.options.faults?.take({ owner: delivery.owner, environmentId: null, site: { kind: "webhook", uri: delivery.uri } }) ?? null;
    const lookup = loopbackGuard(this.options.reach.loopbackPorts, portOf(new URL(delivery.uri)));
    const outcome = await sendDelivery(delivery.uri, headers, delivery.body, this.options, this.stop.signal, fault?.effect ?? null, lookup);
    if (this.closed) return; // cut off by the shutdown: sent again after the next start
    this.record(delivery, { startedMs, ...outcome, injectedFault: fault }, delivery.retries);
  }

  /** Why this delivery cannot be attempted at all (it is then given up at once), or null. */
  private refusal(delivery: DeliveryRecord): string | null {
    const notAllowed = whyNotDeliverable(delivery.uri, this.options.reach);
    if (notAllowed !== null) return notAllowed;
    if (delivery.webhookId === null) return null;
    const webhook = this.store.get(delivery.owner, delivery.webhookId);
    if (!webhook) return `webhook ${delivery.webhookId} was deleted`;
    if (delivery.retries && webhook.state !== "enabled") return `webhook ${webhook.id} is ${webhook.state}`;
    return null;
  }

  /**
   * The secrets that sign it now: its webhook's unexpired ones; for an interaction's own
   * webhook_config.uris, those of every enabled webhook of the key ([choice]: a URI given per request
   * has no secret of its own, and unsigned when the key has no webhook).
   */
  private secretsFor(delivery: DeliveryRecord, nowMs: number): string[] {
    const webhookIds = delivery.webhookId !== null ? [delivery.webhookId] : this.store.enabled(delivery.owner).map((webhook) => webhook.id);
    return webhookIds.flatMap((webhookId) =>
      this.store
        .secrets(delivery.owner, webhookId)
        .filter((secret) => secret.expireMs === null || secret.expireMs > nowMs)
        .map((secret) => secret.secret),
    );
  }

  private record(
    delivery: DeliveryRecord,
    outcome: {
      startedMs: number;
      ok: boolean;
      responseCode: number | null;
      latencyMs: number;
      error?: string;
      injectedFault?: InjectedFault | null;
      /** false: no request left (refused, or the waiting lines were full); such an attempt never disables the webhook. */
      sent?: boolean;
    },
    retries: boolean,
  ): void {
    const attempt: DeliveryAttempt = {
      attempt: delivery.attempts.length + 1,
      time: isoOf(outcome.startedMs),
      status: outcome.ok ? "delivered" : "failed",
      response_code: outcome.responseCode,
      latency_ms: outcome.latencyMs,
      ...(outcome.error !== undefined ? { error: outcome.error } : {}),
      injected_fault: outcome.injectedFault ?? null,
    };
    // From when this attempt was due, not when it ran: a clock moved past several retries at once (or
    // an emulator that was down) makes each of them in turn, as the schedule had them.
    const dueMs = delivery.nextAttemptMs ?? outcome.startedMs;
    const next = outcome.ok || !retries ? null : nextAttemptAt(delivery.firstAttemptMs, attempt.attempt, dueMs);
    if (next !== null) attempt.next_retry_time = isoOf(next);
    const updated: DeliveryRecord = {
      ...delivery,
      attempts: [...delivery.attempts, attempt],
      status: outcome.ok ? "delivered" : next !== null ? "pending" : "given_up",
      nextAttemptMs: next,
    };
    this.store.saveDelivery(updated);
    if (updated.status !== "pending") this.store.pruneDeliveries(delivery.owner, this.options.keptPerKey);
    if (next !== null) this.schedule(delivery.owner, delivery.id, next);
    // [choice] Only a delivery that used its whole retry window disables its webhook; one refused
    // before any request (host not allowed, webhook disabled or deleted, the lines full) or a ping never does.
    const sent = outcome.sent !== false;
    if (updated.status === "given_up" && retries && sent && delivery.webhookId !== null && this.refusal(delivery) === null) {
      this.store.setState(delivery.owner, delivery.webhookId, "disabled_due_to_failed_deliveries", nowTimestamp());
    }
  }
}
