// A worker for test/unit/worker-pool.test.ts: answers each job as it says ("echo" its value, "busy"
// for some milliseconds, "exit", or "grow" its heap until it runs out), after saying it is ready.

import { parentPort } from "node:worker_threads";
import { WORKER_READY } from "../../server/common/worker-pool.js";

type Job = { kind: "echo"; value: unknown } | { kind: "busy"; ms: number } | { kind: "exit" } | { kind: "grow" };

parentPort?.on("message", (job: Job) => {
  switch (job.kind) {
    case "echo":
      parentPort?.postMessage(job.value);
      return;
    case "busy": {
      const end = performance.now() + job.ms;
      while (performance.now() < end) {
        // Holds this worker's thread, as a long compile would.
      }
      parentPort?.postMessage("done");
      return;
    }
    case "exit":
      process.exit(3);
      return;
    case "grow": {
      const kept: number[][] = [];
      for (;;) kept.push(new Array(1_000_000).fill(kept.length));
    }
  }
});
parentPort?.postMessage(WORKER_READY);
