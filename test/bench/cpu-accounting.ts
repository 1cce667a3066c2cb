// Where the CPU of a stretch of work goes, on this machine: the emulator's process, one sandbox
// container, and the Docker engine (dockerd, containerd and the container shims). The profile that says
// what bounds a goal the emulator cannot reach (docs/benchmarks.md#what-bounds-a-goal): a tool call's
// wall time is these three taking turns on two cores.
//
// Linux only: /proc for processes, the engine's stats API for a container's cgroup. Reaped children
// count with their parent (cutime, cstime), so a short-lived `runc` is the engine's and a command the
// executor spawned is the sandbox's.

import fs from "node:fs";
import type Docker from "dockerode";

/** Linux reports process times in clock ticks; 100 per second on every architecture Docker runs on. */
const TICKS_PER_SECOND = 100;
export const ENGINE_PROCESSES = new Set(["dockerd", "containerd", "containerd-shim", "containerd-shim-runc-v2"]);

export interface CpuReading {
  emulatorMs: number;
  sandboxMs: number;
  /** Of sandboxMs, the executor's own processes (executorCpuMs); the rest is the commands they made. */
  executorMs: number;
  engineMs: number;
}

/** CPU time (ms) of a process with its reaped children; 0 when it is gone. */
export function processCpuMs(pid: number): number {
  const stat = readStat(pid);
  return stat ? stat.cpuMs : 0;
}

/**
 * CPU time (ms) of the Docker engine (as processCpuMs): its daemons, and the shims of every container,
 * or, given `shimPid`, of that one container only (other work's containers have shims of their own);
 * from `processes`, a reading of /proc taken for other figures too.
 */
export function engineCpuMs(shimPid?: number, processes = readProcesses()): number {
  let total = 0;
  for (const [pid, stat] of processes ?? []) {
    if (!ENGINE_PROCESSES.has(stat.name)) continue;
    if (shimPid !== undefined && stat.name.startsWith("containerd-shim") && pid !== shimPid) continue;
    total += stat.cpuMs;
  }
  return total;
}

/** CPU time (ms) of everything in a container's cgroup, as the engine counts it. */
export async function containerCpuMs(docker: Docker, containerId: string): Promise<number> {
  const stats = (await docker.getContainer(containerId).stats({ stream: false })) as {
    cpu_stats?: { cpu_usage?: { total_usage?: number } };
  };
  const nanoseconds = stats.cpu_stats?.cpu_usage?.total_usage;
  if (typeof nanoseconds !== "number") throw new Error(`the engine gave no CPU usage for container ${containerId}`);
  return nanoseconds / 1e6;
}

/** The executor's processes show its binary's name, cut to the 15 characters a process name keeps. */
const EXECUTOR_PROCESS_NAME = "sandbox-executor".slice(0, 15);

/**
 * CPU time (ms) of the executor's own processes in a container (the keep-alive, each channel's executor,
 * their file workers), without the commands they started: the processes under the container's first one
 * that run the executor's binary, each without its reaped children. 0 when the container is not running,
 * or where the host does not see a container's processes as its own (gVisor's sandboxes).
 */
export function executorCpuMs(initPid: number, processes = readProcesses()): number {
  const children = new Map<number, number[]>();
  const stats = processes ?? new Map<number, ProcessStat>();
  for (const [pid, stat] of stats) {
    const siblings = children.get(stat.parentPid);
    if (siblings) siblings.push(pid);
    else children.set(stat.parentPid, [pid]);
  }
  let total = 0;
  const pending = [...(children.get(initPid) ?? [])];
  for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
    const stat = stats.get(pid);
    if (stat?.name === EXECUTOR_PROCESS_NAME) total += stat.ownCpuMs;
    pending.push(...(children.get(pid) ?? []));
  }
  return total;
}

/**
 * CPU time (ms) of every executor process on the machine (in every sandbox: keep-alives, executors, file
 * workers), each without the commands it started and reaped. 0 where the host does not see them (gVisor).
 */
export function executorsCpuMs(processes = readProcesses()): number {
  let total = 0;
  for (const stat of processes?.values() ?? []) if (stat.name === EXECUTOR_PROCESS_NAME) total += stat.ownCpuMs;
  return total;
}

/**
 * A reading now: the emulator (pid), the sandbox (container; of it, the executor's own processes) and the
 * engine (its daemons and that container's shim).
 */
export async function readCpu(docker: Docker, emulatorPid: number, containerId: string): Promise<CpuReading> {
  const initPid = (await docker.getContainer(containerId).inspect()).State.Pid;
  const sandboxMs = await containerCpuMs(docker, containerId);
  // One reading of /proc for the executor's processes and the engine's.
  const processes = readProcesses();
  const executorMs = initPid > 0 ? executorCpuMs(initPid, processes) : 0;
  // The container's shim: the parent of its first process.
  const shim = initPid > 0 ? processes?.get(initPid)?.parentPid : undefined;
  return { emulatorMs: processCpuMs(emulatorPid), sandboxMs, executorMs, engineMs: engineCpuMs(shim, processes) };
}

