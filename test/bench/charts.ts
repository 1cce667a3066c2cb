// The charts of docs/benchmarks.md (issue 31), as SVG: time to interactive as a distribution (the share
// of runs done by each time, log scale) beside the anchors' published median and p99, and latency and
// throughput against concurrency. Pure: no I/O, unit-tested (test/unit/bench-charts.test.ts);
// chart-png.ts renders them.

/** One level of the concurrency part (part-concurrency.ts). */
export interface ConcurrencyLevel {
  concurrent: number;
  callsPerSecond: number;
  /** The machine's `bash -c true` spawns per second around the level (before and after it, their mean): its reference. */
  spawnsPerSecond: number;
  /** The two readings of it, just before the level and just after. */
  spawnsBefore: number;
  spawnsAfter: number;
  /** How long the level waited for the machine's cores to be quiet before its first reading, ms. */
  settledMs: number;
  /** An interaction's time, ms. */
  p50: number;
  p99: number;
  healthMax: number;
  /** How long the emulator's event-loop thread waited for a core during the slowest /health, ms. */
  healthMaxCoreWait: number;
  /** How long the /health prober's own thread waited for a core during that sample, ms. */
  healthMaxProberWait: number;
  healthP99: number;
  healthSamples: number;
  busyCores: number;
  /** The emulator's own process: cores of CPU it used on average (its one JavaScript thread can use at most about one). */
  emulatorCores: number;
  /** The same for every container (the sandboxes), the engine's daemons and shims, and the benchmark's own process (its client). */
  sandboxesCores: number;
  /** Of the sandboxes' cores, the executors' own processes' (without the commands they started). */
  executorsCores: number;
  engineCores: number;
  benchCores: number;
  /** The engine's answer to what /health asks it (its version, a container's inspect), the slowest meanwhile. */
  engineProbeMax: number;
}

/** What the time-to-interactive part measured (part-time-to-interactive.ts), ms. */
export interface TimeToInteractive {
  sequential: number[];
  staggered: number[];
  burst: number[];
  dockerRunP50: number;
  engineBurstP99: number;
}

/** Published time to interactive, ComputeSDK's benchmark (100 runs, sequential), ms. */
export const ANCHORS = [
  { name: "Daytona", p50: 110, p99: 290 },
  { name: "E2B", p50: 440, p99: 990 },
  { name: "Modal", p50: 2660, p99: 22_400 },
] as const;

const WIDTH = 900;
const HEIGHT = 460;
const MARGIN = { left: 70, right: 30, top: 50, bottom: 70 };
const COLORS = ["#1b6ac9", "#d9480f", "#2b8a3e", "#862e9c", "#495057"];

/** A log-scale mapping of [min, max] onto [from, to]. */
export function logScale(min: number, max: number, from: number, to: number): (value: number) => number {
  const low = Math.log10(min);
  const span = Math.log10(max) - low || 1;
  return (value) => from + ((Math.log10(Math.max(value, min)) - low) / span) * (to - from);
}

/** Powers of ten (with 2× and 5×) within [min, max]: the ticks of a log axis. */
export function logTicks(min: number, max: number): number[] {
  const ticks: number[] = [];
  for (let decade = 10 ** Math.floor(Math.log10(min)); decade <= max; decade *= 10)
    for (const step of [1, 2, 5]) if (decade * step >= min && decade * step <= max) ticks.push(decade * step);
  return ticks;
}

/** The empirical distribution: each value sorted, with the share of runs at or below it. */
export function cdfPoints(values: number[]): Array<[number, number]> {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.map((value, index) => [value, (index + 1) / sorted.length]);
}

const escapeXml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
const text = (x: number, y: number, body: string, attributes = "") =>
  `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" ${attributes}>${escapeXml(body)}</text>`;
