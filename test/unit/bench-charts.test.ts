// The benchmark's statistics and charts of issue 31 (test/bench/stats.ts, test/bench/charts.ts): the
// median and p99 a sandbox service is judged by, and the SVG charts docs/benchmarks.md shows, drawn
// from the figures given and beside the anchors' published ones.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ANCHORS, cdfPoints, concurrencySvg, logScale, logTicks, timeToInteractiveSvg } from "../bench/charts.js";
import { distribution, quantile } from "../bench/stats.js";

const hundred = Array.from({ length: 100 }, (_, index) => index + 1);

describe("bench statistics", () => {
  it("quantiles by nearest rank: of 1…100 the p50 is 50, the p99 99, the ends the ends, whatever the order", () => {
    const shuffled = [...hundred].reverse();
    assert.equal(quantile(shuffled, 0.5), 50);
    assert.equal(quantile(shuffled, 0.99), 99);
    assert.equal(quantile(shuffled, 0), 1);
    assert.equal(quantile(shuffled, 1), 100);
    assert.deepEqual(distribution(shuffled), { runs: 100, min: 1, p50: 50, p90: 90, p99: 99, max: 100 });
    assert.equal(quantile([7], 0.99), 7);
    assert.throws(() => quantile([], 0.5), /no values/);
  });
});

describe("bench charts", () => {
  it("a log scale maps decades evenly and its ticks are 1, 2, 5 of each decade", () => {
    const x = logScale(10, 1000, 0, 200);
    assert.equal(x(10), 0);
    assert.equal(x(100), 100);
    assert.equal(x(1000), 200);
    assert.equal(x(1), 0, "a value under the range sits at its start");
    assert.deepEqual(logTicks(10, 1000), [10, 20, 50, 100, 200, 500, 1000]);
  });

  it("the distribution is each run sorted with the share of runs done by then", () => {
    assert.deepEqual(cdfPoints([30, 10, 20, 40]), [
      [10, 0.25],
      [20, 0.5],
      [30, 0.75],
      [40, 1],
    ]);
  });

  it("time to interactive: one curve per mode, docker run's median and every anchor's p50 and p99 marked", () => {
    const svg = timeToInteractiveSvg(
      {
        sequential: hundred.map((v) => v + 20),
        staggered: hundred.map((v) => v + 40),
        burst: hundred.map((v) => v * 10),
        dockerRunP50: 400,
        engineBurstP99: 900,
      },
      "caption with <machine>",
    );
    assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.match(svg, /<\/svg>$/);
    assert.equal((svg.match(/<path /g) ?? []).length, 3, "sequential, staggered, bursts");
    assert.equal((svg.match(/<circle /g) ?? []).length, 2 * ANCHORS.length);
    for (const label of ["Daytona 110 ms / 290 ms", "E2B 440 ms / 990 ms", "Modal 2.7 s / 22 s", "docker run p50 400 ms", "bursts of 20"])
      assert.ok(svg.includes(label), `the chart says "${label}"`);
    assert.ok(svg.includes("caption with &lt;machine&gt;"), "text is escaped");
    // The axis reaches the slowest anchor (22.4 s) from the fastest run (21 ms): 10 ms … 100 s.
    assert.ok(svg.includes(">10 ms<") && svg.includes(">100 s<"));
  });

  it("concurrency: latency and throughput at every level, with the spawns/s around each and the 60% goal", () => {
    const levels = [1, 10, 50, 200].map((concurrent, index) => ({
      concurrent,
      callsPerSecond: 100 * (index + 1),
      spawnsPerSecond: 1000 + 100 * index,
      spawnsBefore: 950 + 100 * index,
      spawnsAfter: 1050 + 100 * index,
      settledMs: 250,
      p50: 20 * (index + 1),
      p99: 40 * (index + 1),
      healthMax: 5,
      healthMaxCoreWait: 2,
      healthMaxProberWait: 1,
      healthP99: 3,
      healthSamples: 100,
      busyCores: 1.5,
      emulatorCores: 0.9,
      sandboxesCores: 0.5,
      executorsCores: 0.2,
      engineCores: 0.01,
      benchCores: 0.05,
      engineProbeMax: 4,
    }));
    const svg = concurrencySvg(levels, "caption");
    assert.equal((svg.match(/<path /g) ?? []).length, 6, "p50, p99, /health max, tool calls/s, spawns/s, the goal");
    assert.equal((svg.match(/<circle /g) ?? []).length, 24);
    assert.equal((svg.match(/<path [^>]*stroke-dasharray/g) ?? []).length, 1, "the goal's line is dashed");
    for (const label of [
      "interaction p50",
      "interaction p99",
      "completed tool calls/s",
      "bash -c true spawns/s around each level",
      "goal: 60% of them",
      ">200<",
    ])
      assert.ok(svg.includes(label), `the chart says "${label}"`);
  });
});
