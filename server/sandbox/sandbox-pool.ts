// The warm pool (docs/environments-and-files.md#the-warm-pool): a few sandboxes already started, their
// executor channel open, nothing of anyone's in them, waiting to become environments. A new environment
// that the pool can serve takes one (the environment service writes its sources and routes its egress)
// instead of waiting for a container to be created and started; a replacement is then started in the
// background, up to `fillConcurrency` at once.
//
// Its size follows the load: it keeps `size` sandboxes (EMULATOR_POOL_SIZE) while takes are rare; a take
// that finds it empty, or empties it while its replacements are still being made, doubles its target, up
// to `maxSize` (EMULATOR_POOL_MAX_SIZE), and while it is above its size replacements start at once; after
// a quiet stretch with no take it goes back to `size`, removing the surplus, so an idle emulator holds
// only the configured pool.
//
// The pool is never on a request's critical path: take() is synchronous and answers null when nothing
// is ready, and the caller then creates a sandbox cold, as without a pool. A fill that fails (an engine
// outage, a full disk) is logged once and retried with a growing pause; meanwhile the pool stays empty
// and every request gets a cold create, whose faults are the ones it always had.

import { newEnvironmentId } from "../common/ids.js";
import { PSEUDO_FOLDERS, USAGE_ROOTS } from "./layout.js";
import type { SandboxChannel, SandboxHandle, SandboxRuntime } from "./runtime.js";

export interface PooledSandbox {
  handle: SandboxHandle;
  /** Its executor's channel, open and answered by a ping; it becomes the environment's. */
  channel: SandboxChannel;
  /**
   * What its USAGE_ROOTS hold, measured once it was warm: an environment that takes it without sources
   * holds exactly that until something runs in it (nothing of anyone's runs in a waiting sandbox).
   */
  usage: { files: number; bytes: number };
}

export interface SandboxPoolOptions {
  /** How many ready sandboxes to keep while takes are rare (EMULATOR_POOL_SIZE). */
  size: number;
  /** How many it may grow to under load (EMULATOR_POOL_MAX_SIZE); `size` when unset (no growth). */
  maxSize?: number;
  /** Sandboxes being made at once (EMULATOR_POOL_FILL_CONCURRENCY); 1 when unset. */
  fillConcurrency?: number;
  log: (line: string) => void;
  /** The pause after a failed fill, doubled after each further failure up to maxBackoffMs. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** How long after a take its replacement starts while the pool is at its size (REFILL_DELAY_MS by default). */
  refillDelayMs?: number;
  /** How long without a take before a grown pool goes back to its size (SHRINK_AFTER_MS by default). */
  shrinkAfterMs?: number;
}

/** What /health shows of the pool. */
export interface PoolState {
  /** EMULATOR_POOL_SIZE. */
  size: number;
  /** How many it aims to hold now: `size`, or more while takes outrun it. */
  target: number;
  /** Started, their channel open and warm: takeable now. */
  ready: number;
  /** Being made. */
  filling: number;
  /**
   * Taken, whose container the engine still lists under the pool's name: the name of its environment is
   * given just after the take, not waited for (docs/environments-and-files.md#the-warm-pool).
   */
  naming: number;
}

const BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 60_000;
/**
 * A replacement waits this long after a take, so that its container start (the engine's work, on the
 * same cores) does not compete with the request that took the sandbox: measured on 2 busy cores, that
 * request's whole first interaction took about 1.7 times as long when the replacement started at once.
 * [choice] Only while the pool is at its size: once takes outrun it (it grew), the next take would
 * find it empty, and a cold create costs that request far more than a replacement competing with it.
 */
const REFILL_DELAY_MS = 1000;
/**
 * [choice] A grown pool goes back to its size after 30 s without a take: long enough that runs a few
 * seconds apart keep their pool, short enough that the surplus (about 35 MiB each) does not outlive the
 * load by much.
 */
const SHRINK_AFTER_MS = 30_000;

/** Whether the runtime can keep a pool at all (the fake and local runtimes cannot). */
export function runtimeHasPool(runtime: SandboxRuntime): boolean {
  return typeof runtime.createPooled === "function" && typeof runtime.claimPooled === "function";
}

