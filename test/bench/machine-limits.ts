// What bounds a machine full of sandboxes (issue 31), read from /proc: memory available, the kernel's
// tasks (every thread of every process counts against pid_max), a process's file descriptors, and how
// busy the cores were over a stretch of the run (all work on the machine, not only this run's).

import fs from "node:fs";
import os from "node:os";
import { sleep } from "./bounded.js";

const read = (file: string) => fs.readFileSync(file, "utf8");

/** MemAvailable, MiB. */
export function memoryAvailableMiB(): number {
  const match = /^MemAvailable:\s+(\d+) kB$/m.exec(read("/proc/meminfo"));
  return match ? Number(match[1]) / 1024 : os.freemem() / 1048576;
}

/** Tasks (threads) on the machine now: the denominator of /proc/loadavg's fourth field. */
export function tasksNow(): number {
  return Number(read("/proc/loadavg").split(" ")[3]?.split("/")[1] ?? Number.NaN);
}

/** The kernel's bound on tasks: the lower of pid_max and threads-max. */
export function taskLimit(): number {
  return Math.min(Number(read("/proc/sys/kernel/pid_max")), Number(read("/proc/sys/kernel/threads-max")));
}

export function descriptorsOf(pid: number): number {
  return fs.readdirSync(`/proc/${pid}/fd`).length;
}

/** The soft limit on open files of a process. */
export function descriptorLimitOf(pid: number): number {
  const match = /^Max open files\s+(\d+|unlimited)/m.exec(read(`/proc/${pid}/limits`));
  return match && match[1] !== "unlimited" ? Number(match[1]) : Number.POSITIVE_INFINITY;
}

function busyTicks(): number {
  const line = read("/proc/stat").split("\n")[0] ?? "";
  const [user, nice, system, _idle, _iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  return [user, nice, system, irq, softirq, steal].reduce((sum: number, value) => sum + (value ?? 0), 0);
}

/** Starts a watch; the function it returns says how many cores were busy on average since (0 … cores). */
export function busyCoresWatch(): () => number {
  const ticks = busyTicks();
  const started = performance.now();
  return () => ((busyTicks() - ticks) * 10) / (performance.now() - started);
}

/**
 * Waits until the machine's cores are quiet (under QUIET_CORES busy over QUIET_WINDOW_MS) or QUIET_MAX_MS
 * has passed; how long it waited (ms). New sandboxes go on working after their environments are answered
 * (the engine, the kernel and their own start: the 150 of the concurrency part's last level kept the
 * cores busy for 1–2 s), and a measure taken meanwhile measures that too.
 */
export async function untilCoresQuiet(): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < QUIET_MAX_MS) {
    const busy = busyCoresWatch();
    await sleep(QUIET_WINDOW_MS);
    if (busy() < QUIET_CORES) break;
  }
  return performance.now() - started;
}

const QUIET_CORES = 0.3;
const QUIET_WINDOW_MS = 250;
const QUIET_MAX_MS = 30_000;
