// A StepSink that keeps what the agent recorded, in order: each step as it started, and each result
// step as it finished (its streamed output joined, with is_error), so a test can compare whole
// sequences, call IDs included.

import type { ResultStep, ResultWriter, StepSink } from "../../server/agent/step-sink.js";
import type { AgentStep } from "../../server/agent/steps.js";

export type RecordedEvent =
  | { kind: "step"; step: AgentStep }
  | { kind: "result_started"; step: ResultStep }
  | { kind: "output"; callId: string; text: string }
  | { kind: "result_finished"; step: ResultStep };

export class RecordingStepSink implements StepSink {
  readonly events: RecordedEvent[] = [];

  complete(step: AgentStep): void {
    this.events.push({ kind: "step", step: structuredClone(step) });
  }

  startResult(step: ResultStep): ResultWriter {
    this.events.push({ kind: "result_started", step: structuredClone(step) });
    const events = this.events;
    let output = "";
    const writer = {
      finished: false,
      append(text: string): void {
        if (writer.finished) throw new Error("output after the result step finished");
        output += text;
        events.push({ kind: "output", callId: step.call_id, text });
      },
      finish(tail: string, isError: boolean): void {
        if (writer.finished) return;
        writer.finished = true;
        events.push({ kind: "result_finished", step: { ...step, result: output + tail, is_error: isError } });
      },
    };
    return writer;
  }

  /** The steps as an interaction stores them: calls whole, results finished. */
  get steps(): AgentStep[] {
    return this.events.flatMap((event) => (event.kind === "step" || event.kind === "result_finished" ? [event.step] : []));
  }
}
