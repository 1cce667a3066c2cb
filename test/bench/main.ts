// `npm run bench` (docs/benchmarks.md): what the emulator's speed costs, measured beside what Docker
// itself costs on the same machine in the same run, so that each goal of issue 11 is a ratio.
//   goals   the references (docker exec, docker run --rm, a spawn in the container), the executor
//           channel, and through the HTTP API of emulators started as `npm start` does: an interaction
//           without a tool call, one tool call without and with a command hook, a new environment from
//           the warm pool and without it;
//   table   file operations, separated identities, whole interactions, egress;
//   series  costs as work grows: live environments, hooks.json rules, steps, memory;
//   gvisor  what gVisor costs: the same work under runsc and runc, in turns (part-gvisor.ts);
//   swarm   a tool call on another node of the three-node test swarm vs on the emulator's own (part-swarm.ts).
// Then one line per goal (PASS/FAIL), the series, the change of every figure since the last run, and
// the figures as JSON in bench/results/. Traffic goes only to loopback and to containers this benchmark
// creates; every loop is bounded; everything it creates is removed at the end.

import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Docker from "dockerode";
import { loadConfig } from "../../server/common/config.js";
import { dockerRuntimeFor } from "../../server/emulator.js";
import type { DockerRuntime } from "../../server/sandbox/docker/docker-runtime.js";
import { EmulatorUnderTest } from "./emulator-under-test.js";
import { FigureBook } from "./figures.js";
import { anyGoalMissed, evaluateGoals, formatGoal } from "./goals.js";
import { removeLeftovers } from "./leftovers.js";
import { currentCommit, currentLoad, describeThisMachine } from "./machine.js";
import { type BenchOptions, parseOptions, USAGE } from "./options.js";
import { gvisorPart } from "./part-gvisor.js";
import { swarmPart } from "./part-swarm.js";
import { interactionGoalsPart } from "./part-interactions.js";
import { sandboxPart } from "./part-sandbox.js";
import { seriesPart } from "./part-series.js";
import { tablePart } from "./part-table.js";
import { stopGroup, warmStartPart } from "./part-warm-start.js";
import { removeSwarmCluster } from "../support/swarm-teardown.js";
import { bytesPart } from "./part-bytes.js";
import { concurrencyPart } from "./part-concurrency.js";
import { densityPart } from "./part-density.js";
import { timeToInteractivePart } from "./part-time-to-interactive.js";
import type { ConcurrencyLevel, TimeToInteractive } from "./charts.js";
import { writeCharts } from "./chart-png.js";
import { otherWorkWatch } from "./other-work.js";
import { describeMachine, formatSeries, formatTable, loadWarning, readmeBlock } from "./report.js";
import { type BenchDocument, compareFigures, formatComparison, RESULTS_FORMAT, type Series } from "./results.js";
import { LATEST_RESULTS, readResults, writeResults } from "./results-files.js";

function optionsOrExit(): BenchOptions {
  try {
    const options = parseOptions(process.argv.slice(2));
    if (options.help) {
      console.log(USAGE);
      process.exit(0);
    }
    return options;
  } catch (error) {
    console.error((error as Error).message);
    process.exit(2);
  }
}

const options = optionsOrExit();
const parts = [...options.parts];
const startedAt = new Date();
const started = process.hrtime.bigint();
const docker = new Docker();
const machineAtStart = await describeThisMachine(docker);
const othersCpu = otherWorkWatch();
// Read before this run replaces latest.json.
const previous = readResults(options.baseline ?? LATEST_RESULTS);

const progress = (line: string) => console.log(`▸ ${line}`);
const book = new FigureBook(
  (title, rows) => console.log(formatTable(title, rows).join("\n")),
  (title, lines) => console.log(`\n${title}\n${lines.join("\n")}`),
);
const reasons: Record<string, string> = {};
const notes: string[] = [];
const series: Series[] = [];
const instances: string[] = [];
const dataDirs: string[] = [];
const emulatorPids: number[] = [];
/** Process groups a part started (the warm start's `npm start`s) and has not yet stopped. */
const groups = new Set<number>();
/** Whether the swarm part began bringing its test cluster up (its engines run outside this process group). */
let swarmBegun = false;

