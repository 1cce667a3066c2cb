// The emulator's clock and its scheduler: jobs run when the clock reaches their time, by real time
// or by a test moving the clock, in time order, catching up in one pass; cancel, close, and a job
// that fails does not stop the others.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { EmulatorClock } from "../../server/common/clock.js";
import { Scheduler } from "../../server/common/scheduler.js";

describe("the emulator's clock and scheduler", () => {
  it("reads the wall clock until moved, then the wall clock plus the offset, and goes back to real time", () => {
    let wall = 1_000_000;
    const clock = new EmulatorClock(() => wall);
    assert.equal(clock.now(), 1_000_000);
    clock.advance(600_000);
    wall += 5;
    assert.equal(clock.now(), 1_600_005);
    assert.equal(clock.offset, 600_000);
    assert.throws(() => clock.advance(-1), /only moves forward/);
    clock.reset();
    assert.equal(clock.now(), 1_000_005);
  });

  it("runs jobs a move of the clock made due, in time order, including those they schedule for a time already reached", async () => {
    const clock = new EmulatorClock();
    const scheduler = new Scheduler(clock);
    const start = clock.now();
    const ran: string[] = [];
    // A "*/5" schedule: each run schedules the next one five minutes after its own time.
    const every5 = (at: number) =>
      scheduler.at(at, () => {
        ran.push(`run@${(at - start) / 60_000}`);
        every5(at + 5 * 60_000);
      });
    every5(start + 5 * 60_000);
    scheduler.at(start + 7 * 60_000, () => void ran.push("once@7"));
    clock.advance(10 * 60_000);
    await scheduler.runDue();
    assert.deepEqual(ran, ["run@5", "once@7", "run@10"]);
    assert.equal(scheduler.pending, 1, "the run at 15 minutes waits");
    scheduler.close();
  });

  it("runs a job when real time reaches it, and not one that was cancelled; a failing job does not stop the rest", async () => {
    const clock = new EmulatorClock();
    const scheduler = new Scheduler(clock);
    const ran: string[] = [];
    const cancel = scheduler.at(clock.now() + 20, () => void ran.push("cancelled"));
    scheduler.at(clock.now() + 30, () => {
      throw new Error("this job fails");
    });
    scheduler.at(clock.now() + 40, () => void ran.push("real time"));
    cancel();
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args);
    try {
      await new Promise((resolve) => setTimeout(resolve, 120));
    } finally {
      console.error = original;
    }
    assert.deepEqual(ran, ["real time"]);
    assert.equal(errors.length, 1);
    scheduler.close();
  });

  it("lets a caller of runDue() during a pass wait for the pass and for what it left", async () => {
    const clock = new EmulatorClock();
    const scheduler = new Scheduler(clock);
    const ran: number[] = [];
    const start = clock.now();
    scheduler.at(start + 1000, async () => {
      await new Promise((resolve) => setTimeout(resolve, 30));
      ran.push(1);
    });
    scheduler.at(start + 2000, () => void ran.push(2));
    clock.advance(1500);
    clock.advance(1000);
    await scheduler.runDue();
    assert.deepEqual(ran, [1, 2]);
    scheduler.close();
    assert.throws(() => scheduler.at(0, () => undefined), /closed/);
  });
});
