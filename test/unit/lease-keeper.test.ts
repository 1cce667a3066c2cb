// The lease keeper: the lease is renewed (and abandoned sandboxes looked for) before anything else and
// then every third of the lease; an engine that fails is said once, not at every tick; stop() ends the
// lease. A fake runtime counts the calls.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { keepLease } from "../../server/sandbox/lease-keeper.js";
import type { SandboxRuntime } from "../../server/sandbox/runtime.js";

/** Waits until `condition` holds (at most 10 s): timers run late on a loaded machine. */
async function until(what: string, condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await sleep(20);
  }
}

function fakeRuntime() {
  const calls = { renew: 0, sweep: 0, drop: 0 };
  let failing = false;
  const runtime = {
    renewLease: async () => {
      calls.renew += 1;
      if (failing) throw new Error("the Docker engine did not answer");
    },
    removeAbandoned: async () => {
      calls.sweep += 1;
      return calls.sweep === 1
        ? { instances: ["old-one"], containers: 2, volumes: 3, images: 1, failures: ["volume x: in use"] }
        : { instances: [], containers: 0, volumes: 0, images: 0, failures: [] };
    },
    dropLease: async () => {
      calls.drop += 1;
    },
  } as unknown as SandboxRuntime;
  return { runtime, calls, fail: (value: boolean) => (failing = value) };
}

describe("the lease keeper", () => {
  it("renews and sweeps at once, then every third of the lease, and ends the lease when stopped", async () => {
    const { runtime, calls } = fakeRuntime();
    const lines: string[] = [];
    const keeper = await keepLease(runtime, 600, (line) => lines.push(line));
    assert.deepEqual(calls, { renew: 1, sweep: 1, drop: 0 });
    assert.match(lines[0] ?? "", /old-one: their data folders are gone\): 2 container\(s\), 3 volume\(s\), 1 image\(s\)/);
    assert.match(lines[1] ?? "", /could not remove .*volume x: in use; trying again later/);
    const started = Date.now();
    await until("renewed twice more", () => calls.renew >= 3);
    // Every 0.2 s: two more renewals take at least 0.4 s.
    assert.ok(Date.now() - started >= 350, "renewed faster than every third of the lease");
    await keeper.stop();
    const renewed = calls.renew;
    assert.equal(calls.drop, 1);
    await sleep(300);
    assert.equal(calls.renew, renewed, "renewed after stop()");
  });

  it("says once that the engine fails, and again only after it recovered and failed anew", async () => {
    const { runtime, calls, fail } = fakeRuntime();
    const lines: string[] = [];
    fail(true);
    const keeper = await keepLease(runtime, 300, (line) => lines.push(line));
    const said = () => lines.filter((line) => /could not renew/.test(line)).length;
    await until("three failed renewals", () => calls.renew >= 3);
    assert.equal(said(), 1);
    fail(false);
    const recovered = calls.sweep;
    await until("a renewal that worked", () => calls.sweep > recovered);
    fail(true);
    const failedAgain = calls.renew;
    await until("a renewal that failed again", () => calls.renew > failedAgain);
    await until("the failure said again", () => said() === 2);
    await keeper.stop();
  });

  it("does nothing for a runtime that keeps no lease", async () => {
    const keeper = await keepLease({} as SandboxRuntime, 300, () => assert.fail("nothing to say"));
    await keeper.stop();
  });
});
