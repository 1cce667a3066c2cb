// Turns the agent's progress into step events, in order: every step gets step.start and step.stop
// with its index; content that arrives over time (a command's output) comes as step.delta between
// them. Output deltas are coalesced for a few milliseconds so a chatty command makes tens of events a
// second, not thousands; the result's last delta carries `is_error`.
//
//   whole steps (user_input, *_call):   step.start(complete step) → step.stop
//   function_call:                      step.start(arguments {}) → step.delta(arguments_delta, the JSON text) → step.stop
//   results (*_result):                 step.start(result "") → step.delta(output)… → step.delta(tail, is_error) → step.stop
//   model_output:                       step.start(content []) → step.delta(text)… → step.stop
//   thought:                            step.start(thought, no summary) → step.delta(thought_summary) → step.stop
//
// The results and the model's streamed text of one interaction share a budget
// (EMULATOR_MAX_INTERACTION_OUTPUT_BYTES): past it, what a result or text would add is dropped, and it
// ends with a note of what was kept, as a tool's own output
// bound does, so no stored interaction grows past what can be read back (docs/security.md#bounded-work).
// The events are the stored steps, so the bound holds for both.

import { StringDecoder } from "node:string_decoder";
import type { InteractionEvent } from "./events.js";
import type { TextWriter } from "../agent/planner.js";
import type { ResultStep, ResultWriter, StepSink } from "../agent/step-sink.js";
import type { Step, StepDelta } from "../agent/steps.js";

export type EventSink = (event: InteractionEvent) => void;

export interface StepWriterOptions {
  /** How long output is gathered before it is sent as one delta. Default 25 ms. */
  flushMs?: number;
  /** UTF-8 bytes all results together may hold (the notes past it aside). Default: no bound. */
  maxResultBytes?: number;
}

export class StepWriter implements StepSink {
  private nextIndex = 0;
  /** The step still receiving content (a result or a streamed text); no other step starts meanwhile. */
  private open: { close(tail: string): void } | null = null;
  private readonly flushMs: number;
  private readonly maxResultBytes: number;
  /** Result bytes kept so far, all results together. */
  private resultBytes = 0;

  constructor(
    private readonly emit: EventSink,
    options: StepWriterOptions = {},
  ) {
    this.flushMs = options.flushMs ?? 25;
    this.maxResultBytes = options.maxResultBytes ?? Number.POSITIVE_INFINITY;
  }

  /** The part of `text` that fits the interaction's result budget, counted against it. */
  private admit(text: string): { kept: string; keptBytes: number; bytes: number } {
    const bytes = Buffer.byteLength(text);
    const room = this.maxResultBytes - this.resultBytes;
    if (bytes <= room) {
      this.resultBytes += bytes;
      return { kept: text, keptBytes: bytes, bytes };
    }
    const kept = room > 0 ? utf8Prefix(text, room) : "";
    const keptBytes = Buffer.byteLength(kept);
    this.resultBytes += keptBytes;
    return { kept, keptBytes, bytes };
  }

  /**
   * A step known whole when it starts. A function call streams as the streaming page shows it: its
   * arguments come after step.start, as the JSON text of an arguments_delta, which clients accumulate.
   */
  complete(step: Step): void {
    if (step.type === "function_call") {
      const index = this.begin({ ...step, arguments: {} });
      this.emit({ event_type: "step.delta", index, delta: { type: "arguments_delta", arguments: JSON.stringify(step.arguments) } });
      this.emit({ event_type: "step.stop", index });
      return;
    }
    const index = this.begin(step);
    this.emit({ event_type: "step.stop", index });
  }

  /** A model_output step with one text. */
  text(text: string): void {
    const index = this.begin({ type: "model_output", content: [] });
    this.emit({ event_type: "step.delta", index, delta: { type: "text", text } });
    this.emit({ event_type: "step.stop", index });
  }

  /**
   * A model_output step whose text streams in as a model writes it: pieces are coalesced for flushMs,
   * as a command's output is. Counted against the same budget as the results: a model's own output
   * limit is the model server's word, and a hostile server streamed 537 MB into one interaction
   * (issue 29); past the budget the text is cut and ends with a note saying so.
   */
  startText(): TextWriter {
    const index = this.begin({ type: "model_output", content: [] });
    let pending = "";
    let keptBytes = 0;
    let offeredBytes = 0;
    let timer: NodeJS.Timeout | null = null;
    let finished = false;
    const flush = () => {
      timer = null;
      if (pending === "") return;
      try {
        this.emit({ event_type: "step.delta", index, delta: { type: "text", text: pending } });
        pending = "";
      } catch (error) {
        console.error("could not send a step.delta:", error);
      }
    };
    const finish = () => {
      if (finished) return;
      finished = true;
      if (timer !== null) clearTimeout(timer);
      timer = null;
      if (offeredBytes > keptBytes) pending += textTruncationNote(keptBytes, offeredBytes, this.maxResultBytes);
      flush();
      this.emit({ event_type: "step.stop", index });
      this.open = null;
    };
    this.open = { close: finish };
    return {
      append: (text: string) => {
        if (finished) throw new Error("text after the model_output step finished");
        if (text === "") return;
        const admitted = this.admit(text);
        keptBytes += admitted.keptBytes;
        offeredBytes += admitted.bytes;
        if (admitted.kept === "") return;
        pending += admitted.kept;
        if (timer === null) timer = setTimeout(flush, this.flushMs);
      },
      finish,
    };
  }

