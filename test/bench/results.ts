// The JSON a benchmark run writes (bench/results/, see results-files.ts) and the comparison of two
// runs figure by figure. Pure: no I/O, unit-tested (test/unit/bench-results.test.ts).

import type { Figure, Figures } from "./figures.js";
import type { GoalOutcome } from "./goals.js";
import type { Stats } from "./stats.js";

export const RESULTS_FORMAT = "interactions-emulator-bench/1";

export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  os: string;
  node: string;
  docker: string;
  /** 1-minute load average when the run started and when it ended: above the core count, the figures are noise. */
  loadAtStart: number;
  loadAtEnd: number;
  /**
   * The CPU that work other than this run used meanwhile, in cores on average (machine.ts): the whole
   * machine's busy time minus this run's processes, the Docker engine and its containers. The load
   * average cannot say this: the run itself keeps both cores busy. Absent where it cannot be read.
   */
  othersCores?: number;
}

export interface SeriesPoint {
  /** What grows: "1 live environment", "50 rules", … */
  at: string;
  figure: string;
}

export interface Series {
  title: string;
  points: SeriesPoint[];
  /** Whether the points measure the same cost at growing sizes, so last ÷ first says how flat it stays. */
  growth: boolean;
}

export interface BenchDocument {
  format: typeof RESULTS_FORMAT;
  startedAt: string;
  durationSeconds: number;
  commit: string;
  parts: string[];
  machine: Machine;
  figures: Figures;
  goals: GoalOutcome[];
  series: Series[];
  tables: Array<{ title: string; rows: Stats[] }>;
  notes: string[];
}

export interface FigureChange {
  id: string;
  label: string;
  unit: string;
  previous: number;
  current: number;
  /** (current − previous) / previous, in percent. */
  changePercent: number;
  verdict: "better" | "worse" | "same";
}

export interface Comparison {
  /** Changes smaller than this, in percent either way, count as the same. */
  noisePercent: number;
  changes: FigureChange[];
  /** Figures of this run that the previous one did not have (a part it did not run, a new figure). */
  added: string[];
  /** Figures of the previous run that this one does not have. */
  missing: string[];
}

/** Whether a parsed JSON value is a results document this version can compare with. */
export function isBenchDocument(value: unknown): value is BenchDocument {
  if (typeof value !== "object" || value === null) return false;
  const document = value as Partial<BenchDocument>;
  return document.format === RESULTS_FORMAT && typeof document.figures === "object" && document.figures !== null;
}

function verdictOf(figure: Figure, changePercent: number, noisePercent: number): FigureChange["verdict"] {
  if (Math.abs(changePercent) < noisePercent) return "same";
  const up = changePercent > 0;
  return up === (figure.better === "higher") ? "better" : "worse";
}

/**
 * Each figure both runs have, with its change in percent; a change smaller than `noisePercent` either
 * way is "same". Figures whose previous value is zero have no percentage and are left out.
 */
export function compareFigures(previous: Figures, current: Figures, noisePercent = 5): Comparison {
  const changes: FigureChange[] = [];
  const added: string[] = [];
  for (const [id, figure] of Object.entries(current)) {
    const before = previous[id];
    if (before === undefined) {
      added.push(id);
      continue;
    }
    if (before.value === 0) continue;
    const changePercent = ((figure.value - before.value) / Math.abs(before.value)) * 100;
    changes.push({
      id,
      label: figure.label,
      unit: figure.unit,
      previous: before.value,
      current: figure.value,
      changePercent,
      verdict: verdictOf(figure, changePercent, noisePercent),
    });
  }
  const missing = Object.keys(previous).filter((id) => current[id] === undefined);
  return { noisePercent, changes, added, missing };
}

function formatNumber(value: number): string {
  const magnitude = Math.abs(value);
  return value.toFixed(magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : 2);
}

/** The comparison as lines: `<label>  <previous> → <current> <unit>  +12.3% (worse)`. */
export function formatComparison(comparison: Comparison, previousStartedAt: string): string[] {
  if (comparison.changes.length === 0) return [`nothing to compare with the run of ${previousStartedAt} (no figure in common)`];
  const width = Math.min(70, Math.max(...comparison.changes.map((change) => change.label.length)));
  const lines = [`compared with the run of ${previousStartedAt} (changes under ${comparison.noisePercent}% count as the same):`];
  for (const change of comparison.changes) {
    const sign = change.changePercent >= 0 ? "+" : "";
    lines.push(
      `  ${change.label.slice(0, width).padEnd(width)}  ${formatNumber(change.previous).padStart(8)} → ${formatNumber(change.current).padStart(8)} ${change.unit.padEnd(5)} ${`${sign}${change.changePercent.toFixed(1)}%`.padStart(8)}  ${change.verdict}`,
    );
  }
  const figures = (count: number) => `${count} figure${count === 1 ? "" : "s"}`;
  if (comparison.added.length > 0) lines.push(`  new in this run: ${figures(comparison.added.length)}`);
  if (comparison.missing.length > 0) lines.push(`  not measured in this run: ${figures(comparison.missing.length)} of the previous one`);
  return lines;
}

/** A file name for a run started at `date`: its UTC time, sortable, without characters some file systems refuse. */
export function resultFileName(date: Date): string {
  return `${date
    .toISOString()
    .replace(/\.\d+Z$/, "Z")
    .replace(/:/g, "-")}.json`;
}
