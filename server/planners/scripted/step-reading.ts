// What reading one step of a plain request deals in (docs/api.md#the-emulated-agent): the verbs a step
// may start with, the step itself, what reading it gives, and the note for a step that cannot be read.
// The readers of each kind of step share these: phrasing-steps.ts, which hands an MCP call to
// mcp-phrasing.ts, and mcp-phrasing.ts, which so needs nothing of phrasing-steps.ts.

import type { PlannedCall } from "../../agent/function-calls.js";
import { resolvePlaceholders, type MaskedText } from "./protected-spans.js";

export const VERB_ACTIONS = {
  run: "run",
  execute: "run",
  read: "read",
  cat: "read",
  create: "write",
  write: "write",
  save: "write",
  list: "list",
  delete: "delete",
  remove: "delete",
  // Only before "the function `NAME`" (function-phrasing.ts) or "(the) MCP tool" (mcp-phrasing.ts): "call it done" is no request.
  call: "call",
} as const;

export type Action = (typeof VERB_ACTIONS)[keyof typeof VERB_ACTIONS];

export interface VerbAt {
  action: Action;
  word: string;
  /** Offset just after the verb, where its object starts. */
  end: number;
}

export interface StepContext {
  /** The last path a file step named; "read it back" refers to it. */
  lastPath: string | undefined;
}

export type StepReading =
  | { kind: "calls"; calls: PlannedCall[]; lastPath: string | undefined }
  | { kind: "unreadable"; note: string }
  /** A step that calls a function explicitly but cannot be read: the request is refused (a 400). */
  | { kind: "invalid"; message: string }
  | { kind: "no-request" };

export interface PhrasingStep {
  segment: string;
  masked: MaskedText;
  verb: VerbAt;
  context: StepContext;
}

export function quoteStep(step: PhrasingStep): string {
  const text = resolvePlaceholders(step.segment, step.masked.spans).replace(/\s+/g, " ").trim();
  return `"${text.length > 80 ? `${text.slice(0, 79)}…` : text}"`;
}

export function unreadable(step: PhrasingStep, asRequestTo: string, problem: string): StepReading {
  return { kind: "unreadable", note: `I took ${quoteStep(step)} as a request to ${asRequestTo}, but ${problem}, so I skipped that step.` };
}
