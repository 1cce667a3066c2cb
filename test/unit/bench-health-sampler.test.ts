// The /health prober of the concurrency part (test/bench/health-sampler.ts): it samples from a thread of
// its own, so a main thread busy with the load it drives does not delay or skip its samples, and a
// failed /health counts as the 30 s the sample would have waited at most.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, it } from "node:test";
import { sampleHealth } from "../bench/health-sampler.js";

/** A /health server in a process of its own, answering `status` (after `delayMs`); its URL, and how to stop it. */
async function healthServer(status: number, delayMs = 0): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(
    process.execPath,
    [
      "-e",
      `const s = require("node:http").createServer((q, r) => { r.statusCode = ${status}; setTimeout(() => r.end("{}"), ${delayMs}); });
       s.listen(0, "127.0.0.1", () => console.log(s.address().port));`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const [line] = (await once(child.stdout, "data")) as [Buffer];
  return {
    url: `http://127.0.0.1:${line.toString().trim()}`,
    stop: async () => {
      child.kill();
      await once(child, "exit");
    },
  };
}

describe("the /health prober", () => {
  it("goes on sampling while this process's main thread is busy, and reads its own and the emulator's core waits", async () => {
    const server = await healthServer(200);
    try {
      const sampler = sampleHealth(server.url, process.pid, 20);
      await sampler.ready;
      // The main thread blocked for 600 ms: a prober on it would have taken one sample at most.
      const until = Date.now() + 600;
      while (Date.now() < until);
      const { times, coreWaits, proberWaits } = await sampler.stop();
      assert.ok(times.length >= 5, `${times.length} samples while the main thread was busy`);
      assert.equal(coreWaits.length, times.length);
      assert.equal(proberWaits.length, times.length);
      for (const ms of times) assert.ok(ms > 0 && ms < 30_000, `a sample of ${ms} ms`);
      for (const wait of [...coreWaits, ...proberWaits]) assert.ok(wait >= 0);
    } finally {
      await server.stop();
    }
  });

  it("is ready once its thread has taken a first sample, and not before", async () => {
    const server = await healthServer(200, 300);
    try {
      const asked = performance.now();
      const sampler = sampleHealth(server.url, undefined, 20);
      await sampler.ready;
      const waited = performance.now() - asked;
      const { times } = await sampler.stop();
      assert.ok(waited >= 300, `ready after ${waited.toFixed(0)} ms, before the first answer (300 ms)`);
      assert.ok(times[0]! >= 300, `the first sample took ${times[0]} ms`);
    } finally {
      await server.stop();
    }
  });

  it("counts a /health that does not answer 200 as 30 s", async () => {
    const server = await healthServer(503);
    try {
      const sampler = sampleHealth(server.url, undefined, 20);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const { times, coreWaits } = await sampler.stop();
      assert.ok(times.length >= 1);
      assert.deepEqual(new Set(times), new Set([30_000]));
      assert.deepEqual(new Set(coreWaits), new Set([0]), "no emulator pid, no core wait read");
    } finally {
      await server.stop();
    }
  });
});
