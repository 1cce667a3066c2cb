// Hook coverage's store and its bounds, on an in-memory SQLite with the real migrations: counters add
// up instead of growing a row per call, old minute buckets fold into days (and `since` still selects
// them), and past MAX_FILES_PER_OWNER contents the one seen least recently goes with its counters.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CountKey } from "../../server/coverage/coverage-counts.js";
import { DAY_MS, MAX_FILES_PER_OWNER, MINUTE_MS, CoverageStore } from "../../server/coverage/coverage-store.js";
import { sha256Of } from "../../server/hooks/parsed-files.js";
import { openMemoryDatabase } from "../../server/store/database.js";

const PATH = "/.agents/hooks.json";

function config(text: string) {
  return { path: PATH, sha256: sha256Of(text), text };
}

function matchedKey(sha256: string): CountKey {
  return {
    sha256,
    path: PATH,
    group: "g",
    event: "pre_tool_execution",
    ruleIndex: 0,
    handlerIndex: -1,
    toolName: "code_execution",
    outcome: "matched",
  };
}

const rows = (db: ReturnType<typeof openMemoryDatabase>) =>
  (db.prepare("SELECT COUNT(*) AS n FROM hook_coverage_counts").get() as { n: number }).n;

describe("the hook coverage store", () => {
  it("adds up a thousand evaluations of one configuration in one minute in one row", () => {
    const db = openMemoryDatabase();
    const store = new CoverageStore(db);
    const file = config('{"g": {}}');
    const start = 10 * DAY_MS;
    for (let call = 0; call < 1000; call++) store.record("owner", "env-1", start + (call % 50), [matchedKey(file.sha256)], [file]);
    assert.equal(rows(db), 1);
    assert.equal(store.scopedCounts("owner", {})[0]?.count, 1000);
    assert.equal((db.prepare("SELECT COUNT(*) AS n FROM hook_coverage_files").get() as { n: number }).n, 1);
  });

  it("folds minute buckets older than the cutoff into one per day; since still selects them by their span", () => {
    const db = openMemoryDatabase();
    const store = new CoverageStore(db);
    const file = config('{"g": {}}');
    const day = 20 * DAY_MS;
    // Three minutes of one day (the first is the day's own start) and one of the next.
    for (const at of [day, day + 5 * MINUTE_MS, day + 7 * 60 * MINUTE_MS, day + DAY_MS + MINUTE_MS]) {
      store.record("owner", "env-1", at, [matchedKey(file.sha256)], [file]);
    }
    // Another owner's minute, in the same day: an owner's compaction (on its own clock) leaves it be.
    store.record("other", "env-2", day + 5 * MINUTE_MS, [matchedKey(file.sha256)], [file]);
    assert.equal(rows(db), 5);
    store.compactBefore("owner", day + DAY_MS);
    assert.equal(rows(db), 3);
    assert.equal(store.scopedCounts("other", { sinceMs: day + 6 * MINUTE_MS }).length, 0, "the other owner's minute bucket is kept");
    assert.equal(store.scopedCounts("owner", {})[0]?.count, 4);
    // A time inside the folded day still counts the whole day; one after it only the next minute.
    assert.equal(store.scopedCounts("owner", { sinceMs: day + 60 * MINUTE_MS })[0]?.count, 4);
    assert.equal(store.scopedCounts("owner", { sinceMs: day + DAY_MS })[0]?.count, 1);
  });

  it(`keeps at most ${MAX_FILES_PER_OWNER} contents per owner, dropping the one seen least recently with its counts`, () => {
    const db = openMemoryDatabase();
    const store = new CoverageStore(db);
    const files = Array.from({ length: MAX_FILES_PER_OWNER + 1 }, (_, index) => config(`{"g${index}": {}}`));
    files.forEach((file, index) => {
      // The first is seen again late: the second is then the least recently seen.
      store.record("owner", "env-1", 1000 + index, [matchedKey(file.sha256)], [file]);
      if (index === MAX_FILES_PER_OWNER - 1) store.record("owner", "env-1", 5000, [matchedKey(files[0]!.sha256)], [files[0]!]);
    });
    const kept = store.configsInScope("owner", {}).map((entry) => entry.sha256);
    assert.equal(kept.length, MAX_FILES_PER_OWNER);
    assert.ok(kept.includes(files[0]!.sha256));
    assert.ok(!kept.includes(files[1]!.sha256));
    assert.ok(!store.scopedCounts("owner", {}).some((count) => count.sha256 === files[1]!.sha256));
    // Another owner's contents are their own.
    store.record("other", "env-2", 9000, [matchedKey(files[1]!.sha256)], [files[1]!]);
    assert.equal(store.configsInScope("other", {}).length, 1);
    assert.equal(store.configsInScope("owner", {}).length, MAX_FILES_PER_OWNER);
  });
});
