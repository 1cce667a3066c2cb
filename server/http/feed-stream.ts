// A live feed as server-sent events (GET /emulator/interactions?stream=true): one `event:` / `data:`
// frame per event, a comment every 15 s so proxies keep a quiet stream open, and no end: it runs until
// the client goes away. [choice] A client that reads too slowly is cut off rather than buffered without
// bound; it reconnects and lists again, which the dashboard does after any break.

import type { Response } from "express";
import { SSE_HEARTBEAT } from "./sse-writer.js";

/** Bytes a feed may have waiting for a slow client before its connection is closed. */
export const FEED_BUFFER_LIMIT = 1024 * 1024;

export interface FeedOptions {
  heartbeatMs?: number;
}

export function sendFeed<Event extends { event_type: string }>(
  res: Response,
  subscribe: (listener: (event: Event) => void) => () => void,
  options: FeedOptions = {},
): void {
  res.status(200);
  res.setHeader("Content-Type", "text/event-stream; charset=utf-8");
  res.setHeader("Cache-Control", "no-cache, no-transform");
  res.setHeader("X-Accel-Buffering", "no");
  const open = () => !res.destroyed && !res.writableEnded;
  // Subscribed before the headers go out: once the client sees them, it misses nothing that follows.
  const unsubscribe = subscribe((event) => {
    if (!open()) throw new Error("the client went away");
    if (res.writableLength > FEED_BUFFER_LIMIT) {
      res.end();
      throw new Error("the client reads too slowly");
    }
    res.write(`event: ${event.event_type}\ndata: ${JSON.stringify(event)}\n\n`);
  });
  res.flushHeaders();
  const heartbeat = setInterval(() => {
    if (open()) res.write(SSE_HEARTBEAT);
  }, options.heartbeatMs ?? 15_000);
  heartbeat.unref();
  res.on("close", () => {
    clearInterval(heartbeat);
    unsubscribe();
  });
}
