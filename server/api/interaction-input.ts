// The request's `input`, read whole (docs/wire-protocol.md#input-forms): the steps that record it in the
// interaction, verbatim; the text the emulated agent reads; and the parts it cannot read. `inputAsSent`
// turns the recorded steps back into the input exactly as sent, for GET ?include_input=true, so the
// input is stored once (as its steps) and never a second time beside them (docs/security.md#large-requests).

import type { UnreadPart } from "../agent/unread-parts.js";
import type { InputContent, InputStep } from "../agent/steps.js";
import { isBase64 } from "../common/base64.js";
import { InvalidArgumentError } from "../common/errors.js";
import type { CreateInteractionRequest } from "./create-interaction.js";

/** How the input was given: the form include_input gives it back in. */
export type InputForm =
  /** No `input` at all. */
  | "none"
  /** A string. */
  | "string"
  /** One Content object. */
  | "content"
  /** A list of Content. */
  | "contents"
  /** A list of Steps (a history). */
  | "steps";

/** What the interaction keeps about its input besides the steps: the form, and how many steps record it. */
export interface InputShape {
  form: InputForm;
  steps: number;
}

export interface ReadInput {
  shape: InputShape;
  /**
   * The steps that record the input, in order: one user_input step holding the Content as sent (a
   * string becomes one text part), or, for a list of Steps, those steps exactly as sent.
   */
  steps: InputStep[];
  /** The text the agent reads: the text parts of the Content, or of the last user_input step of a history, joined by line breaks. */
  text: string;
  /** The non-text parts of what the agent reads, in order. */
  unread: UnreadPart[];
}

/** Content types the SDK knows (Content_2). A Content item of another type (and not a Step type) is kept and named as an unknown part. */
const CONTENT_TYPES = new Set(["text", "image", "audio", "document", "video"]);
const MEDIA_TYPES = new Set(["image", "audio", "document", "video"]);

/** The SDK's Step types (its `Step` union): one of them in a list makes the list a history. */
const STEP_TYPES = new Set([
  "user_input",
  "model_output",
  "thought",
  "function_call",
  "function_result",
  "code_execution_call",
  "code_execution_result",
  "mcp_server_tool_call",
  "mcp_server_tool_result",
  "google_search_call",
  "google_search_result",
  "google_maps_call",
  "google_maps_result",
  "url_context_call",
  "url_context_result",
  "file_search_call",
  "file_search_result",
  "retrieval_call",
  "retrieval_result",
  "processing_call",
  "processing_result",
]);

/**
 * Reads the input, refusing (400, naming the item) what the service could not take: a part that is not
 * an object, text that is not a string, a media part with neither `data` nor `uri` or whose `data` is
 * not base64, a list that mixes Content and Steps.
 */
export function readInput(input: CreateInteractionRequest["input"]): ReadInput {
  if (input === undefined) return contentInput("none", [{ type: "text", text: "" }]);
  if (typeof input === "string") return contentInput("string", [{ type: "text", text: input }]);
  if (!Array.isArray(input)) {
    if (STEP_TYPES.has(input.type)) {
      throw new InvalidArgumentError(
        `input is one ${input.type} step; a history of steps must be a list: input: [{"type": "${input.type}", …}]. One Content object (e.g. {"type": "text", "text": "…"}) may stand alone.`,
      );
    }
    return contentInput("content", [input as InputContent]);
  }
  const stepIndex = input.findIndex((item) => STEP_TYPES.has(item.type));
  if (stepIndex === -1) return contentInput("contents", input as InputContent[]);
  return stepsInput(input as InputStep[], stepIndex);
}

/** The input as it was sent, from the steps that record it (the inverse of readInput); undefined when there was none. */
export function inputAsSent(shape: InputShape, steps: readonly unknown[]): unknown {
  if (shape.form === "steps") return steps.slice(0, shape.steps);
  if (shape.form === "none") return undefined;
  const content = (steps[0] as { content?: unknown[] } | undefined)?.content ?? [];
  if (shape.form === "string") return (content[0] as { text?: unknown } | undefined)?.text;
  if (shape.form === "content") return content[0];
  return content;
}

function contentInput(form: InputForm, content: InputContent[]): ReadInput {
  // One Content object is named "input" in a refusal; a list's items "input[i]".
  const { text, unread } = readContent(content, form === "contents" ? (index) => `input[${index}]` : () => "input");
  return { shape: { form, steps: 1 }, steps: [{ type: "user_input", content }], text, unread };
}

/** A history: every step is kept; the agent reads the last user_input step, the turn it answers. */
function stepsInput(steps: InputStep[], firstStep: number): ReadInput {
  let last: { text: string; unread: UnreadPart[] } = { text: "", unread: [] };
  steps.forEach((step, index) => {
    if (CONTENT_TYPES.has(step.type)) {
      const first = steps[firstStep]?.type;
      throw new InvalidArgumentError(
        `input[${index}] is Content of type ${step.type}, but input[${firstStep}] is a step of type ${first}: a list is either Content or Steps. Put the Content in a user_input step: {"type": "user_input", "content": [{"type": "${step.type}", …}]}.`,
      );
    }
    if (step.type !== "user_input") return;
    const content = step.content;
    if (content !== undefined && !Array.isArray(content)) {
      throw new InvalidArgumentError(`input[${index}].content must be a list of Content objects like {"type": "text", "text": "…"}`);
    }
    // Every user_input step is checked, not only the one the agent reads: the service takes the whole history.
    last = readContent((content ?? []) as InputContent[], contentItem(index));
  });
  return { shape: { form: "steps", steps: steps.length }, steps, ...last };
}

function contentItem(stepIndex: number): (index: number) => string {
  return (index) => `input[${stepIndex}].content[${index}]`;
}

/** The text parts joined, and the other parts as the answer names them; `where` names an item in a refusal. */
function readContent(content: readonly unknown[], where: (index: number) => string): { text: string; unread: UnreadPart[] } {
  const texts: string[] = [];
  const unread: UnreadPart[] = [];
  content.forEach((item, index) => {
    const at = where(index);
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      throw new InvalidArgumentError(`${at} must be a Content object like {"type": "text", "text": "…"}`);
    }
    const part = item as Record<string, unknown>;
    if (typeof part.type !== "string") throw new InvalidArgumentError(`${at}.type must be a string: text, image, audio, document or video`);
    if (part.type === "text") {
      if (typeof part.text !== "string") throw new InvalidArgumentError(`${at}.text must be a string`);
      texts.push(part.text);
      return;
    }
    if (MEDIA_TYPES.has(part.type)) checkMedia(part, at);
    unread.push({ type: part.type, ...(typeof part.mime_type === "string" ? { mime_type: part.mime_type } : {}) });
  });
  return { text: texts.join("\n"), unread };
}

/** An image, audio, document or video part: its bytes as base64 `data`, or a `uri`; `mime_type` a string. */
function checkMedia(part: Record<string, unknown>, at: string): void {
  for (const field of ["data", "uri", "mime_type"]) {
    if (part[field] !== undefined && typeof part[field] !== "string") throw new InvalidArgumentError(`${at}.${field} must be a string`);
  }
  if (part.data === undefined && part.uri === undefined) {
    throw new InvalidArgumentError(
      `${at} (${part.type}) has neither data nor uri: give its bytes as base64 in data (with mime_type), or a uri`,
    );
  }
  if (typeof part.data === "string" && !isBase64(part.data.replace(/\s+/g, ""))) {
    throw new InvalidArgumentError(`${at}.data is not valid base64: give the ${part.type}'s bytes base64-encoded`);
  }
}
