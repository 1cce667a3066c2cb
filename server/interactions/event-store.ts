// The stream events of stored interactions, so a stream can be resumed (GET …?stream=true&last_event_id=)
// while the interaction runs and after it finished, also across a restart of the emulator.
//
// [choice] The events are the one stored copy of an interaction's steps (the interaction store folds
// them back into steps), and the interaction snapshots of interaction.created and
// interaction.completed are not stored with them: they repeat the record (the completed one every
// step), so they are rebuilt from it when the events are read (replay-events.ts). A 50 MB input is
// then stored once, not three times (docs/security.md#limits).

import { jsonPartsReusingEscapes } from "../common/escaped-json.js";
import type { InteractionEvent, StreamEvent } from "./events.js";
import type { Statement } from "better-sqlite3";
import type { Db } from "../store/database.js";
import type { InteractionSseEventInteraction } from "../wire/openapi-types.js";

type SnapshotEventType = "interaction.created" | "interaction.completed";

/** An event as read from the store: a snapshot event may lack its interaction (see withSnapshots). */
export type StoredEvent =
  | Exclude<StreamEvent, { event_type: SnapshotEventType }>
  | { event_type: SnapshotEventType; event_id: string; interaction?: InteractionSseEventInteraction };

/** Events whose content is the interaction itself, stored without it. */
export function isSnapshotEvent(event: { event_type: string }): event is { event_type: SnapshotEventType } {
  return event.event_type === "interaction.created" || event.event_type === "interaction.completed";
}

/** The most stored JSON one page of read() holds (unless one event alone is larger). */
const PAGE_BYTES = 256 * 1024;
const MAX_PAGE_EVENTS = 256;

export class EventStore {
  /** Prepared once: an interaction stores every event as it happens, several per tool call. */
  private insert: Statement<[string, number, string | Buffer]> | null = null;
  private sizeQuery: Statement<[string, number, number]> | null = null;
  private rangeQuery: Statement<[string, number, number]> | null = null;

  constructor(private readonly db: Db) {}

  /** Stores the event; returns the bytes of the JSON stored for it (UTF-8). */
  append(interactionId: string, seq: number, event: StreamEvent): number {
    let stored: StoredEvent = event;
    if (isSnapshotEvent(event)) stored = { event_type: event.event_type, event_id: event.event_id };
    // A result's long text is escaped once here, as UTF-8, and reused for the answer (common/escaped-json.ts).
    const parts = jsonPartsReusingEscapes(stored);
    // CAST: the JSON of an event with a long string is bound as its UTF-8 bytes (a BLOB), stored as the
    // same TEXT, so every reader still gets a string; an event's JSON in one piece is TEXT already.
    this.insert ??= this.db.prepare<[string, number, string | Buffer]>(
      "INSERT INTO interaction_events (interaction_id, seq, event) VALUES (?, ?, CAST(? AS TEXT))",
    );
    const [only] = parts;
    if (parts.length === 1 && typeof only === "string") {
      this.insert.run(interactionId, seq, only);
      return Buffer.byteLength(only);
    }
    const bytes = utf8OfParts(parts);
    this.insert.run(interactionId, seq, bytes);
    return bytes.length;
  }

  /** The events after sequence number `afterSeq`, in order (snapshot events without their interaction). */
  list(interactionId: string, afterSeq = 0): StoredEvent[] {
    const rows = this.db
      .prepare("SELECT event FROM interaction_events WHERE interaction_id = ? AND seq > ? ORDER BY seq")
      .all(interactionId, afterSeq) as Array<{ event: string }>;
    return rows.map((row) => JSON.parse(row.event) as StoredEvent);
  }

  /**
   * The events after `afterSeq`, read a page at a time as the reader takes them: a page holds at most
   * PAGE_BYTES of stored JSON (or one event, when it alone is larger), so a reader that stops reading
   * holds one page, however large the interaction. The page is chosen from the rows' sizes (SQLite
   * has them without reading the rows), then read by sequence number, so no cursor stays open.
   */
  async *read(interactionId: string, afterSeq = 0): AsyncGenerator<{ seq: number; event: StoredEvent }, void, undefined> {
    this.sizeQuery ??= this.db.prepare<[string, number, number]>(
      "SELECT seq, octet_length(event) AS bytes FROM interaction_events WHERE interaction_id = ? AND seq > ? ORDER BY seq LIMIT ?",
    );
    this.rangeQuery ??= this.db.prepare<[string, number, number]>(
      "SELECT seq, event FROM interaction_events WHERE interaction_id = ? AND seq > ? AND seq <= ? ORDER BY seq",
    );
    let seq = afterSeq;
    for (;;) {
      const sizes = this.sizeQuery.all(interactionId, seq, MAX_PAGE_EVENTS) as Array<{ seq: number; bytes: number }>;
      if (sizes.length === 0) return;
      let last = seq;
      let bytes = 0;
      for (const row of sizes) {
        if (last !== seq && bytes + row.bytes > PAGE_BYTES) break;
        bytes += row.bytes;
        last = row.seq;
      }
      const rows = this.rangeQuery.all(interactionId, seq, last) as Array<{ seq: number; event: string }>;
      for (const row of rows) yield { seq: row.seq, event: JSON.parse(row.event) as StoredEvent };
      seq = last;
    }
  }

  /** The sequence number of the interaction's last event, 0 when it has none. */
  lastSeq(interactionId: string): number {
    const row = this.db.prepare("SELECT MAX(seq) AS last FROM interaction_events WHERE interaction_id = ?").get(interactionId) as {
      last: number | null;
    };
    return row.last ?? 0;
  }
}

/**
 * The UTF-8 bytes of the pieces' concatenation (text, and escapes already UTF-8), written into one
 * buffer: joined into one string, the JSON of a 1 MiB result would be one more string of its length on
 * V8's heap, made only to be copied.
 */
function utf8OfParts(parts: ReadonlyArray<string | Buffer>): Buffer {
  let size = 0;
  for (const part of parts) size += typeof part === "string" ? Buffer.byteLength(part) : part.length;
  const bytes = Buffer.allocUnsafe(size);
  let at = 0;
  for (const part of parts) at += typeof part === "string" ? bytes.write(part, at) : part.copy(bytes, at);
  return bytes;
}

/** The stored events that can be folded into steps (snapshot events carry no step content). */
export function foldableEvents(events: readonly StoredEvent[]): InteractionEvent[] {
  return events.filter((event): event is StreamEvent => !isSnapshotEvent(event));
}
