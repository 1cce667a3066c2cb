// The emulator's token counting rule (docs/api.md#usage). There is no model and no tokenizer, so the
// counts come from a fixed, documented rule that a test can recompute from what it sent and what it got
// back, and that stays the same for the same interaction: budget and cost code can be exercised and
// asserted against it.
//
// [choice] The rule:
//   - a text counts ceil(length / 4) tokens, its length counted as JavaScript's `string.length` does
//     (UTF-16 code units), so `Math.ceil(text.length / 4)` reproduces it; an empty text is 0;
//   - an image, audio, video or document part counts MEDIA_PART_TOKENS, whatever its size;
//   - every text is rounded on its own, and every total is the sum of its texts: the counts of the
//     steps add up to the interaction's exactly.
// What counts where:
//   - input: the request's `system_instruction` and `input` (each text part, each media part; a step of
//     a step list by its content, arguments or result as below; anything else as its compact JSON);
//   - output: each model_output part the run wrote, and each call step's `arguments` as compact JSON
//     (the model writes its calls);
//   - tool use: each result step's `result` (tool results are read back by the model);
//   - thought: the summary of a thought step (the emulated agent writes none).
// Nothing is cached, and the context is counted once, not once per turn of the agent's loop.

import type { Step } from "../agent/steps.js";

export type Modality = "text" | "image" | "audio" | "video" | "document";

/** Tokens of one media part, whatever its size: Gemini's count for one image tile. */
export const MEDIA_PART_TOKENS = 258;

const MODALITIES: readonly Modality[] = ["text", "image", "audio", "video", "document"];
const MEDIA: ReadonlySet<string> = new Set(["image", "audio", "video", "document"]);

/** The SDK's `ModalityTokens`. */
export interface ModalityTokens {
  modality: Modality;
  tokens: number;
}

/** The SDK's `Usage`, with every field this emulator fills. */
export interface Usage {
  total_tokens: number;
  total_input_tokens: number;
  input_tokens_by_modality: ModalityTokens[];
  initial_input_tokens: number;
  total_cached_tokens: number;
  total_output_tokens: number;
  output_tokens_by_modality: ModalityTokens[];
  total_tool_use_tokens: number;
  tool_use_tokens_by_modality: ModalityTokens[];
  total_thought_tokens: number;
}

type ByModality = Record<Modality, number>;

/** Token counts gathered so far, by what they are and by modality. Plain data: add, then render. */
export interface TokenTally {
  input: ByModality;
  output: ByModality;
  toolUse: ByModality;
  thought: number;
}

export function emptyTally(): TokenTally {
  return { input: zeroes(), output: zeroes(), toolUse: zeroes(), thought: 0 };
}

function zeroes(): ByModality {
  return { text: 0, image: 0, audio: 0, video: 0, document: 0 };
}

/** The tokens of one text. */
export function textTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** `into` plus `more`, in place. */
export function addTally(into: TokenTally, more: TokenTally): TokenTally {
  for (const modality of MODALITIES) {
    into.input[modality] += more.input[modality];
    into.output[modality] += more.output[modality];
    into.toolUse[modality] += more.toolUse[modality];
  }
  into.thought += more.thought;
  return into;
}

/** The tokens of a request's input side: its system instruction and its input, in any of its forms. */
export function countRequestInput(request: { system_instruction?: unknown; input?: unknown }): TokenTally {
  const tally = emptyTally();
  if (typeof request.system_instruction === "string") tally.input.text += textTokens(request.system_instruction);
  countInputValue(request.input, tally.input);
  return tally;
}

/** The tokens of a step the run wrote (a step of the input is counted from the request instead). */
export function countRunStep(step: Step | { type: string; [key: string]: unknown }): TokenTally {
  const tally = emptyTally();
  const record = step as { type: string; content?: unknown; arguments?: unknown; result?: unknown; summary?: unknown };
  if (record.type === "model_output") countParts(record.content, tally.output);
  else if (record.type === "thought") {
    const thought = zeroes();
    countParts(record.summary, thought);
    tally.thought += sum(thought);
  } else if (record.type.endsWith("_call")) countArguments(record.arguments, tally.output);
  else if (record.type.endsWith("_result")) countResult(record.result, tally.toolUse);
  return tally;
}

