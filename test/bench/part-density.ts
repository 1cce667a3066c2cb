// Density (issue 31): as many live idle environments as the machine holds, up to `target`
// (`--density N`), created four at a time, each bounded; the run stops earlier at the first bound it
// meets, and says which: memory (less than DENSITY_MEMORY_RESERVE_MIB left available to the machine),
// the kernel's tasks (pid_max, threads-max: every thread of every shim and sandbox counts), file
// descriptors (the emulator's, the engine's daemons'), the engine (a create that fails or exceeds its
// deadline) or the emulator (a refusal). Measured: the emulator's memory per environment (after a full
// garbage collection, memory-probe.ts), the machine's, the cores the most live take while idle (and
// whose: the engine's, the sandboxes', the emulator's), and a tool call at 1 live against the most.
// Everything is deleted afterwards, four… eight at a time; the run's final sweep removes what is left.

import { inBatches, withDeadline } from "./bounded.js";
import { coresUsedWatch } from "./cpu-accounting.js";
import type { EmulatorUnderTest } from "./emulator-under-test.js";
import { FIGURE, type FigureBook } from "./figures.js";
import { DENSITY_MEMORY_RESERVE_MIB, DENSITY_STOP, DENSITY_TASK_RESERVE_SHARE } from "./goals-scale.js";
import { createEnvironment, perCallCost } from "./interaction-measures.js";
import {
  busyCoresWatch,
  descriptorLimitOf,
  descriptorsOf,
  memoryAvailableMiB,
  taskLimit,
  tasksNow,
  untilCoresQuiet,
} from "./machine-limits.js";
import { pidsOf } from "./engine-pids.js";

const PARALLEL = 4;
const DEADLINE_MS = 60_000;
/**
 * The share of the kernel's tasks left free: the machine is shared, and a machine out of tasks fails
 * every fork on it, not only this run's (each environment holds about 30: its shim's threads and the
 * sandbox's processes' threads).
 */
const TASK_RESERVE = DENSITY_TASK_RESERVE_SHARE;
const DESCRIPTOR_MARGIN = 200;
const PER_CALL_RUNS = 6;
/** Live environments at which the emulator's memory is first read. */
const BASELINE = 51;
/** How long the most live environments are watched idle, before the tool calls among them. */
const IDLE_WATCH_MS = 5000;

/**
 * What idle environments cost the machine's cores (0 … cores, averaged over IDLE_WATCH_MS, nothing
 * asked of them): all of it, the engine's daemons with the containers' shims, every container's cgroup,
 * and the emulator's process. The rest is other work (the kernel's, this benchmark's, other processes').
 */
async function idleCores(emulatorPid: number): Promise<{ busy: number; engine: number; sandboxes: number; emulator: number }> {
  const busy = busyCoresWatch();
  const used = coresUsedWatch(emulatorPid);
  await new Promise((resolve) => setTimeout(resolve, IDLE_WATCH_MS));
  const { emulator, sandboxes, engine } = used();
  // Unread, the sandboxes' figure is left out (not a number), and the bound that needs it.
  return { busy: busy(), engine, sandboxes: sandboxes ?? Number.NaN, emulator };
}

