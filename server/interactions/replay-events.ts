// The events of a stored interaction that has none in the store (it was stored by an emulator version
// before streams existed): rebuilt from its steps in the order a live run emits them, so resuming its
// stream works like for any other finished interaction.

import { withEventId, type InteractionEvent, type StreamEvent } from "./events.js";
import { renderCreatedSnapshot, renderInteraction } from "./interaction-view.js";
import type { InteractionRecord } from "./interaction-store.js";
import { StepWriter } from "./step-writer.js";

export function eventsOfStoredRecord(record: InteractionRecord): StreamEvent[] {
  const events: InteractionEvent[] = [
    { event_type: "interaction.created", interaction: { ...renderCreatedSnapshot(record), status: "in_progress" } },
    { event_type: "interaction.status_update", interaction_id: record.id, status: "in_progress" },
  ];
  const writer = new StepWriter((event) => events.push(event));
  for (const step of record.steps) {
    if (step.type === "code_execution_result" || step.type === "function_result") {
      writer.startResult(step).finish(step.result, step.is_error ?? false);
    } else if (step.type === "model_output") {
      writer.text(step.content.map((content) => content.text).join(""));
    } else {
      writer.complete(step);
    }
  }
  for (const error of record.errors) events.push({ event_type: "error", error });
  events.push({ event_type: "interaction.completed", interaction: renderInteraction(record) });
  return events.map((event, index) => withEventId(index + 1, event));
}
