// How much CPU other work than this run used meanwhile (the run's "busy or idle", docs/benchmarks.md),
// counted from the processes that are not the run's: not this process or its descendants (the emulators
// it starts, the `docker` commands it runs), not the engine's (its daemons, the containers' shims and
// what runs under them: every sandbox), not the kernel's own threads, and not the first process, which
// reaps the shims of removed containers. The run used to take its own CPU from the machine's busy time
// instead; what the engine's removed shims had used (runc's create, start and delete of every
// container), and the kernel's work for them, then read as other work: 0.54 of a core on an idle
// machine in a full run.
//
// Linux only (/proc). A process is compared with itself by its pid and start time; one born since the
// first reading counts in full; one that ended meanwhile counts in its parent's reaped time (with what
// it had used before the first reading), if its parent is other work and still there.

import { ENGINE_PROCESSES, type ProcessStat, readProcesses } from "./cpu-accounting.js";

const KERNEL_THREADS_PARENT = 2;

/** Of `all`, the processes of other work: each with its CPU so far (ms, with its reaped children) and its start. */
export function otherWork(all: Map<number, ProcessStat>, runPid: number): Map<number, ProcessStat> {
  const verdict = new Map<number, boolean>();
  const isOther = (pid: number): boolean => {
    const known = verdict.get(pid);
    if (known !== undefined) return known;
    const stat = all.get(pid);
    let other: boolean;
    if (pid <= KERNEL_THREADS_PARENT || pid === runPid || !stat) other = false;
    else if (ENGINE_PROCESSES.has(stat.name) || stat.parentPid === KERNEL_THREADS_PARENT) other = false;
    else if (stat.parentPid <= 1) other = true;
    else other = isOther(stat.parentPid);
    verdict.set(pid, other);
    return other;
  };
  const others = new Map<number, ProcessStat>();
  for (const [pid, stat] of all) if (isOther(pid)) others.set(pid, stat);
  return others;
}

/** Other work's CPU (ms) between two readings of otherWork. */
export function otherWorkCpuMs(before: Map<number, ProcessStat>, after: Map<number, ProcessStat>): number {
  let total = 0;
  for (const [pid, now] of after) {
    const then = before.get(pid);
    total += then && then.startTicks === now.startTicks ? Math.max(0, now.cpuMs - then.cpuMs) : now.cpuMs;
  }
  return total;
}

/**
 * Starts a watch of other work's CPU; the function it returns says how many cores it used on average
 * since (undefined where /proc cannot be read).
 */
export function otherWorkWatch(runPid = process.pid): () => number | undefined {
  const first = readProcesses();
  const started = performance.now();
  return () => {
    const last = readProcesses();
    if (!first || !last) return undefined;
    return otherWorkCpuMs(otherWork(first, runPid), otherWork(last, runPid)) / (performance.now() - started);
  };
}
