// Work to do at a time of the emulator's clock (clock.ts): a trigger's next run, a webhook's next
// retry. A job runs once the clock reaches its time, whether real time got there or a test moved the
// clock past it; jobs due together run in the order of their times (then of scheduling), and a job
// that schedules another already due (a trigger catching up on missed runs) has it run in the same
// pass. One real timer is armed, for the earliest job. Jobs live in memory: what must survive a
// restart is stored by its owner, which schedules it again at start.

import type { Clock } from "./clock.js";

/** A job's work; a rejection is logged, never thrown at the clock's mover. */
export type ScheduledWork = () => void | Promise<void>;

interface Job {
  at: number;
  seq: number;
  work: ScheduledWork;
}

/** The longest setTimeout Node takes (about 24.8 days); a later job is re-checked when it fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class Scheduler {
  private jobs: Job[] = [];
  private seq = 0;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private draining = false;
  /** The pass now running, so a caller of runDue() during it waits for it and then for what it left. */
  private drain: Promise<void> | null = null;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly clock: Clock,
    /** Called whenever the scheduler has no job left and no pass running (its owner may then drop it). */
    private readonly onIdle: () => void = () => undefined,
  ) {
    this.unsubscribe = clock.onMove(() => this.runDue());
  }

  /** Runs `work` once the clock reaches `atMs`; returns a function that cancels it if it has not run. */
  at(atMs: number, work: ScheduledWork): () => void {
    if (this.closed) throw new Error("the scheduler is closed");
    const job: Job = { at: atMs, seq: this.seq++, work };
    this.jobs.push(job);
    this.jobs.sort((a, b) => a.at - b.at || a.seq - b.seq);
    // A job due now runs in the current pass if one is draining, else soon (never inside at()).
    if (!this.draining) this.arm();
    return () => {
      this.jobs = this.jobs.filter((other) => other !== job);
      if (!this.draining) this.arm();
    };
  }

  /** Jobs not run yet. */
  get pending(): number {
    return this.jobs.length;
  }

  /**
   * Runs every job due now, in time order, including those the jobs schedule for a time already
   * reached; resolves when their work (sync or async) has settled. The clock's moves call this.
   */
  runDue(): Promise<void> {
    if (this.closed) return Promise.resolve();
    if (this.drain) return this.drain.then(() => this.runDue());
    this.draining = true;
    const pass = this.runPass();
    // Cleared in a handler registered before any caller's .then, so those find the pass over. (Not in
    // the pass itself: a pass that never awaits ends before its promise is even stored.)
    const settled = pass.finally(() => {
      this.draining = false;
      this.drain = null;
      this.arm();
    });
    this.drain = settled;
    return settled;
  }

  private async runPass(): Promise<void> {
    for (;;) {
      const next = this.jobs[0];
      if (!next || next.at > this.clock.now()) break;
      this.jobs.shift();
      try {
        await next.work();
      } catch (error) {
        console.error("a scheduled job failed:", error);
      }
    }
  }

  close(): void {
    this.closed = true;
    this.unsubscribe();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.jobs = [];
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const next = this.jobs[0];
    if (this.closed) return;
    if (!next) {
      if (!this.draining) this.onIdle();
      return;
    }
    const wait = Math.min(Math.max(0, next.at - this.clock.now()), MAX_TIMER_MS);
    this.timer = setTimeout(() => void this.runDue(), wait);
    // Scheduled work never keeps the process alive on its own (a stopping emulator closes it anyway).
    this.timer.unref();
  }
}
