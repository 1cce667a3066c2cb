// The goals of issue 11, each a ratio (or a rate) computed from figures of the same run, never an
// absolute time alone: a slow machine makes both sides slower. Issue 22 adds an idle sandbox's memory,
// which a machine's speed does not change. Pure: no I/O, unit-tested
// (test/unit/bench-goals.test.ts).

import { FIGURE, type Figures } from "./figures.js";

export type Relation = ">=" | "<=" | "<";

export interface GoalOutcome {
  id: string;
  title: string;
  short: string;
  status: "PASS" | "FAIL" | "not measured";
  /** The ratio (×), rate (MB/s), time (ms) or memory (MiB) measured; absent when not measured. */
  value?: number;
  relation: Relation;
  target: number;
  unit: "×" | "MB/s" | "ms" | "MiB";
  /** Said after the value: "faster", "the spawn", … */
  reading?: string;
  /** How the value was computed, with the figures it came from; or why it was not measured. */
  detail: string;
  /** For a missed goal: what bounds it, from floors and a CPU profile measured in the same run. */
  bound?: string;
}

interface Goal {
  id: string;
  title: string;
  /** The title in a few words, for the README's lines. */
  short: string;
  relation: Relation;
  target: number;
  unit: GoalOutcome["unit"];
  /** Said after a ratio: "faster", "the spawn", … */
  reading?: string;
  /** The figure IDs the value needs, in the order `compute` takes them. */
  inputs: string[];
  compute: (...values: number[]) => { value: number; detail: string };
  /**
   * What bounds the goal where it is missed, said from other figures of the run (its floors, where the
   * CPU went): issue 11 asks for the bound, with the profile that shows it, rather than a looser goal.
   */
  bound?: { inputs: string[]; explain: (...values: number[]) => string };
}

const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 1)} ms`;
const times = (value: number) => `${value.toFixed(value < 1 ? 2 : 1)}×`;
const mib = (value: number) => `${value.toFixed(1)} MiB`;

/** A tool call's CPU, from cpu-accounting.ts: the three sides that take turns on the cores. */
function cpuSplit(emulator: number, sandbox: number, engine: number): string {
  return `CPU per call: emulator ${ms(emulator)}, sandbox ${ms(sandbox)} (the executor, its file worker, the command), Docker engine ${ms(engine)}`;
}

/**
 * A sandbox runs on one CPU (EMULATOR_SANDBOX_CPUS, 1 by default, as the bench's emulators have it):
 * the CPU its side of a call uses is wall time no call can go below.
 */
function sandboxFloor(sandbox: number, best: string): string {
  return `the sandbox spends ${ms(sandbox)} of CPU per call on its one CPU (EMULATOR_SANDBOX_CPUS), so ${best}`;
}

const COMMAND_CPU = [FIGURE.channelTrueSandboxCpu, FIGURE.shellTrueSandboxCpu];

/** How much of a command's CPU in the sandbox the executor adds: against the same spawn by a shell. */
function executorShare(channelCpu: number, shellCpu: number): string {
  const added = channelCpu - shellCpu;
  return `a \`true\` through the executor costs the sandbox ${ms(channelCpu)} of CPU, a shell's spawn of the same \`/bin/true\` ${ms(shellCpu)} (the executor ${added <= 0 ? "adds nothing measurable" : `adds ${ms(added)}`}: the rest is creating the process)`;
}

const CALL_CPU = [FIGURE.cpuPerCallEmulator, FIGURE.cpuPerCallSandbox, FIGURE.cpuPerCallEngine];
const HOOKED_CALL_CPU = [FIGURE.cpuPerHookedCallEmulator, FIGURE.cpuPerHookedCallSandbox, FIGURE.cpuPerHookedCallEngine];

