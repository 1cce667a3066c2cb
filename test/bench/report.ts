// How the benchmark prints what it measured: tables of timings, series, the machine. Pure formatting
// (lines of text); the goal lines are goals.ts's and the comparison results.ts's.

import type { Figures } from "./figures.js";
import { formatGoalShort, type GoalOutcome } from "./goals.js";
import type { Machine, Series } from "./results.js";
import type { Stats } from "./stats.js";

const LABEL_WIDTH = 62;

export function formatTable(title: string, rows: Stats[]): string[] {
  const lines = [
    `\n${title}`,
    `  ${"".padEnd(LABEL_WIDTH)}${"runs".padStart(6)}${"mean ms".padStart(10)}${"p50 ms".padStart(10)}${"p95 ms".padStart(10)}`,
  ];
  for (const row of rows) {
    lines.push(
      `  ${row.label.padEnd(LABEL_WIDTH)}${String(row.runs).padStart(6)}${row.mean.toFixed(2).padStart(10)}${row.p50.toFixed(2).padStart(10)}${row.p95.toFixed(2).padStart(10)}`,
    );
  }
  return lines;
}

function formatValue(value: number, unit: string): string {
  return `${value.toFixed(Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2)} ${unit}`;
}

/**
 * One line per series: `<title>: 1 live 6.10 ms · 10 live 6.32 ms · 50 live 7.01 ms (last ÷ first 1.15×)`.
 * A point not measured shows as "–".
 */
export function formatSeries(series: Series, figures: Figures): string {
  const points = series.points.map((point) => {
    const figure = figures[point.figure];
    return `${point.at} ${figure ? formatValue(figure.value, figure.unit) : "–"}`;
  });
  const first = figures[series.points[0]?.figure ?? ""];
  const last = figures[series.points.at(-1)?.figure ?? ""];
  const growth =
    series.growth && first && last && first.value > 0 && last.value > 0 ? ` (last ÷ first ${(last.value / first.value).toFixed(2)}×)` : "";
  return `  ${series.title}: ${points.join(" · ")}${growth}`;
}

/** The machine in one line, as docs/benchmarks.md shows it beside the goal lines. */
export function describeMachine(machine: Machine): string {
  return `${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB.toFixed(0)} GiB, ${machine.os}, Docker ${machine.docker}, Node.js ${machine.node}`;
}

/**
 * A warning when the machine was busy with other work: the figures of such a run are noise, not a
 * measurement. Judged by what other work took (othersCores, a quarter of a core on average is too
 * much); a run that could not read it falls back on the load average at its start.
 */
export function loadWarning(machine: Machine): string | null {
  if (machine.othersCores !== undefined) {
    if (machine.othersCores <= OTHERS_CORES_LIMIT) return null;
    return `the machine was busy: other work than this run used ${machine.othersCores.toFixed(2)} of its ${machine.cpus} cores on average meanwhile: these figures are noise; run it on an idle machine`;
  }
  if (machine.loadAtStart <= machine.cpus * 0.5) return null;
  return `the machine was busy (1-minute load ${machine.loadAtStart.toFixed(1)} at the start, on ${machine.cpus} cores): these figures are noise; run it on an idle machine`;
}

const OTHERS_CORES_LIMIT = 0.25;

/** The goal lines in their short form (docs/benchmarks.md): the machine and the day, then the short lines in a block. */
export function readmeBlock(goals: GoalOutcome[], machine: Machine, startedAt: string): string[] {
  const state = loadWarning(machine) ? "busy: noise" : "idle";
  return [
    `${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB.toFixed(0)} GiB, Docker ${machine.docker}, ${startedAt.slice(0, 10)}, ${state}:`,
    "",
    "```text",
    ...goals.map(formatGoalShort),
    "```",
  ];
}
