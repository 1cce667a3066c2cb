// The stream events of stored interactions, so a stream can be resumed (GET …?stream=true&last_event_id=)
// while the interaction runs and after it finished, also across a restart of the emulator.

import type { StreamEvent } from "./events.js";
import type { Db } from "../store/database.js";

export class EventStore {
  constructor(private readonly db: Db) {}

  append(interactionId: string, seq: number, event: StreamEvent): void {
    this.db
      .prepare("INSERT INTO interaction_events (interaction_id, seq, event) VALUES (?, ?, ?)")
      .run(interactionId, seq, JSON.stringify(event));
  }

  /** The events after sequence number `afterSeq`, in order. */
  list(interactionId: string, afterSeq = 0): StreamEvent[] {
    const rows = this.db
      .prepare("SELECT event FROM interaction_events WHERE interaction_id = ? AND seq > ? ORDER BY seq")
      .all(interactionId, afterSeq) as Array<{ event: string }>;
    return rows.map((row) => JSON.parse(row.event) as StreamEvent);
  }

  /** The sequence number of the interaction's last event, 0 when it has none. */
  lastSeq(interactionId: string): number {
    const row = this.db.prepare("SELECT MAX(seq) AS last FROM interaction_events WHERE interaction_id = ?").get(interactionId) as {
      last: number | null;
    };
    return row.last ?? 0;
  }
}
