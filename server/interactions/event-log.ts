// The event log of one running interaction: numbers each event, hands it to the store (when the
// interaction is stored) and then to every live subscriber. With a deferred persistence (the
// emulator's), the events of one turn of the event loop are stored together at its end
// (store/write-behind.ts) and only then seen; numbered at once, seen in order either way. A
// subscriber gets the events after the one it names, then everything appended later, then an end
// signal once the interaction finished: each event exactly once, in order, with no gap between the
// backlog and the live part (both happen in one synchronous call).
//
// A reader of a stream follows the log instead (follow): it takes the next event only when it has
// written the last one to its socket, so a slow reader holds no copy of anything; the log counts the
// bytes of each event so a live reader that falls too far behind the run can be told and let go.

import { withEventId, type InteractionEvent, type StreamEvent } from "./events.js";

export interface EventSubscriber {
  event(event: StreamEvent): void;
  end(): void;
}

/** Stores an event; a number it returns is the bytes of its stored JSON (the lag count), else they are measured. */
export type PersistEvent = (event: StreamEvent, seq: number) => unknown;

/**
 * Stores later (store/write-behind.ts): runs `write` at the end of the event loop's turn, in a
 * transaction of its own, then calls `settled` (with the error when it was not stored).
 */
export type DeferWrite = (write: () => void, settled: (error?: unknown) => void) => void;

export interface DeferredPersistence {
  defer: DeferWrite;
  /** Told when events could not be stored: they were dropped, never seen by anyone. */
  onFailed: (error: unknown) => void;
}

export interface FollowOptions {
  /**
   * How many bytes of events appended after the reader joined it may have yet to write before
   * `onTooFarBehind` is called (once, with the sequence number of the last event it took). The backlog
   * it joined with does not count: that is read at its own pace.
   */
  maxLagBytes: number;
  onTooFarBehind: (lastTakenSeq: number) => void;
}

/** Events stored by one write, with what persist returned for each (their stored lengths). */
interface StoredBatch {
  events: StreamEvent[];
  sizes: unknown[];
}

export class EventLog {
  private readonly events: StreamEvent[] = [];
  /** Numbered, not yet stored: nobody sees them until they are (deferred persistence only). */
  private pending: StreamEvent[] = [];
  /** Whether a deferred write is queued, which stores whatever is pending when it runs. */
  private queued = false;
  /** ends[seq]: the bytes of events 1..seq, so the bytes between two points are one subtraction. */
  private readonly ends: number[] = [0];
  private readonly subscribers = new Set<EventSubscriber>();
  /** Followers waiting or counting: told after each append and at the end. */
  private readonly watchers = new Set<() => void>();
  private ended = false;

  /**
   * `persist` is called for each event before any subscriber sees it. Without `deferred` it is called
   * as the event is appended, and if it throws, nothing is appended. With it, the events appended in
   * one turn of the event loop are stored together at its end (or at flush()) and seen only then; if
   * that fails they are dropped and `onFailed` is told.
   */
  constructor(
    private readonly persist: PersistEvent = () => undefined,
    private readonly deferred?: DeferredPersistence,
  ) {}

  /** The number of events stored so far, which is also the sequence number of the last one. */
  get length(): number {
    return this.events.length;
  }

  get isEnded(): boolean {
    return this.ended;
  }

  append(event: InteractionEvent): StreamEvent {
    if (this.ended) throw new Error(`event ${event.event_type} after the interaction's log ended`);
    const seq = this.events.length + this.pending.length + 1;
    const stamped = withEventId(seq, event);
    if (this.deferred === undefined) {
      this.publish([stamped], [this.persist(stamped, seq)]);
      return stamped;
    }
    this.pending.push(stamped);
    if (!this.queued) {
      this.queued = true;
      // The write stores what is pending when it runs; told of its commit, it publishes or drops that.
      let stored: StoredBatch | null = null;
      this.deferred.defer(
        () => {
          stored = this.storePending();
        },
        (error) => {
          if (stored !== null) this.settle(stored, error);
        },
      );
    }
    return stamped;
  }

  /** Stores the pending events now (the run's last events, in the transaction of its final record); throws what storing threw. */
  flush(): void {
    if (this.pending.length === 0) return;
    this.settle(this.storePending());
  }