  /** A thought step with its summary text (and the model's signature when it gave one). */
  thought(text: string, signature?: string): void {
    const index = this.begin({ type: "thought", ...(signature !== undefined ? { signature } : {}) });
    this.emit({ event_type: "step.delta", index, delta: { type: "thought_summary", content: { type: "text", text } } });
    this.emit({ event_type: "step.stop", index });
  }

  /** A result step whose content is streamed: it starts with an empty result and no `is_error`. */
  startResult(step: ResultStep): ResultWriter {
    const { is_error: _isError, ...start } = step;
    const index = this.begin({ ...start, result: "" } as ResultStep);
    const { emit, flushMs } = this;
    let pending = "";
    /** This result's bytes: kept, and offered in all (kept + dropped past the budget). */
    let keptBytes = 0;
    let offeredBytes = 0;
    const admit = (text: string): string => {
      const admitted = this.admit(text);
      keptBytes += admitted.keptBytes;
      offeredBytes += admitted.bytes;
      return admitted.kept;
    };
    let timer: NodeJS.Timeout | null = null;
    const flush = () => {
      timer = null;
      if (pending === "") return;
      try {
        emit({ event_type: "step.delta", index, delta: { type: step.type, result: pending } });
        pending = "";
      } catch (error) {
        // Runs from a timer, where a throw would end the process; the text stays pending for finish().
        console.error("could not send a step.delta:", error);
      }
    };
    const writer = {
      finished: false,
      append: (text: string) => {
        if (writer.finished) throw new Error("output after the result step finished");
        if (text === "") return;
        const kept = admit(text);
        if (kept === "") return;
        pending += kept;
        if (timer === null) timer = setTimeout(flush, flushMs);
      },
      finish: (tail: string, isError: boolean) => {
        if (writer.finished) return;
        writer.finished = true;
        if (timer !== null) clearTimeout(timer);
        timer = null;
        let rest = pending + admit(tail);
        if (offeredBytes > keptBytes) rest += interactionTruncationNote(keptBytes, offeredBytes, this.maxResultBytes);
        const delta = lastDelta(step, rest, isError);
        pending = "";
        emit({ event_type: "step.delta", index, delta });
        emit({ event_type: "step.stop", index });
        this.open = null;
      },
    };
    this.open = { close: (tail) => writer.finish(tail, true) };
    return writer;
  }

  /** Finishes a step left open (the run failed or stopped under it): a result with `tail` as an error, a text as it is. */
  closeOpen(tail: string): void {
    this.open?.close(tail);
  }

  private begin(step: Step): number {
    if (this.open) throw new Error("a step started while a result step was still open");
    const index = this.nextIndex++;
    this.emit({ event_type: "step.start", index, step });
    return index;
  }
}

/** Ends a result cut at the interaction's bound; in the style of a tool's own truncation notes. */
export function interactionTruncationNote(kept: number, total: number, max: number): string {
  return `\n[truncated: kept ${kept} of ${total} bytes; this interaction's results reached ${max} bytes in all (EMULATOR_MAX_INTERACTION_OUTPUT_BYTES)]`;
}

/** Ends a model's text cut at the interaction's bound. */
export function textTruncationNote(kept: number, total: number, max: number): string {
  return `\n[truncated: kept ${kept} of ${total} bytes of the model's text; this interaction's output reached ${max} bytes in all (EMULATOR_MAX_INTERACTION_OUTPUT_BYTES)]`;
}

/** The longest prefix of `text` of at most `maxBytes` UTF-8 bytes, never half a character. */
function utf8Prefix(text: string, maxBytes: number): string {
  // A character is at most 4 bytes: the first maxBytes characters always hold enough.
  const head = Buffer.from(text.slice(0, maxBytes), "utf8").subarray(0, maxBytes);
  // write() keeps an incomplete last character back instead of decoding it as U+FFFD.
  return new StringDecoder("utf8").write(head);
}

/** The delta that closes a result step: the rest of its result, `is_error`, and the names it carries. */
function lastDelta(step: ResultStep, result: string, isError: boolean): StepDelta {
  switch (step.type) {
    case "function_result":
      return { type: step.type, name: step.name, result, is_error: isError };
    case "mcp_server_tool_result":
      return { type: step.type, name: step.name, server_name: step.server_name, result, is_error: isError };
    case "code_execution_result":
      return { type: step.type, result, is_error: isError };
  }
}
