// Server-sent events as the official SDK reads them (docs/wire-protocol.md#framing): `200 text/event-stream`,
// one frame per event, `event:` and `id:` lines for curl and EventSource users, and the event itself
// as one `data:` line of JSON carrying `event_type` and `event_id`. After the last event comes
// `data: [DONE]`, the sentinel the service's OpenAPI document declares (`x-speakeasy-sse-sentinel`) and
// both SDKs stop at; then the connection closes. Only a broken stream (the client left, a fault of ours)
// lacks it.
//
// Backpressure: the events are pulled one at a time from their source (an interaction's live log, or
// the store page by page) and the next is taken only once the socket took the last (json-stream-writer.ts
// waits for 'drain'), so a reader that does not read holds about one chunk, never the stream. An event
// as large as a whole interaction (interaction.completed) is written piece by piece like any JSON answer.
// A source may cut a reader off (a live reader too far behind its run): it then gets a last `error`
// event saying why and how to resume, and the connection closes (docs/wire-protocol.md#slow-readers).

import type { Response } from "express";
import type { EventError, StreamEvent } from "../interactions/events.js";
import { ChunkedWriter, ReaderGoneError, responseSink } from "./json-stream-writer.js";

/** A comment frame: ignored by SSE parsers, it keeps proxies from closing a quiet stream. */
export const SSE_HEARTBEAT = ": keep-alive\n\n";

/** The last frame of every stream the emulator ends itself, a cut-off one included. */
export const SSE_DONE = "data: [DONE]\n\n";

/** JSON.stringify never emits a raw line break, so the data is always one line. */
export function encodeSseFrame(event: StreamEvent): string {
  return `event: ${event.event_type}\nid: ${event.event_id}\ndata: ${JSON.stringify(event)}\n\n`;
}

/**
 * The frame that ends a stream cut off by the emulator: an `error` event without an `id:` (it is no
 * event of the interaction, so a client's last event ID stays the last event it really got).
 */
export function encodeCutOffFrame(error: EventError): string {
  return `event: error\ndata: ${JSON.stringify({ event_type: "error", error })}\n\n`;
}

export interface SseOptions {
  /** Called when the client goes away, or is cut off, before the last event. */
  onClientGone?: () => void;
  heartbeatMs?: number;
}

/**
 * Opens a stream's events; `cutOff` ends the stream early with a last error event (see above), made by
 * `errorFor` from the ID of the last event the reader was sent whole (null for none), to resume after.
 */
export type OpenEvents = (cutOff: (errorFor: (lastSentId: string | null) => EventError) => void) => AsyncIterable<StreamEvent>;

/**
 * How long a reader that was cut off mid-frame (its socket full) has to take the rest of that frame and
 * the error event before its connection is simply closed: a reader that reads nothing at all is let go.
 */
export const CUT_OFF_GRACE_MS = 30_000;

/** Answers with an event stream of what `open` yields, written as fast as the client reads it. */
export function sendEventStream(res: Response, open: OpenEvents, options: SseOptions = {}): void {
  res.status(200);
  res.setHeader("Content-Type", "text/event-stream; charset=utf-8");
  res.setHeader("Cache-Control", "no-cache, no-transform");
  res.setHeader("X-Accel-Buffering", "no");
  res.flushHeaders();
  const stop = new AbortController();
  let finished = false;
  /** A frame is partly written: the cut-off frame must wait for its end, or it would be read as part of it. */
  let midFrame = false;
  let cut: ((lastSentId: string | null) => EventError) | null = null;
  let lastSentId: string | null = null;
  let graceTimer: NodeJS.Timeout | null = null;
  const writable = () => !res.destroyed && !res.writableEnded;
  // Only into an empty buffer: a reader that does not read is not sent a comment every 15 s on top.
  const heartbeat = setInterval(() => {
    if (writable() && res.writableLength === 0) res.write(SSE_HEARTBEAT);
  }, options.heartbeatMs ?? 15_000);
  heartbeat.unref();
  const deliverCut = (errorFor: (lastSentId: string | null) => EventError) => {
    finished = true;
    stop.abort();
    if (writable()) res.end(encodeCutOffFrame(errorFor(lastSentId)) + SSE_DONE);
    options.onClientGone?.();
  };
  const cutOff = (errorFor: (lastSentId: string | null) => EventError) => {
    if (finished || cut !== null || !writable()) return;
    cut = errorFor;
    if (!midFrame) return deliverCut(errorFor);
    graceTimer = setTimeout(() => res.destroy(), CUT_OFF_GRACE_MS);
    graceTimer.unref();
  };
  res.on("close", () => {
    clearInterval(heartbeat);
    if (graceTimer) clearTimeout(graceTimer);
    stop.abort();
    if (!finished) {
      finished = true;
      options.onClientGone?.();
    }
  });

  const writeEvents = async (events: AsyncIterable<StreamEvent>): Promise<void> => {
    const writer = new ChunkedWriter(responseSink(res, stop.signal));
    const iterator = events[Symbol.asyncIterator]();
    const stopped = new Promise<null>((resolve) => stop.signal.addEventListener("abort", () => resolve(null), { once: true }));
    try {
      for (;;) {
        // A live source may wait minutes for its next event; a client that leaves meanwhile ends the wait.
        const next = await Promise.race([iterator.next(), stopped]);
        if (next === null || next.done || stop.signal.aborted) return;
        const event = next.value;
        midFrame = true;
        await writer.text(`event: ${event.event_type}\nid: ${event.event_id}\ndata: `);
        await writer.json(event);
        await writer.text("\n\n");
        // Each event goes out whole before the next is taken: a quiet run's last event is never held back.
        await writer.flush();
        midFrame = false;
        lastSentId = event.event_id;
        if (cut !== null) return deliverCut(cut);
      }
    } finally {
      // Not awaited: a source waiting for its next event finishes (and lets go of its log) when it wakes.
      iterator.return?.().catch(() => undefined);
    }
  };

  void writeEvents(open(cutOff)).then(
    () => {
      clearInterval(heartbeat);
      if (finished) return;
      finished = true;
      if (writable()) res.end(SSE_DONE);
    },
    (error: unknown) => {
      clearInterval(heartbeat);
      if (error instanceof ReaderGoneError || finished) return;
      // A fault of ours mid-stream (the store failed): the client sees the connection break, and can resume.
      console.error("an event stream failed:", error);
      finished = true;
      res.destroy(error as Error);
    },
  );
}