  /** The pending events stored, in order, all or none (it runs in a transaction); if storing throws they are dropped. */
  private storePending(): StoredBatch {
    this.queued = false;
    const events = this.pending;
    this.pending = [];
    const first = this.events.length + 1;
    try {
      return { events, sizes: events.map((event, index) => this.persist(event, first + index)) };
    } catch (error) {
      this.dropped(error);
      throw error;
    }
  }

  /** A stored batch once its commit is known: published, or dropped when the commit failed. */
  private settle(stored: StoredBatch, error?: unknown): void {
    if (error === undefined) this.publish(stored.events, stored.sizes);
    else this.dropped(error);
  }

  /** Events that were not stored are never seen: the ones after them go too, so numbers stay without gaps. */
  private dropped(error: unknown): void {
    this.pending = [];
    try {
      this.deferred?.onFailed(error);
    } catch (failure) {
      console.error("event log: the run failed when told its events were not stored:", failure);
    }
  }

  /** Stored events: counted, then handed to every subscriber and follower. */
  private publish(events: readonly StreamEvent[], sizes: readonly unknown[]): void {
    for (const [index, event] of events.entries()) {
      const stored = sizes[index];
      this.events.push(event);
      const seq = this.events.length;
      this.ends.push((this.ends[seq - 1] ?? 0) + (typeof stored === "number" ? stored : sizeOf(event)));
      for (const subscriber of [...this.subscribers]) this.deliver(subscriber, event);
    }
    for (const watcher of [...this.watchers]) watcher();
  }

  /**
   * The events after `afterSeq`, then the ones appended later, each handed over only when the reader
   * asks for the next (a for await that writes each before it goes on); done once the log ended and
   * everything was taken.
   */
  async *follow(afterSeq: number, options: FollowOptions): AsyncGenerator<StreamEvent, void, undefined> {
    const joinedAt = this.length;
    let taken = afterSeq;
    let toldBehind = false;
    let wake: (() => void) | null = null;
    const watcher = () => {
      const lag = this.bytesAfter(Math.max(taken, joinedAt));
      if (!toldBehind && lag > options.maxLagBytes) {
        toldBehind = true;
        // Not from inside append (the run's own emit): the reader is let go right after.
        const at = taken;
        queueMicrotask(() => options.onTooFarBehind(at));
      }
      wake?.();
    };
    this.watchers.add(watcher);
    try {
      while (!toldBehind) {
        const next = this.events[taken];
        if (next !== undefined) {
          yield next;
          taken += 1;
          continue;
        }
        if (this.ended) return;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
      }
    } finally {
      this.watchers.delete(watcher);
    }
  }

  /** Bytes of the events after sequence number `seq`. */
  private bytesAfter(seq: number): number {
    return (this.ends[this.events.length] ?? 0) - (this.ends[seq] ?? 0);
  }

  /** No more events: subscribers are told, and later subscribers get the backlog and then the end. */
  end(): void {
    if (this.ended) return;
    try {
      this.flush();
    } catch (error) {
      console.error("event log: its last events could not be stored:", error);
    }
    this.ended = true;
    const subscribers = [...this.subscribers];
    this.subscribers.clear();
    for (const subscriber of subscribers) subscriber.end();
    for (const watcher of [...this.watchers]) watcher();
  }

  /** Delivers the events after sequence number `afterSeq`, then live ones; returns the unsubscribe. */
  subscribe(afterSeq: number, subscriber: EventSubscriber): () => void {
    for (const event of this.events.slice(afterSeq)) {
      if (!this.deliver(subscriber, event)) return () => undefined;
    }
    if (this.ended) {
      subscriber.end();
      return () => undefined;
    }
    this.subscribers.add(subscriber);
    return () => this.subscribers.delete(subscriber);
  }

  /** A subscriber that throws (its connection broke) is dropped; the others go on. */
  private deliver(subscriber: EventSubscriber, event: StreamEvent): boolean {
    try {
      subscriber.event(event);
      return true;
    } catch {
      this.subscribers.delete(subscriber);
      return false;
    }
  }
}

/** An unstored event's size (a store: false run): its JSON's UTF-8 bytes, except a snapshot's, which ends or opens the log. */
function sizeOf(event: StreamEvent): number {
  if (event.event_type === "interaction.created" || event.event_type === "interaction.completed") return 0;
  return Buffer.byteLength(JSON.stringify(event));
}
