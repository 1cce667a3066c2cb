// The warm pool's bookkeeping (server/sandbox/sandbox-pool.ts) over a scripted runtime: it fills to its
// size one sandbox at a time, take() answers at once (null when nothing is ready) and starts a
// replacement, a failing fill is logged once and retried with a growing pause until it works, a ready
// sandbox whose channel closes is replaced, and close() removes everything, a fill in flight included.
// The real-engine behaviour is in test/e2e/warm-pool.test.ts.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { SandboxRuntime } from "../../server/sandbox/runtime.js";
import { runtimeHasPool, SandboxPool } from "../../server/sandbox/sandbox-pool.js";
import { PoolRuntime } from "../support/pool-runtime.js";

async function until(what: string, condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

describe("the warm pool", () => {
  it("fills to its size, and take() hands out a ready sandbox at once and starts its replacement", async () => {
    const runtime = new PoolRuntime();
    const pool = new SandboxPool(runtime, { size: 2, log: () => undefined, refillDelayMs: 0 });
    assert.equal(pool.take(), null, "nothing is ready before the pool starts: the caller creates one cold");
    pool.start();
    await until("two ready sandboxes", () => pool.readyCount === 2);
    assert.equal(runtime.created, 2);

    const taken = pool.take();
    assert.ok(taken);
    assert.equal(taken.handle.sandboxId, "pooled-1", "the oldest first");
    assert.equal(pool.readyCount, 1);
    await until("the replacement", () => pool.readyCount === 2);
    assert.equal(runtime.created, 3);
    assert.ok(runtime.alive.has("pooled-1"), "a taken sandbox is the caller's: the pool never removes it");
    await pool.close();
    assert.deepEqual([...runtime.alive], ["pooled-1"]);
  });

  it("starts a replacement only a moment after a take, out of the way of the request that took one", async () => {
    const runtime = new PoolRuntime();
    const pool = new SandboxPool(runtime, { size: 1, log: () => undefined, refillDelayMs: 200 });
    pool.start();
    await until("a ready sandbox", () => pool.readyCount === 1);
    const taken = Date.now();
    assert.ok(pool.take());
    await sleep(100);
    assert.equal(runtime.created, 1, "no replacement yet");
    await until("the replacement", () => pool.readyCount === 1);
    assert.ok(Date.now() - taken >= 190, `replaced after ${Date.now() - taken} ms`);
    await pool.close();
  });

  it("answers null while a fill is still running, never waiting for it", async () => {
    const runtime = new PoolRuntime();
    let open!: () => void;
    runtime.gate = new Promise((resolve) => (open = resolve));
    const pool = new SandboxPool(runtime, { size: 1, log: () => undefined, refillDelayMs: 0 });
    pool.start();
    assert.equal(pool.take(), null);
    open();
    await until("the fill", () => pool.readyCount === 1);
    await pool.close();
  });

  it("logs a failing fill once, retries with a growing pause, and fills once the runtime works again", async () => {
    const runtime = new PoolRuntime();
    runtime.failNext = 3;
    const lines: string[] = [];
    const pool = new SandboxPool(runtime, { size: 1, log: (line) => lines.push(line), backoffMs: 20, maxBackoffMs: 50 });
    const started = Date.now();
    pool.start();
    await until("the pool to fill after the failures", () => pool.readyCount === 1);
    // Pauses of 20, 40 and 50 ms (capped) between the four attempts.
    assert.ok(Date.now() - started >= 100, `filled after ${Date.now() - started} ms`);
    assert.equal(lines.length, 2, lines.join("\n"));
    assert.match(lines[0]!, /could not start a sandbox \(the engine did not answer\); new environments are created cold meanwhile/);
    assert.match(lines[1]!, /start again after 3 failed attempt/);
    await pool.close();
  });

  it("replaces a ready sandbox whose channel closed (its executor or container ended) and removes it", async () => {
    const runtime = new PoolRuntime();
    const pool = new SandboxPool(runtime, { size: 1, log: () => undefined, refillDelayMs: 0 });
    pool.start();
    await until("a ready sandbox", () => pool.readyCount === 1);
    runtime.channels.get("pooled-1")!.close();
    await until("its replacement", () => runtime.created === 2 && pool.readyCount === 1);
    await until("the broken one removed", () => !runtime.alive.has("pooled-1"));
    assert.equal(pool.take()?.handle.sandboxId, "pooled-2");
    await pool.close();
  });

  it("removes a sandbox the caller discards", async () => {
    const runtime = new PoolRuntime();
    const pool = new SandboxPool(runtime, { size: 1, log: () => undefined, refillDelayMs: 0 });
    pool.start();
    await until("a ready sandbox", () => pool.readyCount === 1);
    const taken = pool.take()!;
    pool.discard(taken);
    await until("it is removed", () => !runtime.alive.has(taken.handle.sandboxId));
    await runtime.channels.get(taken.handle.sandboxId)!.closed; // and its channel closed
    await pool.close();
  });

  it("close() removes the ready sandboxes and one still being started, and take() then answers null", async () => {
    const runtime = new PoolRuntime();
    const pool = new SandboxPool(runtime, { size: 2, log: () => undefined, refillDelayMs: 0 });
    pool.start();
    await until("two ready", () => pool.readyCount === 2);
    let open!: () => void;
    runtime.gate = new Promise((resolve) => (open = resolve));
    const taken = pool.take()!;
    await until("its replacement to wait on the gate", () => runtime.attempts === 3);
    const closing = pool.close();
    open();
    await closing;
    assert.equal(runtime.created, 3, "the replacement was started");
    assert.deepEqual([...runtime.alive], [taken.handle.sandboxId], "nothing of the pool's is left; the taken one is the caller's");
    assert.equal(pool.take(), null);
  });

  it("needs a runtime that can make pooled sandboxes", () => {
    const runtime = new PoolRuntime() as Partial<PoolRuntime>;
    assert.equal(runtimeHasPool(runtime as SandboxRuntime), true);
    runtime.createPooled = undefined;
    assert.equal(runtimeHasPool(runtime as SandboxRuntime), false);
    assert.throws(() => new SandboxPool(runtime as SandboxRuntime, { size: 1, log: () => undefined }), /cannot keep a pool/);
  });
});

describe("the warm pool under load", () => {
  /** A runtime whose createPooled() waits until the returned open() is called. */
  const held = () => {
    const runtime = new PoolRuntime();
    let open!: () => void;
    runtime.gate = new Promise((resolve) => (open = resolve));
    return { runtime, open };
  };

  it("makes sandboxes in parallel, never more at once than its fill concurrency", async () => {
    const { runtime, open } = held();
    const pool = new SandboxPool(runtime, { size: 5, fillConcurrency: 2, log: () => undefined, refillDelayMs: 0 });
    pool.start();
    await until("two fills under way", () => runtime.attempts === 2);
    await sleep(20);
    assert.equal(runtime.attempts, 2, "no third fill while two are under way");
    assert.deepEqual(pool.state(), { size: 5, target: 5, ready: 0, filling: 2, naming: 0 });
    open();
    await until("five ready", () => pool.readyCount === 5);
    assert.equal(runtime.maxInFlight, 2);
    assert.equal(runtime.created, 5);
    assert.deepEqual(pool.state(), { size: 5, target: 5, ready: 5, filling: 0, naming: 0 });
    await pool.close();
    assert.deepEqual([...runtime.alive], []);
  });

  it("doubles its target on each take that finds it empty, up to its maximum, and refills at once meanwhile", async () => {
    const { runtime, open } = held();
    // A refill delay of a minute: a grown pool must not wait for it.
    const pool = new SandboxPool(runtime, { size: 1, maxSize: 6, fillConcurrency: 2, log: () => undefined, refillDelayMs: 60_000 });
    pool.start();
    assert.equal(pool.take(), null);
    assert.equal(pool.state().target, 2);
    assert.equal(pool.take(), null);
    assert.equal(pool.state().target, 4);
    assert.equal(pool.take(), null);
    assert.equal(pool.state().target, 6, "doubled, then held at the maximum");
    assert.equal(pool.take(), null);
    assert.equal(pool.state().target, 6);
    await until("two fills under way", () => runtime.attempts === 2);
    open();
    await until("six ready", () => pool.readyCount === 6);
    assert.equal(runtime.created, 6, "no more than the maximum");
    assert.ok(runtime.maxInFlight <= 2);
    await pool.close();
    assert.deepEqual([...runtime.alive], []);
  });

  it("grows when a take empties it while the last take's replacement is still to come", async () => {
    const runtime = new PoolRuntime();
    const pool = new SandboxPool(runtime, { size: 2, maxSize: 8, log: () => undefined, refillDelayMs: 60_000 });
    pool.start();
    await until("two ready", () => pool.readyCount === 2);
    assert.ok(pool.take());
    assert.equal(pool.state().target, 2, "one take leaves one ready: no growth");
    assert.ok(pool.take());
    assert.equal(pool.state().target, 4, "the second empties it before the first's replacement started");
    await until("four ready, without waiting for the refill delay", () => pool.readyCount === 4);
    await pool.close();
  });

  it("goes back to its size after a quiet stretch, removing the surplus, and a fill finished after that is not kept", async () => {
    const runtime = new PoolRuntime();
    const pool = new SandboxPool(runtime, {
      size: 1,
      maxSize: 4,
      fillConcurrency: 2,
      log: () => undefined,
      refillDelayMs: 0,
      shrinkAfterMs: 150,
    });
    pool.start();
    await until("one ready", () => pool.readyCount === 1);
    const taken = [pool.take()!];
    assert.equal(pool.take(), null);
    assert.equal(pool.take(), null);
    assert.equal(pool.state().target, 4);
    await until("four ready", () => pool.readyCount === 4);
    // A take keeps it grown; then a fill is held while the quiet stretch ends.
    let open!: () => void;
    runtime.gate = new Promise((resolve) => (open = resolve));
    taken.push(pool.take()!);
    await until("its replacement under way", () => pool.state().filling === 1);
    await until("the pool back to its size", () => pool.state().target === 1);
    assert.equal(pool.readyCount, 1);
    open();
    await until("the late fill done", () => pool.state().filling === 0);
    assert.equal(pool.readyCount, 1, "the late fill was not kept");
    const kept = new Set(taken.map((one) => one.handle.sandboxId));
    await until("the surplus removed", () => [...runtime.alive].filter((id) => !kept.has(id)).length === 1);
    await pool.close();
    assert.deepEqual(new Set(runtime.alive), kept, "only what callers took is left");
  });

  it("does not grow while its fills fail", async () => {
    const runtime = new PoolRuntime();
    runtime.failNext = 100;
    const pool = new SandboxPool(runtime, { size: 1, maxSize: 8, log: () => undefined, backoffMs: 10_000 });
    pool.start();
    await until("a failed fill", () => runtime.attempts === 1 && pool.state().filling === 0);
    assert.equal(pool.take(), null);
    assert.equal(pool.state().target, 1);
    await pool.close();
  });

  it("close() removes the ready sandboxes and every fill under way", async () => {
    const runtime = new PoolRuntime();
    const pool = new SandboxPool(runtime, { size: 1, maxSize: 8, fillConcurrency: 3, log: () => undefined, refillDelayMs: 0 });
    pool.start();
    await until("one ready", () => pool.readyCount === 1);
    let open!: () => void;
    runtime.gate = new Promise((resolve) => (open = resolve));
    const taken = pool.take()!;
    pool.take();
    pool.take();
    await until("three fills under way", () => runtime.inFlight === 3);
    const closing = pool.close();
    open();
    await closing;
    assert.equal(runtime.created, 4);
    assert.deepEqual([...runtime.alive], [taken.handle.sandboxId]);
    assert.equal(pool.state().ready, 0);
    assert.equal(pool.state().filling, 0);
  });
});
