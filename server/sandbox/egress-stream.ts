// The server's end of one egress stream: a Duplex whose other end is a sandbox program's TCP socket.
//
// Backpressure is real on both sides. Writing: data leaves only as far as the stream's send window
// allows, so write() returns false and 'drain' waits for the executor's acknowledgements. Reading:
// bytes are acknowledged only as they are handed to the Readable machinery (at most its high-water mark
// ahead of the reader), so a reader that stops reading stops the sandbox program's sends.
//
// The executor is untrusted: a peer that sends past its window, sends after its end or acknowledges
// bytes never sent gets the stream closed with EPROTO; error texts it supplies are trimmed.

import { Duplex } from "node:stream";
import { ReceiveWindow, SendWindow } from "../../sandbox-image/executor/flow-window.js";
import { CodedError } from "../common/errors.js";
import {
  EGRESS_MAX_DATA_FRAME_BYTES,
  EGRESS_WINDOW_BYTES,
  type EgressFrame,
  type EgressStreamErrorInfo,
} from "../../sandbox-image/executor/protocol.js";

/** How an egress stream failed: ECONNRESET (the sandbox side reset or vanished), EPROTO (a violation), … */
export class EgressStreamError extends CodedError {}

export interface EgressStreamLink {
  send(frame: EgressFrame, body?: Buffer): void;
  /** The stream no longer takes frames from the channel (closed, or complete in both directions). */
  detach(streamId: number): void;
}

/** The frames the executor may send about a stream once it is open. */
export type ExecutorStreamFrame = Exclude<EgressFrame, { egress: "open" }>;

const BUFFER_BYTES = 64 * 1024;

export class EgressStream extends Duplex {
  private readonly sendWindow = new SendWindow(EGRESS_WINDOW_BYTES);
  private readonly receiveWindow = new ReceiveWindow(EGRESS_WINDOW_BYTES);
  /** Received, not yet handed to the Readable side (it asked for no more). */
  private readonly incoming: Buffer[] = [];
  private readerWantsData = false;
  private delivering = false;
  private remoteEnded = false;
  private readableEndPushed = false;
  private localEndSent = false;
  /** The chunk _write is sending, waiting for credit. */
  private blockedWrite: { rest: Buffer; callback: (error?: Error | null) => void } | null = null;
  private detached = false;

  constructor(
    readonly streamId: number,
    private readonly link: EgressStreamLink,
  ) {
    super({ allowHalfOpen: true, readableHighWaterMark: BUFFER_BYTES, writableHighWaterMark: BUFFER_BYTES });
  }

  /** Bytes written and not yet acknowledged by the executor (never above the window). */
  get unacknowledgedBytesSent(): number {
    return this.sendWindow.inFlight();
  }

  /** Bytes received and not yet acknowledged: queued here or in the Readable buffer (never above the window). */
  get unacknowledgedBytesReceived(): number {
    return this.receiveWindow.held();
  }

  /** Called by the registry for every frame about this stream. */
  receiveFrame(frame: ExecutorStreamFrame, body: Buffer): void {
    if (this.destroyed) return;
    switch (frame.egress) {
      case "data":
        return this.receiveData(body);
      case "ack":
        if (!this.sendWindow.credit(frame.bytes)) return this.violation(`acknowledgement of ${frame.bytes} bytes never sent`);
        return this.sendBlockedWrite();
      case "end":
        if (this.remoteEnded) return;
        this.remoteEnded = true;
        this.deliverIncoming();
        return this.detachIfComplete();
      case "close":
        return this.receiveClose(frame.error);
    }
  }

  /** The channel is gone: fail the stream without telling the executor (nobody is listening). */
  abandon(error: Error): void {
    this.detached = true;
    this.destroy(error);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.blockedWrite = { rest: chunk, callback };
    this.sendBlockedWrite();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.localEndSent = true;
    this.sendFrame({ egress: "end", stream: this.streamId });
    this.detachIfComplete();
    callback();
  }

