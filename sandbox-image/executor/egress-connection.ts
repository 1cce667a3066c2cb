// One sandbox program's connection to the egress listener, carried to the server as one egress stream.
// The socket is paused whenever the stream's send window is used up, and bytes from the server are
// acknowledged only once the kernel took them, so a fast peer never makes us buffer more than a window.

import type { Socket } from "node:net";
import { ReceiveWindow, SendWindow } from "./flow-window.js";
import { EGRESS_MAX_DATA_FRAME_BYTES, EGRESS_WINDOW_BYTES, type EgressFrame, type EgressStreamErrorInfo } from "./protocol.js";

export interface EgressConnectionLink {
  send(frame: EgressFrame, body?: Buffer): void;
  /** The socket is gone: drop the connection from the registry. */
  forget(streamId: number): void;
}

/** The frames the server may send about a stream (`open` is the executor's alone). */
export type ServerStreamFrame = Exclude<EgressFrame, { egress: "open" }>;

export class EgressConnection {
  private readonly sendWindow = new SendWindow(EGRESS_WINDOW_BYTES);
  private readonly receiveWindow = new ReceiveWindow(EGRESS_WINDOW_BYTES);
  /** Bytes read from the program that the window did not let through yet (the socket is paused meanwhile). */
  private unsent: Buffer | null = null;
  private programEnded = false;
  private endSent = false;
  private serverEnded = false;
  private closedByServer = false;
  private failure: EgressStreamErrorInfo | null = null;

  constructor(
    readonly streamId: number,
    private readonly socket: Socket,
    private readonly link: EgressConnectionLink,
  ) {
    link.send({ egress: "open", stream: streamId });
    socket.on("data", (chunk: Buffer) => this.forward(chunk));
    socket.on("end", () => {
      this.programEnded = true;
      this.flush();
    });
    socket.on("error", (error: NodeJS.ErrnoException) => {
      this.failure ??= { code: error.code ?? "EIO", message: error.message };
    });
    socket.on("close", () => this.closed());
  }

  receive(frame: ServerStreamFrame, body: Buffer): void {
    if (this.socket.destroyed) return;
    switch (frame.egress) {
      case "data":
        this.write(body);
        break;
      case "ack":
        if (!this.sendWindow.credit(frame.bytes)) this.abort(`acknowledgement of ${frame.bytes} bytes never sent`);
        else this.flush();
        break;
      case "end":
        this.serverEnded = true;
        this.socket.end();
        break;
      case "close":
        this.closedByServer = true;
        if (this.serverEnded && frame.error === undefined) this.finishThenClose();
        // The server gave up on the connection: the program must see a reset, not a clean end of data.
        else this.socket.resetAndDestroy();
        break;
    }
  }

  /**
   * The server ended its side and is done with the connection: like close() after shutdown(SHUT_WR),
   * what it wrote is still delivered, then the socket closes normally. The program's further bytes are
   * read and dropped (unread bytes at close would turn the FIN into a reset).
   */
  private finishThenClose(): void {
    this.unsent = null;
    this.socket.resume();
    if (this.socket.writableFinished) this.socket.destroy();
    else this.socket.once("finish", () => this.socket.destroy());
  }

  /** The executor is exiting: drop the connection hard, telling nobody (the channel is gone). */
  reset(): void {
    this.closedByServer = true;
    this.socket.resetAndDestroy();
  }

  private write(body: Buffer): void {
    if (this.serverEnded) return this.abort("data after end");
    if (!this.receiveWindow.receive(body.length)) return this.abort("the server overran the flow-control window");
    this.socket.write(body, (error) => {
      if (error || this.socket.destroyed || this.closedByServer) return;
      const acknowledged = this.receiveWindow.consume(body.length);
      if (acknowledged > 0) this.link.send({ egress: "ack", stream: this.streamId, bytes: acknowledged });
    });
  }

  private forward(chunk: Buffer): void {
    if (this.closedByServer) return;
    this.unsent = this.unsent === null ? chunk : Buffer.concat([this.unsent, chunk]);
    this.flush();
  }

  /** Sends what the window allows; pauses the program's socket while anything is left over. */
  private flush(): void {
    if (this.closedByServer) return;
    while (this.unsent !== null && this.sendWindow.available() > 0) {
      const size = Math.min(this.unsent.length, this.sendWindow.available(), EGRESS_MAX_DATA_FRAME_BYTES);
      this.link.send({ egress: "data", stream: this.streamId }, this.unsent.subarray(0, size));
      this.sendWindow.spend(size);
      this.unsent = size === this.unsent.length ? null : this.unsent.subarray(size);
    }
    if (this.socket.destroyed) return;
    if (this.unsent !== null) {
      this.socket.pause();
    } else if (this.programEnded) {
      if (!this.endSent) {
        this.endSent = true;
        this.link.send({ egress: "end", stream: this.streamId });
      }
    } else if (this.socket.isPaused()) {
      this.socket.resume();
    }
  }

  private abort(reason: string): void {
    this.failure ??= { code: "EPROTO", message: reason };
    this.socket.resetAndDestroy();
  }

  private closed(): void {
    if (!this.closedByServer) {
      // A socket destroyed before both ends were exchanged is an abort even without an error.
      const graceful = this.endSent && this.serverEnded;
      const error = this.failure ?? (graceful ? undefined : { code: "ECONNRESET", message: "the connection was reset" });
      this.link.send({ egress: "close", stream: this.streamId, ...(error ? { error } : {}) });
    }
    this.link.forget(this.streamId);
  }
}
