// Hook coverage counted in memory until it is stored (coverage-service.ts): the counters an evaluation
// adds are added up here by their row's key, so a thousand calls of one configuration in a second are one
// update of each of their few rows, not a thousand; each hooks.json content is kept once, with the first
// and the last time it was seen.

import type { HookConfigContent } from "../hooks/engine.js";
import type { CountKey } from "./coverage-counts.js";

/** A counter's row (owner, environment, bucket, key) and what to add to it. */
export interface HeldCount {
  owner: string;
  environmentId: string;
  bucketMs: number;
  key: CountKey;
  count: number;
}

/** A hooks.json content an evaluation named, and when it was first and last seen meanwhile. */
export interface HeldContent {
  owner: string;
  config: HookConfigContent;
  firstSeenMs: number;
  lastSeenMs: number;
}

/** What was held, to be stored together: the contents first (the counts name them), then the counts. */
export interface HeldCoverage {
  contents: HeldContent[];
  counts: HeldCount[];
  /** Owners whose old minute buckets are due to be folded, and the time (their clock's) it was decided. */
  compactions: Map<string, number>;
}

export class PendingCounts {
  private counts = new Map<string, HeldCount>();
  private contents = new Map<string, HeldContent>();
  private compactions = new Map<string, number>();

  /** Adds one evaluation: 1 to each of its keys' counters, its contents seen at `nowMs`. */
  add(
    owner: string,
    environmentId: string,
    bucketMs: number,
    nowMs: number,
    keys: readonly CountKey[],
    configs: readonly HookConfigContent[],
  ): void {
    for (const config of configs) {
      const id = `${owner}\u0000${config.sha256}`;
      const held = this.contents.get(id);
      if (held === undefined) this.contents.set(id, { owner, config, firstSeenMs: nowMs, lastSeenMs: nowMs });
      else held.lastSeenMs = Math.max(held.lastSeenMs, nowMs);
    }
    const row = `${owner}\u0000${environmentId}\u0000${bucketMs}`;
    for (const key of keys) {
      const id = `${row}\u0000${key.sha256}\u0000${key.path}\u0000${key.group}\u0000${key.event}\u0000${key.ruleIndex}\u0000${key.handlerIndex}\u0000${key.toolName}\u0000${key.outcome}`;
      const held = this.counts.get(id);
      if (held === undefined) this.counts.set(id, { owner, environmentId, bucketMs, key, count: 1 });
      else held.count++;
    }
  }

  /** Asks for the owner's old buckets to be folded when what is held is stored. */
  compact(owner: string, nowMs: number): void {
    this.compactions.set(owner, nowMs);
  }

  /** Counters held (distinct rows). */
  get countRows(): number {
    return this.counts.size;
  }

  /** Distinct contents held. */
  get contentCount(): number {
    return this.contents.size;
  }

  get empty(): boolean {
    return this.counts.size === 0 && this.contents.size === 0 && this.compactions.size === 0;
  }

  /** Everything held, in the order first seen; nothing is held after. */
  take(): HeldCoverage {
    const taken: HeldCoverage = { contents: [...this.contents.values()], counts: [...this.counts.values()], compactions: this.compactions };
    this.counts = new Map();
    this.contents = new Map();
    this.compactions = new Map();
    return taken;
  }
}
