// How the dashboard writes times (ui/format.js, a browser module with no DOM use, so node can load it).

import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { INTERACTION_STATUSES } from "../../server/agent/steps.js";
import { projectRoot } from "../../server/common/paths.js";

const format = (await import(pathToFileURL(path.join(projectRoot, "ui", "format.js")).href)) as {
  durationBetween(start: string, end: string): string;
};

describe("the dashboard's durations", () => {
  it("are whole seconds, as the API's timestamps are: never a precise-looking 0 ms", () => {
    assert.equal(format.durationBetween("2026-11-30T22:56:55Z", "2026-11-30T22:56:55Z"), "< 1 s");
    assert.equal(format.durationBetween("2026-11-30T22:56:55Z", "2026-11-30T22:56:58Z"), "3 s");
    assert.equal(format.durationBetween("2026-11-30T22:56:55Z", "2026-11-30T22:58:05Z"), "1 min 10 s");
    assert.equal(format.durationBetween("not a time", "2026-11-30T22:58:05Z"), "");
  });
});

describe("the dashboard's status filter", () => {
  it("offers the server's interaction statuses, in the same order", async () => {
    const { STATUSES } = (await import(pathToFileURL(path.join(projectRoot, "ui", "statuses.js")).href)) as { STATUSES: string[] };
    assert.deepEqual(STATUSES, [...INTERACTION_STATUSES]);
  });
});
