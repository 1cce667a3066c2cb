// Each key's test clock (server/common/test-clocks.ts): an owner's move moves only its own time and
// runs only its own jobs; an owner's clock is kept only while it has an offset or a job; the offset
// and the number of moved clocks are bounded; one move's trigger runs are counted. And timestamps
// that never throw, whatever the time.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { TestClocks } from "../../server/common/test-clocks.js";
import { isoOf, timestampOf } from "../../server/common/timestamps.js";

const DAY_MS = 86_400_000;
const bounds = { maxOffsetMs: 10 * DAY_MS, maxMovedOwners: 2, maxRunsPerMove: 3 };

describe("a test clock per owner", () => {
  it("moves only the mover's time and runs only the mover's jobs", async () => {
    let wall = 1_000_000;
    const clocks = new TestClocks(bounds, () => wall);
    const ran: string[] = [];
    clocks.at("a", wall + 60_000, () => void ran.push("a"));
    clocks.at("b", wall + 60_000, () => void ran.push("b"));
    await clocks.advance("a", 61_000);
    assert.deepEqual(ran, ["a"]);
    assert.equal(clocks.now("a"), wall + 61_000);
    assert.equal(clocks.now("b"), wall);
    wall += 5;
    assert.equal(clocks.now("b"), wall);
    clocks.close();
  });

  it("keeps an owner's clock only while it has an offset or a job", async () => {
    const clocks = new TestClocks(bounds);
    const cancel = clocks.at("a", Date.now() + DAY_MS, () => undefined);
    assert.equal(clocks.size, 1);
    cancel();
    assert.equal(clocks.size, 0, "no job and no offset: dropped");
    await clocks.advance("b", 1000);
    assert.equal(clocks.size, 1, "an offset is kept");
    await clocks.reset("b");
    assert.equal(clocks.size, 0, "back on real time with nothing scheduled: dropped");
    clocks.at("c", 0, () => undefined);
    await clocks.runDue();
    assert.equal(clocks.size, 0, "a job that ran leaves nothing behind");
    clocks.close();
  });

  it("refuses a move past the offset bound or past the number of moved clocks, moving nothing", async () => {
    const clocks = new TestClocks(bounds);
    await clocks.advance("a", 6 * DAY_MS);
    assert.throws(() => clocks.advance("a", 5 * DAY_MS), /past the bound of 10 days \(EMULATOR_CLOCK_MAX_OFFSET_DAYS\).*"reset": true/);
    assert.equal(clocks.offsetMs("a"), 6 * DAY_MS);
    await clocks.advance("a", 4 * DAY_MS);
    await clocks.advance("b", 1);
    assert.throws(() => clocks.advance("c", 1), /2 keys already have a clock ahead of real time.*EMULATOR_CLOCK_MAX_KEYS/);
    assert.equal(clocks.offsetMs("c"), 0);
    await clocks.advance("a", 0);
    await clocks.reset("b");
    await clocks.advance("c", 1);
    clocks.close();
  });

  it("counts the trigger runs one move makes, not those real time reaches", async () => {
    const clocks = new TestClocks(bounds);
    const start = clocks.now("a");
    assert.ok(clocks.takeMoveRun("a", start), "no move yet: not counted");
    await clocks.advance("a", 60_000);
    const taken = [1, 2, 3, 4].map(() => clocks.takeMoveRun("a", start + 30_000));
    assert.deepEqual(taken, [true, true, true, false]);
    assert.ok(clocks.takeMoveRun("a", start + 120_000), "due after the move's time: not the move's");
    await clocks.advance("a", 60_000);
    assert.ok(clocks.takeMoveRun("a", start + 90_000), "each move has its own count");
    clocks.close();
  });
});

describe("timestamps", () => {
  it("never throw, whatever the time", () => {
    assert.equal(timestampOf(0), "1970-01-01T00:00:00Z");
    assert.equal(isoOf(8.64e15 + 1), "+275760-09-13T00:00:00.000Z");
    assert.equal(isoOf(Number.POSITIVE_INFINITY), "+275760-09-13T00:00:00.000Z");
    assert.equal(isoOf(Number.NaN), "1970-01-01T00:00:00.000Z");
  });
});
