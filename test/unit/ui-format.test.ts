// How the dashboard writes times (ui/format.js, a browser module with no DOM use, so node can load it),
// and the statuses its filter offers (served from the server's own list: server/http/ui-statuses.ts).

import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { pathToFileURL } from "node:url";
import { INTERACTION_STATUSES } from "../../server/agent/steps.js";
import { projectRoot } from "../../server/common/paths.js";
import { statusesModule } from "../../server/http/ui-statuses.js";

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
  it("offers the server's interaction statuses, in the same order, from a module made of them", async () => {
    const { STATUSES } = (await import(`data:text/javascript,${encodeURIComponent(statusesModule())}`)) as { STATUSES: string[] };
    assert.deepEqual(STATUSES, [...INTERACTION_STATUSES]);
    assert.equal(
      fs.existsSync(path.join(projectRoot, "ui", "statuses.js")),
      false,
      "statuses.js is made from the server's list: a copy in ui/ would never be served, and would drift",
    );
  });
});
