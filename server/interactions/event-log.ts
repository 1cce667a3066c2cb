// The event log of one running interaction: numbers each event, hands it to the store (when the
// interaction is stored) and then to every live subscriber. A subscriber gets the events after the
// one it names, then everything appended later, then an end signal once the interaction finished:
// each event exactly once, in order, with no gap between the backlog and the live part (both happen
// in one synchronous call).
//
// A reader of a stream follows the log instead (follow): it takes the next event only when it has
// written the last one to its socket, so a slow reader holds no copy of anything; the log counts the
// bytes of each event so a live reader that falls too far behind the run can be told and let go.

import { withEventId, type InteractionEvent, type StreamEvent } from "./events.js";

export interface EventSubscriber {
  event(event: StreamEvent): void;
  end(): void;
}

/** Stores an event; a number it returns is the length of its stored JSON (the lag count), else it is measured. */
export type PersistEvent = (event: StreamEvent, seq: number) => unknown;

export interface FollowOptions {
  /**
   * How many bytes of events appended after the reader joined it may have yet to write before
   * `onTooFarBehind` is called (once, with the sequence number of the last event it took). The backlog
   * it joined with does not count: that is read at its own pace.
   */
  maxLagBytes: number;
  onTooFarBehind: (lastTakenSeq: number) => void;
}

export class EventLog {
  private readonly events: StreamEvent[] = [];
  /** ends[seq]: the bytes of events 1..seq, so the bytes between two points are one subtraction. */
  private readonly ends: number[] = [0];
  private readonly subscribers = new Set<EventSubscriber>();
  /** Followers waiting or counting: told after each append and at the end. */
  private readonly watchers = new Set<() => void>();
  private ended = false;

  /** `persist` is called for each event before any subscriber sees it; if it throws, nothing is appended. */
  constructor(private readonly persist: PersistEvent = () => undefined) {}

  /** The number of events so far, which is also the sequence number of the last one. */
  get length(): number {
    return this.events.length;
  }

  get isEnded(): boolean {
    return this.ended;
  }

  append(event: InteractionEvent): StreamEvent {
    if (this.ended) throw new Error(`event ${event.event_type} after the interaction's log ended`);
    const seq = this.events.length + 1;
    const stamped = withEventId(seq, event);
    const stored = this.persist(stamped, seq);
    this.events.push(stamped);
    this.ends.push((this.ends[seq - 1] ?? 0) + (typeof stored === "number" ? stored : sizeOf(stamped)));
    for (const subscriber of [...this.subscribers]) this.deliver(subscriber, stamped);
    for (const watcher of [...this.watchers]) watcher();
    return stamped;
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

/** An unstored event's size (a store: false run): its JSON, except a snapshot's, which ends or opens the log. */
function sizeOf(event: StreamEvent): number {
  if (event.event_type === "interaction.created" || event.event_type === "interaction.completed") return 0;
  return JSON.stringify(event).length;
}
