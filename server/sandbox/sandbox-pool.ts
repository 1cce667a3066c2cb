// The warm pool (docs/environments-and-files.md#the-warm-pool): a few sandboxes already started, their
// executor channel open, nothing of anyone's in them, waiting to become environments. A new environment
// that the pool can serve takes one (the environment service writes its sources and routes its egress)
// instead of waiting for a container to be created and started; a replacement is then started in the
// background, one at a time.
//
// The pool is never on a request's critical path: take() is synchronous and answers null when nothing
// is ready, and the caller then creates a sandbox cold, as without a pool. A fill that fails (an engine
// outage, a full disk) is logged once and retried with a growing pause; meanwhile the pool stays empty
// and every request gets a cold create, whose faults are the ones it always had.

import { newEnvironmentId } from "../common/ids.js";
import type { SandboxChannel, SandboxHandle, SandboxRuntime } from "./runtime.js";

export interface PooledSandbox {
  handle: SandboxHandle;
  /** Its executor's channel, open and answered by a ping; it becomes the environment's. */
  channel: SandboxChannel;
}

export interface SandboxPoolOptions {
  /** How many ready sandboxes to keep (EMULATOR_POOL_SIZE). */
  size: number;
  log: (line: string) => void;
  /** The pause after a failed fill, doubled after each further failure up to maxBackoffMs. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** How long after a take its replacement starts (REFILL_DELAY_MS by default). */
  refillDelayMs?: number;
}

/** A file every sandbox image has, read once through the file worker before a sandbox counts as ready. */
const WARM_UP_READ = "/etc/hostname";
const BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 60_000;
/**
 * A replacement waits this long after a take, so that its container start (the engine's work, on the
 * same cores) does not compete with the request that took the sandbox: measured on 2 busy cores, that
 * request's whole first interaction took about 1.7 times as long when the replacement started at once.
 */
const REFILL_DELAY_MS = 1000;

/** Whether the runtime can keep a pool at all (the fake and local runtimes cannot). */
export function runtimeHasPool(runtime: SandboxRuntime): boolean {
  return typeof runtime.createPooled === "function" && typeof runtime.claimPooled === "function";
}

export class SandboxPool {
  private readonly ready: PooledSandbox[] = [];
  /** Sandboxes to remove: broken ones, those a caller could not use, and removals that failed. */
  private readonly discarded = new Map<string, SandboxHandle>();
  private filling: Promise<void> | null = null;
  /** A fill waiting to start: the pause after a take, or after a failure. */
  private pending: NodeJS.Timeout | null = null;
  private failures = 0;
  private closed = false;

  constructor(
    private readonly runtime: SandboxRuntime,
    private readonly options: SandboxPoolOptions,
  ) {
    if (!runtimeHasPool(runtime)) throw new Error(`the ${runtime.name} runtime cannot keep a pool of sandboxes`);
  }

  /** Starts filling, in the background. */
  start(): void {
    this.refill();
  }

  /** Ready sandboxes right now. */
  get readyCount(): number {
    return this.ready.length;
  }

  /**
   * A ready sandbox, now, or null when none is (the caller creates one cold). A replacement starts in
   * the background, shortly after. The caller owns what it took: it either makes it an environment or
   * discard()s it.
   */
  take(): PooledSandbox | null {
    if (this.closed) return null;
    const taken = this.ready.shift() ?? null;
    this.refillIn(this.options.refillDelayMs ?? REFILL_DELAY_MS);
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
    if (this.pending) clearTimeout(this.pending);
    this.pending = null;
    await this.filling;
    for (const entry of this.ready.splice(0)) {
      entry.channel.close();
      this.discarded.set(entry.handle.sandboxId, entry.handle);
    }
    await this.removeDiscarded();
  }

  /** Starts one fill unless one runs, one is waiting to start, or the pool is full. */
  private refill(): void {
    if (this.closed || this.filling || this.pending || this.ready.length >= this.options.size) return;
    this.filling = this.fillOne().finally(() => {
      this.filling = null;
      this.refill();
    });
  }

  private async fillOne(): Promise<void> {
    await this.removeDiscarded();
    let handle: SandboxHandle | null = null;
    let channel: SandboxChannel;
    try {
      // The ID of the environment that will take it: its container is labelled with it from the start.
      handle = await this.runtime.createPooled!(newEnvironmentId());
      channel = await this.runtime.connect(handle);
      // Ready means warm: the executor starts its file worker (a second Node.js) after answering the
      // ping, and a new environment's first tool call reads its hooks.json through that worker. A read
      // waits for it here, off the request's path (measured: 145 ms → 25 ms for a first interaction
      // taken right after a fill). A read changes nothing in the sandbox.
      await channel.readFiles([WARM_UP_READ], 4096);
    } catch (error) {
      if (handle) this.discarded.set(handle.sandboxId, handle);
      this.failed(error);
      return;
    }
    if (this.failures > 0) this.options.log(`warm pool: sandboxes start again after ${this.failures} failed attempt(s)`);
    this.failures = 0;
    const entry = { handle, channel };
    if (this.closed) {
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
    this.refillIn(pauseMs);
  }

  /** Starts a fill after `delayMs`, unless one is already waiting (which then keeps its own time). */
  private refillIn(delayMs: number): void {
    if (this.closed || this.pending) return;
    this.pending = setTimeout(() => {
      this.pending = null;
      this.refill();
    }, delayMs);
    this.pending.unref();
  }

  private async removeDiscarded(): Promise<void> {
    for (const [id, handle] of [...this.discarded]) {
      try {
        await this.runtime.remove(handle);
        this.discarded.delete(id);
      } catch {
        // Kept for the next fill (or cleared at the next start, when the engine answers again).
      }
    }
  }
}
