// The egress log keeps a bounded number of entries per environment (issue 9, defect 8): a sandbox that
// loops over curl cannot grow the store without end, and one environment's attempts never push out
// another's.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EgressLogStore } from "../../server/egress/egress-log-store.js";
import { openMemoryDatabase } from "../../server/store/database.js";

describe("the egress log", () => {
  it("keeps the newest entries of each environment, up to its limit, in order", () => {
    const db = openMemoryDatabase();
    const log = new EgressLogStore(db, 5);
    for (let attempt = 1; attempt <= 12; attempt++) {
      log.append({ time: `t${attempt}`, environment_id: "env_noisy", host: `h${attempt}.example.com` });
      if (attempt % 4 === 0) log.append({ time: `t${attempt}`, environment_id: "env_quiet", host: `q${attempt}.example.com` });
    }
    const noisy = log.list("env_noisy", 100, 0).entries.map((entry) => entry.host);
    assert.deepEqual(noisy, ["h8.example.com", "h9.example.com", "h10.example.com", "h11.example.com", "h12.example.com"]);
    const quiet = log.list("env_quiet", 100, 0).entries.map((entry) => entry.host);
    assert.deepEqual(quiet, ["q4.example.com", "q8.example.com", "q12.example.com"]);
    assert.deepEqual(db.prepare("SELECT COUNT(*) AS n FROM egress_log").get(), { n: 8 });
  });
});
