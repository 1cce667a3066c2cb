// Issue 31's goal lines for one machine at its limit: time to interactive (create until a first command
// has run, by ComputeSDK's method), density (live idle environments) and throughput under concurrency.
// Each a ratio against a reference of the same run, or a count, with its bound. Pure: no I/O,
// unit-tested (test/unit/bench-goals.test.ts).

import { FIGURE } from "./figures.js";
import { type Goal, mib, ms, times } from "./goal-definition.js";
import { ENGINE_PROBE_EVERY_MS } from "./health-sampler.js";

const share = (value: number) => `${(value * 100).toFixed(0)}%`;

/** Why a density run stopped (part-density.ts writes the code as a figure). */
export const DENSITY_STOP = { target: 0, memory: 1, engine: 2, tasks: 3, descriptors: 4, emulator: 5 } as const;

/** The memory a density run leaves to the rest of the machine (part-density.ts stops before it). */
export const DENSITY_MEMORY_RESERVE_MIB = 4096;

/** The share of the kernel's tasks a density run leaves to the machine (a machine out of tasks fails every fork). */
export const DENSITY_TASK_RESERVE_SHARE = 0.1;

const POOL_BOUND = [FIGURE.ttiPoolSize, FIGURE.ttiDockerRun, FIGURE.engineCreatesPerSecond];

function poolBound(arrivals: string, fromPool: number, cold: number, size: number, run: number, perSecond: number): string {
  return `${share(fromPool)} of the runs found a warm sandbox in the pool (EMULATOR_POOL_SIZE ${size.toFixed(0)}); the others waited for one created then (their p50 ${ms(cold)}, ${times(cold / run)} docker run): the pool refills at the engine's pace, which creates and starts ${perSecond.toFixed(1)} containers/s of the sandbox image at best (20 at once, this run), and runs came ${arrivals}`;
}

function ttiLine(mode: "sequential" | "staggered", stat: "p50" | "p99", target: number): Goal {
  const figure = {
    sequential: {
      p50: FIGURE.ttiSequentialP50,
      p99: FIGURE.ttiSequentialP99,
      fromPool: FIGURE.ttiSequentialFromPool,
      cold: FIGURE.ttiSequentialColdP50,
    },
    staggered: {
      p50: FIGURE.ttiStaggeredP50,
      p99: FIGURE.ttiStaggeredP99,
      fromPool: FIGURE.ttiStaggeredFromPool,
      cold: FIGURE.ttiStaggeredColdP50,
    },
  }[mode];
  const how = mode === "sequential" ? "one after another" : "one every 100 ms";
  return {
    id: `tti-${mode}-${stat}`,
    part: "tti",
    short: `time to interactive, ${mode}, ${stat === "p50" ? "median" : "p99"}`,
    title: `time to interactive (create until a first command has run), ${mode} (${how}), ${stat === "p50" ? "median" : "p99"} vs \`docker run --rm true\`'s median`,
    relation: "<=",
    target,
    unit: "×",
    reading: "docker run",
    inputs: [figure[stat], FIGURE.ttiDockerRun],
    compute: (time, run) => ({ value: time / run, detail: `${stat} ${ms(time)} ÷ docker run ${ms(run)}, 100 runs` }),
    bound: {
      inputs: [figure.fromPool, figure.cold, ...POOL_BOUND, ...(mode === "staggered" ? [FIGURE.ttiStaggeredRate] : [])],
      explain: (fromPool, cold, size, run, perSecond, ready) =>
        poolBound(
          mode === "sequential"
            ? "one after another (each as soon as the last was answered and deleted)"
            : `at 10/s (one every 100 ms), and were ready at ${ready!.toFixed(1)}/s in all: the emulator's creations ran at ${share(ready! / perSecond)} of the engine's own rate for bare containers`,
          fromPool,
          cold,
          size,
          run,
          perSecond,
        ),
    },
  };
}

export const TIME_TO_INTERACTIVE_GOALS: Goal[] = [
  ttiLine("sequential", "p50", 0.1),
  ttiLine("sequential", "p99", 0.3),
  ttiLine("staggered", "p50", 0.1),
  ttiLine("staggered", "p99", 0.3),
  {
    id: "tti-burst-p99",
    part: "tti",
    short: "time to interactive, burst of 20, p99",
    title: "time to interactive, bursts of 20 at once, p99 vs the burst's ideal (the engine creating 20 containers at once)",
    relation: "<=",
    target: 2,
    unit: "×",
    reading: "the ideal",
    inputs: [FIGURE.ttiBurstP99, FIGURE.ttiBurstIdeal],
    compute: (time, ideal) => ({ value: time / ideal, detail: `p99 ${ms(time)} ÷ the engine's own burst p99 ${ms(ideal)}, 5 bursts` }),
    bound: {
      inputs: [FIGURE.ttiPoolSize, FIGURE.ttiBurstIdeal, FIGURE.engineCreatesPerSecond, FIGURE.ttiSequentialColdP50],
      explain: (size, ideal, perSecond, cold) =>
        `of 20 at once, ${size.toFixed(0)} find a warm sandbox and ${(20 - size).toFixed(0)} are created then, side by side: the engine alone creates and starts 20 containers of the image at once with a p99 of ${ms(ideal)} (${perSecond.toFixed(1)}/s), and a sandbox is more than such a container (its mounts, limits, the executor's start and channel; one alone, made then, takes ${ms(cold)})`,
    },
  },
];

