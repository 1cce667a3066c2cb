// Throughput under concurrency (issue 31): 1, 10, 50 and 200 interactions at once, each in its own
// environment, each a few `true` tool calls, run back to back by one worker per environment: completed
// tool calls per second, an interaction's p50 and p99, and `/health` sampled every 50 ms meanwhile. The
// reference, taken in turns with the levels: the machine's `bash -c true` spawns per second, one loop
// per core, each in a sandbox of its own (timed inside the container), just before each level and just
// after it; the level's reference is their mean (the machine's pace moves ±20% over minutes, so a
// reference taken once, before the first level, was minutes away from the last). Each level starts once
// the warm pool, grown by the environments just created, has refilled and the machine's cores are quiet:
// its containers' creation, and the new sandboxes' own start, are not the interactions' work.

import os from "node:os";
import Docker from "dockerode";
import { commandScript } from "./api-client.js";
import { inBatches, withDeadline } from "./bounded.js";
import type { ConcurrencyLevel } from "./charts.js";
import { loopCostInContainer } from "./docker-floor.js";
import type { EmulatorUnderTest } from "./emulator-under-test.js";
import { FIGURE, type FigureBook } from "./figures.js";
import { sampleEngineProbe, sampleHealth } from "./health-sampler.js";
import { coresUsedWatch } from "./cpu-accounting.js";
import { createEnvironment } from "./interaction-measures.js";
import { busyCoresWatch, untilCoresQuiet } from "./machine-limits.js";
import { elapsedMs, quantile } from "./stats.js";

export const LEVELS = [1, 10, 50, 200];
export const CALLS_PER_INTERACTION = 5;
const DEADLINE_MS = 120_000;
/**
 * How long each level runs (each worker starts interactions until then, and at least MIN_ROUNDS). A
 * level of 3 rounds lasted about 1 s at 50 at once and 0.35 s at 10: its start (the first answers parsed
 * cold) and its tail (the last interactions, the cores idle meanwhile) weighed on it (the emulator's CPU
 * a call read 0.70 ms in such a level, 0.59 in a 5 s one).
 */
const LEVEL_MS = 5_000;
const MIN_ROUNDS = 3;
const SPAWNS_PER_LOOP = 300;