export async function densityPart(
  book: FigureBook,
  notes: string[],
  start: (settings: Record<string, string>, options?: { memoryProbe?: boolean }) => Promise<EmulatorUnderTest>,
  target: number,
  progress: (line: string) => void,
): Promise<void> {
  const emulator = await start(
    { EMULATOR_MAX_ENVIRONMENTS: String(target + 5), EMULATOR_MAX_ENVIRONMENTS_PER_KEY: String(target + 5) },
    { memoryProbe: true },
  );
  const others: string[] = [];
  const api = emulator.client("bench-density");
  try {
    const measured = await createEnvironment(api);
    // The pool's refill and the new sandbox's own start are not the call's work.
    await emulator.poolSettled(60_000);
    await untilCoresQuiet();
    progress(`density: a tool call with 1 live environment…`);
    const atOne = await perCallCost(api, measured, PER_CALL_RUNS, "`true`, 1 live environment");
    // The emulator's memory is read at BASELINE live, not at 1: until then its RSS still holds what its
    // start-up allocated, which the allocator hands back during the first creations (part-series.ts).
    let before = await emulator.memoryAfterCollection();
    let baselineLive = 1;
    const availableBefore = memoryAvailableMiB();
    const limitOfTasks = taskLimit();
    const watched = [
      { name: "the emulator", pid: emulator.process.pid },
      ...pidsOf(["dockerd", "containerd"]).map((one) => ({ name: one.name, pid: one.pid })),
    ].map((one) => ({ ...one, limit: descriptorLimitOf(one.pid) }));

    let stoppedBy: number = DENSITY_STOP.target;
    let why = "";
    const started = Date.now();
    progress(`density: up to ${target} live environments, ${PARALLEL} at a time…`);
    while (others.length + 1 < target) {
      if (memoryAvailableMiB() < DENSITY_MEMORY_RESERVE_MIB) {
        stoppedBy = DENSITY_STOP.memory;
        why = `${memoryAvailableMiB().toFixed(0)} MiB available, under the ${DENSITY_MEMORY_RESERVE_MIB} MiB the run leaves to the machine`;
        break;
      }
      if (tasksNow() > (1 - TASK_RESERVE) * limitOfTasks) {
        stoppedBy = DENSITY_STOP.tasks;
        why = `${tasksNow()} tasks on the machine, the kernel allows ${limitOfTasks} and the run leaves a tenth of them to the machine`;
        break;
      }
      const crowded = watched.find((one) => descriptorsOf(one.pid) + DESCRIPTOR_MARGIN > one.limit);
      if (crowded) {
        stoppedBy = DENSITY_STOP.descriptors;
        why = `${crowded.name} holds ${descriptorsOf(crowded.pid)} file descriptors of its ${crowded.limit}`;
        break;
      }
      const batch = Math.min(PARALLEL, target - 1 - others.length);
      const outcomes = await Promise.allSettled(
        Array.from({ length: batch }, () => withDeadline(createEnvironment(api), DEADLINE_MS, "creating an environment")),
      );
      for (const outcome of outcomes) if (outcome.status === "fulfilled") others.push(outcome.value);
      if (baselineLive === 1 && others.length + 1 >= BASELINE && others.length + 1 < target) {
        before = await emulator.memoryAfterCollection();
        baselineLive = others.length + 1;
      }
      const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === "rejected");
      if (failed) {
        const message = String(failed.reason instanceof Error ? failed.reason.message : failed.reason);
        stoppedBy = /HTTP 4\d\d/.test(message) ? DENSITY_STOP.emulator : DENSITY_STOP.engine;
        why = message.slice(0, 400);
        break;
      }
      if ((others.length + 1) % 50 < PARALLEL)
        progress(
          `  ${others.length + 1} live · ${memoryAvailableMiB().toFixed(0)} MiB available · ${tasksNow()} tasks · emulator fds ${descriptorsOf(emulator.process.pid)} · ${((Date.now() - started) / 1000).toFixed(0)} s`,
        );
    }
    const reached = others.length + 1;
    const creationSeconds = (Date.now() - started) / 1000;
    const after = await emulator.memoryAfterCollection();
    const availableAfter = memoryAvailableMiB();
    const tasks = tasksNow();
    const fds = descriptorsOf(emulator.process.pid);

    progress(`density: ${reached} live environments idle for ${IDLE_WATCH_MS / 1000} s…`);
    const idle = await idleCores(emulator.process.pid);
    progress(`density: a tool call with ${reached} live environments…`);
    const busy = busyCoresWatch();
    const atMost = await perCallCost(api, measured, PER_CALL_RUNS, `\`true\`, ${reached} live environments`);
    const busyCores = busy();

    book.addTable(`Tool calls with 1 and ${reached} live environments (1 call vs 41, in turns)`, [
      atOne.few,
      atOne.many,
      atMost.few,
      atMost.many,
    ]);
    const perEnvironment = reached > 1 ? (availableBefore - availableAfter) / (reached - 1) : Number.NaN;
    const grown = reached - baselineLive;
    const rssPerEnvironment = grown > 0 ? ((after.rssMiB - before.rssMiB) * 1024) / grown : Number.NaN;
    const heapPerEnvironment = grown > 0 ? ((after.heapUsedMiB - before.heapUsedMiB) * 1024) / grown : Number.NaN;
    book.addNote(`Density: ${reached} live idle environments of ${target} asked`, [
      `  stopped by: ${stoppedBy === DENSITY_STOP.target ? "the target (--density)" : Object.entries(DENSITY_STOP).find(([, code]) => code === stoppedBy)![0]}${why ? `: ${why}` : ""}`,
      `  created in ${creationSeconds.toFixed(0)} s (${((reached - 1) / creationSeconds).toFixed(1)}/s, ${PARALLEL} at a time)`,
      `  the emulator, ${baselineLive} → ${reached} live (after a full GC each): RSS ${before.rssMiB.toFixed(1)} → ${after.rssMiB.toFixed(1)} MiB, ${rssPerEnvironment.toFixed(1)} KiB per environment; JS heap ${before.heapUsedMiB.toFixed(1)} → ${after.heapUsedMiB.toFixed(1)} MiB, ${heapPerEnvironment.toFixed(1)} KiB per environment`,
      `  the machine's memory available ${availableBefore.toFixed(0)} → ${availableAfter.toFixed(0)} MiB: ${perEnvironment.toFixed(1)} MiB per environment (other work on the machine moves this too)`,
      `  tasks ${tasks} of the kernel's ${limitOfTasks}; the emulator's descriptors ${fds} of ${watched[0]!.limit}; ${watched
        .slice(1)
        .map((one) => `${one.name} ${descriptorsOf(one.pid)} of ${one.limit}`)
        .join(", ")}`,
      `  idle, the machine's cores ${idle.busy.toFixed(2)} busy: the engine ${idle.engine.toFixed(3)} (its daemons and the containers' shims), the sandboxes ${idle.sandboxes.toFixed(3)}, the emulator ${idle.emulator.toFixed(3)}`,
      `  a tool call: ${atOne.perUnitMs.toFixed(2)} ms with 1 live, ${atMost.perUnitMs.toFixed(2)} ms with ${reached} (cores busy ${busyCores.toFixed(2)} meanwhile)`,
    ]);
    if (why) notes.push(`density stopped at ${reached} live environments: ${why}`);
    book.add(FIGURE.densityTarget, "density: live environments asked (--density)", target, "count", "higher");
    book.add(FIGURE.densityReached, "density: live idle environments reached", reached, "count", "higher");
    book.add(
      FIGURE.densityStoppedBy,
      "density: what stopped it (0 target, 1 memory, 2 engine, 3 tasks, 4 descriptors, 5 emulator)",
      stoppedBy,
      "code",
    );
    book.add(FIGURE.densityRssPerEnvironment, "density: the emulator's RSS per environment (after a full GC)", rssPerEnvironment, "KiB");
    book.add(
      FIGURE.densityHeapPerEnvironment,
      "density: the emulator's JS heap per environment (after a full GC)",
      heapPerEnvironment,
      "KiB",
    );
    book.add(FIGURE.densityMachinePerEnvironment, "density: the machine's memory per environment (MemAvailable)", perEnvironment, "MiB");
    book.add(FIGURE.densityAvailableAtStop, "density: memory available at the most live", availableAfter, "MiB", "higher");
    book.add(FIGURE.densityTasksAtStop, "density: tasks on the machine at the most live", tasks, "count");
    book.add(FIGURE.densityTaskLimit, "the kernel's task limit (pid_max, threads-max)", limitOfTasks, "count", "higher");
    book.add(FIGURE.densityEmulatorFds, "density: the emulator's file descriptors at the most live", fds, "count");
    book.add(FIGURE.densityEmulatorFdLimit, "the emulator's limit on file descriptors", watched[0]!.limit, "count", "higher");
    book.add(FIGURE.densityCallAt1, "density: a tool call with 1 live environment", atOne.perUnitMs, "ms");
    book.add(FIGURE.densityCallAtMost, "density: a tool call with the most live environments", atMost.perUnitMs, "ms");
    book.add(FIGURE.densityBusyCoresAtMost, "density: cores busy while the calls ran at the most live", busyCores, "cores");
    book.add(FIGURE.densityIdleBusyCores, "density: cores busy at the most live, idle", idle.busy, "cores");
    book.add(FIGURE.densityIdleEngineCores, "density: the engine's cores at the most live, idle", idle.engine, "cores");
    book.add(FIGURE.densityIdleSandboxesCores, "density: the sandboxes' cores at the most live, idle", idle.sandboxes, "cores");
    book.add(FIGURE.densityIdleEmulatorCores, "density: the emulator's cores at the most live, idle", idle.emulator, "cores");
  } finally {
    progress(`density: deleting ${others.length + 1} environments…`);
    await inBatches(others, 8, (id) =>
      withDeadline(api.request("DELETE", `/v1beta/environments/${id}`), DEADLINE_MS, "deleting an environment").catch(() => undefined),
    );
    await emulator.destroy();
  }
}