export const DENSITY_GOALS: Goal[] = [
  {
    id: "density-live-environments",
    part: "density",
    short: "live idle environments",
    title: "live idle environments on this machine",
    relation: ">=",
    target: 1000,
    unit: "count",
    // The memory per environment is said in the bound and the part's note, not needed here: the emulator's
    // RSS per environment is a difference that noise can make zero or negative (its allocator hands back
    // start-up memory while environments are created: -121 KiB per environment from 53 to 300 live).
    inputs: [FIGURE.densityReached, FIGURE.densityTarget],
    compute: (reached, wanted) => ({ value: reached, detail: `of ${wanted.toFixed(0)} asked (--density)` }),
    bound: {
      inputs: [
        FIGURE.densityStoppedBy,
        FIGURE.densityReached,
        FIGURE.densityTarget,
        FIGURE.densityAvailableAtStop,
        FIGURE.densityMachinePerEnvironment,
        FIGURE.densityTasksAtStop,
        FIGURE.densityTaskLimit,
        FIGURE.densityEmulatorFds,
        FIGURE.densityEmulatorFdLimit,
        FIGURE.densityHeapPerEnvironment,
      ],
      explain: (code, reached, wanted, available, perEnvironment, tasks, taskLimit, fds, fdLimit, heap) => {
        const projection = `each environment takes ${mib(perEnvironment)} of the machine's memory (its container, its containerd shim, the engine's share; ${heap.toFixed(1)} KiB of the emulator's JS heap): 1,000 need ${((perEnvironment * 1000) / 1024).toFixed(1)} GiB; tasks ${tasks.toFixed(0)} of the kernel's ${taskLimit.toFixed(0)}; the emulator's descriptors ${fds.toFixed(0)} of ${fdLimit.toFixed(0)}`;
        const stopped =
          code === DENSITY_STOP.target
            ? `the run asked for ${wanted.toFixed(0)} (--density ${wanted.toFixed(0)}) and reached them`
            : code === DENSITY_STOP.memory
              ? `memory: ${mib(available)} available at ${reached.toFixed(0)} live, and the run leaves ${DENSITY_MEMORY_RESERVE_MIB} MiB to the machine`
              : code === DENSITY_STOP.tasks
                ? `the kernel's task limit (pid_max, threads-max): ${tasks.toFixed(0)} tasks of ${taskLimit.toFixed(0)} at ${reached.toFixed(0)} live, and the run leaves ${DENSITY_TASK_RESERVE_SHARE * 100}% of them to the machine`
                : code === DENSITY_STOP.descriptors
                  ? `file descriptors: the emulator holds ${fds.toFixed(0)} of its ${fdLimit.toFixed(0)} at ${reached.toFixed(0)} live`
                  : code === DENSITY_STOP.engine
                    ? `the engine: creating the next sandbox failed or took more than its deadline at ${reached.toFixed(0)} live (the run's note says how)`
                    : `the emulator refused the next environment at ${reached.toFixed(0)} live (the run's note says how)`;
        return `${stopped}; ${projection}`;
      },
    },
  },
  {
    id: "density-tool-call",
    part: "density",
    short: "tool call, most live vs 1 live",
    title: "a tool call with the most live environments vs with 1",
    relation: "<=",
    target: 1.5,
    unit: "×",
    reading: "the time",
    inputs: [FIGURE.densityCallAtMost, FIGURE.densityCallAt1, FIGURE.densityReached],
    compute: (most, one, reached) => ({ value: most / one, detail: `${ms(most)} with ${reached.toFixed(0)} live ÷ ${ms(one)} with 1` }),
    bound: {
      inputs: [
        FIGURE.densityBusyCoresAtMost,
        FIGURE.densityReached,
        FIGURE.densityIdleBusyCores,
        FIGURE.densityIdleEngineCores,
        FIGURE.densityIdleSandboxesCores,
        FIGURE.densityIdleEmulatorCores,
      ],
      explain: (busy, reached, idle, engine, sandboxes, emulator) =>
        `with ${reached.toFixed(0)} idle environments the machine's cores were ${busy.toFixed(2)} busy on average while the calls ran; idle, before them, ${idle.toFixed(2)}: the engine ${engine.toFixed(2)} (its daemons and the containers' shims), the sandboxes ${sandboxes.toFixed(3)}, the emulator ${emulator.toFixed(3)}, other work ${Math.max(0, idle - engine - sandboxes - emulator).toFixed(2)} (the kernel's housekeeping, this benchmark, other processes)`,
    },
  },
];