export async function concurrencyPart(
  book: FigureBook,
  start: (settings: Record<string, string>) => Promise<EmulatorUnderTest>,
  progress: (line: string) => void,
): Promise<ConcurrencyLevel[]> {
  const most = Math.max(...LEVELS);
  const docker = new Docker();
  const emulator = await start({ EMULATOR_MAX_ENVIRONMENTS: String(most + 10), EMULATOR_MAX_ENVIRONMENTS_PER_KEY: String(most + 10) });
  const environments: string[] = [];
  try {
    const api = emulator.client("bench-concurrency", most + 8);
    const script = commandScript("true", CALLS_PER_INTERACTION);
    const interact = (environment: string) =>
      withDeadline(api.interact({ input: script, environment }), DEADLINE_MS, "an interaction under concurrency");
    const containerOf = (environment: string) => `iemu-${emulator.instance}-${environment}`;
    const grow = async (count: number) => {
      const added = await inBatches(Array.from({ length: count - environments.length }), 4, () =>
        withDeadline(createEnvironment(api), DEADLINE_MS, "creating an environment"),
      );
      // Each environment's first interaction (its sandbox's first reads) is not measured.
      await inBatches(added, 8, (environment) => interact(environment));
      environments.push(...added);
    };

    const cores = os.cpus().length;
    await grow(Math.max(cores, LEVELS[0]!));
    // The machine's `bash -c true` spawns per second: one loop per core at once, each in a sandbox.
    const spawnsPerSecond = async () => {
      const perSpawn = await Promise.all(
        environments
          .slice(0, cores)
          .map((environment) => loopCostInContainer(docker, containerOf(environment), "bash -c true", SPAWNS_PER_LOOP)),
      );
      return perSpawn.reduce((sum, ms) => sum + 1000 / ms, 0);
    };

    const levels: ConcurrencyLevel[] = [];
    for (const concurrent of LEVELS) {
      progress(
        `${concurrent} interaction${concurrent === 1 ? "" : "s"} at once, each in its own environment, between two readings of the machine's spawns/s…`,
      );
      await grow(concurrent);
      await emulator.poolSettled(DEADLINE_MS);
      const settledMs = await untilCoresQuiet();
      const spawnsBefore = await spawnsPerSecond();
      const health = sampleHealth(emulator.process.url, emulator.process.pid);
      await health.ready;
      const engine = sampleEngineProbe(docker, containerOf(environments[0]!));
      const busy = busyCoresWatch();
      // Where the machine's CPU went meanwhile: the emulator, the sandboxes (every container), the engine, this process.
      const used = coresUsedWatch(emulator.process.pid);
      const benchCpuBefore = ownCpuMs();
      const started = process.hrtime.bigint();
      const until = performance.now() + LEVEL_MS;
      const times: number[] = [];
      await Promise.all(
        environments.slice(0, concurrent).map(async (environment) => {
          for (let round = 0; round < MIN_ROUNDS || performance.now() < until; round++) {
            const one = process.hrtime.bigint();
            await interact(environment);
            times.push(elapsedMs(one));
          }
        }),
      );
      const wallMs = elapsedMs(started);
      const busyCores = busy();
      const { emulator: emulatorCores, sandboxes, executors: executorsCores, engine: engineCores } = used();
      const sandboxesCores = sandboxes ?? 0;
      const benchCores = (ownCpuMs() - benchCpuBefore) / wallMs;
      const { times: healthTimes, coreWaits, proberWaits } = await health.stop();
      const slowest = healthTimes.indexOf(Math.max(...healthTimes));
      const engineTimes = await engine.stop();
      const spawnsAfter = await spawnsPerSecond();
      levels.push({
        concurrent,
        spawnsPerSecond: (spawnsBefore + spawnsAfter) / 2,
        spawnsBefore,
        spawnsAfter,
        settledMs,
        callsPerSecond: (times.length * CALLS_PER_INTERACTION * 1000) / wallMs,
        p50: quantile(times, 0.5),
        p99: quantile(times, 0.99),
        healthMax: Math.max(...healthTimes),
        healthMaxCoreWait: coreWaits[slowest] ?? 0,
        healthMaxProberWait: proberWaits[slowest] ?? 0,
        healthP99: quantile(healthTimes, 0.99),
        healthSamples: healthTimes.length,
        busyCores,
        emulatorCores,
        sandboxesCores,
        executorsCores,
        engineCores,
        benchCores,
        engineProbeMax: Math.max(...engineTimes),
      });
    }

    // A level's tool calls/s for the spawns/s around it: what the throughput line reads.
    const share = (level: ConcurrencyLevel) => level.callsPerSecond / level.spawnsPerSecond;
    book.addNote(`Throughput under concurrency (interactions of ${CALLS_PER_INTERACTION} \`true\` calls, each in its own environment)`, [
      ...levels.map(
        (level) =>
          `  ${String(level.concurrent).padStart(3)} at once: ${level.callsPerSecond.toFixed(0).padStart(5)} tool calls/s (${(share(level) * 100).toFixed(0)}% of ${level.spawnsPerSecond.toFixed(0)} spawns/s: ${level.spawnsBefore.toFixed(0)} before, ${level.spawnsAfter.toFixed(0)} after; the cores quiet after ${(level.settledMs / 1000).toFixed(1)} s) · interaction p50 ${level.p50.toFixed(1)} ms, p99 ${level.p99.toFixed(1)} ms · /health max ${level.healthMax.toFixed(1)} ms, p99 ${level.healthP99.toFixed(1)} ms (${level.healthSamples} samples; the engine's answer to its probe, max ${level.engineProbeMax.toFixed(1)} ms) · cores busy ${level.busyCores.toFixed(2)}, of which the emulator ${level.emulatorCores.toFixed(2)}`,
      ),
      `  the machine's \`bash -c true\` spawns/s: ${cores} loops of ${SPAWNS_PER_LOOP} at once (one per core), before and after each level, their mean`,
    ]);
    for (const level of levels) {
      book.add(
        `concurrency.${level.concurrent}.tool_calls_per_s`,
        `tool calls/s, ${level.concurrent} at once`,
        level.callsPerSecond,
        "per s",
        "higher",
      );
      book.add(
        `concurrency.${level.concurrent}.spawns_per_s`,
        `\`bash -c true\` spawns/s around the level of ${level.concurrent} at once`,
        level.spawnsPerSecond,
        "per s",
        "higher",
      );
      book.add(`concurrency.${level.concurrent}.interaction.p50_ms`, `interaction, ${level.concurrent} at once, p50`, level.p50, "ms");
      book.add(`concurrency.${level.concurrent}.interaction.p99_ms`, `interaction, ${level.concurrent} at once, p99`, level.p99, "ms");
    }
    // The best level: the most tool calls/s for the spawns/s around it.
    const best = levels.reduce((a, b) => (share(b) > share(a) ? b : a));
    const worstTail = levels.reduce((a, b) => (b.p99 / b.p50 > a.p99 / a.p50 ? b : a));
    book.add(FIGURE.concurrencyBestRate, "tool calls/s at the best concurrency", best.callsPerSecond, "per s", "higher");
    book.add(
      FIGURE.spawnsPerSecond,
      `\`bash -c true\` spawns per second, ${cores} loops at once (one per core), around the best level`,
      best.spawnsPerSecond,
      "per s",
      "higher",
    );
    book.add(FIGURE.concurrencyBestAt, "the concurrency of the best rate", best.concurrent, "count", "higher");
    book.add(FIGURE.concurrencyBusyCores, "cores busy at the best rate (the whole machine)", best.busyCores, "cores");
    book.add(FIGURE.concurrencyWorstTail, "an interaction's p99 ÷ p50, the worst level", worstTail.p99 / worstTail.p50, "×");
    book.add(FIGURE.concurrencyWorstTailAt, "the concurrency of the worst tail", worstTail.concurrent, "count");
    const slowestHealth = levels.reduce((a, b) => (b.healthMax > a.healthMax ? b : a));
    book.add(FIGURE.concurrencyBestEmulatorCores, "the emulator's cores at the best rate", best.emulatorCores, "cores");
    book.add(FIGURE.concurrencyBestSandboxesCores, "the sandboxes' cores at the best rate (every container)", best.sandboxesCores, "cores");
    book.add(
      FIGURE.concurrencyBestExecutorsCores,
      "of the sandboxes' cores at the best rate, the executors' own (without their commands)",
      best.executorsCores,
      "cores",
    );
    book.add(FIGURE.concurrencyBestEngineCores, "the engine's cores at the best rate (daemons and shims)", best.engineCores, "cores");
    book.add(FIGURE.concurrencyBestBenchCores, "this benchmark's own cores at the best rate (its client)", best.benchCores, "cores");
    book.add(FIGURE.concurrencyWorstTailEmulatorCores, "the emulator's cores at the worst tail", worstTail.emulatorCores, "cores");
    book.add(FIGURE.concurrencyWorstTailBusyCores, "the machine's busy cores at the worst tail", worstTail.busyCores, "cores");
    book.add(FIGURE.concurrencyHealthAt, "the concurrency of the slowest /health", slowestHealth.concurrent, "count");
    book.add(FIGURE.concurrencyHealthEmulatorCores, "the emulator's cores at the slowest /health", slowestHealth.emulatorCores, "cores");
    book.add(
      FIGURE.concurrencyHealthEngineMax,
      "the engine's answer to /health's probe at the slowest /health, the slowest",
      slowestHealth.engineProbeMax,
      "ms",
    );
    book.add(
      FIGURE.concurrencyHealthCoreWait,
      "the emulator's event loop waiting for a core during the slowest /health (its schedstat)",
      slowestHealth.healthMaxCoreWait,
      "ms",
    );
    book.add(
      FIGURE.concurrencyHealthProberWait,
      "the prober's own thread waiting for a core during the slowest /health (its schedstat)",
      slowestHealth.healthMaxProberWait,
      "ms",
    );
    book.add(FIGURE.concurrencyHealthBusyCores, "the machine's busy cores at the slowest /health", slowestHealth.busyCores, "cores");
    book.add(
      FIGURE.concurrencyHealthMax,
      "/health under concurrency, the slowest",
      Math.max(...levels.map((level) => level.healthMax)),
      "ms",
    );
    book.add(
      FIGURE.concurrencyHealthP99,
      "/health under concurrency, p99 of the worst level",
      Math.max(...levels.map((level) => level.healthP99)),
      "ms",
    );
    return levels;
  } finally {
    const api = emulator.client("bench-concurrency");
    await inBatches(environments, 8, (id) =>
      withDeadline(api.request("DELETE", `/v1beta/environments/${id}`), DEADLINE_MS, "deleting an environment").catch(() => undefined),
    );
    await emulator.destroy();
  }
}

/** This process's own CPU so far (ms): the benchmark's client, without the emulator it started. */
function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
