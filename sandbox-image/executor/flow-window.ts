// Credit accounting for one direction of an egress stream, the server's side (the executor's twin is
// sandbox-image/executor-go/flow_window.go).
// Pure bookkeeping: the callers move the bytes. Each peer checks the other's numbers, because either
// side may be buggy and the executor runs as the sandbox user (its frames can be forged).

/** The sending half: how much may still be sent before the receiver acknowledges. */
export class SendWindow {
  private unacknowledged = 0;

  constructor(readonly size: number) {}

  /** Bytes that may be sent right now. */
  available(): number {
    return this.size - this.unacknowledged;
  }

  /** Bytes sent and not yet acknowledged. */
  inFlight(): number {
    return this.unacknowledged;
  }

  /** Records bytes just sent; the caller must have checked available(). */
  spend(bytes: number): void {
    if (bytes > this.available()) throw new RangeError(`sending ${bytes} bytes with only ${this.available()} of credit`);
    this.unacknowledged += bytes;
  }

  /** Records an acknowledgement; false if it acknowledges bytes never sent (the peer is lying or broken). */
  credit(bytes: number): boolean {
    if (!Number.isSafeInteger(bytes) || bytes <= 0 || bytes > this.unacknowledged) return false;
    this.unacknowledged -= bytes;
    return true;
  }
}

/**
 * The receiving half. Acknowledgements are batched: one per quarter window consumed rather than one
 * per frame. That cannot stall the sender: it only waits when the whole window is in flight, and once
 * the reader consumes that window, at least a quarter of it is due.
 */
export class ReceiveWindow {
  private unacknowledged = 0;
  private consumedSinceAck = 0;
  private readonly ackThreshold: number;

  constructor(readonly size: number) {
    this.ackThreshold = Math.max(1, Math.floor(size / 4));
  }

  /** Records bytes that arrived; false if they exceed what the sender was allowed to send. */
  receive(bytes: number): boolean {
    if (this.unacknowledged + bytes > this.size) return false;
    this.unacknowledged += bytes;
    return true;
  }

  /** Records bytes that left our hands; returns how many to acknowledge now (0: not yet worth a frame). */
  consume(bytes: number): number {
    this.consumedSinceAck += bytes;
    if (this.consumedSinceAck < this.ackThreshold) return 0;
    const acknowledged = this.consumedSinceAck;
    this.consumedSinceAck = 0;
    this.unacknowledged -= acknowledged;
    return acknowledged;
  }

  /** Bytes received and not yet acknowledged (whether consumed or not). */
  held(): number {
    return this.unacknowledged;
  }
}
