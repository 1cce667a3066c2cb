// What a sandbox's memory is: the container's, as `docker stats` counts it (the cgroup's usage less the
// file cache the kernel can drop at once), split as the cgroup splits it, and the resident memory of
// each process in it, read from /proc inside the container. The parsing is pure and unit-tested
// (test/unit/bench-sandbox-memory.test.ts).

import type Docker from "dockerode";
import { HOLD_PORT_FLAG } from "../../sandbox-image/executor/protocol.js";
import { dockerExec } from "./docker-floor.js";

const MIB = 1048576;

export interface ContainerMemory {
  /** usage − inactive file cache: what `docker stats` shows. */
  usedMiB: number;
  /** Anonymous memory: the processes' heaps and stacks (cgroup v2 `anon`, v1 `rss`). */
  anonymousMiB: number;
  /** File pages the kernel cannot drop at once (the binaries and files read; v1 counts tmpfs here too). */
  pageCacheMiB: number;
}

/** The container memory from one reading of the engine's stats (`memory_stats`), cgroup v1 or v2. */
export function containerMemoryOf(memory: { usage?: number; stats?: Record<string, number> }): ContainerMemory {
  const stats = memory.stats ?? {};
  const inactive = stats["inactive_file"] ?? stats["total_inactive_file"] ?? 0;
  const file = stats["file"] ?? stats["total_cache"] ?? stats["cache"] ?? 0;
  const anonymous = stats["anon"] ?? stats["total_rss"] ?? stats["rss"] ?? 0;
  return {
    usedMiB: ((memory.usage ?? Number.NaN) - inactive) / MIB,
    anonymousMiB: anonymous / MIB,
    pageCacheMiB: Math.max(0, file - inactive) / MIB,
  };
}

export async function containerMemory(docker: Docker, id: string): Promise<ContainerMemory> {
  const stats = await docker.getContainer(id).stats({ stream: false, "one-shot": true });
  return containerMemoryOf(stats.memory_stats as { usage?: number; stats?: Record<string, number> });
}

export interface ContainerProcess {
  pid: number;
  argv: string[];
  rssKiB: number;
}

/**
 * Every process of the container but the shell that lists them: for each, its /proc status then its
 * NUL-separated command line. Only `cat`, so any base image's shell can run it.
 */
export const LIST_PROCESSES_SCRIPT =
  'for d in /proc/[0-9]*; do [ "$d" = "/proc/$$" ] && continue; echo "== $d"; cat "$d/status" "$d/cmdline" 2>/dev/null; echo; done';

/** The output of LIST_PROCESSES_SCRIPT as processes. A process gone meanwhile (no status) is left out. */
export function parseProcessList(output: string): ContainerProcess[] {
  const processes: ContainerProcess[] = [];
  for (const block of output.split(/^== /m).slice(1)) {
    const pid = Number(/^\/proc\/(\d+)\n/.exec(block)?.[1]);
    const rss = /^VmRSS:\s+(\d+) kB$/m.exec(block);
    // A status line never holds a NUL; the command line is the line that does.
    const cmdline = block.split("\n").find((line) => line.includes("\0"));
    if (!Number.isInteger(pid) || cmdline === undefined) continue;
    processes.push({ pid, argv: cmdline.split("\0").filter((arg) => arg !== ""), rssKiB: rss ? Number(rss[1]) : 0 });
  }
  return processes;
}

export async function processesInContainer(docker: Docker, id: string): Promise<ContainerProcess[]> {
  return parseProcessList(await dockerExec(docker, id, ["sh", "-c", LIST_PROCESSES_SCRIPT], "0:0"));
}

export type SandboxRole = "executor" | "fileWorker" | "keepAlive" | "init" | "other";

/** Which of a sandbox's own processes this is: the executor, its file worker (the same binary, `--file-worker`), … */
export function roleOf(process: ContainerProcess, executorPath: string): SandboxRole {
  const [program, ...args] = process.argv;
  // The keep-alive: the same binary holding the egress port (`--hold-port`), or `sleep infinity` (gVisor, older sandboxes).
  if (program === executorPath && args[0] === HOLD_PORT_FLAG) return "keepAlive";
  if (program === executorPath) return args.includes("--file-worker") ? "fileWorker" : "executor";
  if (program !== undefined && /(^|\/)sleep$/.test(program) && args[0] === "infinity") return "keepAlive";
  // The engine's init (Init: true), PID 1: tini as docker-init.
  if (process.pid === 1 || (program !== undefined && /(^|\/)(docker-init|tini)$/.test(program))) return "init";
  return "other";
}

/** Resident memory (MiB) per role; a role with no process is 0. */
export function rssByRole(processes: ContainerProcess[], executorPath: string): Record<SandboxRole, number> {
  const sums: Record<SandboxRole, number> = { executor: 0, fileWorker: 0, keepAlive: 0, init: 0, other: 0 };
  for (const process of processes) sums[roleOf(process, executorPath)] += process.rssKiB / 1024;
  return sums;
}

/**
 * The memory of a sandbox that has run nothing yet: its processes listed until the file worker is up
 * (the executor starts it as it starts, and answers a ping before it is), then the container's memory,
 * then each process's RSS. The listing's own shell is gone by the stats reading.
 */
export async function idleSandboxMemory(
  docker: Docker,
  id: string,
  executorPath: string,
): Promise<{ container: ContainerMemory; rss: Record<SandboxRole, number> }> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const processes = await processesInContainer(docker, id);
    if (processes.some((process) => roleOf(process, executorPath) === "fileWorker")) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const container = await containerMemory(docker, id);
  const rss = rssByRole(await processesInContainer(docker, id), executorPath);
  return { container, rss };
}