/** The SDK's Usage for a tally. The by-modality lists name only modalities with tokens, in a fixed order. */
export function usageOf(tally: TokenTally): Usage {
  const input = sum(tally.input);
  const output = sum(tally.output);
  const toolUse = sum(tally.toolUse);
  return {
    total_tokens: input + output + toolUse + tally.thought,
    total_input_tokens: input,
    input_tokens_by_modality: byModality(tally.input),
    // The agent's first turn reads the whole input; later turns are not counted again.
    initial_input_tokens: input,
    total_cached_tokens: 0,
    total_output_tokens: output,
    output_tokens_by_modality: byModality(tally.output),
    total_tool_use_tokens: toolUse,
    tool_use_tokens_by_modality: byModality(tally.toolUse),
    total_thought_tokens: tally.thought,
  };
}

/**
 * The usage of an interaction stored before usage was kept (an older data folder): its leading
 * user_input step stands for the input (the only input those versions kept), the rest are the run's.
 */
export function usageOfStoredSteps(steps: readonly Step[], systemInstruction: unknown): Usage {
  const tally = emptyTally();
  if (typeof systemInstruction === "string") tally.input.text += textTokens(systemInstruction);
  steps.forEach((step, index) => {
    if (index === 0 && step.type === "user_input") countParts(step.content, tally.input);
    else addTally(tally, countRunStep(step));
  });
  return usageOf(tally);
}

function sum(counts: ByModality): number {
  return MODALITIES.reduce((total, modality) => total + counts[modality], 0);
}

function byModality(counts: ByModality): ModalityTokens[] {
  return MODALITIES.filter((modality) => counts[modality] > 0).map((modality) => ({ modality, tokens: counts[modality] }));
}

/** `input` as the request gives it: a string, one Content, or a list of Content parts or steps. */
function countInputValue(value: unknown, into: ByModality): void {
  if (value === undefined || value === null) return;
  if (typeof value === "string") {
    into.text += textTokens(value);
    return;
  }
  if (Array.isArray(value)) {
    for (const item of value) countInputValue(item, into);
    return;
  }
  if (typeof value !== "object") {
    into.text += textTokens(JSON.stringify(value));
    return;
  }
  const item = value as { type?: unknown; content?: unknown; arguments?: unknown; result?: unknown };
  const type = typeof item.type === "string" ? item.type : "";
  if (type === "text" || MEDIA.has(type)) countPart(item, into);
  else if (item.content !== undefined && (Array.isArray(item.content) || typeof item.content === "string"))
    countInputValue(item.content, into);
  else if (type.endsWith("_call")) countArguments(item.arguments, into);
  else if (type.endsWith("_result")) countResult(item.result, into);
  else into.text += textTokens(JSON.stringify(value));
}

/** A list of Content parts (a step's content, a thought's summary). */
function countParts(parts: unknown, into: ByModality): void {
  if (!Array.isArray(parts)) return;
  for (const part of parts) countPart(part, into);
}

function countPart(part: unknown, into: ByModality): void {
  if (typeof part !== "object" || part === null) return;
  const { type, text } = part as { type?: unknown; text?: unknown };
  if (type === "text") into.text += typeof text === "string" ? textTokens(text) : 0;
  else if (typeof type === "string" && MEDIA.has(type)) into[type as Modality] += MEDIA_PART_TOKENS;
  else into.text += textTokens(JSON.stringify(part));
}

function countArguments(args: unknown, into: ByModality): void {
  if (args === undefined) return;
  into.text += textTokens(JSON.stringify(args));
}

/** A result is a text, a list of Content parts, or any other JSON (its compact form). */
function countResult(result: unknown, into: ByModality): void {
  if (result === undefined) return;
  if (typeof result === "string") into.text += textTokens(result);
  else if (Array.isArray(result)) countParts(result, into);
  else into.text += textTokens(JSON.stringify(result));
}
