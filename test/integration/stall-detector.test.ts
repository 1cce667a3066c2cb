// The stall detector (test/support/stall-detector.ts) against a loopback server that can be told to
// stall: it must pass a server that answers, and fail one that holds its event loop or stops answering,
// or every test of hostile input that relies on it could not fail.

import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { watchForStalls, withoutStalls } from "../support/stall-detector.js";

function busyFor(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // Holds the event loop, as a synchronous stretch of server work would.
  }
}

describe("the stall detector", () => {
  let server: Server;
  let url = "";
  let silent = false;
  let healthDelayMs = 0;
  before(async () => {
    server = createServer((req, res) => {
      if (req.url === "/health") {
        if (silent) return; // never answers
        setTimeout(() => res.end("{}"), healthDelayMs);
        return;
      }
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("passes a server that keeps answering", async () => {
    const { report } = await withoutStalls(url, { healthMs: 1000, eventLoopMs: 500 }, () => new Promise((r) => setTimeout(r, 300)), {
      inProcess: true,
    });
    assert.ok(report.healthAnswers >= 2, `only ${report.healthAnswers} answers`);
    assert.deepEqual(report.failures, []);
    assert.ok(report.longestEventLoopMs !== null && report.longestEventLoopMs < 500);
  });

  it("waits within the bound for the /health in flight when the work ends first, and counts its answer", async () => {
    healthDelayMs = 150;
    try {
      // The work (a refusal, say) is over long before the first /health answers.
      const { report } = await withoutStalls(url, { healthMs: 1000 }, () => new Promise((r) => setTimeout(r, 10)));
      assert.equal(report.healthAnswers, 1);
      assert.ok(report.longestHealthMs >= 140 && report.longestHealthMs < 1000, `longest ${report.longestHealthMs} ms`);
      assert.deepEqual(report.failures, []);
    } finally {
      healthDelayMs = 0;
    }
  });

  it("fails a server whose event loop is held, naming both measures", async () => {
    const watch = watchForStalls(url, { healthMs: 300, eventLoopMs: 300 }, { inProcess: true });
    await new Promise((r) => setTimeout(r, 120));
    busyFor(700);
    await new Promise((r) => setTimeout(r, 120));
    await assert.rejects(watch.assertNoStall("the test server"), (error: Error) => {
      assert.match(error.message, /the test server stalled/);
      assert.match(error.message, /event loop was held \d+ ms/);
      return true;
    });
  });

  it("fails a server that stops answering /health, with the time it waited", async () => {
    silent = true;
    try {
      const watch = watchForStalls(url, { healthMs: 200 });
      await new Promise((r) => setTimeout(r, 500));
      const report = await watch.stop();
      assert.ok(report.longestHealthMs >= 450, `waited ${report.longestHealthMs} ms`);
      assert.ok(report.failures.some((line) => /\/health took \d+ ms/.test(line)));
      assert.ok(report.failures.some((line) => /never answered/.test(line)));
    } finally {
      silent = false;
    }
  });
});
