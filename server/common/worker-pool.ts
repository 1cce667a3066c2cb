// A small pool of worker threads for work that is bounded but can still be long (compiling a request's
// JSON Schemas: docs/security.md#bounded-work), so it never holds the event loop that serves every
// other caller. Each job has a deadline, counted from when a started worker takes it (a worker's own
// start, loading its modules, is not the job's cost): a worker that passes it is terminated (its heap
// with it) and replaced when next needed, and the job rejects with WorkerDeadlineError. A worker that dies (out of
// its heap limit, a crash) rejects its job with WorkerFailedError. Workers are made when first needed
// and kept; an idle pool holds no reference that keeps the process alive.

import { Worker } from "node:worker_threads";

/** What a worker posts once it has loaded and listens for jobs; after it, one answer per job. */
export const WORKER_READY = "worker-ready";

export class WorkerDeadlineError extends Error {
  constructor(readonly deadlineMs: number) {
    super(`the work took longer than ${deadlineMs} ms`);
    this.name = "WorkerDeadlineError";
  }
}

export class WorkerFailedError extends Error {
  constructor(cause: unknown) {
    super(`the worker failed: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = "WorkerFailedError";
  }
}

export interface WorkerPoolOptions {
  /** The worker's module. */
  script: URL;
  /** Workers at most (they share the machine's cores with the event loop). */
  size: number;
  /** Heap of one worker, in MiB: a job that needs more fails instead of growing the process. */
  maxHeapMb: number;
}

interface Job {
  message: unknown;
  deadlineMs: number;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  /** Whether the worker said it is ready. */
  ready: boolean;
  job?: Job;
  timer?: NodeJS.Timeout;
}

export class WorkerPool {
  private readonly idle: Slot[] = [];
  private readonly busy = new Set<Slot>();
  private readonly starting = new Set<Slot>();
  private readonly queue: Job[] = [];
  private closed = false;

  constructor(private readonly options: WorkerPoolOptions) {}

  /** Posts `message` to a worker and resolves with its one answer; the deadline counts from when a worker takes it. */
  run<T>(message: unknown, deadlineMs: number): Promise<T> {
    if (this.closed) return Promise.reject(new WorkerFailedError("the pool is closed"));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ message, deadlineMs, resolve: resolve as (value: unknown) => void, reject });
      this.dispatch();
    });
  }

  /** Ends every worker; jobs still queued or running reject. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new WorkerFailedError("the pool is closed"));
    const slots = [...this.idle.splice(0), ...this.busy, ...this.starting];
    this.starting.clear();
    for (const slot of slots) this.finish(slot, undefined, new WorkerFailedError("the pool is closed"), false);
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const slot = this.idle.pop();
      if (!slot) {
        // A new worker takes a job once it is ready (then dispatch runs again).
        const workers = this.busy.size + this.starting.size;
        if (workers < this.options.size && this.starting.size < this.queue.length) this.spawn();
        return;
      }
      const job = this.queue.shift() as Job;
      slot.job = job;
      this.busy.add(slot);
      slot.worker.ref();
      slot.timer = setTimeout(() => this.finish(slot, undefined, new WorkerDeadlineError(job.deadlineMs), true), job.deadlineMs);
      slot.worker.postMessage(job.message);
    }
  }

  private spawn(): Slot {
    const worker = new Worker(this.options.script, {
      resourceLimits: { maxOldGenerationSizeMb: this.options.maxHeapMb, maxYoungGenerationSizeMb: 32 },
    });
    const slot: Slot = { worker, ready: false };
    this.starting.add(slot);
    worker.on("message", (answer: unknown) => {
      if (!slot.ready && answer === WORKER_READY) {
        slot.ready = true;
        this.starting.delete(slot);
        slot.worker.unref();
        this.idle.push(slot);
        this.dispatch();
      } else this.finish(slot, answer, undefined, false);
    });
    worker.on("error", (error) => this.finish(slot, undefined, new WorkerFailedError(error), true));
    worker.on("exit", (code) => this.finish(slot, undefined, new WorkerFailedError(`it exited with code ${code}`), true));
    return slot;
  }

  /** Ends the slot's job with an answer or an error; a worker that failed or ran late is thrown away. */
  private finish(slot: Slot, answer: unknown, error: Error | undefined, discard: boolean): void {
    clearTimeout(slot.timer);
    // A worker that could not start fails the oldest job waiting for it (a broken script must not
    // leave jobs waiting for ever, nor be restarted without end).
    const failedToStart = !slot.ready && this.starting.has(slot) && error !== undefined;
    const job = slot.job ?? (failedToStart ? this.queue.shift() : undefined);
    slot.job = undefined;
    this.busy.delete(slot);
    this.starting.delete(slot);
    if (discard) {
      const index = this.idle.indexOf(slot);
      if (index >= 0) this.idle.splice(index, 1);
      slot.worker.removeAllListeners();
      slot.worker.on("error", () => undefined);
      void slot.worker.terminate();
    } else if (!this.closed && job) {
      slot.worker.unref();
      this.idle.push(slot);
    }
    if (job) {
      if (error) job.reject(error);
      else job.resolve(answer);
    }
    if (!this.closed) this.dispatch();
  }
}