const startEmulator = async (settings: Record<string, string>, startOptions: { memoryProbe?: boolean } = {}) => {
  const emulator = await EmulatorUnderTest.start(settings, startOptions);
  instances.push(emulator.instance);
  dataDirs.push(emulator.process.dataDir);
  emulatorPids.push(emulator.process.pid);
  return emulator;
};

/** Removes whatever carries one of this run's instance labels, and the data folders. Says what it found. */
async function sweep(): Promise<void> {
  const left = await removeLeftovers(docker, instances);
  for (const dataDir of dataDirs) fs.rmSync(dataDir, { recursive: true, force: true });
  if (left.containers > 0 || left.volumes > 0) {
    notes.push(`the final sweep removed ${left.containers} containers and ${left.volumes} volumes that a step had left`);
  }
}

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Ctrl-C (the emulators, in this process group, get the signal too) or a SIGTERM to this process alone
 * (`timeout`, a CI runner, `kill`): each emulator is asked to stop and given up to 15 s to do so (so that
 * none creates a container after the sweep), then what they leave is removed; the exit status is the
 * signal's (128 + its number), as a shell reports a process it ended.
 */
const interrupted = (signal: "SIGINT" | "SIGTERM") => {
  console.error(`\n${signal === "SIGINT" ? "interrupted" : "terminated"}: stopping the emulators and removing what this run created…`);
  const stopping = async () => {
    for (const pid of emulatorPids.filter(isRunning)) process.kill(pid, "SIGTERM");
    await Promise.all([...groups].map((pgid) => stopGroup(pgid)));
    for (let wait = 0; wait < 150 && emulatorPids.some(isRunning); wait++) await new Promise((resolve) => setTimeout(resolve, 100));
    await sweep();
    if (swarmBegun) await removeSwarmCluster().catch((error: Error) => console.error(`the swarm's test cluster: ${error.message}`));
  };
  interruption = stopping().finally(() => process.exit(128 + os.constants.signals[signal]));
};
/** Set once a signal came: the run's own ending (its parts fail as their emulators stop) waits for it. */
let interruption: Promise<void> | null = null;
process.once("SIGINT", () => interrupted("SIGINT"));
process.once("SIGTERM", () => interrupted("SIGTERM"));

console.log(`▸ npm run bench: ${parts.join(", ")} on ${describeMachine({ ...machineAtStart, loadAtEnd: 0 })}`);
let failure: unknown = null;
let runtime: DockerRuntime | null = null;
let tti: TimeToInteractive | null = null;
let levels: ConcurrencyLevel[] | null = null;
try {
  if (options.parts.has("goals") || options.parts.has("table")) {
    const instance = `bench-${randomBytes(4).toString("hex")}`;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "emu-bench-"));
    instances.push(instance);
    dataDirs.push(dataDir);
    runtime = dockerRuntimeFor(loadConfig({ ...process.env, EMULATOR_INSTANCE: instance, EMULATOR_DATA_DIR: dataDir }));
    progress("preparing the sandbox image…");
    await runtime.prepare((line) => console.log(`  ${line}`));
    await sandboxPart(book, runtime, instance, { goals: options.parts.has("goals"), table: options.parts.has("table") }, progress);
  }
  if (options.parts.has("goals")) await interactionGoalsPart(book, reasons, notes, startEmulator, progress);
  if (options.parts.has("goals")) await bytesPart(book, startEmulator, progress);
  if (options.parts.has("goals")) await warmStartPart(book, { instances, dataDirs, groups }, progress);
  if (options.parts.has("tti")) tti = await timeToInteractivePart(book, startEmulator, options.pool, progress);
  if (options.parts.has("concurrency")) levels = await concurrencyPart(book, startEmulator, progress);
  if (options.parts.has("density")) await densityPart(book, notes, startEmulator, options.density, progress);
  if (options.parts.has("table")) await tablePart(book, startEmulator, progress);
  if (options.parts.has("series")) await seriesPart(book, series, startEmulator, progress);
  if (options.parts.has("gvisor")) {
    const instance = `bench-${randomBytes(4).toString("hex")}`;
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "emu-bench-"));
    instances.push(instance);
    dataDirs.push(dataDir);
    await gvisorPart(book, notes, instance, dataDir, progress);
  }
  if (options.parts.has("swarm")) {
    swarmBegun = true;
    await swarmPart(book, reasons, dataDirs, progress);
  }
} catch (error) {
  failure = error;
} finally {
  if (runtime) for (const handle of await runtime.list().catch(() => [])) await runtime.remove(handle).catch(() => undefined);
  await sweep();
}
// An interrupted run reports nothing and saves nothing: the signal's handler ends it once it has cleaned up.
if (interruption) await interruption;

