// An Interaction as a JSON answer (GET, the create and cancel answers), written piece by piece with its
// steps one at a time (json-stream-writer.ts), so its size never decides whether it can be read and
// never holds the event loop (docs/security.md#bounded-work).

import type { ServerResponse } from "node:http";
import { LazyArray } from "../common/lazy-array.js";
import type { InteractionReading } from "../interactions/interaction-store.js";
import { type RenderOptions, renderStreamedInteraction } from "../interactions/interaction-view.js";
import { sendJson } from "./json-stream-writer.js";

export function sendInteraction(res: ServerResponse, reading: InteractionReading, options: RenderOptions = {}): Promise<void> {
  const steps = reading.steps();
  // A list already in memory (a create or cancel answer) is written as it is; the writer still goes
  // step by step. Steps read from the store come one at a time.
  return sendJson(res, renderStreamedInteraction(reading.record, options, Array.isArray(steps) ? steps : new LazyArray(steps)));
}
