// The benchmark's results (test/bench/results.ts, results-files.ts, options.ts, report.ts): the change
// of every figure since the previous run, the JSON files, the command line and the series lines.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import type { Figures } from "../bench/figures.js";
import { parseOptions } from "../bench/options.js";
import { evaluateGoals } from "../bench/goals.js";
import { formatSeries, loadWarning, readmeBlock } from "../bench/report.js";
import { type BenchDocument, compareFigures, formatComparison, isBenchDocument, RESULTS_FORMAT, resultFileName } from "../bench/results.js";
import { readResults, writeResults } from "../bench/results-files.js";

const ms = (value: number, label = "a time"): Figures[string] => ({ label, value, unit: "ms", better: "lower" });

function document(figures: Figures, startedAt = "2026-11-30T20:30:41.123Z"): BenchDocument {
  return {
    format: RESULTS_FORMAT,
    startedAt,
    durationSeconds: 1,
    commit: "abc1234",
    parts: ["goals"],
    machine: { cpus: 2, cpuModel: "cpu", memoryGiB: 8, os: "Linux", node: "20", docker: "20.10", loadAtStart: 0, loadAtEnd: 0 },
    figures,
    goals: [],
    series: [],
    tables: [],
    notes: [],
  };
}

describe("comparing a run with the previous one", () => {
  it("gives each common figure's change in percent, and whether it is better, worse or within the noise", () => {
    const previous: Figures = {
      call: ms(10, "one tool call"),
      read: { label: "throughput", value: 50, unit: "MB/s", better: "higher" },
      noise: ms(2),
      gone: ms(1),
    };
    const current: Figures = {
      call: ms(12, "one tool call"),
      read: { label: "throughput", value: 200, unit: "MB/s", better: "higher" },
      noise: ms(2.06),
      fresh: ms(3),
    };
    const comparison = compareFigures(previous, current);
    const change = (id: string) => comparison.changes.find((one) => one.id === id)!;
    assert.equal(change("call").changePercent.toFixed(6), "20.000000");
    assert.equal(change("call").verdict, "worse");
    assert.equal(change("read").changePercent, 300);
    assert.equal(change("read").verdict, "better");
    assert.equal(change("noise").verdict, "same");
    assert.deepEqual(comparison.added, ["fresh"]);
    assert.deepEqual(comparison.missing, ["gone"]);

    const lines = formatComparison(comparison, "2026-11-30T20:30:41Z (abc1234)");
    assert.match(lines[0]!, /compared with the run of 2026-11-30T20:30:41Z \(abc1234\) \(changes under 5% count as the same\)/);
    assert.ok(
      lines.some((line) => /one tool call\s+10\.0 →\s+12\.0 ms\s+\+20\.0%\s+worse$/.test(line)),
      lines.join("\n"),
    );
    assert.ok(
      lines.some((line) => /throughput\s+50\.0 →\s+200 MB\/s\s+\+300\.0%\s+better$/.test(line)),
      lines.join("\n"),
    );
    assert.ok(lines.includes("  new in this run: 1 figure"));
  });

  it("a faster time is better and a lower rate worse", () => {
    const comparison = compareFigures(
      { t: ms(10), r: { label: "r", value: 100, unit: "MB/s", better: "higher" } },
      { t: ms(8), r: { label: "r", value: 80, unit: "MB/s", better: "higher" } },
    );
    assert.deepEqual(
      comparison.changes.map((change) => [change.id, change.changePercent, change.verdict]),
      [
        ["t", -20, "better"],
        ["r", -20, "worse"],
      ],
    );
  });

  it("a previous value of zero has no percentage and is left out; no common figure says so", () => {
    const comparison = compareFigures({ z: ms(0) }, { z: ms(1) });
    assert.deepEqual(comparison.changes, []);
    assert.match(formatComparison(comparison, "then")[0]!, /nothing to compare/);
  });
});

describe("the results files", () => {
  it("are written as <UTC time>.json and latest.json, and read back as they were", () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), "bench-results-"));
    try {
      const written = writeResults(document({ call: ms(6.5) }), directory);
      assert.equal(path.basename(written.file), "2026-11-30T20-30-41Z.json");
      assert.deepEqual(readResults(written.latest), document({ call: ms(6.5) }));
      assert.deepEqual(readResults(written.file), document({ call: ms(6.5) }));
      writeResults(document({ call: ms(7) }, "2026-12-01T08:00:00.000Z"), directory);
      assert.equal((readResults(written.latest) as BenchDocument).figures["call"]!.value, 7, "latest.json is the last run");
      assert.deepEqual(fs.readdirSync(directory).sort(), ["2026-11-30T20-30-41Z.json", "2026-12-01T08-00-00Z.json", "latest.json"]);
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });

  it("a missing, broken or foreign file is a reason, not a crash", () => {
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), "bench-results-"));
    try {
      assert.match(readResults(path.join(directory, "latest.json")) as string, /does not exist/);
      fs.writeFileSync(path.join(directory, "broken.json"), "{");
      assert.match(readResults(path.join(directory, "broken.json")) as string, /is not JSON/);
      fs.writeFileSync(path.join(directory, "other.json"), JSON.stringify({ figures: {} }));
      assert.match(readResults(path.join(directory, "other.json")) as string, /not a results file/);
      assert.equal(isBenchDocument({ format: RESULTS_FORMAT, figures: {} }), true);
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
  });

  it("file names sort by time and hold no colon", () => {
    const early = resultFileName(new Date("2026-01-02T03:04:05.678Z"));
    const late = resultFileName(new Date("2026-10-02T03:04:05.000Z"));
    assert.equal(early, "2026-01-02T03-04-05Z.json");
    assert.ok(early < late);
  });
});

