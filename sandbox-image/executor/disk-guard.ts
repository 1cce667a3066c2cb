// The sandbox's disk limit in total, on engines that cannot enforce one (docs/security.md#disk). Where
// Docker has storage quotas the kernel bounds the container's writable layer and this guard is not
// started. Elsewhere (overlay2 on ext4) the kernel bounds each file (RLIMIT_FSIZE) but not their sum,
// so the guard measures what the sandbox's users hold and acts when it passes the limit:
//   - every process of theirs is stopped, the running commands' results saying why;
//   - writes through the executor (write_file, uploads) are refused while the files stay past it;
//   - deleting brings the sandbox back: a measurement under the limit lifts the refusal, and one that
//     finds the files still past it but no larger than before stops nothing (an `rm` is left to run).
// It measures every second or so while something of the sandbox's runs (never more than ~5% of a core:
// the pause is twenty times the last measurement), soon after each command and each write, and not at
// all while the sandbox is idle. What a writer adds between two measurements passes the limit before
// it is caught; each file stays bounded by RLIMIT_FSIZE meanwhile.

import { describeError, logDiagnostic } from "./diagnostics.js";
import { findWritableRoots, measureTrees, openDeletedBytes } from "./disk-measure.js";
import type { Identity } from "./identities.js";
import { processesOf } from "./identity-processes.js";

/** After the executor starts: out of the way of a new sandbox's first requests. */
const FIRST_MEASUREMENT_DELAY_MS = 1000;
const MIN_PAUSE_MS = 1000;
const MAX_PAUSE_MS = 30_000;
/** The pause after a measurement, in measurement durations: the guard's share of a core stays under 1/20. */
const PAUSE_PER_MEASURING = 20;
/**
 * How far past the limit the files may go before the guard acts: the room of the small files every
 * sandbox has (its home folder, hooks, logs), so that one file at exactly the limit is the kernel's to
 * stop (RLIMIT_FSIZE, an exact `EFBIG`), not a reason to stop everything.
 */
export const DISK_GUARD_SLACK_BYTES = 1024 * 1024;
/** After a command or a write: soon, but a burst of small writes is measured once. */
const ACTIVITY_DELAY_MS = 200;

export interface DiskReading {
  /** What the sandbox's users hold: every entry below the writable folders, and deleted files still open. */
  bytes: number;
  limitBytes: number;
}

export interface DiskGuardEvents {
  /** The files passed the limit and grew since the last measurement: stop every writer. */
  overLimit(reading: DiskReading): Promise<void>;
}

export class DiskGuard {
  private roots: string[] | null = null;
  private lastBytes: number | null = null;
  private over = false;
  /**
   * False until the first command or write: the folders to measure are found at the first measurement,
   * and a pooled sandbox gets its sources (new folders among them) after its executor started
   * (docs/environments-and-files.md#the-warm-pool). The first tick still measures at once if something
   * of the sandbox's already runs (left running across an emulator restart).
   */
  private activity = false;
  private measuring = false;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  private nextAt = Number.POSITIVE_INFINITY;
  /** No measurement starts before this (Date.now()): the pause after the last one. */
  private earliestAt = 0;

  constructor(
    private readonly limitBytes: number,
    private readonly identities: readonly Identity[],
    private readonly events: DiskGuardEvents,
  ) {}

  start(): void {
    this.schedule(FIRST_MEASUREMENT_DELAY_MS);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  /** When the last measurement found the files past the limit: what a refused write says. */
  get overLimit(): DiskReading | null {
    return this.over && this.lastBytes !== null ? { bytes: this.lastBytes, limitBytes: this.limitBytes } : null;
  }

  /** A command started or ended, or a file was written: measure soon. */
  noteActivity(): void {
    this.activity = true;
    if (!this.measuring) this.schedule(ACTIVITY_DELAY_MS);
  }

  /** Arms the timer for `delayMs` from now (or the end of the pause), unless it is already due sooner. */
  private schedule(delayMs: number): void {
    if (this.stopped) return;
    const at = Math.max(Date.now() + delayMs, this.earliestAt);
    delayMs = at - Date.now();
    if (this.timer && this.nextAt <= at) return;
    if (this.timer) clearTimeout(this.timer);
    this.nextAt = at;
    this.timer = setTimeout(() => void this.tick(), delayMs);
    this.timer.unref();
  }

  private async tick(): Promise<void> {
    this.timer = null;
    this.nextAt = Number.POSITIVE_INFINITY;
    // Idle: nothing of the sandbox's runs and nothing was written, so nothing can have changed.
    const running = this.identities.some((identity) => processesOf(identity).length > 0);
    if (!this.activity && !running) return;
    this.activity = false;
    this.measuring = true;
    let measuringMs = 0;
    try {
      // Found once, before the first measurement; its cost is not one to pace the measurements by.
      this.roots ??= await findWritableRoots(this.identities);
      const started = performance.now();
      await this.measure(this.roots);
      measuringMs = performance.now() - started;
    } catch (error) {
      logDiagnostic(`disk guard: measuring failed: ${describeError(error)}`);
    } finally {
      this.measuring = false;
    }
    const pauseMs = Math.min(MAX_PAUSE_MS, Math.max(MIN_PAUSE_MS, PAUSE_PER_MEASURING * measuringMs));
    this.earliestAt = Date.now() + pauseMs;
    // While the sandbox runs something, keep measuring; otherwise wait for the next activity.
    if (this.activity || running) this.schedule(0);
  }

  private async measure(roots: readonly string[]): Promise<void> {
    const bytes = await this.total(roots);
    const grew = this.lastBytes === null || bytes > this.lastBytes;
    this.lastBytes = bytes;
    this.over = bytes > this.limitBytes + DISK_GUARD_SLACK_BYTES;
    if (this.over && grew) {
      await this.events.overLimit({ bytes, limitBytes: this.limitBytes });
      // What the stopped writers added while they were being stopped is the new baseline: otherwise the
      // next measurement would find the files "grown" and stop the user's next command (an `rm`) too.
      this.lastBytes = Math.max(bytes, await this.total(roots));
    }
  }

  private async total(roots: readonly string[]): Promise<number> {
    const trees = await measureTrees(roots);
    if (trees.unreadable > 0) logDiagnostic(`disk guard: ${trees.unreadable} folders could not be read and were not counted`);
    return trees.bytes + this.identities.reduce((sum, identity) => sum + openDeletedBytes(identity), 0);
  }
}