const durationSeconds = Number(process.hrtime.bigint() - started) / 1e9;
const othersCores = othersCpu();
const machine = { ...machineAtStart, loadAtEnd: currentLoad(), ...(othersCores !== undefined ? { othersCores } : {}) };
const goals = evaluateGoals(book.figures, reasons).filter((goal) => options.parts.has(goal.part));

if (series.length > 0) {
  console.log("\nSeries (costs as work grows)");
  for (const one of series) console.log(formatSeries(one, book.figures));
}
if (goals.length > 0) {
  console.log(`\nGoals (issues 11, 31 and 32), ratios measured in this run on ${describeMachine(machine)}`);
  for (const outcome of goals) {
    console.log(`  ${formatGoal(outcome)}`);
    if (outcome.bound) console.log(`        bounded by: ${outcome.bound}`);
  }
}
if (options.readme && goals.length > 0)
  console.log(`\nFor docs/benchmarks.md (the short lines):\n\n${readmeBlock(goals, machine, startedAt.toISOString()).join("\n")}`);
const warning = loadWarning(machine);
if (warning) notes.push(warning);
for (const note of notes) console.log(`\nnote: ${note}`);

if (options.charts && !failure && (tti || levels)) {
  const charted = await writeCharts({
    tti,
    levels,
    // Other work's share of the cores says whether the machine was busy; the load average counts this run's own work.
    machine: `${describeMachine(machine)}, ${
      machine.othersCores !== undefined
        ? `other work ${machine.othersCores.toFixed(2)} of ${machine.cpus} cores`
        : `load ${machine.loadAtStart.toFixed(1)} → ${machine.loadAtEnd.toFixed(1)}`
    }`,
  }).catch((error: unknown) => [`charts not drawn: ${error instanceof Error ? error.message : String(error)}`]);
  for (const line of charted) console.log(`\n${line}`);
}

if (typeof previous === "string") console.log(`\nno comparison: ${previous}`);
else
  console.log(
    `\n${formatComparison(compareFigures(previous.figures, book.figures), `${previous.startedAt} (${previous.commit})`).join("\n")}`,
  );

if (failure) {
  console.error(
    `\nthe benchmark failed, nothing saved: ${failure instanceof Error ? (failure.stack ?? failure.message) : String(failure)}`,
  );
  process.exit(1);
}

const document: BenchDocument = {
  format: RESULTS_FORMAT,
  startedAt: startedAt.toISOString(),
  durationSeconds: Math.round(durationSeconds),
  commit: currentCommit(),
  parts,
  machine,
  figures: book.figures,
  goals,
  series,
  tables: book.tables,
  notes,
};
if (options.save) {
  const written = writeResults(document);
  console.log(`\nfigures written to ${path.relative(process.cwd(), written.file)} and ${path.relative(process.cwd(), written.latest)}`);
}
console.log(`the benchmark took ${Math.floor(durationSeconds / 60)} min ${Math.round(durationSeconds % 60)} s`);
process.exit(options.check && anyGoalMissed(goals) ? 1 : 0);
