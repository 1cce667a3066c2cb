// Hook coverage's records (migration "Hook coverage"): each distinct hooks.json content once per
// owner, and counters. Growth is bounded two ways, because CI may run thousands of calls and an agent
// may rewrite its hooks.json before every one of them:
// - counters are per (environment, time bucket, content, path, rule, handler, tool, outcome) and are
//   added to, so rows grow with the time hooks ran and the rules they have, not with the calls; buckets
//   are a minute for the last day, then compacted into one per day (compactBefore);
// - at most MAX_FILES_PER_OWNER contents per owner (each at most the hooks file cap, 1 MiB): a new one
//   past that replaces the one seen least recently, with its counters.

import type { Db } from "../store/database.js";
import type { CountKey } from "./coverage-counts.js";
import type { ScopedCount, StoredConfig } from "./coverage-report.js";
import type { HeldCoverage } from "./pending-counts.js";
import { inTransaction } from "../store/transactions.js";

/** [choice] Distinct hooks.json contents kept per owner. */
export const MAX_FILES_PER_OWNER = 64;

export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

/** The minute bucket a time (ms on the owner's clock) is counted in. */
export function bucketOf(nowMs: number): number {
  return Math.floor(nowMs / MINUTE_MS) * MINUTE_MS;
}

export interface CoverageScope {
  environmentId?: string;
  /** Counts of buckets that end after this time (ms on the emulator's clock). */
  sinceMs?: number;
}

interface CountRow {
  owner: string;
  environment_id: string;
  bucket_ms: number;
  sha256: string;
  path: string;
  group_name: string;
  event: string;
  rule_index: number;
  handler_index: number;
  tool_name: string;
  outcome: string;
  count: number;
}

const COUNT_COLUMNS = "owner, environment_id, bucket_ms, sha256, path, group_name, event, rule_index, handler_index, tool_name, outcome";

export class CoverageStore {
  /** Prepared once: it runs for every evaluation of every call. */
  private readonly increment;

  constructor(private readonly db: Db) {
    this.increment = db.prepare(
      `INSERT INTO hook_coverage_counts (${COUNT_COLUMNS}, bucket_span_ms, count)
       VALUES (@owner, @environmentId, @bucketMs, @sha256, @path, @group, @event, @ruleIndex, @handlerIndex, @toolName, @outcome, ${MINUTE_MS}, @count)
       ON CONFLICT (${COUNT_COLUMNS}) DO UPDATE SET count = count + excluded.count`,
    );
  }

  /** Adds one evaluation's counts in one transaction, storing the contents it names that are new. */
  record(owner: string, environmentId: string, nowMs: number, keys: readonly CountKey[], configs: readonly StoredConfig[]): void {
    const bucketMs = bucketOf(nowMs);
    this.storeHeld({
      contents: configs.map((config) => ({ owner, config, firstSeenMs: nowMs, lastSeenMs: nowMs })),
      counts: keys.map((key) => ({ owner, environmentId, bucketMs, key, count: 1 })),
      compactions: new Map(),
    });
  }

  /**
   * Stores what coverage held in memory (pending-counts.ts) in one transaction: the contents first, so
   * a content that makes room past the cap takes only counts stored before it, then the counts added
   * up, then the compactions that came due.
   */
  storeHeld(held: HeldCoverage): void {
    inTransaction(this.db, () => {
      for (const { owner, config, firstSeenMs, lastSeenMs } of held.contents) this.keepFile(owner, config, firstSeenMs, lastSeenMs);
      for (const { owner, environmentId, bucketMs, key, count } of held.counts)
        this.increment.run({ owner, environmentId, bucketMs, ...key, count });
      for (const [owner, nowMs] of held.compactions) this.compactBefore(owner, nowMs - DAY_MS);
    });
  }

  /** Stores the content unless known (then only marks it seen), making room past the cap. */
  private keepFile(owner: string, config: StoredConfig, firstSeenMs: number, lastSeenMs: number): void {
    const seen = this.db
      .prepare("UPDATE hook_coverage_files SET last_seen_ms = ? WHERE owner = ? AND sha256 = ?")
      .run(lastSeenMs, owner, config.sha256);
    if (seen.changes > 0) return;
    const { files } = this.db.prepare("SELECT COUNT(*) AS files FROM hook_coverage_files WHERE owner = ?").get(owner) as { files: number };
    if (files >= MAX_FILES_PER_OWNER) {
      const oldest = this.db
        .prepare("SELECT sha256 FROM hook_coverage_files WHERE owner = ? ORDER BY last_seen_ms, first_seen_ms LIMIT ?")
        .all(owner, files - MAX_FILES_PER_OWNER + 1) as Array<{ sha256: string }>;
      for (const { sha256 } of oldest) {
        this.db.prepare("DELETE FROM hook_coverage_counts WHERE owner = ? AND sha256 = ?").run(owner, sha256);
        this.db.prepare("DELETE FROM hook_coverage_files WHERE owner = ? AND sha256 = ?").run(owner, sha256);
      }
    }
    this.db
      .prepare("INSERT INTO hook_coverage_files (owner, sha256, text, bytes, first_seen_ms, last_seen_ms) VALUES (?, ?, ?, ?, ?, ?)")
      .run(owner, config.sha256, config.text, Buffer.byteLength(config.text), firstSeenMs, lastSeenMs);
  }

