// At start-up: interactions still marked in_progress were running when the emulator stopped (a
// restart, a crash, a kill). Nothing runs them any more, so each is ended as failed, with an error
// saying why, and its event log is closed the way a live run closes it, so a client resuming the
// stream gets a proper end (an open result step is stopped, then error and interaction.completed).

import { isResultStep } from "../agent/step-sink.js";
import { foldableEvents, type EventStore, type StoredEvent } from "./event-store.js";
import type { InteractionRecord, InteractionStore } from "./interaction-store.js";
import { nowTimestamp } from "../common/timestamps.js";
import { withEventId, type EventError, type InteractionEvent } from "./events.js";
import { renderCompletedSnapshot } from "./interaction-view.js";
import { applyEvent, foldEvents } from "./step-accumulator.js";
import type { Usage } from "./usage.js";

export const INTERRUPTED_ERROR: EventError = {
  code: "aborted",
  message:
    "The emulator stopped (a restart, a crash or a kill) while this interaction was running, so it did not finish; the steps so far are kept. Create the interaction again.",
};

/**
 * Ends every interrupted interaction as failed; returns how many there were. `onEnded` is told of
 * each once it is saved, as of any run that ends (its webhooks deliver `interaction.failed`).
 */
export function recoverInterrupted(
  interactions: InteractionStore,
  events: EventStore,
  onEnded?: (record: InteractionRecord) => void,
): number {
  const interrupted = interactions.listInProgress();
  for (const record of interrupted) {
    interactions.atomically(() => closeInterrupted(record, interactions, events));
    try {
      onEnded?.(record);
    } catch (error) {
      console.error(`interaction ${record.id}: telling of its end failed:`, error);
    }
  }
  return interrupted.length;
}

function closeInterrupted(record: InteractionRecord, interactions: InteractionStore, events: EventStore): void {
  const stored = events.list(record.id);
  const { steps, openIndex } = foldEvents(foldableEvents(stored));
  let seq = stored.length;
  const append = (event: InteractionEvent) => {
    seq += 1;
    events.append(record.id, seq, withEventId(seq, event));
    applyEvent(steps, event);
  };
  if (openIndex !== null) {
    const open = steps[openIndex];
    if (open && isResultStep(open)) {
      append({ event_type: "step.delta", index: openIndex, delta: { type: open.type, result: "\n[interrupted]", is_error: true } });
    }
    append({ event_type: "step.stop", index: openIndex });
  }
  record.steps = steps;
  // The record was last saved as the run began; its events carry the usage as far as the run got.
  const lastUsage = lastUsageOf(stored);
  if (lastUsage) record.usage = lastUsage;
  record.status = "failed";
  record.errors = [...record.errors, INTERRUPTED_ERROR];
  record.updated = nowTimestamp();
  append({ event_type: "error", error: INTERRUPTED_ERROR });
  append({ event_type: "interaction.completed", interaction: renderCompletedSnapshot(record) });
  interactions.save(record, { stepsInEvents: true });
}

/** The usage the last event that carries one says (usage-meter.ts), if any does. */
function lastUsageOf(events: readonly StoredEvent[]): Usage | undefined {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index];
    if (event && "usage" in event && event.usage) return event.usage;
  }
  return undefined;
}
