// Stored events as a client receives them: the interaction snapshots that the store leaves out are
// rebuilt from the record (withSnapshots), and an interaction stored by an emulator version before
// streams existed gets its events rebuilt from its steps (eventsOfStoredRecord), in the order a live
// run emits them, so resuming its stream works like for any other finished interaction.

import { isResultStep } from "../agent/step-sink.js";
import { contentText } from "../agent/steps.js";
import { withEventId, type InteractionEvent, type StreamEvent } from "./events.js";
import type { EventStore, StoredEvent } from "./event-store.js";
import { renderCompletedSnapshot, renderCreatedSnapshot } from "./interaction-view.js";
import type { InteractionReading, InteractionRecord } from "./interaction-store.js";
import { StepWriter } from "./step-writer.js";

/**
 * The interaction as interaction.created showed it: in progress, as it was created (no steps, no
 * errors; nothing else of the record changes during a run).
 */
export function createdSnapshotOf(record: InteractionRecord): ReturnType<typeof renderCreatedSnapshot> {
  return renderCreatedSnapshot({ ...record, status: "in_progress", updated: record.created, errors: [] });
}

/**
 * Stored events with their snapshots back: interaction.created as the run began, interaction.completed
 * as the finished record without its steps. Events stored with a snapshot (older versions) keep it,
 * but for the steps, which the documented interaction.completed does not carry.
 */
export function withSnapshots(events: readonly StoredEvent[], record: InteractionRecord): StreamEvent[] {
  return events.map((event): StreamEvent => {
    if (event.event_type === "interaction.created" && event.interaction === undefined) {
      return { event_type: event.event_type, event_id: event.event_id, interaction: createdSnapshotOf(record) };
    }
    if (event.event_type === "interaction.completed" && event.interaction === undefined) {
      return { event_type: event.event_type, event_id: event.event_id, interaction: renderCompletedSnapshot(record) };
    }
    return withoutSnapshotSteps(event as StreamEvent);
  });
}

/** withSnapshots for a stream read from the store page by page (readStoredEvents): never held whole. */
export async function* replayStoredEvents(
  events: EventStore,
  reading: InteractionReading,
  afterSeq: number,
): AsyncGenerator<StreamEvent, void, undefined> {
  const { record } = reading;
  for await (const { event } of events.read(record.id, afterSeq)) {
    if (event.event_type === "interaction.created" && event.interaction === undefined) {
      yield { event_type: event.event_type, event_id: event.event_id, interaction: createdSnapshotOf(record) };
    } else if (event.event_type === "interaction.completed" && event.interaction === undefined) {
      yield { event_type: event.event_type, event_id: event.event_id, interaction: renderCompletedSnapshot(record) };
    } else {
      yield withoutSnapshotSteps(event as StreamEvent);
    }
  }
}

export function eventsOfStoredRecord(record: InteractionRecord): StreamEvent[] {
  const events: InteractionEvent[] = [
    { event_type: "interaction.created", interaction: { ...renderCreatedSnapshot(record), status: "in_progress" } },
    { event_type: "interaction.status_update", interaction_id: record.id, status: "in_progress" },
  ];
  const writer = new StepWriter((event) => events.push(event));
  for (const step of record.steps) {
    if (isResultStep(step) && typeof step.result === "string") {
      writer.startResult(step).finish(step.result, step.is_error ?? false);
    } else if (step.type === "model_output" && step.content?.every((part) => part.type === "text")) {
      writer.text(contentText(step.content));
    } else {
      writer.complete(step);
    }
  }
  for (const error of record.errors) events.push({ event_type: "error", error });
  events.push({ event_type: "interaction.completed", interaction: renderCompletedSnapshot(record) });
  return events.map((event, index) => withEventId(index + 1, event));
}

/** An interaction.completed stored whole by an older version, without the steps it carried then. */
function withoutSnapshotSteps(event: StreamEvent): StreamEvent {
  if (event.event_type !== "interaction.completed" || !("steps" in event.interaction)) return event;
  const { steps: _steps, ...interaction } = event.interaction;
  return { ...event, interaction };
}
