// Every process of one sandbox identity, wherever it came from: a command's tree, a job it left running
// in the background, a daemon that left its session. The disk guard stops them all when the sandbox's
// files pass its limit (disk-guard.ts).

import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { logDiagnostic } from "./diagnostics.js";
import { actingAs, type Identity } from "./identities.js";
import { signal } from "./process-tree.js";

const MAX_KILL_ROUNDS = 5;
/** Lets SIGKILLed processes die (and stopped ones finish a pending fork) before looking again. */
const KILL_ROUND_PAUSE_MS = 10;

/** The live processes whose real uid is the identity's (zombies, which hold nothing, left out). */
export function processesOf(identity: Identity): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let status: string;
    try {
      status = readFileSync(`/proc/${name}/status`, "latin1");
    } catch {
      continue; // exited since readdir
    }
    const realUid = /^Uid:\s+(\d+)/m.exec(status)?.[1];
    const state = /^State:\s+(\S)/m.exec(status)?.[1];
    if (Number(realUid) === identity.uid && state !== "Z" && state !== "X") pids.push(Number(name));
  }
  return pids;
}

/**
 * Stops, then kills, every process of `identity`, round after round until none is left: a stopped
 * process cannot fork, and one caught inside fork() completes it, its child caught by the next round.
 * As that user, who may signal its own processes (root without CAP_KILL may not).
 */
export async function killAllOf(identity: Identity): Promise<void> {
  for (let round = 0; round < MAX_KILL_ROUNDS; round++) {
    const found = actingAs(identity, () => {
      const pids = processesOf(identity);
      for (const pid of pids) signal(pid, "SIGSTOP");
      for (const pid of pids) signal(pid, "SIGKILL");
      return pids.length;
    });
    if (found === 0) return;
    await sleep(KILL_ROUND_PAUSE_MS);
  }
  logDiagnostic(`processes of uid ${identity.uid} survived ${MAX_KILL_ROUNDS} kill rounds`);
}