describe("the benchmark's command line", () => {
  it("runs every part, saves and reports without failing by default", () => {
    const options = parseOptions([]);
    assert.deepEqual([...options.parts], ["goals", "table", "series", "gvisor", "tti", "density", "concurrency", "swarm"]);
    assert.equal(options.density, 1000);
    assert.equal(options.pool, undefined);
    assert.equal(options.charts, true);
    assert.equal(options.check, false);
    assert.equal(options.save, true);
    assert.equal(options.baseline, undefined);
    assert.equal(options.readme, false);
    assert.equal(parseOptions(["--readme"]).readme, true);
  });

  it("takes --only (comma-separated or repeated), --check, --no-save and --baseline", () => {
    const options = parseOptions(["--only", "goals,series", "--check", "--no-save", "--baseline=old.json"]);
    assert.deepEqual([...options.parts], ["goals", "series"]);
    assert.equal(options.check, true);
    assert.equal(options.save, false);
    assert.equal(options.baseline, "old.json");
    assert.deepEqual([...parseOptions(["--only=table", "--only", "goals"]).parts], ["table", "goals"]);
  });

  it("takes --density N, --pool N and --no-charts, each a whole number in its range", () => {
    const options = parseOptions(["--only", "density,tti", "--density", "200", "--pool=4", "--no-charts"]);
    assert.deepEqual([...options.parts], ["density", "tti"]);
    assert.equal(options.density, 200);
    assert.equal(options.pool, 4);
    assert.equal(options.charts, false);
    assert.equal(parseOptions(["--pool", "0"]).pool, 0);
    assert.throws(() => parseOptions(["--density", "0"]), /--density: "0" is not a whole number from 1 to 5000/);
    assert.throws(() => parseOptions(["--density", "2.5"]), /not a whole number/);
    assert.throws(() => parseOptions(["--pool", "17"]), /--pool: "17" is not a whole number from 0 to 16/);
    assert.throws(() => parseOptions(["--density"]), /--density needs a value/);
  });

  it("refuses what it does not know, with the usage", () => {
    assert.throws(
      () => parseOptions(["--only", "fast"]),
      /"fast" is not one of goals, table, series, gvisor, tti, density, concurrency, swarm\nusage:/,
    );
    assert.throws(() => parseOptions(["--quick"]), /unknown option --quick/);
    assert.throws(() => parseOptions(["--baseline"]), /--baseline needs a value/);
  });
});

describe("series lines", () => {
  it("show every point and how much the last grew over the first", () => {
    const figures: Figures = { a: ms(6), b: ms(6.3), c: ms(7.5) };
    const line = formatSeries(
      {
        title: "one tool call, as live environments grow",
        points: [
          { at: "1 live", figure: "a" },
          { at: "10 live", figure: "b" },
          { at: "50 live", figure: "c" },
        ],
        growth: true,
      },
      figures,
    );
    assert.equal(
      line,
      "  one tool call, as live environments grow: 1 live 6.00 ms · 10 live 6.30 ms · 50 live 7.50 ms (last ÷ first 1.25×)",
    );
  });

  it("show a point not measured as a dash, and no growth for unlike points", () => {
    const line = formatSeries(
      {
        title: "memory",
        points: [
          { at: "server", figure: "a" },
          { at: "container", figure: "missing" },
        ],
        growth: false,
      },
      { a: { label: "a", value: 1.25, unit: "MiB", better: "lower" } },
    );
    assert.equal(line, "  memory: server 1.25 MiB · container –");
  });
});

describe("the README block", () => {
  it("names the machine and the day, says whether it was busy, and holds one short line per goal", () => {
    const machine = document({}).machine;
    const idle = readmeBlock(evaluateGoals({}), { ...machine, loadAtStart: 0.2, loadAtEnd: 0.4 }, "2026-11-30T20:30:41.123Z");
    assert.equal(idle[0], "2 × cpu, 8 GiB, Docker 20.10, 2026-11-30, idle:");
    assert.deepEqual([idle[2], idle.at(-1)], ["```text", "```"]);
    assert.equal(idle.length, 4 + evaluateGoals({}).length, "one line per goal");
    const busy = readmeBlock(evaluateGoals({}), { ...machine, loadAtStart: 3, loadAtEnd: 0.4 }, "2026-11-30T20:30:41.123Z");
    assert.match(busy[0]!, /, busy: noise:$/);
  });

  it("judges busy by the CPU other work took, not by the load the run itself makes", () => {
    const machine = document({}).machine;
    const at = "2026-11-30T20:30:41.123Z";
    // The run kept both cores busy (load 4 at its end) while nothing else ran: idle.
    assert.match(readmeBlock(evaluateGoals({}), { ...machine, loadAtStart: 1.1, loadAtEnd: 4, othersCores: 0.05 }, at)[0]!, /, idle:$/);
    const busy = { ...machine, loadAtStart: 0.1, loadAtEnd: 0.2, othersCores: 0.6 };
    assert.match(readmeBlock(evaluateGoals({}), busy, at)[0]!, /, busy: noise:$/);
    assert.match(loadWarning(busy)!, /other work than this run used 0\.60 of its 2 cores/);
  });
});
