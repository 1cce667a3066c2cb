// The runtime's start-up probes run in the background (server/sandbox/docker/background-step.ts):
// every sandbox waits for them, a failure reaches the caller rather than an unhandled rejection, and a
// failed probe runs again at the next caller instead of counting for the emulator's lifetime.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { BackgroundStep } from "../../server/sandbox/docker/background-step.js";

describe("BackgroundStep", () => {
  it("runs once when started, and every caller waits for that run", async () => {
    let runs = 0;
    let finish!: () => void;
    const step = new BackgroundStep(() => {
      runs += 1;
      return new Promise<void>((resolve) => {
        finish = resolve;
      });
    });
    step.start();
    step.start();
    let settled = false;
    const waiting = Promise.all([step.settled(), step.settled()]).then(() => {
      settled = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(settled, false, "nobody goes on before the step has run");
    finish();
    await waiting;
    await step.settled();
    assert.equal(runs, 1);
  });

  it("runs when first waited for, if nobody started it", async () => {
    let runs = 0;
    const step = new BackgroundStep(async () => {
      runs += 1;
    });
    await step.ended();
    assert.equal(runs, 0, "ended() never starts it");
    await step.settled();
    assert.equal(runs, 1);
  });

  it("gives a failure to the callers waiting, then runs again for the next one", async () => {
    let runs = 0;
    const step = new BackgroundStep(async () => {
      runs += 1;
      if (runs === 1) throw new Error("the engine did not answer");
    });
    step.start();
    await step.ended();
    assert.equal(runs, 1, "ended() waits without running it again");
    await assert.rejects(step.settled(), /the engine did not answer/);
    await step.settled();
    assert.equal(runs, 2);
    await step.settled();
    assert.equal(runs, 2, "a step that succeeded is not run again");
  });
});
