// How a client rebuilds an interaction's steps from its step events; the emulator builds its own steps
// the same way, so a stream accumulated this way always equals the stored interaction.
//
// step.start puts the step at its index; a `text` delta extends the step's last text content (or adds
// one); a `thought_summary` delta adds its content to a thought's summary; `arguments_delta`s add up to a
// function call's arguments (their JSON text, parsed once it is whole); a result delta appends to `result` and, when present, sets `is_error` (and `name`, `server_name`); step.stop
// changes nothing. Other events carry no step content.

import { isResultStep } from "../agent/step-sink.js";
import { copyJson } from "../common/json-copy.js";
import type { InteractionEvent } from "./events.js";
import type { Step, StepDelta } from "../agent/steps.js";

export function applyEvent(steps: Step[], event: InteractionEvent): void {
  if (event.event_type === "step.start") {
    steps[event.index] = copyJson(event.step);
    return;
  }
  if (event.event_type !== "step.delta") return;
  const step = steps[event.index];
  if (!step) throw new Error(`step.delta for step ${event.index}, which has not started`);
  applyDelta(step, event.delta);
}

/** A function call's arguments text so far, while it does not parse yet. */
const argumentsText = new WeakMap<Step, string>();

function applyDelta(step: Step, delta: StepDelta): void {
  if (delta.type === "arguments_delta") {
    if (step.type !== "function_call") throw mismatch(step, delta);
    const text = (argumentsText.get(step) ?? "") + delta.arguments;
    try {
      step.arguments = JSON.parse(text) as Record<string, unknown>;
      argumentsText.delete(step);
    } catch {
      argumentsText.set(step, text);
    }
    return;
  }
  if (delta.type === "text") {
    // A history's step (as sent, its content may be left out) is never streamed into.
    if ((step.type !== "model_output" && step.type !== "user_input") || step.content === undefined) throw mismatch(step, delta);
    const last = step.content[step.content.length - 1];
    if (last?.type === "text") last.text += delta.text;
    else step.content.push({ type: "text", text: delta.text });
    return;
  }
  if (delta.type === "thought_summary") {
    if (step.type !== "thought") throw mismatch(step, delta);
    step.summary = [...(step.summary ?? []), delta.content];
    return;
  }
  // A client's function result (an object or Content items) is recorded whole and never streamed.
  if (!isResultStep(step) || step.type !== delta.type || typeof step.result !== "string") throw mismatch(step, delta);
  step.result += delta.result;
  if (delta.is_error !== undefined) step.is_error = delta.is_error;
  if (delta.type === "function_result" && step.type === "function_result" && delta.name !== undefined) step.name = delta.name;
  if (delta.type === "mcp_server_tool_result" && step.type === "mcp_server_tool_result") {
    if (delta.name !== undefined) step.name = delta.name;
    if (delta.server_name !== undefined) step.server_name = delta.server_name;
  }
}

function mismatch(step: Step, delta: StepDelta): Error {
  return new Error(`a ${delta.type} delta cannot apply to a ${step.type} step`);
}

/** The steps an event sequence describes, and the index of a step that started but has not stopped. */
export function foldEvents(events: Iterable<InteractionEvent>): { steps: Step[]; openIndex: number | null } {
  const steps: Step[] = [];
  let openIndex: number | null = null;
  for (const event of events) {
    applyEvent(steps, event);
    if (event.event_type === "step.start") openIndex = event.index;
    if (event.event_type === "step.stop" && openIndex === event.index) openIndex = null;
  }
  return { steps, openIndex };
}

/**
 * The steps an event sequence describes, each yielded once it stopped (or, for the last, when the events
 * end), so only one step is ever held: for reading a stored interaction of any size step by step.
 */
export async function* foldStepsOneByOne(events: AsyncIterable<InteractionEvent>): AsyncGenerator<Step, void, undefined> {
  // One slot, so applyEvent's rules apply unchanged: every event of the open step is addressed to 0.
  let slot: Step[] = [];
  let openIndex: number | null = null;
  for await (const event of events) {
    if (event.event_type === "step.start") {
      if (slot[0]) yield slot[0];
      slot = [];
      openIndex = event.index;
      applyEvent(slot, { ...event, index: 0 });
    } else if (event.event_type === "step.delta") {
      if (event.index !== openIndex) throw new Error(`step.delta for step ${event.index}, which is not the open step`);
      applyEvent(slot, { ...event, index: 0 });
    } else if (event.event_type === "step.stop" && event.index === openIndex && slot[0]) {
      yield slot[0];
      slot = [];
      openIndex = null;
    }
  }
  if (slot[0]) yield slot[0];
}