export const CONCURRENCY_GOALS: Goal[] = [
  {
    id: "concurrency-throughput",
    part: "concurrency",
    short: "tool calls/s under concurrency vs spawns/s",
    title:
      "completed tool calls per second, concurrent interactions each in its own environment, vs the machine's `bash -c true` spawns per second",
    relation: ">=",
    target: 60,
    unit: "%",
    reading: "of the spawns",
    inputs: [FIGURE.concurrencyBestRate, FIGURE.spawnsPerSecond, FIGURE.concurrencyBestAt],
    compute: (rate, spawns, at) => ({
      value: (rate / spawns) * 100,
      detail: `${rate.toFixed(0)} tool calls/s at ${at.toFixed(0)} concurrent ÷ ${spawns.toFixed(0)} spawns/s on all cores`,
    }),
    bound: {
      inputs: [
        FIGURE.concurrencyBusyCores,
        FIGURE.concurrencyBestRate,
        FIGURE.spawnsPerSecond,
        FIGURE.concurrencyBestEmulatorCores,
        FIGURE.concurrencyBestSandboxesCores,
        FIGURE.concurrencyBestExecutorsCores,
        FIGURE.concurrencyBestEngineCores,
        FIGURE.concurrencyBestBenchCores,
      ],
      explain: (busy, rate, spawns, emulator, sandboxes, executors, engine, bench) => {
        const perCall = (cores: number) => ms((cores * 1000) / rate);
        const other = Math.max(0, busy - sandboxes - emulator - engine - bench);
        // The line if a call cost only part of what it did, the cores as busy: the rate grows as the CPU per call shrinks.
        const without = (cores: number) => share((rate / spawns) * (busy / Math.max(busy - cores, 1e-9)));
        const onlySandboxes = share((rate / spawns) * (busy / Math.max(sandboxes, 1e-9)));
        return `the machine's cores were ${busy.toFixed(2)} busy at that rate: a completed tool call cost ${perCall(busy)} of CPU in all, where a \`bash -c true\` spawn costs ${ms((busy * 1000) / spawns)} on the same cores: the sandboxes ${perCall(sandboxes)} (the executors' own processes ${perCall(executors)}, the commands they started ${perCall(Math.max(0, sandboxes - executors))}), the emulator ${perCall(emulator)}, the engine ${perCall(engine)} (with this benchmark's own probe of it every ${ENGINE_PROBE_EVERY_MS} ms), this benchmark's client ${perCall(bench)}, other work ${perCall(other)}; with the emulator's CPU at nothing (the cores as busy) the line would read ${without(emulator)}, with the sandboxes' CPU alone ${onlySandboxes}`;
      },
    },
  },
  {
    id: "concurrency-tail",
    part: "concurrency",
    short: "interaction p99 ÷ p50 under concurrency",
    title: "an interaction's p99 vs its p50 under concurrency (worst of 1, 10, 50, 200 at once)",
    relation: "<=",
    target: 5,
    unit: "×",
    reading: "the p50",
    inputs: [FIGURE.concurrencyWorstTail, FIGURE.concurrencyWorstTailAt],
    compute: (tail, at) => ({ value: tail, detail: `at ${at.toFixed(0)} concurrent` }),
    bound: {
      inputs: [FIGURE.concurrencyWorstTailAt, FIGURE.concurrencyWorstTailBusyCores, FIGURE.concurrencyWorstTailEmulatorCores],
      explain: (at, busy, emulator) =>
        `${at.toFixed(0)} interactions wait their turns for the machine's cores (${busy.toFixed(2)} busy), the emulator's one JavaScript thread among them (${emulator.toFixed(2)} of a core): which interaction's work is served next is not first come, first served`,
    },
  },
  {
    id: "concurrency-health",
    part: "concurrency",
    short: "/health under concurrency, max",
    title: "`/health` answered under concurrency, the slowest of the run (sampled every 50 ms)",
    relation: "<=",
    target: 100,
    unit: "ms",
    inputs: [FIGURE.concurrencyHealthMax, FIGURE.concurrencyHealthP99],
    compute: (max, p99) => ({ value: max, detail: `p99 ${ms(p99)}` }),
    bound: {
      inputs: [
        FIGURE.concurrencyHealthAt,
        FIGURE.concurrencyHealthEngineMax,
        FIGURE.concurrencyHealthEmulatorCores,
        FIGURE.concurrencyHealthBusyCores,
        FIGURE.concurrencyHealthMax,
        FIGURE.concurrencyHealthCoreWait,
        FIGURE.concurrencyHealthProberWait,
      ],
      explain: (at, engine, emulator, busy, slowest, coreWait, proberWait) =>
        `/health answers from the engine's last answer while it is under 5 s old (docs/api.md), so the engine's own calls (up to ${ms(engine)} at ${at.toFixed(0)} concurrent, the slowest /health's level) are not waited for; during the slowest /health (${ms(slowest)}) the emulator's event loop waited ${ms(coreWait)} for a core (runnable, not running: its schedstat) and the prober's own thread ${ms(proberWait)}, the machine's cores taken by the level's sandboxes, the engine and the bench (${busy.toFixed(2)} busy); the emulator's process used ${emulator.toFixed(2)} of a core`,
    },
  },
];