export const GOALS: Goal[] = [
  {
    id: "tool-call-vs-docker-exec",
    short: "tool call vs docker exec",
    title: "a tool call inside an interaction vs `docker exec true`",
    relation: ">=",
    target: 15,
    unit: "×",
    reading: "faster",
    inputs: [FIGURE.dockerExec, FIGURE.perCall],
    compute: (exec, call) => ({ value: exec / call, detail: `docker exec ${ms(exec)} ÷ tool call ${ms(call)}` }),
    bound: {
      inputs: [FIGURE.dockerExec, FIGURE.channelTrue, FIGURE.spawn, ...COMMAND_CPU, ...CALL_CPU],
      explain: (exec, channel, spawn, channelCpu, shellCpu, emulator, sandbox, engine) =>
        `${sandboxFloor(sandbox, `${times(exec / sandbox)} at most`)}; the call's command alone, a \`bash -c true\` spawn, takes ${ms(spawn)}: ${times(exec / spawn)} at most with nothing else in the call; the executor channel's \`true\` alone takes ${ms(channel)} (${times(exec / channel)}); ${executorShare(channelCpu, shellCpu)}; ${cpuSplit(emulator, sandbox, engine)}`,
    },
  },
  {
    id: "tool-call-vs-spawn",
    short: "tool call vs bash -c true spawn",
    title: "a tool call inside an interaction vs a `bash -c true` spawn in the container",
    relation: "<=",
    target: 3,
    unit: "×",
    reading: "the spawn",
    inputs: [FIGURE.perCall, FIGURE.spawn],
    compute: (call, spawn) => ({ value: call / spawn, detail: `tool call ${ms(call)} ÷ spawn ${ms(spawn)}` }),
    bound: {
      inputs: [FIGURE.spawn, FIGURE.channelTrue, ...CALL_CPU],
      explain: (spawn, channel, emulator, sandbox, engine) =>
        `${sandboxFloor(sandbox, `${times(sandbox / spawn)} the spawn at least`)}; the channel's \`true\` alone is ${times(channel / spawn)} the spawn: the spawn itself and ${ms(Math.max(0, channel - spawn))} of round trip, the request and its answer carried through the engine's exec stream; ${cpuSplit(emulator, sandbox, engine)}`,
    },
  },
  {
    id: "hooked-call-vs-docker-exec",
    short: "tool call with a hook vs docker exec",
    title: "a tool call with one command hook vs `docker exec true`",
    relation: ">=",
    target: 6,
    unit: "×",
    reading: "faster",
    inputs: [FIGURE.dockerExec, FIGURE.perCallOneHook],
    compute: (exec, call) => ({ value: exec / call, detail: `docker exec ${ms(exec)} ÷ hooked tool call ${ms(call)}` }),
    bound: {
      inputs: [
        FIGURE.dockerExec,
        FIGURE.channelTrue,
        FIGURE.perCall,
        FIGURE.perCallOneHook,
        FIGURE.spawn,
        ...COMMAND_CPU,
        ...HOOKED_CALL_CPU,
      ],
      explain: (exec, channel, call, hooked, spawn, channelCpu, shellCpu, emulator, sandbox, engine) =>
        `${sandboxFloor(sandbox, `${times(exec / sandbox)} at most`)}; the hook is a second command, ${ms(hooked - call)} more than the call alone, and two channel \`true\`s take ${ms(2 * channel)}; the two commands alone, two \`bash -c true\` spawns, take ${ms(2 * spawn)} (${times(exec / (2 * spawn))} at most with nothing else); ${executorShare(channelCpu, shellCpu)}; ${cpuSplit(emulator, sandbox, engine)}`,
    },
  },
  {
    id: "new-environment-from-pool",
    short: "new environment from pool vs docker run",
    title: "a new environment from the pool vs `docker run --rm true`",
    relation: "<=",
    target: 0.2,
    unit: "×",
    reading: "the time",
    inputs: [FIGURE.newEnvironmentFromPool, FIGURE.dockerRun],
    compute: (environment, run) => ({
      value: environment / run,
      detail: `interaction in a new environment ${ms(environment)} ÷ docker run ${ms(run)}`,
    }),
  },
  {
    id: "new-environment-without-pool",
    short: "new environment, no pool, vs docker run",
    title: "a new environment without the pool vs `docker run --rm true`",
    relation: "<=",
    target: 1.2,
    unit: "×",
    reading: "the time",
    inputs: [FIGURE.newEnvironmentWithoutPool, FIGURE.dockerRun],
    compute: (environment, run) => ({
      value: environment / run,
      detail: `interaction in a new environment ${ms(environment)} ÷ docker run ${ms(run)}`,
    }),
    bound: {
      inputs: [FIGURE.dockerRun, FIGURE.executorStartInSandbox, FIGURE.newEnvironmentWithoutPool],
      explain: (run, start, environment) =>
        `a new sandbox is first a container start (docker run ${ms(run)}); the executor and its file worker are two starts of one static binary (\`sandbox-executor </dev/null\` ${ms(start)} each, together ${times((2 * start) / run)} docker run); the other ${ms(Math.max(0, environment - run - 2 * start))} are the sandbox's own container (created and started with its mounts and limits, more than \`docker run\`'s), the exec that opens the channel, and the interaction`,
    },
  },
  {
    id: "channel-read-1mib",
    short: "1 MiB through the channel",
    title: "1 MiB read through the executor channel (`cat`)",
    relation: ">=",
    target: 200,
    unit: "MB/s",
    inputs: [FIGURE.channelCat],
    compute: (cat) => ({ value: 1.048576 / (cat / 1000), detail: `1 MiB in ${ms(cat)}` }),
    bound: {
      inputs: [FIGURE.channelTrue, FIGURE.engineCarries1MiB],
      explain: (channel, engine) =>
        `a \`cat\` over the channel is a command's round trip (the channel's \`true\`, ${ms(channel)}) and 1 MiB carried by the engine through an exec's stream (${ms(engine)} from the first byte to the last of a \`docker exec cat\`): ${(1.048576 / ((channel + engine) / 1000)).toFixed(0)} MB/s at best`,
    },
  },
  {
    // Issue 22: what a sandbox costs beside the work its user runs in it. Its own processes only (the
    // executor, its file worker, the keep-alive, the engine's init), before any command has run.
    id: "idle-sandbox-memory",
    short: "idle sandbox's own memory",
    title: "an idle sandbox's own memory beside its user's work (its container, before it has run anything)",
    relation: "<=",
    target: 8,
    unit: "MiB",
    inputs: [FIGURE.idleSandboxMemory],
    compute: (used) => ({ value: used, detail: "`docker stats`: the container's usage less its inactive file cache" }),
    bound: {
      inputs: [
        FIGURE.idleSandboxMemory,
        FIGURE.idleSandboxAnonymous,
        FIGURE.idleSandboxPageCache,
        FIGURE.idleSandboxExecutorRss,
        FIGURE.idleSandboxFileWorkerRss,
        FIGURE.idleSandboxKeepAliveRss,
        FIGURE.idleSandboxInitRss,
        FIGURE.idleSandboxOtherRss,
      ],
      explain: (used, anonymous, pageCache, executor, fileWorker, keepAlive, init, other) =>
        `the container's ${mib(used)} is ${mib(anonymous)} of anonymous memory, ${mib(pageCache)} of page cache it holds (the files its processes read, the executor's binary among them) and ${mib(Math.max(0, used - anonymous - pageCache))} of kernel memory charged to it; RSS from /proc in the container: the executor ${mib(executor)}, its file worker ${mib(fileWorker)}, the keep-alive ${mib(keepAlive)}, the engine's init ${mib(init)}${other > 0 ? `, other processes ${mib(other)}` : ""} (pages they share, the binary's, count in each RSS and once in the container)`,
    },
  },
  {
    // Issue 21: "healthy in under 1.5 s on an idle machine". A bare express server's spawn until its
    // first /health takes about 0.15 s on the idle 2-core machine, so 1.5 s is 10× that, measured in turns.
    id: "warm-start-vs-bare-express",
    short: "warm npm start vs bare express",
    title: "a warm `npm start` until /health answers vs a bare express server's spawn until its /health",
    relation: "<=",
    target: 10,
    unit: "×",
    reading: "the bare server",
    inputs: [FIGURE.warmStart, FIGURE.bareExpressStart],
    compute: (warm, bare) => ({ value: warm / bare, detail: `npm start ${ms(warm)} ÷ bare express ${ms(bare)}` }),
  },
  {
    id: "interaction-without-tool-call",
    short: "no tool call, p50",
    title: "an interaction without a tool call (HTTP, validation, store, answer), p50",
    relation: "<",
    target: 2,
    unit: "ms",
    inputs: [FIGURE.noToolCall],
    compute: (time) => ({ value: time, detail: "POST over a kept-alive connection, answered 200" }),
  },
];