const formatMs = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(ms >= 10_000 ? 0 : 1)} s` : `${ms.toFixed(ms < 10 ? 1 : 0)} ms`);

function frame(title: string, caption: string, body: string[]): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    text(MARGIN.left, 24, title, 'font-size="16" font-weight="bold"'),
    ...body,
    text(MARGIN.left, HEIGHT - 12, caption, 'fill="#555"'),
    "</svg>",
  ].join("\n");
}

/** Time to interactive: the share of runs done by each time (log), per mode, with the anchors' p50 and p99. */
export function timeToInteractiveSvg(data: TimeToInteractive, caption: string): string {
  const all = [...data.sequential, ...data.staggered, ...data.burst, data.dockerRunP50, ...ANCHORS.flatMap((a) => [a.p50, a.p99])];
  const min = 10 ** Math.floor(Math.log10(Math.max(1, Math.min(...all))));
  const max = 10 ** Math.ceil(Math.log10(Math.max(...all)));
  const x = logScale(min, max, MARGIN.left, WIDTH - MARGIN.right);
  const y = (share: number) => HEIGHT - MARGIN.bottom - share * (HEIGHT - MARGIN.top - MARGIN.bottom);
  const body: string[] = [];
  for (const tick of logTicks(min, max)) {
    body.push(`<line x1="${x(tick)}" x2="${x(tick)}" y1="${y(0)}" y2="${y(1)}" stroke="#e9ecef"/>`);
    body.push(text(x(tick), y(0) + 16, formatMs(tick), 'text-anchor="middle"'));
  }
  for (const share of [0, 0.5, 0.99]) {
    body.push(
      `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(share)}" y2="${y(share)}" stroke="#ced4da" stroke-dasharray="${share === 0 ? "" : "4 3"}"/>`,
    );
    body.push(text(MARGIN.left - 6, y(share) + 4, share === 0 ? "0" : share === 0.5 ? "p50" : "p99", 'text-anchor="end"'));
  }
  body.push(text(WIDTH / 2, y(0) + 34, "create until a first command has run (log scale)", 'text-anchor="middle"'));
  const modes: Array<[string, number[]]> = [
    ["sequential", data.sequential],
    ["staggered (every 100 ms)", data.staggered],
    ["bursts of 20", data.burst],
  ];
  modes.forEach(([label, values], index) => {
    const points = cdfPoints(values);
    if (points.length === 0) return;
    const path = points.map(([value, share], at) => `${at === 0 ? "M" : "L"}${x(value).toFixed(1)},${y(share).toFixed(1)}`).join(" ");
    body.push(
      `<path d="M${x(points[0]![0]).toFixed(1)},${y(0)} ${path.slice(1)}" fill="none" stroke="${COLORS[index]}" stroke-width="2"/>`,
    );
    body.push(
      `<line x1="${MARGIN.left + 10}" x2="${MARGIN.left + 30}" y1="${MARGIN.top + 8 + index * 16}" y2="${MARGIN.top + 8 + index * 16}" stroke="${COLORS[index]}" stroke-width="2"/>`,
    );
    body.push(text(MARGIN.left + 36, MARGIN.top + 12 + index * 16, `this emulator, ${label}`));
  });
  body.push(
    `<line x1="${x(data.dockerRunP50)}" x2="${x(data.dockerRunP50)}" y1="${y(0)}" y2="${y(1)}" stroke="#495057" stroke-dasharray="6 4"/>`,
  );
  body.push(text(x(data.dockerRunP50) + 4, y(1) + 12, `docker run p50 ${formatMs(data.dockerRunP50)}`, 'fill="#495057"'));
  ANCHORS.forEach((anchor, index) => {
    const color = ["#c92a2a", "#e67700", "#5f3dc4"][index]!;
    for (const [value, share] of [
      [anchor.p50, 0.5],
      [anchor.p99, 0.99],
    ] as const) {
      body.push(`<circle cx="${x(value).toFixed(1)}" cy="${y(share).toFixed(1)}" r="5" fill="white" stroke="${color}" stroke-width="2"/>`);
    }
    body.push(
      text(
        x(anchor.p50) + 7,
        y(0.5) - 6 - index * 13,
        `${anchor.name} ${formatMs(anchor.p50)} / ${formatMs(anchor.p99)}`,
        `fill="${color}"`,
      ),
    );
  });
  return frame("Time to interactive: share of runs done by each time, beside published anchors (p50 / p99)", caption, body);
}