/** What each used between two readings, per unit of work. */
export function cpuPerUnit(before: CpuReading, after: CpuReading, units: number): CpuReading {
  return {
    emulatorMs: (after.emulatorMs - before.emulatorMs) / units,
    sandboxMs: (after.sandboxMs - before.sandboxMs) / units,
    executorMs: (after.executorMs - before.executorMs) / units,
    engineMs: (after.engineMs - before.engineMs) / units,
  };
}

/**
 * CPU time (ms) of one thread of a process, without its children; 0 when it is gone. A Node.js process's
 * event loop runs on the thread whose id is the process's: the rest are V8's and libuv's helpers.
 */
export function threadCpuMs(pid: number, tid = pid): number {
  const stat = readStat(pid, tid);
  return stat ? stat.ownCpuMs : 0;
}

/** A process's (or thread's) line of /proc: its name, its parent, when it started (clock ticks since boot), its CPU (ms) with and without its reaped children. */
export interface ProcessStat {
  name: string;
  parentPid: number;
  startTicks: number;
  cpuMs: number;
  ownCpuMs: number;
}

/** Every process's line of /proc, by pid; null where /proc cannot be read. */
export function readProcesses(): Map<number, ProcessStat> | null {
  let entries: string[];
  try {
    entries = fs.readdirSync("/proc");
  } catch {
    return null;
  }
  const all = new Map<number, ProcessStat>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat) all.set(Number(entry), stat);
  }
  return all.size > 0 ? all : null;
}

function readStat(pid: number, tid?: number): ProcessStat | null {
  let text: string;
  try {
    text = fs.readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, "utf8");
  } catch {
    return null;
  }
  // "pid (comm) state …": comm may hold spaces and parentheses, so split after its last ")".
  const close = text.lastIndexOf(")");
  const name = text.slice(text.indexOf("(") + 1, close);
  const fields = text.slice(close + 2).split(" ");
  // From the state (field 3): the parent is field 4; utime, stime, cutime, cstime are fields 14 to 17;
  // the start time is field 22.
  const ticks = (indexes: number[]) => indexes.reduce((sum, index) => sum + Number(fields[index] ?? 0), 0);
  return {
    name,
    parentPid: Number(fields[1]),
    startTicks: Number(fields[19]),
    cpuMs: (ticks([11, 12, 13, 14]) * 1000) / TICKS_PER_SECOND,
    ownCpuMs: (ticks([11, 12]) * 1000) / TICKS_PER_SECOND,
  };
}

/** The cores (0 … cores, on average) each side used over a watch; `sandboxes` null where the cgroup cannot be read. */
export interface CoresUsed {
  emulator: number;
  sandboxes: number | null;
  /** Of the sandboxes', the executors' own processes (without the commands they started). */
  executors: number;
  engine: number;
}

/**
 * Starts a watch of where the machine's CPU goes: the emulator's process (with its reaped children), every
 * container (the engine's CPU cgroup: the sandboxes) and the engine's daemons with the containers' shims.
 * The function it returns says how many cores each used on average since.
 */
export function coresUsedWatch(emulatorPid: number): () => CoresUsed {
  const started = performance.now();
  const emulator = processCpuMs(emulatorPid);
  const sandboxes = containersCpuMs();
  // One reading of /proc for the executors' processes and the engine's, at each end.
  const processes = readProcesses();
  const executors = executorsCpuMs(processes);
  const engine = engineCpuMs(undefined, processes);
  return () => {
    const elapsedMs = performance.now() - started;
    const sandboxesNow = containersCpuMs();
    const processesNow = readProcesses();
    return {
      emulator: (processCpuMs(emulatorPid) - emulator) / elapsedMs,
      sandboxes: sandboxes === null || sandboxesNow === null ? null : (sandboxesNow - sandboxes) / elapsedMs,
      executors: (executorsCpuMs(processesNow) - executors) / elapsedMs,
      engine: (engineCpuMs(undefined, processesNow) - engine) / elapsedMs,
    };
  };
}

/** All containers' CPU (ms), from the engine's parent cgroup, which keeps what removed containers used. */
export function containersCpuMs(): number | null {
  try {
    return Number(fs.readFileSync("/sys/fs/cgroup/cpuacct/docker/cpuacct.usage", "utf8")) / 1e6;
  } catch {
    // cgroup v2: the same in cpu.stat, in microseconds.
  }
  try {
    const stat = fs.readFileSync("/sys/fs/cgroup/docker/cpu.stat", "utf8");
    const usage = /^usage_usec (\d+)$/m.exec(stat);
    return usage ? Number(usage[1]) / 1e3 : null;
  } catch {
    return null;
  }
}
