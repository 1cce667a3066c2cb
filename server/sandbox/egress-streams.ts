// The registry of one channel's egress streams: routes stream frames, hands new streams to the
// handler, and bounds what an untrusted executor can make us hold. The hooks user's streams are
// counted apart from everyone else's, as the executor counts them (egress_listener.go), so that the
// sandbox's own connections never take a read-only hook's way out.

import type { Duplex } from "node:stream";
import { EGRESS_MAX_HOOK_STREAMS, EGRESS_MAX_STREAMS, type EgressFrame } from "../../sandbox-image/executor/protocol.js";
import { EgressStream } from "./egress-stream.js";

export type EgressStreamHandler = (stream: Duplex) => void;

export class EgressStreams {
  private readonly streams = new Map<number, EgressStream>();
  /** Open streams of the hooks user's (the rest of `streams` are everyone else's). */
  private readonly hookStreams = new Set<number>();
  private handler: EgressStreamHandler | null = null;
  private highestOpened = 0;
  private closed = false;

  constructor(private readonly send: (frame: EgressFrame, body?: Buffer) => void) {}

  /** Replaces the handler; without one, new connections are refused. */
  setHandler(handler: EgressStreamHandler): void {
    this.handler = handler;
  }

  /** Streams currently taking frames from the channel. */
  get size(): number {
    return this.streams.size;
  }

  receive(frame: EgressFrame, body: Buffer): void {
    if (this.closed) return;
    if (frame.egress === "open") return this.open(frame.stream, frame.identity === "hooks");
    // Unknown ids: a stream closed here whose late frames were already on their way (or noise).
    this.streams.get(frame.stream)?.receiveFrame(frame, body);
  }

  /** The channel closed: every open stream fails with `error`; later opens are dropped. */
  destroyAll(error: Error): void {
    this.closed = true;
    const open = [...this.streams.values()];
    this.streams.clear();
    this.hookStreams.clear();
    for (const stream of open) stream.abandon(error);
  }

  private open(streamId: number, ofHooks: boolean): void {
    // Ids only grow: a replayed or reordered id could otherwise be taken for a fresh connection.
    if (streamId <= this.highestOpened) return;
    this.highestOpened = streamId;
    // The executor enforces the same limit; one that does not (a forged executor) is refused here too.
    if (this.handler === null) return this.refuse(streamId, "ECONNREFUSED", "no egress handler on the server");
    if (ofHooks && this.hookStreams.size >= EGRESS_MAX_HOOK_STREAMS) {
      return this.refuse(streamId, "EMFILE", `more than ${EGRESS_MAX_HOOK_STREAMS} concurrent egress streams of the hooks user`);
    }
    if (!ofHooks && this.streams.size - this.hookStreams.size >= EGRESS_MAX_STREAMS) {
      return this.refuse(streamId, "EMFILE", `more than ${EGRESS_MAX_STREAMS} concurrent egress streams`);
    }
    const stream = new EgressStream(streamId, {
      send: this.send,
      detach: (id) => {
        this.streams.delete(id);
        this.hookStreams.delete(id);
      },
    });
    this.streams.set(streamId, stream);
    if (ofHooks) this.hookStreams.add(streamId);
    try {
      this.handler(stream);
    } catch {
      // A handler that throws cannot be serving the stream: reset the program's connection rather than
      // leave it hanging (and keep the exception away from the channel's read loop).
      stream.destroy();
    }
  }

  private refuse(streamId: number, code: string, message: string): void {
    this.send({ egress: "close", stream: streamId, error: { code, message } });
  }
}
