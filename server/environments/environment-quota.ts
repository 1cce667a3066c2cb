// How many environments may have a sandbox at once: per API key (one key cannot take the whole machine)
// and in total (the machine's own bound). Checked before anything is created and again, atomically with
// a reservation, right before a container is created, so concurrent requests cannot overshoot.
//
// [choice] A refusal is 400 FAILED_PRECONDITION, not 429 RESOURCE_EXHAUSTED: the official SDK retries
// 429 four times over about eight seconds, and waiting cannot free an environment (only a delete or an
// idle expiry, an hour away by default, can). The message says how to free one and which setting
// raises the limit (docs/security.md#limits).

import { FailedPreconditionError } from "../common/errors.js";
import type { EnvironmentStore } from "./environment-store.js";

export interface EnvironmentLimits {
  /** EMULATOR_MAX_ENVIRONMENTS_PER_KEY */
  perKey: number;
  /** EMULATOR_MAX_ENVIRONMENTS */
  total: number;
}

const FREE_ONE =
  "Delete an environment you no longer need (DELETE /{version}/environments/{id}; GET /{version}/environments lists yours) or let an idle one expire (EMULATOR_ENVIRONMENT_TTL_SECONDS)";

export class EnvironmentQuota {
  /** Sandboxes being created now, not yet stored: per owner, and their sum. */
  private readonly pending = new Map<string, number>();
  private pendingTotal = 0;

  constructor(
    private readonly store: EnvironmentStore,
    private readonly limits: EnvironmentLimits,
  ) {}

  /** Refuses (400) when the owner, or the emulator, has no room for one more environment. */
  check(owner: string): void {
    const mine = this.store.countLive(owner) + (this.pending.get(owner) ?? 0);
    if (mine >= this.limits.perKey) {
      throw new FailedPreconditionError(
        `This API key already has ${mine} environments with a sandbox, the most one key may have (EMULATOR_MAX_ENVIRONMENTS_PER_KEY = ${this.limits.perKey}). ${FREE_ONE}, reuse one by its environment_id, or raise EMULATOR_MAX_ENVIRONMENTS_PER_KEY.`,
      );
    }
    const all = this.store.countLive() + this.pendingTotal;
    if (all >= this.limits.total) {
      throw new FailedPreconditionError(
        `This emulator already runs ${all} environments with a sandbox, the most it runs at once (EMULATOR_MAX_ENVIRONMENTS = ${this.limits.total}). ${FREE_ONE}, reuse one by its environment_id, or raise EMULATOR_MAX_ENVIRONMENTS.`,
      );
    }
  }

  /**
   * Checks and holds a place for one environment of `owner` until the returned release is called (once
   * its record is stored, or its creation failed). Synchronous, so no other request can slip in between.
   */
  reserve(owner: string): () => void {
    this.check(owner);
    this.pending.set(owner, (this.pending.get(owner) ?? 0) + 1);
    this.pendingTotal += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.pending.get(owner) ?? 1) - 1;
      if (left > 0) this.pending.set(owner, left);
      else this.pending.delete(owner);
      this.pendingTotal -= 1;
    };
  }
}
