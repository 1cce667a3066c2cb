// A stream as the documentation shows it (docs/fidelity.md#streams): the steps the run produced, from
// index 0, without the steps that record the input (the documented streams open with the output's
// first step; GET has the whole timeline, input included). The events are stored and numbered with
// the input's steps, so these are left out here, on the way to every stream (POST, GET, live or
// replayed), and the other steps' indices shifted down by as many: a resumed stream's indices match
// the first one's. Their event IDs are skipped: an event_id stays a point to resume after.

import type { EventFeed, StreamEvent } from "./events.js";

export function outputEventsOnly(feed: EventFeed, inputSteps: number): EventFeed {
  if (inputSteps === 0) return feed;
  return (cutOff) => withoutInputSteps(feed(cutOff), inputSteps);
}

async function* withoutInputSteps(events: AsyncIterable<StreamEvent>, inputSteps: number): AsyncGenerator<StreamEvent, void, undefined> {
  for await (const event of events) {
    if (event.event_type === "step.start" || event.event_type === "step.delta" || event.event_type === "step.stop") {
      if (event.index < inputSteps) continue;
      yield { ...event, index: event.index - inputSteps };
    } else {
      yield event;
    }
  }
}