/** Latency (an interaction's p50 and p99) and throughput (tool calls/s) against concurrent interactions. */
export function concurrencySvg(levels: ConcurrencyLevel[], caption: string): string {
  const half = (WIDTH - MARGIN.left - MARGIN.right - 60) / 2;
  const left = { from: MARGIN.left, to: MARGIN.left + half };
  const right = { from: left.to + 80, to: left.to + 80 + half - 20 };
  const counts = levels.map((level) => level.concurrent);
  const xMin = Math.min(...counts);
  const xMax = Math.max(...counts, xMin * 10);
  const yBottom = HEIGHT - MARGIN.bottom;
  const body: string[] = [];
  const panel = (
    range: { from: number; to: number },
    series: Array<{ label: string; color: string; values: number[]; dashed?: boolean }>,
    yMax: number,
    unit: string,
    lines: Array<{ value: number; label: string }>,
    yMin?: number,
  ) => {
    const x = logScale(xMin, xMax, range.from + 10, range.to - 10);
    // With yMin the axis is logarithmic (latencies span decades), else linear from 0.
    const y =
      yMin !== undefined
        ? logScale(yMin, yMax, yBottom, MARGIN.top + 40)
        : (value: number) => yBottom - (value / yMax) * (yBottom - MARGIN.top - 40);
    const yTicks = yMin !== undefined ? logTicks(yMin, yMax) : [0, 1, 2, 3, 4].map((step) => (yMax * step) / 4);
    body.push(`<line x1="${range.from}" x2="${range.to}" y1="${yBottom}" y2="${yBottom}" stroke="#adb5bd"/>`);
    body.push(`<line x1="${range.from}" x2="${range.from}" y1="${yBottom}" y2="${MARGIN.top + 30}" stroke="#adb5bd"/>`);
    for (const count of counts) body.push(text(x(count), yBottom + 16, String(count), 'text-anchor="middle"'));
    body.push(text((range.from + range.to) / 2, yBottom + 34, "interactions at once (log scale)", 'text-anchor="middle"'));
    for (const value of yTicks) {
      body.push(
        text(range.from - 6, y(value) + 4, value >= 10 ? value.toFixed(0) : String(Number(value.toPrecision(2))), 'text-anchor="end"'),
      );
      body.push(`<line x1="${range.from}" x2="${range.to}" y1="${y(value)}" y2="${y(value)}" stroke="#f1f3f5"/>`);
    }
    body.push(text(range.from, MARGIN.top + 22, unit, 'font-weight="bold"'));
    for (const line of lines) {
      body.push(
        `<line x1="${range.from}" x2="${range.to}" y1="${y(line.value)}" y2="${y(line.value)}" stroke="#495057" stroke-dasharray="6 4"/>`,
      );
      body.push(text(range.to - 4, y(line.value) - 4, line.label, 'text-anchor="end" fill="#495057"'));
    }
    series.forEach((one, index) => {
      const path = one.values.map((value, at) => `${at === 0 ? "M" : "L"}${x(counts[at]!).toFixed(1)},${y(value).toFixed(1)}`).join(" ");
      body.push(`<path d="${path}" fill="none" stroke="${one.color}" stroke-width="2"${one.dashed ? ' stroke-dasharray="6 4"' : ""}/>`);
      for (const [at, value] of one.values.entries())
        body.push(`<circle cx="${x(counts[at]!).toFixed(1)}" cy="${y(value).toFixed(1)}" r="3.5" fill="${one.color}"/>`);
      body.push(text(range.from + 14, MARGIN.top + 44 + index * 15, one.label, `fill="${one.color}"`));
    });
  };
  const latencies = levels.flatMap((level) => [level.p50, level.p99]);
  panel(
    left,
    [
      { label: "interaction p50", color: COLORS[0]!, values: levels.map((level) => level.p50) },
      { label: "interaction p99", color: COLORS[1]!, values: levels.map((level) => level.p99) },
      { label: "/health max", color: COLORS[3]!, values: levels.map((level) => level.healthMax) },
    ],
    10 ** Math.ceil(Math.log10(Math.max(...latencies, ...levels.map((level) => level.healthMax)))),
    "latency, ms (log scale)",
    [],
    10 ** Math.floor(Math.log10(Math.max(0.1, Math.min(...latencies, ...levels.map((level) => level.healthMax))))),
  );
  panel(
    right,
    [
      { label: "completed tool calls/s", color: COLORS[2]!, values: levels.map((level) => level.callsPerSecond) },
      { label: "bash -c true spawns/s around each level", color: COLORS[4]!, values: levels.map((level) => level.spawnsPerSecond) },
      { label: "goal: 60% of them", color: COLORS[4]!, values: levels.map((level) => level.spawnsPerSecond * 0.6), dashed: true },
    ],
    // Room above the highest line for the legend.
    Math.max(...levels.flatMap((level) => [level.spawnsPerSecond, level.callsPerSecond])) * 1.45,
    "throughput, per second",
    [],
  );
  return frame("Latency and throughput against concurrency (5 `true` calls per interaction)", caption, body);
}
