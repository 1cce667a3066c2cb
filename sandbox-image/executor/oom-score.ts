// Under memory pressure the kernel's OOM killer takes the process with the highest badness in the
// container's cgroup: its memory, plus oom_score_adj (-1000…1000) scaled to the cgroup's limit. Left
// alone, every process has the same adjustment and the executor (a Node.js process of some 50 MiB) is
// often the largest: a few smaller processes of the sandbox's own filling the memory take the
// executor down, and the tool call with it.
//
// So the sandbox user's commands start at the highest adjustment, 1000: whatever they allocate, one of
// them is chosen before the executor, its file worker, the hooks or the container's keep-alive. A
// child inherits its parent's adjustment, and its floor: the lowest value it may set again without
// CAP_SYS_RESOURCE, which is whatever a writer holding that capability last set. So around the
// synchronous spawn the executor (which holds it) sets its own adjustment to 1000, pinning the floor
// there for the child, and sets it back right after. Sandbox code can then neither lower its
// processes' adjustment nor escape it by forking (docs/security.md#memory). The price: for the moment
// of a spawn (a fork and an exec, or longer if the machine deschedules us right then) the executor
// itself stands at 1000; setting the child's adjustment after the spawn instead would leave the child
// a moment to fork processes that keep the executor's.
//
// Where the engine cannot grant CAP_SYS_RESOURCE (the Docker runtime says so at start) the same raise
// still works, raising being always allowed, but the floor stays where it was: sandbox code could then
// lower its processes back to the executor's level, and the kernel would compare sizes again.

import { openSync, readFileSync, writeSync } from "node:fs";
import { logDiagnostic } from "./diagnostics.js";

const OOM_SCORE_ADJ = "/proc/self/oom_score_adj";
export const SANDBOX_OOM_SCORE_ADJ = 1000;

export class OomScore {
  /** Kept open: a write through it costs a few microseconds, an open-write-close several times that. */
  private readonly fd: number | null = openAdjustment();
  private readonly base: number | null = this.fd === null ? null : probe(this.fd);

  get enabled(): boolean {
    return this.base !== null;
  }

  /** Runs the synchronous `spawn` with our adjustment at SANDBOX_OOM_SCORE_ADJ, so the child starts there. */
  raisedFor<T>(spawn: () => T): T {
    if (this.fd === null || this.base === null) return spawn();
    const raised = write(this.fd, SANDBOX_OOM_SCORE_ADJ);
    try {
      return spawn();
    } finally {
      if (raised && !write(this.fd, this.base)) logDiagnostic(`could not lower oom_score_adj back to ${this.base}`);
    }
  }
}

function openAdjustment(): number | null {
  try {
    return openSync(OOM_SCORE_ADJ, "w");
  } catch {
    return null; // no /proc (not Linux)
  }
}

function probe(fd: number): number | null {
  let base: number;
  try {
    base = Number(readFileSync(OOM_SCORE_ADJ, "utf8").trim());
  } catch {
    return null;
  }
  if (!Number.isInteger(base) || base >= SANDBOX_OOM_SCORE_ADJ) return null;
  // One step up and back: if lowering is refused, we are left one point higher, which changes nothing.
  if (!write(fd, base + 1)) return null;
  if (!write(fd, base)) {
    logDiagnostic(`oom_score_adj cannot be lowered back to ${base}; commands keep the executor's adjustment`);
    return null;
  }
  return base;
}

/** The kernel reads each write whole, whatever the file offset. */
function write(fd: number, value: number): boolean {
  try {
    writeSync(fd, String(value));
    return true;
  } catch {
    return false;
  }
}
