// A sandbox runtime for tests of the warm pool (server/sandbox/sandbox-pool.ts) and of the environment
// service taking from it: pooled sandboxes are made, claimed and removed in memory, each with a fake
// channel; failures and delays are scripted.

import type { SandboxChannel, SandboxHandle, SandboxRuntime, SandboxSpec } from "../../server/sandbox/runtime.js";
import { FakeSandboxChannel } from "./fake-sandbox-channel.js";

export class PoolRuntime implements SandboxRuntime {
  readonly name = "pool-fake";
  /** Sandboxes that exist (created and not removed), by id. */
  readonly alive = new Set<string>();
  readonly channels = new Map<string, FakeSandboxChannel>();
  created = 0;
  /** What claimPooled() was asked, in order; it fails while claimFails is set. */
  readonly claims: Array<{ sandboxId: string; spec: SandboxSpec }> = [];
  claimFails = false;
  /** Sandboxes made cold by create(). */
  readonly coldCreates: SandboxSpec[] = [];
  /** How many of the next createPooled() calls fail. */
  failNext = 0;
  /** When set, createPooled() waits for it. */
  gate: Promise<void> | null = null;

  async health() {
    return { ok: true, detail: "" };
  }
  async prepare(): Promise<void> {}
  /** createPooled() calls so far, those still waiting on the gate included. */
  attempts = 0;
  /** createPooled() calls not yet returned, and the most there were at once. */
  inFlight = 0;
  maxInFlight = 0;

  async createPooled(environmentId: string): Promise<SandboxHandle> {
    this.attempts += 1;
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      return await this.makePooled(environmentId);
    } finally {
      this.inFlight -= 1;
    }
  }

  private async makePooled(environmentId: string): Promise<SandboxHandle> {
    if (this.gate) await this.gate;
    if (this.failNext > 0) {
      this.failNext -= 1;
      throw new Error("the engine did not answer");
    }
    this.created += 1;
    const id = `pooled-${this.created}`;
    this.alive.add(id);
    if (!/^env_[a-z2-7]{24}$/.test(environmentId)) throw new Error(`not an environment ID: ${environmentId}`);
    return { sandboxId: id, environmentId };
  }
  async claimPooled(pooled: SandboxHandle, spec: SandboxSpec): Promise<SandboxHandle> {
    this.claims.push({ sandboxId: pooled.sandboxId, spec });
    if (this.claimFails) throw new Error("no such container");
    return { sandboxId: pooled.sandboxId, environmentId: spec.environmentId };
  }
  async connect(handle: SandboxHandle): Promise<SandboxChannel> {
    const channel = new FakeSandboxChannel();
    this.channels.set(handle.sandboxId, channel);
    return channel;
  }
  async remove(handle: SandboxHandle): Promise<void> {
    this.alive.delete(handle.sandboxId);
  }
  async create(spec: SandboxSpec): Promise<SandboxHandle> {
    this.coldCreates.push(spec);
    this.alive.add(`cold-${spec.environmentId}`);
    return { sandboxId: `cold-${spec.environmentId}`, environmentId: spec.environmentId };
  }
  async fork(): Promise<SandboxHandle> {
    throw new Error("not used");
  }
  async isAlive(): Promise<boolean> {
    return true;
  }
  async ensureRunning(): Promise<boolean> {
    return true;
  }
  async list(): Promise<SandboxHandle[]> {
    return [];
  }
}
