// Listing environments: one owner's, deleted ones left out, newest first with ties broken by id, and a
// cursor that continues exactly where the previous page ended.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { openMemoryDatabase } from "../../server/store/database.js";
import { EnvironmentStore, type EnvironmentRecord } from "../../server/environments/environment-store.js";

function environment(id: string, owner: string, created: string, status: EnvironmentRecord["status"] = "active"): EnvironmentRecord {
  return { id, owner, status, sandboxId: null, config: { sources: [] }, created, updated: created, lastAccessed: created };
}

describe("environment listing", () => {
  const store = new EnvironmentStore(openMemoryDatabase());
  store.insert(environment("env_a", "owner", "2026-01-01T00:00:01Z"));
  store.insert(environment("env_b", "owner", "2026-01-01T00:00:02Z"));
  store.insert(environment("env_c", "owner", "2026-01-01T00:00:02Z"));
  store.insert(environment("env_d", "owner", "2026-01-01T00:00:03Z", "expired"));
  store.insert(environment("env_e", "owner", "2026-01-01T00:00:04Z", "deleted"));
  store.insert(environment("env_f", "someone-else", "2026-01-01T00:00:05Z"));

  it("lists the owner's environments newest first, expired ones included, deleted ones not", () => {
    assert.deepEqual(
      store.listByOwner("owner", 10, null).map((record) => record.id),
      ["env_d", "env_c", "env_b", "env_a"],
    );
  });

  it("pages with the previous page's last environment as the cursor, also across equal times", () => {
    const seen: string[] = [];
    let after: { created: string; id: string } | null = null;
    for (;;) {
      const page = store.listByOwner("owner", 1, after);
      if (page.length === 0) break;
      seen.push(page[0]!.id);
      after = { created: page[0]!.created, id: page[0]!.id };
    }
    assert.deepEqual(seen, ["env_d", "env_c", "env_b", "env_a"]);
  });
});
