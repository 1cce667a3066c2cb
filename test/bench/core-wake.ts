// What waking an idle core costs on this machine, a floor under every hand-off of a tool call (the
// emulator's exec frame wakes the executor, the executor's spawn starts the command, the command's exit
// wakes the executor, its result frame wakes the emulator). Measured between two threads that wake each
// other through a futex (Atomics.wait and notify): back to back, and after the waiting thread has
// waited 1 ms while this one spins, so that its core idles while this one stays busy. The difference is
// the wake-up of an idle core: a C-state exit on bare metal; in a VM whose idle cores halt (guest halt
// polling off), the hypervisor's rescheduling of the virtual CPU.

import { Worker } from "node:worker_threads";
import { quantile } from "./stats.js";

/** How long the other thread's core is left idle before a "cold" round trip. */
const IDLE_MS = 1;

// The other thread: waits for slot 0 to turn 1, clears it, sets slot 1 and wakes its waiter; 2 ends it.
const ECHO = `
const { workerData } = require("node:worker_threads");
const flags = new Int32Array(workerData);
for (;;) {
  Atomics.wait(flags, 0, 0);
  if (Atomics.load(flags, 0) === 2) break;
  Atomics.store(flags, 0, 0);
  Atomics.store(flags, 1, 1);
  Atomics.notify(flags, 1);
}`;

export interface CoreWake {
  /** A round trip back to back (µs, median). */
  warmUs: number;
  /** A round trip after the other thread idled IDLE_MS (µs, median). */
  coldUs: number;
}

export async function measureCoreWake(rounds = 2000): Promise<CoreWake> {
  const shared = new SharedArrayBuffer(8);
  const flags = new Int32Array(shared);
  const worker = new Worker(ECHO, { eval: true, workerData: shared });
  await new Promise<void>((resolve, reject) => {
    worker.once("online", resolve);
    worker.once("error", reject);
  });
  const roundTrip = () => {
    const start = process.hrtime.bigint();
    Atomics.store(flags, 0, 1);
    Atomics.notify(flags, 0);
    if (Atomics.wait(flags, 1, 0, 1000) === "timed-out") throw new Error("the other thread did not answer within 1 s");
    Atomics.store(flags, 1, 0);
    return Number(process.hrtime.bigint() - start) / 1000;
  };
  const spin = (ms: number) => {
    const until = process.hrtime.bigint() + BigInt(ms * 1e6);
    while (process.hrtime.bigint() < until);
  };
  try {
    const warm: number[] = [];
    const cold: number[] = [];
    // In blocks of 100, taken in turns, so that a change in the machine's load touches both alike; the
    // first block warms both threads up and is not counted.
    for (let block = -1; block < rounds / 100; block++) {
      const warmBlock: number[] = [];
      const coldBlock: number[] = [];
      for (let index = 0; index < 100; index++) warmBlock.push(roundTrip());
      for (let index = 0; index < 100; index++) {
        spin(IDLE_MS);
        coldBlock.push(roundTrip());
      }
      if (block >= 0) {
        warm.push(...warmBlock);
        cold.push(...coldBlock);
      }
      // Lets the event loop (and the benchmark's other timers) run between blocks.
      await new Promise((resolve) => setImmediate(resolve));
    }
    return { warmUs: quantile(warm, 0.5), coldUs: quantile(cold, 0.5) };
  } finally {
    Atomics.store(flags, 0, 2);
    Atomics.notify(flags, 0);
    await worker.terminate();
  }
}
