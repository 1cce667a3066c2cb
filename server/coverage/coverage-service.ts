// Hook coverage (docs/hooks-coverage.md): every hook evaluation of an owner's tool calls is counted
// as it is done, whatever becomes of its interaction, and the report is made over the scope the
// caller picks. The interaction service knows nothing of it: it tells its onHookEvaluated listener,
// wired to record() in emulator.ts.

import type { OwnerClock } from "../common/test-clocks.js";
import { NotFoundError } from "../common/errors.js";
import type { HookConfigContent } from "../hooks/engine.js";
import type { HookTrace } from "../hooks/trace.js";
import { countsOfTrace } from "./coverage-counts.js";
import { coverageReport, type CoverageReport } from "./coverage-report.js";
import { DAY_MS, type CoverageScope, type CoverageStore } from "./coverage-store.js";

/** How often an owner's old minute buckets are folded into days (at most; checked as evaluations are recorded). */
const COMPACT_EVERY_MS = 60 * 60_000;
/** Owners whose last compaction is remembered; past it the memory is dropped (an extra compaction is harmless). */
const MAX_REMEMBERED_OWNERS = 1024;

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

  constructor(
    private readonly store: CoverageStore,
    /** Each owner's clock: its buckets are stamped and compacted on its owner's (a move by one key folds no other key's). */
    private readonly clocks: OwnerClock,
    /** Whether the owner has this environment now (a deleted one still has its coverage). */
    private readonly environmentExists: (owner: string, environmentId: string) => boolean,
    /** Absent, each evaluation is stored as it is counted. */
    private readonly writes?: CoverageWrites,
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
    const write = () => {
      this.store.record(owner, environmentId, nowMs, counts, configs);
      if (compact) this.store.compactBefore(owner, nowMs - DAY_MS);
    };
    if (!this.writes) return write();
    this.writes.defer(write, (error) => {
      if (error !== undefined) console.error(`hook coverage: an evaluation of ${owner}'s hooks could not be counted:`, error);
    });
  }

  /** The owner's coverage in scope; an environment neither theirs nor in their coverage is not found. */
  report(owner: string, query: CoverageQuery): CoverageReport {
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
