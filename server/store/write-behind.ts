// Writes that may wait until the current turn of the event loop is over, then are stored together in
// one transaction (docs/architecture.md#state).
//
// A tool call stored five events and two coverage counts, each its own commit, between the command's
// exit and the next command's start: on the path of every call. Deferred here, a turn's writes (the
// result's last events, the next call's step, its coverage) become one commit, made after the next
// command was sent, while the sandbox runs it. Whoever defers a write must show nothing of it to
// anyone before it is stored (the event log delivers an event once it is stored), so a crash loses
// only what nobody was told of, as if it had come a moment sooner.
//
// Each write runs in a savepoint of its own: one that fails (its owner is told, with the error) takes
// none of the others with it. A commit that fails takes them all, and each owner is told.

import type { Db } from "./database.js";
import { inTransaction } from "./transactions.js";

/** Called once the write is stored (no argument) or once it is known it never will be (the error). */
export type WriteSettled = (error?: unknown) => void;

interface DeferredWrite {
  write: () => void;
  settled: WriteSettled;
}

export class WriteBehind {
  private queue: DeferredWrite[] = [];
  private scheduled: NodeJS.Immediate | null = null;

  constructor(private readonly db: Db) {}

  /** Stores `write` at the end of this turn of the event loop, with the other writes deferred meanwhile. */
  defer(write: () => void, settled: WriteSettled): void {
    this.queue.push({ write, settled });
    this.scheduled ??= setImmediate(() => this.flush());
  }

  /** Writes deferred and not yet stored. */
  get pending(): number {
    return this.queue.length;
  }

  /** Stores what was deferred now: for a reader that must see it, and before the store closes. */
  flush(): void {
    if (this.scheduled !== null) clearImmediate(this.scheduled);
    this.scheduled = null;
    if (this.queue.length === 0) return;
    const batch = this.queue;
    this.queue = [];
    const outcomes: unknown[] = new Array(batch.length).fill(undefined);
    try {
      inTransaction(this.db, () => {
        for (const [index, { write }] of batch.entries()) {
          try {
            inTransaction(this.db, write);
          } catch (error) {
            outcomes[index] = error ?? new Error("a deferred write failed");
          }
        }
      });
    } catch (error) {
      outcomes.fill(error ?? new Error("the deferred writes' commit failed"));
    }
    for (const [index, { settled }] of batch.entries()) {
      try {
        settled(outcomes[index]);
      } catch (error) {
        console.error("store: a deferred write's owner failed when told of it:", error);
      }
    }
  }
}
