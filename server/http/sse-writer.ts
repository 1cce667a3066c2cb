// Server-sent events as the official SDK reads them (docs/wire-protocol.md#framing): `200 text/event-stream`,
// one frame per event, `event:` and `id:` lines for curl and EventSource users, and the event itself
// as one `data:` line of JSON carrying `event_type` and `event_id`. The connection closes after the
// last event (the SDK waits for the end of the body, not for interaction.completed).

import type { Response } from "express";
import type { EventSubscriber } from "../interactions/event-log.js";
import type { StreamEvent } from "../interactions/events.js";

/** A comment frame: ignored by SSE parsers, it keeps proxies from closing a quiet stream. */
export const SSE_HEARTBEAT = ": keep-alive\n\n";

/** JSON.stringify never emits a raw line break, so the data is always one line. */
export function encodeSseFrame(event: StreamEvent): string {
  return `event: ${event.event_type}\nid: ${event.event_id}\ndata: ${JSON.stringify(event)}\n\n`;
}

export interface SseOptions {
  /** Called when the client goes away before the last event. */
  onClientGone?: () => void;
  heartbeatMs?: number;
}

/** Answers with an event stream fed by `subscribe` until it ends or the client goes away. */
export function sendEventStream(res: Response, subscribe: (subscriber: EventSubscriber) => () => void, options: SseOptions = {}): void {
  res.status(200);
  res.setHeader("Content-Type", "text/event-stream; charset=utf-8");
  res.setHeader("Cache-Control", "no-cache, no-transform");
  res.setHeader("X-Accel-Buffering", "no");
  res.flushHeaders();
  let ended = false;
  const open = () => !ended && !res.destroyed && !res.writableEnded;
  const heartbeat = setInterval(() => {
    if (open()) res.write(SSE_HEARTBEAT);
  }, options.heartbeatMs ?? 15_000);
  heartbeat.unref();
  const unsubscribe = subscribe({
    event: (event) => {
      // Throwing drops this subscriber from the log; the run goes on.
      if (!open()) throw new Error("the client went away");
      res.write(encodeSseFrame(event));
    },
    end: () => {
      ended = true;
      clearInterval(heartbeat);
      if (!res.destroyed && !res.writableEnded) res.end();
    },
  });
  res.on("close", () => {
    clearInterval(heartbeat);
    unsubscribe();
    if (!ended) {
      ended = true;
      options.onClientGone?.();
    }
  });
}
