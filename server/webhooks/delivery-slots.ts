// How many delivery attempts run at once: at most `total` for all keys and `perKey` for one key
// (EMULATOR_WEBHOOK_CONCURRENCY, _CONCURRENCY_PER_KEY). An attempt past them waits in its key's line,
// and the lines are served in turn, one attempt per key each round, so a key with thousands waiting
// delays another key's attempts by at most one round. The lines are bounded too (EMULATOR_WEBHOOK_QUEUE
// in all, _QUEUE_PER_KEY for one key): past them run() says why instead of waiting, and the caller keeps
// the delivery pending for later (webhook-deliveries.ts).

export interface SlotBounds {
  total: number;
  perKey: number;
  /** Attempts that may wait for a slot, all keys together. */
  queue: number;
  /** Attempts of one key that may wait for a slot. */
  queuePerKey: number;
}

export class DeliverySlots {
  private running = 0;
  private readonly runningOf = new Map<string, number>();
  private readonly lines = new Map<string, ((taken: boolean) => void)[]>();
  /** Keys with someone waiting, in the order they are served next. */
  private turns: string[] = [];
  private waiting = 0;
  private open = true;

  constructor(private readonly bounds: SlotBounds) {}

  /** Attempts running now (all keys, or one). */
  inFlight(key?: string): number {
    return key === undefined ? this.running : (this.runningOf.get(key) ?? 0);
  }

  /**
   * Runs `work` once a slot is free and answers null; or, when the lines are full, does not run it and
   * answers the sentence that says which bound was reached. After close(), work runs at once (it is
   * expected to see the shutdown and end).
   */
  async run(key: string, work: () => Promise<void>): Promise<string | null> {
    let taken: boolean;
    if (!this.open) {
      taken = false;
    } else if (this.free(key)) {
      this.take(key);
      taken = true;
    } else {
      const line = this.lines.get(key) ?? [];
      if (line.length >= this.bounds.queuePerKey) {
        return `${line.length} attempts of this API key wait already (EMULATOR_WEBHOOK_QUEUE_PER_KEY)`;
      }
      if (this.waiting >= this.bounds.queue) return `${this.waiting} attempts wait already (EMULATOR_WEBHOOK_QUEUE)`;
      // true once dispatch() gave it a slot; false when close() let it go without one.
      taken = await new Promise<boolean>((resolve) => {
        line.push(resolve);
        this.waiting += 1;
        if (line.length === 1) {
          this.lines.set(key, line);
          this.turns.push(key);
        }
      });
    }
    try {
      await work();
    } finally {
      if (taken) this.release(key);
    }
    return null;
  }

  /** Lets everyone waiting go (their work runs at once and sees the shutdown). */
  close(): void {
    this.open = false;
    for (const line of this.lines.values()) for (const resolve of line.splice(0)) resolve(false);
    this.lines.clear();
    this.turns = [];
    this.waiting = 0;
  }

  private free(key: string): boolean {
    return this.running < this.bounds.total && this.inFlight(key) < this.bounds.perKey;
  }

  private take(key: string): void {
    this.running += 1;
    this.runningOf.set(key, this.inFlight(key) + 1);
  }

  private release(key: string): void {
    this.running -= 1;
    const left = this.inFlight(key) - 1;
    if (left > 0) this.runningOf.set(key, left);
    else this.runningOf.delete(key);
    if (this.open) this.dispatch();
  }

  /** Hands free slots to the waiting keys in turn; a key served goes to the back of the turns. */
  private dispatch(): void {
    while (this.running < this.bounds.total) {
      const index = this.turns.findIndex((key) => this.inFlight(key) < this.bounds.perKey);
      if (index < 0) return;
      const key = this.turns[index]!;
      const line = this.lines.get(key)!;
      const resolve = line.shift()!;
      this.waiting -= 1;
      this.turns.splice(index, 1);
      if (line.length > 0) this.turns.push(key);
      else this.lines.delete(key);
      this.take(key);
      resolve(true);
    }
  }
}