export class SandboxPool {
  private readonly ready: PooledSandbox[] = [];
  /** Sandboxes to remove: broken ones, those a caller could not use, and removals that failed. */
  private readonly discarded = new Map<string, SandboxHandle>();
  /** Removals under way (close() waits for them). */
  private readonly removals = new Set<Promise<void>>();
  /** Fills under way. */
  private readonly fills = new Set<Promise<void>>();
  /** How many ready sandboxes the pool aims at now: between size and maxSize. */
  private target: number;
  /** The pause after a take, while the pool is at its size: no fill starts meanwhile. */
  private afterTake: NodeJS.Timeout | null = null;
  /** The pause after a failed fill: no fill starts meanwhile. */
  private backoff: NodeJS.Timeout | null = null;
  /** Brings a grown pool back to its size once no take came for shrinkAfterMs. */
  private shrink: NodeJS.Timeout | null = null;
  private failures = 0;
  private closed = false;

  constructor(
    private readonly runtime: SandboxRuntime,
    private readonly options: SandboxPoolOptions,
  ) {
    if (!runtimeHasPool(runtime)) throw new Error(`the ${runtime.name} runtime cannot keep a pool of sandboxes`);
    this.target = options.size;
  }

  /** Starts filling, in the background. */
  start(): void {
    this.refill();
  }

  /** Ready sandboxes right now. */
  get readyCount(): number {
    return this.ready.length;
  }

  /** What /health shows. */
  state(): PoolState {
    return {
      size: this.options.size,
      target: this.target,
      ready: this.ready.length,
      filling: this.fills.size,
      naming: this.runtime.claimsUnderway?.() ?? 0,
    };
  }

  /**
   * A ready sandbox, now, or null when none is (the caller creates one cold). A replacement starts in
   * the background, shortly after (at once while the pool is growing). The caller owns what it took: it
   * either makes it an environment or discard()s it.
   */
  take(): PooledSandbox | null {
    if (this.closed) return null;
    const replacing = this.fills.size > 0 || this.afterTake !== null;
    const taken = this.ready.shift() ?? null;
    // Takes outrun the pool: it missed, or it is empty again before the last take's replacement is ready.
    if (taken === null || (this.ready.length === 0 && replacing)) this.grow();
    if (this.target > this.options.size) {
      this.quietFrom();
      this.refill();
    } else this.delayRefill();
    return taken;
  }

  /** A taken sandbox the caller could not use: closed and removed in the background. */
  discard(taken: PooledSandbox): void {
    taken.channel.close();
    this.discarded.set(taken.handle.sandboxId, taken.handle);
    if (!this.closed) void this.removeDiscarded();
  }

  /** Stops filling and removes every sandbox the pool holds (at shutdown); what fails is cleared at the next start. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of [this.afterTake, this.backoff, this.shrink]) if (timer) clearTimeout(timer);
    this.afterTake = this.backoff = this.shrink = null;
    await Promise.all([...this.fills]);
    this.trimTo(0);
    await this.removeDiscarded();
    await Promise.all([...this.removals]);
  }

  /** Doubles the target, up to maxSize; not while fills fail (more of them would only fail too). */
  private grow(): void {
    if (this.failures > 0) return;
    this.target = Math.min(this.maxSize, Math.max(1, this.target * 2));
  }

  private get maxSize(): number {
    return Math.max(this.options.size, this.options.maxSize ?? this.options.size);
  }

  /** (Re)starts the quiet stretch after which a grown pool goes back to its size. */
  private quietFrom(): void {
    if (this.shrink) clearTimeout(this.shrink);
    this.shrink = setTimeout(() => {
      this.shrink = null;
      this.target = this.options.size;
      this.trimTo(this.target);
      void this.removeDiscarded();
    }, this.options.shrinkAfterMs ?? SHRINK_AFTER_MS);
    this.shrink.unref();
  }

  /** Removes ready sandboxes beyond `count`, the oldest first. */
  private trimTo(count: number): void {
    for (const entry of this.ready.splice(0, Math.max(0, this.ready.length - count))) {
      entry.channel.close();
      this.discarded.set(entry.handle.sandboxId, entry.handle);
    }
  }

