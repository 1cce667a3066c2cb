// The goals of issue 11, each a ratio (or a rate) computed from figures of the same run, never an
// absolute time alone: a slow machine makes both sides slower. Issue 22 adds an idle sandbox's memory,
// which a machine's speed does not change; issue 31 bytes against `cat` over a Unix socket, and the
// lines of goals-scale.ts (time to interactive, density, concurrency). Pure: no I/O, unit-tested
// (test/unit/bench-goals.test.ts).

import { FIGURE, type Figures } from "./figures.js";

import { type Goal, type GoalOutcome, mbs, mib, ms, type Relation, times, us } from "./goal-definition.js";
import { CONCURRENCY_GOALS, DENSITY_GOALS, TIME_TO_INTERACTIVE_GOALS } from "./goals-scale.js";

export type { GoalOutcome, GoalPart, Relation } from "./goal-definition.js";

/**
 * A tool call's CPU, from cpu-accounting.ts: the three sides that take turns on the cores, and of the
 * sandbox's, what the executor's own processes used (the rest is the commands': their creation and run).
 */
function cpuSplit(emulator: number, sandbox: number, executor: number, engine: number): string {
  return `CPU per call: emulator ${ms(emulator)}, sandbox ${ms(sandbox)} (the executor's own processes ${ms(executor)}, the command's ${ms(Math.max(0, sandbox - executor))}), Docker engine ${ms(engine)}`;
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

/** Issue 31: a 1 MiB file through `read_file` inside an interaction, request to answer. */
const READ_FILE_GOAL_MB_PER_S = 200;

/** Issue 31: 1 MiB read through the executor channel (a `cat`). */
const CHANNEL_GOAL_MB_PER_S = 1000;

/** Megabytes in a mebibyte: the byte lines move MiB and are judged in MB/s. */
const MB_PER_MIB = 1.048576;

/** The rate, in MB/s, of `mebibytes` MiB moved in `timeMs`. */
function rate(mebibytes: number, timeMs: number): number {
  return (mebibytes * MB_PER_MIB) / (timeMs / 1000);
}

const CALL_CPU = [FIGURE.cpuPerCallEmulator, FIGURE.cpuPerCallSandbox, FIGURE.cpuPerCallExecutor, FIGURE.cpuPerCallEngine];
const HOOKED_CALL_CPU = [
  FIGURE.cpuPerHookedCallEmulator,
  FIGURE.cpuPerHookedCallSandbox,
  FIGURE.cpuPerHookedCallExecutor,
  FIGURE.cpuPerHookedCallEngine,
];

/** 100 MiB through the files API (issue 31): the rate, against `cat` of the same bytes over a Unix socket. */
function filesApiLine(
  direction: "upload" | "download",
  how: string,
  [rate, time]: [string, string],
  path: string,
  cpu: [emulator: string, sandbox: string, client: string],
  floor?: { figure: string; says: (ms: number) => string },
): Goal {
  return {
    id: `files-${direction}-100mib`,
    short: `100 MiB ${direction}, files API`,
    title: `a 100 MiB file ${how}`,
    relation: ">=",
    target: 400,
    unit: "MB/s",
    inputs: [rate, FIGURE.unixSocketCatThroughput],
    compute: (value, reference) => ({
      value,
      detail: `${times(value / reference)} \`cat\` of the same bytes over a Unix socket, ${mbs(reference)}`,
    }),
    bound: {
      inputs: [time, FIGURE.unixSocketCat100MiB, ...cpu, FIGURE.machineCores, ...(floor ? [floor.figure] : [])],
      explain: (taken, reference, emulator, sandbox, client, cores, floorMs) =>
        `the same 100 MiB take ${ms(reference)} through a Unix socket here; the ${direction} adds ${ms(taken - reference)}: ${path}; ${bytesCpu(emulator!, sandbox!, client!, cores!)}${floor && floorMs !== undefined ? `; ${floor.says(floorMs)}` : ""}`,
    },
  };
}

/**
 * Where 100 MiB through the files API spends its CPU, and the rates that allows: the sandbox on its one
 * CPU alone, and all three sides on the machine's cores.
 */
function bytesCpu(emulator: number, sandbox: number, client: number, cores: number): string {
  const together = (emulator + sandbox + client) / cores;
  return `CPU per 100 MiB: the emulator ${ms(emulator)}, the sandbox ${ms(sandbox)} (on its one CPU: ${mbs(rate(100, sandbox))} at most), the bench's HTTP client ${ms(client)}; the three on the machine's ${cores.toFixed(0)} cores take ${ms(together)} at least: ${mbs(rate(100, together))} at most`;
}

export const GOALS: Goal[] = [
  {
    id: "tool-call-vs-docker-exec",
    short: "tool call vs docker exec",
    title: "a tool call inside an interaction vs `docker exec true`",
    relation: ">=",
    target: 20,
    unit: "×",
    reading: "faster",
    inputs: [FIGURE.dockerExec, FIGURE.perCall],
    compute: (exec, call) => ({ value: exec / call, detail: `docker exec ${ms(exec)} ÷ tool call ${ms(call)}` }),
    bound: {
      inputs: [FIGURE.dockerExec, FIGURE.channelTrue, FIGURE.spawn, ...COMMAND_CPU, ...CALL_CPU],
      explain: (exec, channel, spawn, channelCpu, shellCpu, emulator, sandbox, executor, engine) =>
        `${sandboxFloor(sandbox, `${times(exec / sandbox)} at most`)}; the call's command alone, a \`bash -c true\` spawn, takes ${ms(spawn)}: ${times(exec / spawn)} at most with nothing else in the call; the executor channel's \`true\` alone takes ${ms(channel)} (${times(exec / channel)}); ${executorShare(channelCpu, shellCpu)}; ${cpuSplit(emulator, sandbox, executor, engine)}`,
    },
  },
  {
    id: "tool-call-vs-spawn",
    short: "tool call vs bash -c true spawn",
    title: "a tool call inside an interaction vs a `bash -c true` spawn in the container",
    relation: "<=",
    target: 1.5,
    unit: "×",
    reading: "the spawn",
    // The spawn measured in the call's own container, in turns with the call's rounds: a spawn measured
    // minutes apart drifted 10–20% from it on a shared machine, enough to flip the line.
    inputs: [FIGURE.perCall, FIGURE.spawnBesideCall],
    compute: (call, spawn) => ({ value: call / spawn, detail: `tool call ${ms(call)} ÷ spawn ${ms(spawn)}, in turns in its container` }),
    bound: {
      inputs: [FIGURE.perCall, FIGURE.spawnBesideCall, FIGURE.channelTrue, ...CALL_CPU, FIGURE.coreHandOff, FIGURE.coreIdleWake],
      explain: (call, spawn, channel, emulator, sandbox, executor, engine, handOff, idleWake) =>
        `${sandboxFloor(sandbox, `${times(sandbox / spawn)} the spawn at least`)}; beyond the sandbox's CPU the call takes ${ms(Math.max(0, call - sandbox))}: its path through the emulator, which spends ${ms(emulator)} of CPU per call (the steps' events stored, the hooks' trace and coverage, the channel's frames), and its hand-offs between the emulator, the executor and the command (at least four), each a thread woken on another core, which takes ${us(handOff)} on this machine and ${us(idleWake)} once that core has idled 1 ms (${ms((4 * (handOff + idleWake)) / 2000)} for four, half of them idle); the channel's \`true\` (\`/bin/true\`, no shell) alone takes ${ms(channel)}; ${cpuSplit(emulator, sandbox, executor, engine)}`,
    },
  },
  {
    id: "hooked-call-vs-two-spawns",
    short: "tool call with a hook vs two spawns",
    title: "a tool call with one command hook vs two `bash -c true` spawns in the container",
    relation: "<=",
    target: 2.5,
    unit: "×",
    reading: "two spawns",
    inputs: [FIGURE.perCallOneHook, FIGURE.spawn],
    compute: (hooked, spawn) => ({ value: hooked / (2 * spawn), detail: `hooked tool call ${ms(hooked)} ÷ two spawns ${ms(2 * spawn)}` }),
    bound: {
      inputs: [FIGURE.channelTrue, FIGURE.perCall, FIGURE.perCallOneHook, FIGURE.spawn, ...COMMAND_CPU, ...HOOKED_CALL_CPU],
      explain: (channel, call, hooked, spawn, channelCpu, shellCpu, emulator, sandbox, executor, engine) =>
        `${sandboxFloor(sandbox, `${times(sandbox / (2 * spawn))} two spawns at least`)}; the hook is a second command, ${ms(hooked - call)} more than the call alone, and two channel \`true\`s take ${ms(2 * channel)} (${times(channel / spawn)} two spawns); ${executorShare(channelCpu, shellCpu)}; ${cpuSplit(emulator, sandbox, executor, engine)}`,
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
    target: CHANNEL_GOAL_MB_PER_S,
    unit: "MB/s",
    inputs: [FIGURE.channelCat],
    compute: (cat) => ({ value: rate(1, cat), detail: `1 MiB in ${ms(cat)}` }),
    bound: {
      inputs: [FIGURE.channelCat, FIGURE.channelTrue, FIGURE.unixSocketCatThroughput],
      explain: (cat, channel, reference) => {
        // The goal's time for 1 MiB, of which a command's round trip (a process started and reaped in the
        // sandbox) is spent before any byte: what is left must carry the MiB.
        const goalMs = (MB_PER_MIB / CHANNEL_GOAL_MB_PER_S) * 1000;
        const left = goalMs - channel;
        const carried = Math.max(0, cat - channel);
        const room =
          left <= 0
            ? `more than the ${ms(goalMs)} the goal allows for everything, whatever carries the MiB`
            : `leaving ${ms(left)} of the goal's ${ms(goalMs)} to carry the MiB: ${mbs(rate(1, left))}, where \`cat\` over a Unix socket on this machine carries ${mbs(reference)}`;
        return `a \`cat\` over the channel is a command's round trip and 1 MiB carried; the channel's \`true\` alone (a process started and reaped in the sandbox, no byte carried) takes ${ms(channel)}, ${room}; ${carried > 0 ? `this run carried the MiB in ${ms(carried)} beyond the round trip (${mbs(rate(1, carried))})` : "this run's `cat` took no longer than the round trip"}`;
      },
    },
  },
  filesApiLine(
    "upload",
    "uploaded through the files API (one PUT, until its answer)",
    [FIGURE.filesUploadThroughput, FIGURE.filesUpload100MiB],
    "HTTP into the emulator, the channel's socket into the sandbox, its file worker writing the file",
    [FIGURE.filesUploadCpuEmulator, FIGURE.filesUploadCpuSandbox, FIGURE.filesUploadCpuClient],
    {
      figure: FIGURE.sandboxWrite100MiB,
      says: (written) =>
        `the sandbox's own user writing the same 100 MiB into /workspace takes ${ms(written)} (its file system, under its memory limit): ${mbs(rate(100, written))} at most for any upload, which the emulator overlaps with carrying the bytes`,
    },
  ),
  filesApiLine(
    "download",
    "downloaded through the files API (?alt=media, to the last byte)",
    [FIGURE.filesDownloadThroughput, FIGURE.filesDownload100MiB],
    "the sandbox's file worker reading the file, the channel's socket, the emulator, HTTP",
    [FIGURE.filesDownloadCpuEmulator, FIGURE.filesDownloadCpuSandbox, FIGURE.filesDownloadCpuClient],
  ),
  {
    id: "read-file-1mib-interaction",
    short: "1 MiB by read_file, end to end",
    title: "a 1 MiB file read by `read_file` inside an interaction (request to answer)",
    relation: ">=",
    target: READ_FILE_GOAL_MB_PER_S,
    unit: "MB/s",
    inputs: [FIGURE.readFile1MiBInteraction],
    compute: (time) => ({ value: rate(1, time), detail: `1 MiB in ${ms(time)}` }),
    bound: {
      inputs: [
        FIGURE.readFile1MiBInteraction,
        FIGURE.readFileSmallInteraction,
        FIGURE.channelCat,
        FIGURE.channelTrue,
        FIGURE.readFileClientParse,
        FIGURE.readFileBareAnswer,
        FIGURE.readFileBareSmallAnswer,
        FIGURE.readFile1MiBLoopCpu,
        FIGURE.readFile1MiBOtherCpu,
        FIGURE.readFileSmallLoopCpu,
        FIGURE.readFileSmallOtherCpu,
      ],
      explain: (time, small, cat, channelTrue, parse, bareLarge, bareSmall, loop, other, smallLoop, smallOther) => {
        // What the line takes with the emulator doing nothing for the MiB: a read of 10 bytes (the
        // interaction and a tool call), the channel carrying the MiB beyond its round trip, and the answer's
        // MiB handed to the client and parsed there, as a bare server hands over the same answer.
        const carried = Math.max(0, cat - channelTrue);
        const answered = Math.max(0, bareLarge - bareSmall);
        const floor = small + carried + answered;
        const reachable = rate(1, floor) >= READ_FILE_GOAL_MB_PER_S;
        return `with nothing done for the MiB the line takes ${ms(floor)}, ${mbs(rate(1, floor))} at best${reachable ? "" : " (under the goal: not reachable on this machine, whatever the emulator does with the MiB)"}: a 10-byte \`read_file\` takes ${ms(small)} (the interaction and a tool call), the channel carries the MiB in ${ms(carried)} more than a command's round trip (a \`cat\` of 1 MiB ${ms(cat)}, a \`true\` ${ms(channelTrue)}), and the answer's MiB reaches this benchmark's client and is parsed there in ${ms(answered)} (a bare Node.js server answering the same 1 MiB answer ${ms(bareLarge)}, the 10-byte one ${ms(bareSmall)}; the client's decoding and parsing alone ${ms(parse)}); the other ${ms(Math.max(0, time - floor))} are the emulator's handling of the 1 MiB result: its event loop spends ${ms(loop)} of CPU on a read of 1 MiB against ${ms(smallLoop)} on one of 10 bytes (${ms(Math.max(0, loop - smallLoop))} for the MiB: its text decoded, its event's JSON stored in SQLite, the answer written), its other threads ${ms(other)} against ${ms(smallOther)} (V8's collector, the store's checkpoint), all on the cores the sandbox and the client share (docs/benchmarks.md#read_file-of-1-mib)`;
      },
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
  ...TIME_TO_INTERACTIVE_GOALS,
  ...DENSITY_GOALS,
  ...CONCURRENCY_GOALS,
  {
    id: "swarm-tool-call-other-node",
    part: "swarm",
    short: "tool call on another Swarm node vs the emulator's own",
    title: "a tool call in a sandbox on another Swarm node vs one on the emulator's own node (issue 32)",
    relation: "<=",
    target: 1.3,
    unit: "×",
    reading: "the same node",
    inputs: [FIGURE.swarmCallOtherNode, FIGURE.swarmCallOwnNode],
    compute: (other, own) => ({ value: other / own, detail: `other node ${ms(other)} ÷ own node ${ms(own)}` }),
    bound: {
      inputs: [FIGURE.swarmChannelOtherNode, FIGURE.swarmChannelOwnNode, FIGURE.swarmCallOwnNode],
      explain: (channelOther, channelOwn, own) =>
        `the channel's \`true\` alone takes ${ms(channelOther)} to another node and ${ms(channelOwn)} on the own node: the overlay's hop between machines adds ${ms(channelOther - channelOwn)} per round trip to a ${ms(own)} call`,
    },
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
      part: goal.part ?? "goals",
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
  if (unit === "%") return `${value.toFixed(0)}%`;
  if (unit === "count") return value.toFixed(0);
  return `${value.toFixed(2)} ms`;
}

const RELATION_TEXT: Record<Relation, string> = { ">=": "≥", "<=": "≤", "<": "<" };

/** The target with its unit: `15×`, `200 MB/s`, `60%`, `1000`. */
function targetText(outcome: GoalOutcome): string {
  if (outcome.unit === "×" || outcome.unit === "%") return `${outcome.target}${outcome.unit}`;
  if (outcome.unit === "count") return String(outcome.target);
  return `${outcome.target} ${outcome.unit}`;
}

/** One line per goal: `PASS  <title>: <value> (goal ≥ 15×; <detail>)`. */
export function formatGoal(outcome: GoalOutcome): string {
  const status = outcome.status === "not measured" ? "----" : outcome.status;
  const goal = `goal ${RELATION_TEXT[outcome.relation]} ${targetText(outcome)}`;
  if (outcome.value === undefined) return `${status}  ${outcome.title}: not measured: ${outcome.detail} (${goal})`;
  const reading = outcome.reading ? ` ${outcome.reading}` : "";
  return `${status}  ${outcome.title}: ${formatValue(outcome.value, outcome.unit)}${reading} (${goal}; ${outcome.detail})`;
}

/** The short form of a goal line: `FAIL  tool call vs docker exec: 5.4× faster (≥ 15×)`. */
export function formatGoalShort(outcome: GoalOutcome): string {
  const status = outcome.status === "not measured" ? "----" : outcome.status;
  const goal = `${RELATION_TEXT[outcome.relation]} ${targetText(outcome)}`;
  // The reason without its parenthesis: the short lines have the room for the gist only.
  if (outcome.value === undefined) return `${status}  ${outcome.short}: ${outcome.detail.replace(/ \(.*\)$/, "")} (${goal})`;
  const reading = outcome.reading ? ` ${outcome.reading}` : "";
  return `${status}  ${outcome.short}: ${formatValue(outcome.value, outcome.unit)}${reading} (${goal})`;
}

/** Whether `--check` fails the run: a measured goal missed. Goals not measured do not fail it. */
export function anyGoalMissed(outcomes: GoalOutcome[]): boolean {
  return outcomes.some((outcome) => outcome.status === "FAIL");
}
