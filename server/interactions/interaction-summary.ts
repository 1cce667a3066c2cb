// One line of the emulator's list of interactions (GET /emulator/interactions, and the live feed beside
// it): who ran what, where, how it ended, and at a glance whether a hook denied a call or failed open.
// Small on purpose: the dashboard lists dozens of these and updates them as runs go, so a summary never
// carries steps, output or hook excerpts; the interaction and its hook trace are one request away.

import type { InteractionStatus, Step } from "../agent/steps.js";
import type { InteractionRecord } from "./interaction-record.js";

/** The input preview keeps this many characters of the input's text. */
export const INPUT_PREVIEW_CHARS = 200;

export interface InteractionSummary {
  id: string;
  status: InteractionStatus;
  /** The agent it ran as, or null for a model interaction. */
  agent: string | null;
  /** The model it ran as, or null for an agent interaction. */
  model: string | null;
  environment_id: string | null;
  previous_interaction_id: string | null;
  created: string;
  updated: string;
  /** The start of the input's text (its first text parts, line breaks as spaces); "" when it has none. */
  input_preview: string;
  /** Tool calls the agent made (one hook-trace entry each). */
  tool_calls: number;
  /** Calls a pre_tool_execution hook denied. */
  denied_calls: number;
  /** Pre hook handlers that allowed only because they failed (fail-open). */
  failed_open_hooks: number;
  /** usage.total_tokens so far; null for an interaction stored before usage was kept and not counted. */
  total_tokens: number | null;
  /** The first error's message (a failed run), else null. */
  error: string | null;
}

/** The fields of a summary that the interaction record alone gives. */
export function summaryFields(
  record: Omit<InteractionRecord, "steps" | "hookTraces">,
): Omit<InteractionSummary, "input_preview" | "tool_calls" | "denied_calls" | "failed_open_hooks"> {
  const { agent, model } = record.echo;
  return {
    id: record.id,
    status: record.status,
    agent: typeof agent === "string" ? agent : null,
    model: typeof model === "string" ? model : null,
    environment_id: record.environmentId,
    previous_interaction_id: record.previousInteractionId,
    created: record.created,
    updated: record.updated,
    total_tokens: record.usage?.total_tokens ?? null,
    error: record.errors[0]?.message ?? null,
  };
}

/** The summary of an interaction held whole (a running one, whose steps and traces are in memory). */
export function summarizeInteraction(record: InteractionRecord): InteractionSummary {
  return {
    ...summaryFields(record),
    input_preview: previewOfTexts(inputTextsOf(record.steps[0])),
    ...hookCountsOf(record.hookTraces),
  };
}

/** The text parts of the first step, when it records a user's input. */
export function inputTextsOf(first: Step | { type: string; content?: unknown } | undefined): string[] {
  if (first?.type !== "user_input" || !Array.isArray(first.content)) return [];
  return (first.content as Array<{ type?: unknown; text?: unknown }>)
    .filter((part) => part.type === "text" && typeof part.text === "string")
    .map((part) => part.text as string);
}

export function previewOfTexts(texts: readonly string[]): string {
  const joined = texts.join(" ").replace(/\s+/g, " ").trim();
  return joined.length > INPUT_PREVIEW_CHARS ? `${joined.slice(0, INPUT_PREVIEW_CHARS - 1)}…` : joined;
}

interface TraceShape {
  pre?: { decision?: unknown; handlers?: Array<{ fail_open?: unknown }> } | null;
}

/** Counts over the hook-trace entries (server/agent/guarded-call.ts ToolCallHooks; MCP entries have pre: null). */
export function hookCountsOf(traces: readonly object[]): Pick<InteractionSummary, "tool_calls" | "denied_calls" | "failed_open_hooks"> {
  let denied = 0;
  let failedOpen = 0;
  for (const trace of traces as TraceShape[]) {
    if (trace.pre?.decision === "deny") denied++;
    for (const handler of trace.pre?.handlers ?? []) if (handler.fail_open) failedOpen++;
  }
  return { tool_calls: traces.length, denied_calls: denied, failed_open_hooks: failedOpen };
}
