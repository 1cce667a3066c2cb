// Killing everything an exec started, not just the process we spawned.
//
// A command can outlive its deadline through children that background themselves (`sleep 100 &`),
// start a new process group, or call setsid() and leave our session. Killing the spawned pid's
// group is not enough, and walking the ppid tree is not enough either: once a parent dies its
// children are reparented to init and the link is gone. So every exec carries a random marker in its
// environment (inherited by everything it starts, and visible in /proc/<pid>/environ even after the
// process changes its own variables), and a kill gathers, from /proc:
//   - members of the spawned process's group and session (it was spawned detached: pgid = sid = pid),
//   - processes whose initial environment carries the marker,
//   - descendants of any of those through the ppid links.
// Matches are first SIGSTOPped, round after round until a scan finds nothing new: a stopped process
// cannot fork, so the tree holds still (and ppid links stay intact) while we look. Then all get SIGKILL.
//
// What still escapes: a process started with a scrubbed environment (`env -i`) that also left the
// session and whose parent died before the kill. Only the container boundary catches that one.
//
// The /proc scan is synchronous on purpose: it is a few hundred reads of tiny in-memory files, a few
// milliseconds in all. Done through the async API, every read queues on libuv's four-thread pool, and
// concurrent kills starve each other (measured: 20 simultaneous timeouts were reported after 1.8 s instead of 0.2 s).

import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { logDiagnostic } from "./diagnostics.js";
import { actingAs, type Identity } from "./identities.js";

/** Bounds the freeze loop against a fork bomb outrunning our scans. */
const MAX_FREEZE_ROUNDS = 20;
const MAX_KILL_ROUNDS = 5;
/** Lets SIGKILLed processes die (and stopped ones finish a pending fork) before looking again. */
const KILL_ROUND_PAUSE_MS = 10;

interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
  zombie: boolean;
  marked: boolean;
}

export async function killProcessTree(rootPid: number, markerEntry: string, owner?: Identity): Promise<void> {
  const marker = Buffer.from(`${markerEntry}\0`);
  // As the tree's owner: root without CAP_SYS_PTRACE and CAP_KILL can neither read another user's
  // /proc/<pid>/environ nor signal its processes (identities.ts).
  actingAs(owner, () => freezeThenKill(rootPid, marker));
  // A process that was inside fork() when stopped completes that fork; its new child is caught here.
  for (let round = 0; round < MAX_KILL_ROUNDS; round++) {
    await sleep(KILL_ROUND_PAUSE_MS);
    const survivors = actingAs(owner, () => {
      const found = findTreeMembers(rootPid, marker);
      for (const pid of found) signal(pid, "SIGKILL");
      return found.length;
    });
    if (survivors === 0) return;
  }
  logDiagnostic(`process tree of ${rootPid} survived ${MAX_KILL_ROUNDS} kill rounds`);
}

function freezeThenKill(rootPid: number, marker: Buffer): void {
  const frozen = new Set<number>();
  try {
    signal(-rootPid, "SIGSTOP");
    for (let round = 0; round < MAX_FREEZE_ROUNDS; round++) {
      const members = findTreeMembers(rootPid, marker);
      let added = 0;
      for (const pid of members) {
        if (frozen.has(pid)) continue;
        frozen.add(pid);
        signal(pid, "SIGSTOP");
        added++;
      }
      if (added === 0) break;
      if (round === MAX_FREEZE_ROUNDS - 1) logDiagnostic(`process tree of ${rootPid} still growing; killing what was found`);
    }
  } finally {
    // Even if a scan failed, nothing we stopped may be left stopped.
    signal(-rootPid, "SIGKILL");
    for (const pid of frozen) signal(pid, "SIGKILL");
  }
}

function findTreeMembers(rootPid: number, marker: Buffer): number[] {
  const processes = scanProcesses(marker);
  const members = new Set<number>();
  for (const info of processes) {
    if (info.pid === rootPid || info.pgid === rootPid || info.sid === rootPid || info.marked) members.add(info.pid);
  }
  // Descendants through ppid links, to a fixed point (the scan order says nothing about tree order).
  for (let grew = true; grew; ) {
    grew = false;
    for (const info of processes) {
      if (!members.has(info.pid) && members.has(info.ppid)) {
        members.add(info.pid);
        grew = true;
      }
    }
  }
  members.delete(process.pid);
  const zombies = new Set(processes.filter((info) => info.zombie).map((info) => info.pid));
  return [...members].filter((pid) => !zombies.has(pid));
}

function scanProcesses(marker: Buffer): ProcessInfo[] {
  const pids = readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
  const infos: ProcessInfo[] = [];
  for (const pid of pids) {
    const info = readProcess(pid, marker);
    if (info) infos.push(info);
  }
  return infos;
}

function readProcess(pid: number, marker: Buffer): ProcessInfo | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "latin1");
  } catch {
    return null; // exited since readdir
  }
  // "pid (comm) state ppid pgrp session ..." where comm may itself contain spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const info: ProcessInfo = {
    pid,
    ppid: Number(fields[1]),
    pgid: Number(fields[2]),
    sid: Number(fields[3]),
    zombie: fields[0] === "Z" || fields[0] === "X",
    marked: false,
  };
  try {
    info.marked = readFileSync(`/proc/${pid}/environ`).includes(marker);
  } catch {
    // Another user's process (EACCES) or gone: not ours either way.
  }
  return info;
}

/** Sends a signal, ignoring a process that is gone or not ours to signal. */
export function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ESRCH" && code !== "EPERM") logDiagnostic(`kill(${pid}, ${name}) failed: ${String(error)}`);
  }
}
