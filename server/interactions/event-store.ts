// The stream events of stored interactions, so a stream can be resumed (GET …?stream=true&last_event_id=)
// while the interaction runs and after it finished, also across a restart of the emulator.
//
// [choice] The events are the one stored copy of an interaction's steps (the interaction store folds
// them back into steps), and the interaction snapshots of interaction.created and
// interaction.completed are not stored with them: they repeat the record (the completed one every
// step), so they are rebuilt from it when the events are read (replay-events.ts). A 50 MB input is
// then stored once, not three times (docs/security.md#limits).

import type { InteractionEvent, StreamEvent } from "./events.js";
import type { Statement } from "better-sqlite3";
import type { Db } from "../store/database.js";

type SnapshotEventType = "interaction.created" | "interaction.completed";

/** An event as read from the store: a snapshot event may lack its interaction (see withSnapshots). */
export type StoredEvent =
  | Exclude<StreamEvent, { event_type: SnapshotEventType }>
  | { event_type: SnapshotEventType; event_id: string; interaction?: Record<string, unknown> };

/** Events whose content is the interaction itself, stored without it. */
export function isSnapshotEvent(event: { event_type: string }): event is { event_type: SnapshotEventType } {
  return event.event_type === "interaction.created" || event.event_type === "interaction.completed";
}

/** About how much stored JSON one page of read() holds. */
const PAGE_BYTES = 256 * 1024;
const MAX_PAGE_EVENTS = 256;

export class EventStore {
  /** Prepared once: an interaction stores every event as it happens, several per tool call. */
  private insert: Statement<[string, number, string]> | null = null;
  private pageQuery: Statement<[string, number, number]> | null = null;

  constructor(private readonly db: Db) {}

  /** Stores the event; returns the length of the JSON stored for it. */
  append(interactionId: string, seq: number, event: StreamEvent): number {
    let stored: StoredEvent = event;
    if (isSnapshotEvent(event)) stored = { event_type: event.event_type, event_id: event.event_id };
    this.insert ??= this.db.prepare<[string, number, string]>(
      "INSERT INTO interaction_events (interaction_id, seq, event) VALUES (?, ?, ?)",
    );
    const json = JSON.stringify(stored);
    this.insert.run(interactionId, seq, json);
    return json.length;
  }

  /**
   * Up to `limit` events after sequence number `afterSeq`, with their numbers: a reader pages through
   * an interaction's events (by number, so a page never depends on an open cursor) at its own pace.
   */
  page(interactionId: string, afterSeq: number, limit: number): Array<{ seq: number; event: StoredEvent; size: number }> {
    this.pageQuery ??= this.db.prepare<[string, number, number]>(
      "SELECT seq, event FROM interaction_events WHERE interaction_id = ? AND seq > ? ORDER BY seq LIMIT ?",
    );
    const rows = this.pageQuery.all(interactionId, afterSeq, limit) as Array<{ seq: number; event: string }>;
    return rows.map((row) => ({ seq: row.seq, event: JSON.parse(row.event) as StoredEvent, size: row.event.length }));
  }

  /** The events after sequence number `afterSeq`, in order (snapshot events without their interaction). */
  list(interactionId: string, afterSeq = 0): StoredEvent[] {
    const rows = this.db
      .prepare("SELECT event FROM interaction_events WHERE interaction_id = ? AND seq > ? ORDER BY seq")
      .all(interactionId, afterSeq) as Array<{ event: string }>;
    return rows.map((row) => JSON.parse(row.event) as StoredEvent);
  }

  /**
   * The events after `afterSeq`, read a page at a time as the reader takes them: a page holds about
   * PAGE_BYTES of stored JSON (its size follows the last page's), so a reader that stops reading holds
   * one page, however large the interaction.
   */
  async *read(interactionId: string, afterSeq = 0): AsyncGenerator<{ seq: number; event: StoredEvent }, void, undefined> {
    let seq = afterSeq;
    let limit = 1;
    for (;;) {
      const page = this.page(interactionId, seq, limit);
      if (page.length === 0) return;
      const bytes = page.reduce((sum, row) => sum + row.size, 0);
      limit = Math.min(MAX_PAGE_EVENTS, Math.max(1, Math.floor((PAGE_BYTES * page.length) / Math.max(1, bytes))));
      for (const row of page) {
        seq = row.seq;
        yield row;
      }
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

/** The stored events that can be folded into steps (snapshot events carry no step content). */
export function foldableEvents(events: readonly StoredEvent[]): InteractionEvent[] {
  return events.filter((event): event is StreamEvent => !isSnapshotEvent(event));
}