export function holds(value: number, relation: Relation, target: number): boolean {
  switch (relation) {
    case ">=":
      return value >= target;
    case "<=":
      return value <= target;
    case "<":
      return value < target;
  }
}

/**
 * Every goal against the figures of one run. A goal whose figures are missing, or not positive (a
 * per-call cost that noise made zero or negative), is "not measured", with the reason: the reason given
 * for that figure in `reasons` (e.g. "no pool in this build"), else what is missing.
 */
export function evaluateGoals(figures: Figures, reasons: Record<string, string> = {}): GoalOutcome[] {
  return GOALS.map((goal) => {
    const base = {
      id: goal.id,
      title: goal.title,
      short: goal.short,
      relation: goal.relation,
      target: goal.target,
      unit: goal.unit,
      ...(goal.reading ? { reading: goal.reading } : {}),
    };
    const missing = goal.inputs.find((input) => figures[input] === undefined);
    if (missing !== undefined) {
      return { ...base, status: "not measured", detail: reasons[missing] ?? `${missing} was not measured in this run` };
    }
    const values = goal.inputs.map((input) => figures[input]!.value);
    const bad = goal.inputs.find((_input, index) => !(values[index]! > 0) || !Number.isFinite(values[index]!));
    if (bad !== undefined) {
      return {
        ...base,
        status: "not measured",
        detail: `${bad} came out as ${figures[bad]!.value.toFixed(3)}, not a positive figure (noise: run it on an idle machine)`,
      };
    }
    const { value, detail } = goal.compute(...values);
    const status = holds(value, goal.relation, goal.target) ? "PASS" : "FAIL";
    const bound = status === "FAIL" ? boundOf(goal, figures) : undefined;
    return { ...base, status, value, detail, ...(bound !== undefined ? { bound } : {}) };
  });
}

