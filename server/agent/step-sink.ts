// Where the agent records its progress as steps, as they happen. The interaction that runs the agent
// implements this (turning steps into stream events and stored steps); the agent knows nothing of
// events, streams or storage.

import type { AgentStep, Step } from "./steps.js";

export type ResultStep = Extract<AgentStep, { type: "code_execution_result" | "function_result" | "mcp_server_tool_result" }>;

/**
 * Whether a step is a result step, whose content streams in as deltas. A history's result step (the
 * document's, as sent: its `name` may be missing) is told apart by its type alone, as the emulator's.
 */
export function isResultStep(step: Step): step is ResultStep {
  return step.type === "code_execution_result" || step.type === "function_result" || step.type === "mcp_server_tool_result";
}

/** A result step that is open while its tool runs: output is appended as it arrives. */
export interface ResultWriter {
  /** Output produced so far. */
  append(text: string): void;
  /** The rest of the result (status notes, or all of it) and whether the call failed; stops the step. */
  finish(tail: string, isError: boolean): void;
  readonly finished: boolean;
}

export interface StepSink {
  /** A step known whole when it starts (a call). */
  complete(step: AgentStep): void;
  /** A result step whose content is streamed while the tool runs. */
  startResult(step: ResultStep): ResultWriter;
}
