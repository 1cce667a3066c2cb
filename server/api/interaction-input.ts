// The request's `input`, read whole (docs/wire-protocol.md#input-forms): the steps that record it in the
// interaction, verbatim; the text the emulated agent reads; and the parts it cannot read. `inputAsSent`
// turns the recorded steps back into the input exactly as sent, for GET ?include_input=true, so the
// input is stored once (as its steps) and never a second time beside them (docs/security.md#large-requests).

import type { UnreadPart } from "../agent/unread-parts.js";
import type { InputContent, InputStep, Step } from "../agent/steps.js";
import { isBase64 } from "../common/base64.js";
import { InvalidArgumentError } from "../common/errors.js";
import type { InteractionsInput } from "../wire/openapi-types.js";
import { CONTENT_TYPES, isMediaType, MIME_TYPES, type MediaType, STEP_TYPES } from "./content-types.js";
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

const CONTENT_TYPE_SET: ReadonlySet<string> = new Set(CONTENT_TYPES);
/** One of the document's Step types in a list makes the list a history. */
const STEP_TYPE_SET: ReadonlySet<string> = new Set(STEP_TYPES);

/**
 * Reads the input, refusing (400, naming the item) what the service could not take: a part that is not
 * an object, text that is not a string, a media part with neither `data` nor `uri` or whose `data` is
 * not base64, a list that mixes Content and Steps; and what the document does not declare (a Content or
 * Step type, a media part's `mime_type`), which the document check refuses before this unless
 * EMULATOR_LOOSE let it through: what is recorded is the document's Content and Steps
 * (server/agent/steps.ts).
 */
export function readInput(input: CreateInteractionRequest["input"]): ReadInput {
  if (input === undefined) return contentInput("none", [{ type: "text", text: "" }]);
  if (typeof input === "string") return contentInput("string", [{ type: "text", text: input }]);
  if (!Array.isArray(input)) {
    if (STEP_TYPE_SET.has(input.type)) {
      throw new InvalidArgumentError(
        `input is one ${input.type} step; a history of steps must be a list: input: [{"type": "${input.type}", …}]. One Content object (e.g. {"type": "text", "text": "…"}) may stand alone.`,
      );
    }
    return contentInput("content", [input as InputContent]);
  }
  const stepIndex = input.findIndex((item) => STEP_TYPE_SET.has(item.type));
  if (stepIndex === -1) return contentInput("contents", input as InputContent[]);
  return stepsInput(input as InputStep[], stepIndex);
}

/** The input as it was sent, from the steps that record it (the inverse of readInput); undefined when there was none. */
export function inputAsSent(shape: InputShape, steps: readonly Step[]): InteractionsInput | undefined {
  if (shape.form === "steps") return steps.slice(0, shape.steps);
  if (shape.form === "none") return undefined;
  const first = steps[0];
  const content = first?.type === "user_input" ? (first.content ?? []) : [];
  if (shape.form === "string") return content[0]?.type === "text" ? content[0].text : undefined;
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
    if (CONTENT_TYPE_SET.has(step.type)) {
      const first = steps[firstStep]?.type;
      throw new InvalidArgumentError(
        `input[${index}] is Content of type ${step.type}, but input[${firstStep}] is a step of type ${first}: a list is either Content or Steps. Put the Content in a user_input step: {"type": "user_input", "content": [{"type": "${step.type}", …}]}.`,
      );
    }
    if (!STEP_TYPE_SET.has(step.type)) {
      throw new InvalidArgumentError(
        `input[${index}].type "${step.type}" is not a step type of the API: a history's steps are ${STEP_TYPES.join(", ")}`,
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
    if (!isMediaType(part.type)) {
      throw new InvalidArgumentError(`${at}.type "${part.type}" is not a Content type of the API: use ${CONTENT_TYPES.join(", ")}`);
    }
    checkMedia(part, part.type, at);
    unread.push({ type: part.type, ...(typeof part.mime_type === "string" ? { mime_type: part.mime_type } : {}) });
  });
  return { text: texts.join("\n"), unread };
}

/** An image, audio, document or video part: its bytes as base64 `data`, or a `uri`; `mime_type` one the document lists for its type. */
function checkMedia(part: Record<string, unknown>, type: MediaType, at: string): void {
  for (const field of ["data", "uri", "mime_type"]) {
    if (part[field] !== undefined && typeof part[field] !== "string") throw new InvalidArgumentError(`${at}.${field} must be a string`);
  }
  const mimeTypes: readonly string[] = MIME_TYPES[type];
  if (typeof part.mime_type === "string" && !mimeTypes.includes(part.mime_type)) {
    throw new InvalidArgumentError(
      `${at}.mime_type "${part.mime_type}" is not one of the API's MIME types for ${type}: use one of ${mimeTypes.join(", ")}`,
    );
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
