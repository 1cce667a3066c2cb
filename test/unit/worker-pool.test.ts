// The worker pool behind off-loop schema work (server/common/worker-pool.ts) with a test worker: it
// answers jobs and reuses its workers, a job past its deadline rejects and its worker is replaced, a
// worker that exits or runs out of its heap fails its job only, and jobs beyond the pool's size wait
// their turn without their wait counting against their deadline.

import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { WorkerDeadlineError, WorkerFailedError, WorkerPool } from "../../server/common/worker-pool.js";

const SCRIPT = new URL("../support/pool-test-worker.js", import.meta.url);

describe("the worker pool", () => {
  const pool = new WorkerPool({ script: SCRIPT, size: 2, maxHeapMb: 64 });
  after(async () => {
    await pool.close();
  });

  it("answers each job with its worker's answer", async () => {
    assert.deepEqual(await pool.run({ kind: "echo", value: { a: [1, 2] } }, 5000), { a: [1, 2] });
    assert.equal(await pool.run({ kind: "echo", value: "again" }, 5000), "again");
  });

  it("rejects a job past its deadline and serves the next with a new worker", async () => {
    await assert.rejects(pool.run({ kind: "busy", ms: 5000 }, 100), (error: unknown) => {
      assert.ok(error instanceof WorkerDeadlineError);
      assert.equal(error.deadlineMs, 100);
      return true;
    });
    assert.equal(await pool.run({ kind: "echo", value: "after" }, 5000), "after");
  });

  it("fails only the job of a worker that exits or runs out of its heap", async () => {
    await assert.rejects(pool.run({ kind: "exit" }, 5000), WorkerFailedError);
    await assert.rejects(pool.run({ kind: "grow" }, 20_000), (error: unknown) => {
      assert.ok(error instanceof WorkerFailedError);
      assert.equal((error.cause as { code?: string }).code, "ERR_WORKER_OUT_OF_MEMORY");
      return true;
    });
    assert.equal(await pool.run({ kind: "echo", value: "still here" }, 5000), "still here");
  });

  it("queues jobs beyond its size; their wait does not count against their deadline", async () => {
    const answers = await Promise.all([
      pool.run({ kind: "busy", ms: 300 }, 2000),
      pool.run({ kind: "busy", ms: 300 }, 2000),
      pool.run({ kind: "busy", ms: 300 }, 500),
      pool.run({ kind: "busy", ms: 300 }, 500),
    ]);
    assert.deepEqual(answers, ["done", "done", "done", "done"]);
  });

  it("refuses work once closed", async () => {
    const closing = new WorkerPool({ script: SCRIPT, size: 1, maxHeapMb: 64 });
    assert.equal(await closing.run({ kind: "echo", value: 1 }, 5000), 1);
    await closing.close();
    await assert.rejects(closing.run({ kind: "echo", value: 2 }, 5000), WorkerFailedError);
  });
});