/** A missed goal's bound, when its figures were all measured. */
function boundOf(goal: Goal, figures: Figures): string | undefined {
  if (!goal.bound || goal.bound.inputs.some((input) => figures[input] === undefined)) return undefined;
  return goal.bound.explain(...goal.bound.inputs.map((input) => figures[input]!.value));
}

function formatValue(value: number, unit: GoalOutcome["unit"]): string {
  if (unit === "×") return `${value.toFixed(value < 1 ? 2 : 1)}×`;
  if (unit === "MB/s") return `${value.toFixed(0)} MB/s`;
  if (unit === "MiB") return mib(value);
  return `${value.toFixed(2)} ms`;
}

const RELATION_TEXT: Record<Relation, string> = { ">=": "≥", "<=": "≤", "<": "<" };

/** One line per goal: `PASS  <title>: <value> (goal ≥ 15×; <detail>)`. */
export function formatGoal(outcome: GoalOutcome): string {
  const status = outcome.status === "not measured" ? "----" : outcome.status;
  const goal = `goal ${RELATION_TEXT[outcome.relation]} ${outcome.target}${outcome.unit === "×" ? "×" : ` ${outcome.unit}`}`;
  if (outcome.value === undefined) return `${status}  ${outcome.title}: not measured: ${outcome.detail} (${goal})`;
  const reading = outcome.reading ? ` ${outcome.reading}` : "";
  return `${status}  ${outcome.title}: ${formatValue(outcome.value, outcome.unit)}${reading} (${goal}; ${outcome.detail})`;
}

/** The README's form of a goal line: `FAIL  tool call vs docker exec: 5.4× faster (≥ 15×)`. */
export function formatGoalShort(outcome: GoalOutcome): string {
  const status = outcome.status === "not measured" ? "----" : outcome.status;
  const goal = `${RELATION_TEXT[outcome.relation]} ${outcome.target}${outcome.unit === "×" ? "×" : ` ${outcome.unit}`}`;
  // The reason without its parenthesis: the README has the room for the gist only.
  if (outcome.value === undefined) return `${status}  ${outcome.short}: ${outcome.detail.replace(/ \(.*\)$/, "")} (${goal})`;
  const reading = outcome.reading ? ` ${outcome.reading}` : "";
  return `${status}  ${outcome.short}: ${formatValue(outcome.value, outcome.unit)}${reading} (${goal})`;
}

/** Whether `--check` fails the run: a measured goal missed. Goals not measured do not fail it. */
export function anyGoalMissed(outcomes: GoalOutcome[]): boolean {
  return outcomes.some((outcome) => outcome.status === "FAIL");
}
