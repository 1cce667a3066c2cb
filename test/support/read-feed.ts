// An interaction's event feed (InteractionService.openEvents / follow) read whole, each event as a
// client would parse it: written by the streaming JSON writer (so a snapshot's lazily read steps are
// read) and parsed back.

import { writeJson } from "../../server/http/json-stream-writer.js";
import type { EventFeed } from "../../server/interactions/events.js";
import type { EventError, StreamEvent } from "../../server/interactions/events.js";

export async function readFeed(feed: EventFeed): Promise<{ events: StreamEvent[]; cutOff: EventError | null }> {
  let cutOff: EventError | null = null;
  const events: StreamEvent[] = [];
  for await (const event of feed((errorFor) => (cutOff = errorFor(events.at(-1)?.event_id ?? null))))
    events.push(JSON.parse(await jsonText(event)) as StreamEvent);
  return { events, cutOff };
}

/** The text the streaming writer makes of `value`. */
export async function jsonText(value: unknown): Promise<string> {
  const chunks: Buffer[] = [];
  await writeJson({ write: async (chunk) => void chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk) }, value);
  return Buffer.concat(chunks).toString("utf8");
}