  override _read(): void {
    this.readerWantsData = true;
    this.deliverIncoming();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (!this.detached) {
      // Destroyed before both ends were exchanged. With an error or before our end, an abort: the executor
      // resets the program's socket. After our end and without an error, the executor first delivers
      // what was already sent (what is still buffered in this Writable is dropped, as destroy() does).
      this.sendFrame({ egress: "close", stream: this.streamId, ...(error ? { error: errorInfo(error) } : {}) });
      this.detach();
    }
    this.incoming.length = 0;
    this.blockedWrite = null;
    callback(error);
  }

  private receiveData(body: Buffer): void {
    if (this.remoteEnded) return this.violation("data after end");
    if (!this.receiveWindow.receive(body.length)) return this.violation("the sandbox side overran the flow-control window");
    if (body.length === 0) return;
    // A copy: the body is a view into the channel's read buffer, which it would otherwise keep alive.
    this.incoming.push(Buffer.from(body));
    this.deliverIncoming();
  }

  private receiveClose(error: EgressStreamErrorInfo | undefined): void {
    this.detach();
    const complete = this.remoteEnded && this.localEndSent;
    if (complete && error === undefined) return;
    this.destroy(
      error === undefined
        ? new EgressStreamError("ECONNRESET", "the sandbox side closed the connection")
        : new EgressStreamError(sanitizeCode(error.code), `sandbox side: ${trimMessage(error.message)}`),
    );
  }

  private deliverIncoming(): void {
    // push() may call _read() again synchronously; the outer loop carries on from there.
    if (this.delivering) return;
    this.delivering = true;
    try {
      while (this.readerWantsData && this.incoming.length > 0) {
        const chunk = this.incoming.shift()!;
        this.readerWantsData = this.push(chunk);
        const acknowledged = this.receiveWindow.consume(chunk.length);
        if (acknowledged > 0) this.sendFrame({ egress: "ack", stream: this.streamId, bytes: acknowledged });
      }
      if (this.remoteEnded && this.incoming.length === 0 && !this.readableEndPushed) {
        this.readableEndPushed = true;
        this.push(null);
      }
    } finally {
      this.delivering = false;
    }
  }

  private sendBlockedWrite(): void {
    const pending = this.blockedWrite;
    if (pending === null) return;
    while (pending.rest.length > 0 && this.sendWindow.available() > 0) {
      const size = Math.min(pending.rest.length, this.sendWindow.available(), EGRESS_MAX_DATA_FRAME_BYTES);
      this.sendFrame({ egress: "data", stream: this.streamId }, pending.rest.subarray(0, size));
      this.sendWindow.spend(size);
      pending.rest = pending.rest.subarray(size);
    }
    if (pending.rest.length > 0) return;
    this.blockedWrite = null;
    pending.callback();
  }

  /** Both directions ended: nothing more is owed either way, so the registry slot is free again. */
  private detachIfComplete(): void {
    if (this.remoteEnded && this.localEndSent) this.detach();
  }

  private detach(): void {
    if (this.detached) return;
    this.detached = true;
    this.link.detach(this.streamId);
  }

  private violation(detail: string): void {
    this.destroy(new EgressStreamError("EPROTO", `egress stream ${this.streamId}: ${detail}`));
  }

  private sendFrame(frame: EgressFrame, body?: Buffer): void {
    if (!this.detached) this.link.send(frame, body);
  }
}

function errorInfo(error: Error): EgressStreamErrorInfo {
  const code = (error as NodeJS.ErrnoException).code;
  return { code: typeof code === "string" ? code : "ECONNABORTED", message: error.message };
}

/** Codes from the executor end up in our errors and logs: keep them to what an errno code looks like. */
function sanitizeCode(code: string): string {
  return /^[A-Z][A-Z0-9_]{0,31}$/.test(code) ? code : "ECONNRESET";
}

function trimMessage(message: string): string {
  return message.length > 200 ? `${message.slice(0, 200)}…` : message;
}
