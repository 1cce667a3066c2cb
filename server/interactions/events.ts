// The server-sent events of one interaction (docs/wire-protocol.md#event-types), and their IDs.
//
// [choice] event_id is `evt_<n>`: n counts the interaction's stored events from 1, with no gaps, so
// "the events after evt_7" is simply n > 7. IDs are per interaction (the resume request names the
// interaction in its path), never reused, and the same whether an event is read live or from the store.
// A stream leaves out the input's step events (stored, not streamed), so its IDs skip them.

import { type ErrorCode, InvalidArgumentError } from "../common/errors.js";
import type { InteractionStatus, Step, StepDelta } from "../agent/steps.js";
import type { Assignable } from "../wire/assignable.js";
import type {
  ErrorEvent,
  InteractionCompletedEvent,
  InteractionCreatedEvent,
  InteractionSseEventInteraction,
  InteractionStatusUpdate,
  StepStart,
  StepStop,
  StepDelta as WireStepDelta,
} from "../wire/openapi-types.js";
import type { Usage } from "./usage.js";

/** An `error` event's error and an entry of an interaction's `errors[]`: a documented code (common/errors.ts). */
export interface EventError {
  code: ErrorCode;
  message: string;
}

export type InteractionEvent =
  | { event_type: "interaction.created"; interaction: InteractionSseEventInteraction }
  | {
      event_type: "interaction.status_update";
      interaction_id: string;
      status: InteractionStatus;
      usage?: Usage;
      /** With requires_continuation: the token that continues the interaction. */
      continuation_token?: string;
    }
  | { event_type: "step.start"; index: number; step: Step }
  | { event_type: "step.delta"; index: number; delta: StepDelta }
  /** `usage`: the interaction's so far; `step_usage`: this step's own (usage-meter.ts). */
  | { event_type: "step.stop"; index: number; usage?: Usage; step_usage?: Usage }
  | { event_type: "interaction.completed"; interaction: InteractionSseEventInteraction }
  | { event_type: "error"; error: EventError };

/**
 * Every event as the document declares it (server/wire/openapi-types.ts; server/wire/assignable.ts): tsc
 * fails here when one drifts. status_update's `usage` and `continuation_token` are the emulator's
 * additions (docs/fidelity.md#streams), extra fields such a check lets through.
 */
export type EventsConform = [
  Assignable<Extract<InteractionEvent, { event_type: "interaction.created" }>, InteractionCreatedEvent>,
  Assignable<Extract<InteractionEvent, { event_type: "interaction.status_update" }>, InteractionStatusUpdate>,
  Assignable<Extract<InteractionEvent, { event_type: "step.start" }>, StepStart>,
  Assignable<Extract<InteractionEvent, { event_type: "step.delta" }>, WireStepDelta>,
  Assignable<Extract<InteractionEvent, { event_type: "step.stop" }>, StepStop>,
  Assignable<Extract<InteractionEvent, { event_type: "interaction.completed" }>, InteractionCompletedEvent>,
  Assignable<Extract<InteractionEvent, { event_type: "error" }>, ErrorEvent>,
];

/** An event as sent and stored: `event_id` right after `event_type`. */
export type StreamEvent = InteractionEvent & { event_id: string };

/**
 * An interaction's events for one stream, taken one at a time as the stream writes them; `cutOff` is
 * called (once) when the reader must be let go, with what makes the error event that says why from the
 * last event the reader got whole.
 */
export type EventFeed = (cutOff: (errorFor: (lastSentId: string | null) => EventError) => void) => AsyncIterable<StreamEvent>;

const EVENT_ID = /^evt_([1-9]\d{0,15})$/;

export function eventId(seq: number): string {
  return `evt_${seq}`;
}

/** The sequence number of an event ID this emulator issued, or null for anything else. */
export function eventSeq(id: string): number | null {
  const match = EVENT_ID.exec(id);
  if (!match) return null;
  const seq = Number(match[1]);
  return Number.isSafeInteger(seq) ? seq : null;
}

export function withEventId(seq: number, event: InteractionEvent): StreamEvent {
  const { event_type, ...rest } = event;
  return { event_type, event_id: eventId(seq), ...rest } as StreamEvent;
}

/**
 * `last_event_id` of a resume request → the sequence number to continue after (0: from the start).
 * A value this emulator could not have issued is a 400 naming the expected form.
 */
export function parseLastEventId(value: unknown): number {
  if (value === undefined || value === "") return 0;
  if (typeof value !== "string") {
    throw new InvalidArgumentError("last_event_id must be given once, as the event_id of an event you received (e.g. evt_7).");
  }
  const seq = eventSeq(value);
  if (seq === null) {
    throw new InvalidArgumentError(
      `last_event_id "${value}" is not an event ID of this emulator; pass the event_id of the last event you received (evt_<number>, e.g. evt_7), or leave it out to get every event.`,
    );
  }
  return seq;
}
