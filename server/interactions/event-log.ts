// The event log of one running interaction: numbers each event, hands it to the store (when the
// interaction is stored) and then to every live subscriber. A subscriber gets the events after the
// one it names, then everything appended later, then an end signal once the interaction finished:
// each event exactly once, in order, with no gap between the backlog and the live part (both happen
// in one synchronous call).

import { withEventId, type InteractionEvent, type StreamEvent } from "./events.js";

export interface EventSubscriber {
  event(event: StreamEvent): void;
  end(): void;
}

export class EventLog {
  private readonly events: StreamEvent[] = [];
  private readonly subscribers = new Set<EventSubscriber>();
  private ended = false;

  /** `persist` is called for each event before any subscriber sees it; if it throws, nothing is appended. */
  constructor(private readonly persist: (event: StreamEvent, seq: number) => void = () => undefined) {}

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
    this.persist(stamped, seq);
    this.events.push(stamped);
    for (const subscriber of [...this.subscribers]) this.deliver(subscriber, stamped);
    return stamped;
  }

  /** No more events: subscribers are told, and later subscribers get the backlog and then the end. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    const subscribers = [...this.subscribers];
    this.subscribers.clear();
    for (const subscriber of subscribers) subscriber.end();
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
