// One owner's clock (docs/clock.md; test-clocks.ts keeps one per API key): the wall clock, plus however
// far that key's tests have moved it forward with POST /emulator/clock. What the key owns and schedules
// (trigger runs, webhook retries and their window, environment TTLs) reads it instead of Date.now(), so
// a test can skip ten minutes in a call instead of waiting for them, as Stripe's test clocks and
// Temporal's time-skipping server allow. Off unless moved: the offset is 0 and now() is Date.now().

export interface Clock {
  /** Milliseconds since the epoch, as the emulator sees time. */
  now(): number;
  /** Calls `listener` after every move of the clock (not as real time passes); returns the unsubscribe. */
  onMove(listener: () => void): () => void;
}

export class EmulatorClock implements Clock {
  private offsetMs = 0;
  private readonly listeners = new Set<() => void>();

  constructor(private readonly wall: () => number = Date.now) {}

  now(): number {
    return this.wall() + this.offsetMs;
  }

  /** How far ahead of the wall clock this clock is, in ms (0 unless a test moved it). */
  get offset(): number {
    return this.offsetMs;
  }

  /** Moves the clock forward; what became due runs (the listeners decide what that is). */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`the clock only moves forward, by a finite number of ms, not ${ms}`);
    this.offsetMs += ms;
    this.notify();
  }

  /**
   * Back to real time: the offset is dropped. [choice] Nothing already run is undone, and what was
   * scheduled for a time the clock no longer reached waits for it again.
   */
  reset(): void {
    this.offsetMs = 0;
    this.notify();
  }

  onMove(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private notify(): void {
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch (error) {
        console.error("a clock listener failed:", error);
      }
    }
  }
}