  /** The owner's counters in scope, summed over environments and buckets. */
  scopedCounts(owner: string, scope: CoverageScope): ScopedCount[] {
    const { where, params } = scopeClause(owner, scope);
    const rows = this.db
      .prepare(
        `SELECT sha256, path, group_name, event, rule_index, handler_index, tool_name, outcome, SUM(count) AS count
         FROM hook_coverage_counts WHERE ${where}
         GROUP BY sha256, path, group_name, event, rule_index, handler_index, tool_name, outcome`,
      )
      .all(params) as Array<Omit<CountRow, "owner" | "environment_id" | "bucket_ms">>;
    return rows.map((row) => ({
      sha256: row.sha256,
      path: row.path,
      group: row.group_name,
      event: row.event as ScopedCount["event"],
      ruleIndex: row.rule_index,
      handlerIndex: row.handler_index,
      toolName: row.tool_name,
      outcome: row.outcome,
      count: row.count,
    }));
  }

  /** The contents (with the paths they were found at) that have counts in scope, first seen first. */
  configsInScope(owner: string, scope: CoverageScope): StoredConfig[] {
    const { where, params } = scopeClause(owner, scope, "c.");
    return this.db
      .prepare(
        `SELECT DISTINCT c.path AS path, f.sha256 AS sha256, f.text AS text, f.first_seen_ms AS first_seen_ms
         FROM hook_coverage_counts c JOIN hook_coverage_files f ON f.owner = c.owner AND f.sha256 = c.sha256
         WHERE ${where} AND c.sha256 != ''
         ORDER BY f.first_seen_ms, c.path`,
      )
      .all(params)
      .map((row) => {
        const { path, sha256, text } = row as StoredConfig;
        return { path, sha256, text };
      });
  }

  /** Whether the owner has any coverage of this environment (it may be deleted by now). */
  hasEnvironment(owner: string, environmentId: string): boolean {
    return (
      this.db.prepare("SELECT 1 FROM hook_coverage_counts WHERE owner = ? AND environment_id = ? LIMIT 1").get(owner, environmentId) !==
      undefined
    );
  }

  /** Folds the minute buckets that began before `cutoffMs` into one bucket per day. */
  compactBefore(owner: string, cutoffMs: number): void {
    inTransaction(this.db, () => {
      const rows = this.db
        .prepare(
          `SELECT owner, environment_id, (bucket_ms / ${DAY_MS}) * ${DAY_MS} AS bucket_ms, sha256, path, group_name, event,
                  rule_index, handler_index, tool_name, outcome, SUM(count) AS count
           FROM hook_coverage_counts WHERE owner = ? AND bucket_span_ms < ${DAY_MS} AND bucket_ms < ?
           GROUP BY owner, environment_id, bucket_ms / ${DAY_MS}, sha256, path, group_name, event, rule_index, handler_index, tool_name, outcome`,
        )
        .all(owner, cutoffMs) as CountRow[];
      if (rows.length === 0) return;
      // Deleted first, so a minute bucket that starts its day is not added to itself.
      this.db
        .prepare(`DELETE FROM hook_coverage_counts WHERE owner = ? AND bucket_span_ms < ${DAY_MS} AND bucket_ms < ?`)
        .run(owner, cutoffMs);
      const upsert = this.db.prepare(
        `INSERT INTO hook_coverage_counts (${COUNT_COLUMNS}, bucket_span_ms, count)
         VALUES (@owner, @environment_id, @bucket_ms, @sha256, @path, @group_name, @event, @rule_index, @handler_index, @tool_name, @outcome, ${DAY_MS}, @count)
         ON CONFLICT (${COUNT_COLUMNS}) DO UPDATE SET count = count + excluded.count, bucket_span_ms = ${DAY_MS}`,
      );
      for (const row of rows) upsert.run(row);
    });
  }
}

function scopeClause(owner: string, scope: CoverageScope, prefix = ""): { where: string; params: Record<string, unknown> } {
  const conditions = [`${prefix}owner = @owner`];
  const params: Record<string, unknown> = { owner };
  if (scope.environmentId !== undefined) {
    conditions.push(`${prefix}environment_id = @environmentId`);
    params.environmentId = scope.environmentId;
  }
  if (scope.sinceMs !== undefined) {
    conditions.push(`${prefix}bucket_ms + ${prefix}bucket_span_ms > @sinceMs`);
    params.sinceMs = scope.sinceMs;
  }
  return { where: conditions.join(" AND "), params };
}
