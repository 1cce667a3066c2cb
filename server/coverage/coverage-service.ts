// Hook coverage (docs/hooks-coverage.md): every hook evaluation of an owner's tool calls is counted
// as it is done, whatever becomes of its interaction, and the report is made over the scope the
// caller picks. The interaction service knows nothing of it: it tells its onHookEvaluated listener,
// wired to record() in emulator.ts.
//
// The counts are held in memory and added up (pending-counts.ts) for up to a second, then stored in
// one write: a tool call's two evaluations were two upserts of the same rows (and a savepoint each) on
// every call. A report stores what is held before it counts, and so does the emulator's stop; a crash
// loses at most the last second's counts, which no report had shown.

import type { OwnerClock } from "../common/test-clocks.js";
import { NotFoundError } from "../common/errors.js";
import type { HookConfigContent } from "../hooks/engine.js";
import type { HookTrace } from "../hooks/trace.js";
import { countsOfTrace } from "./coverage-counts.js";
import { coverageReport, type CoverageReport } from "./coverage-report.js";
import { bucketOf, DAY_MS, type CoverageScope, type CoverageStore } from "./coverage-store.js";
import { PendingCounts } from "./pending-counts.js";

/** How often an owner's old minute buckets are folded into days (at most; checked as evaluations are recorded). */
const COMPACT_EVERY_MS = 60 * 60_000;
/** Owners whose last compaction is remembered; past it the memory is dropped (an extra compaction is harmless). */
const MAX_REMEMBERED_OWNERS = 1024;
/** [choice] How long counts are held before they are stored, at most. */
export const COVERAGE_HOLD_MS = 1000;
/**
 * What is held at most: past either, it is stored at once. Few contents, so that one making room past
 * the store's cap of contents per owner never takes one held beside it (each is seen later than any
 * stored before), and a rewrite of hooks.json before every call holds a few MiB at most.
 */
const MAX_HELD_CONTENTS = 8;
const MAX_HELD_ROWS = 10_000;

export interface CoverageQuery extends CoverageScope {
  includeText?: boolean;
}

/** Where the counts are written at the end of the event loop's turn (store/write-behind.ts), and read after. */
export interface CoverageWrites {
  defer(write: () => void, settled: (error?: unknown) => void): void;
  /** Stores what is deferred now, so a report counts every evaluation done before it was asked for. */
  flush(): void;
}

export class CoverageService {
  /** Owner → when (on its clock) its buckets were last compacted. */
  private readonly lastCompactionMs = new Map<string, number>();
  private readonly held = new PendingCounts();
  private holding: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: CoverageStore,
    /** Each owner's clock: its buckets are stamped and compacted on its owner's (a move by one key folds no other key's). */
    private readonly clocks: OwnerClock,
    /** Whether the owner has this environment now (a deleted one still has its coverage). */
    private readonly environmentExists: (owner: string, environmentId: string) => boolean,
    /** Absent, each evaluation is stored as it is counted. */
    private readonly writes?: CoverageWrites,
    /** How long counts are held before they are stored (COVERAGE_HOLD_MS). */
    private readonly holdMs = COVERAGE_HOLD_MS,
  ) {}

  /**
   * Counts one evaluation, stamped on the owner's clock now. A failure is the caller's to log (a
   * deferred write's, this service's): coverage never changes a hook's decision.
   */
  record(owner: string, trace: HookTrace, configs: readonly HookConfigContent[]): void {
    const nowMs = this.clocks.now(owner);
    const environmentId = trace.environment_id;
    const counts = countsOfTrace(trace);
    const last = this.lastCompactionMs.get(owner);
    const compact = last === undefined || nowMs - last >= COMPACT_EVERY_MS || nowMs < last;
    if (compact) {
      if (this.lastCompactionMs.size >= MAX_REMEMBERED_OWNERS) this.lastCompactionMs.clear();
      this.lastCompactionMs.set(owner, nowMs);
    }
    if (!this.writes) {
      this.store.record(owner, environmentId, nowMs, counts, configs);
      if (compact) this.store.compactBefore(owner, nowMs - DAY_MS);
      return;
    }
    this.held.add(owner, environmentId, bucketOf(nowMs), nowMs, counts, configs);
    if (compact) this.held.compact(owner, nowMs);
    if (this.held.contentCount > MAX_HELD_CONTENTS || this.held.countRows > MAX_HELD_ROWS) this.release();
    else this.holding ??= setTimeout(() => this.release(), this.holdMs).unref();
  }

  /** Hands what is held to the writes (stored at the end of this turn); for the emulator's stop, before its last flush. */
  release(): void {
    if (this.holding !== null) clearTimeout(this.holding);
    this.holding = null;
    if (!this.writes || this.held.empty) return;
    const held = this.held.take();
    this.writes.defer(
      () => this.store.storeHeld(held),
      (error) => {
        if (error !== undefined)
          console.error(`hook coverage: ${held.counts.length} counter(s) of hook evaluations could not be stored:`, error);
      },
    );
  }

  /** The owner's coverage in scope; an environment neither theirs nor in their coverage is not found. */
  report(owner: string, query: CoverageQuery): CoverageReport {
    this.release();
    this.writes?.flush();
    const { environmentId } = query;
    if (environmentId !== undefined && !this.environmentExists(owner, environmentId) && !this.store.hasEnvironment(owner, environmentId)) {
      throw new NotFoundError(`Environment ${environmentId} not found.`);
    }
    const scope: CoverageScope = {
      ...(environmentId !== undefined ? { environmentId } : {}),
      ...(query.sinceMs !== undefined ? { sinceMs: query.sinceMs } : {}),
    };
    return coverageReport(this.store.configsInScope(owner, scope), this.store.scopedCounts(owner, scope), query.includeText ?? false);
  }
}