  /** Starts fills, up to the concurrency, until ready and filling reach the target; none during a pause. */
  private refill(): void {
    if (this.closed || this.backoff) return;
    if (this.afterTake && this.target <= this.options.size) return;
    const concurrency = Math.max(1, this.options.fillConcurrency ?? 1);
    while (this.fills.size < concurrency && this.ready.length + this.fills.size < this.target) {
      const fill: Promise<void> = this.fillOne().finally(() => {
        this.fills.delete(fill);
        this.refill();
      });
      this.fills.add(fill);
    }
  }

  /** The replacement of a take starts refillDelayMs later, unless one pause is already running (it keeps its own time). */
  private delayRefill(): void {
    if (this.closed || this.afterTake) return;
    this.afterTake = setTimeout(() => {
      this.afterTake = null;
      this.refill();
    }, this.options.refillDelayMs ?? REFILL_DELAY_MS);
    this.afterTake.unref();
  }

  private async fillOne(): Promise<void> {
    await this.removeDiscarded();
    let handle: SandboxHandle | null = null;
    let channel: SandboxChannel;
    let usage: PooledSandbox["usage"];
    try {
      // The ID of the environment that will take it: its container is labelled with it from the start.
      handle = await this.runtime.createPooled!(newEnvironmentId());
      channel = await this.runtime.connect(handle);
      // Ready means warm: the executor starts its file worker after answering the ping, and a new
      // environment's first tool call reads its hooks.json through that worker. The measure of what the
      // environment will hold goes through it and waits for it here, off the request's path (measured:
      // 145 ms → 25 ms for a first interaction taken right after a fill), and spares the new
      // environment's answer a round trip. Measuring changes nothing in the sandbox.
      usage = await channel.usage(USAGE_ROOTS, PSEUDO_FOLDERS);
    } catch (error) {
      if (handle) this.discarded.set(handle.sandboxId, handle);
      this.failed(error);
      return;
    }
    if (this.failures > 0) this.options.log(`warm pool: sandboxes start again after ${this.failures} failed attempt(s)`);
    this.failures = 0;
    const entry = { handle, channel, usage };
    // Closed, or shrunk while it was being made: not kept.
    if (this.closed || this.ready.length >= this.target) {
      this.discard(entry);
      return;
    }
    this.ready.push(entry);
    // An executor or container that ends while waiting (killed, the engine restarted) is replaced.
    void channel.closed.then(() => {
      const index = this.ready.indexOf(entry);
      if (index < 0) return;
      this.ready.splice(index, 1);
      this.discard(entry);
      this.refill();
    });
  }

  /** Logs the first failure of a streak and pauses the fills, longer after each failure. */
  private failed(error: unknown): void {
    this.failures += 1;
    const first = this.options.backoffMs ?? BACKOFF_MS;
    const pauseMs = Math.min(this.options.maxBackoffMs ?? MAX_BACKOFF_MS, first * 2 ** (this.failures - 1));
    if (this.failures === 1) {
      this.options.log(
        `warm pool: could not start a sandbox (${(error as Error).message}); new environments are created cold meanwhile, retrying with a growing pause (${pauseMs} ms first)`,
      );
    }
    if (this.closed || this.backoff) return;
    this.backoff = setTimeout(() => {
      this.backoff = null;
      this.refill();
    }, pauseMs);
    this.backoff.unref();
  }

  /** Removes what was discarded; each handle is taken out first, so that fills at once never remove one twice. */
  private removeDiscarded(): Promise<void> {
    const handles = [...this.discarded.values()];
    this.discarded.clear();
    const removal = (async () => {
      for (const handle of handles) {
        try {
          await this.runtime.remove(handle);
        } catch {
          // Kept for the next fill (or cleared at the next start, when the engine answers again).
          this.discarded.set(handle.sandboxId, handle);
        }
      }
    })();
    this.removals.add(removal);
    void removal.finally(() => this.removals.delete(removal));
    return removal;
  }
}
