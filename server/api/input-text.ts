import { InvalidArgumentError } from "../common/errors.js";
import type { CreateInteractionRequest } from "./create-interaction.js";

/**
 * The text the emulated agent reads: a string input, text Content, or the text of the last
 * user_input step when the input is a Step[] history. Non-text content (images, …) is ignored; the
 * emulated agent cannot see it.
 */
export function inputText(input: CreateInteractionRequest["input"]): string {
  if (input === undefined) return "";
  if (typeof input === "string") return input;
  const items = Array.isArray(input) ? input : [input];
  const userTurns = items.filter((item) => item.type === "user_input");
  if (userTurns.length > 0) {
    const last = userTurns[userTurns.length - 1] as { content?: unknown };
    return textOf(last.content, "input: a user_input step's content");
  }
  return textOf(items, "input");
}

function textOf(content: unknown, where: string): string {
  if (content === undefined) return "";
  if (!Array.isArray(content)) throw new InvalidArgumentError(`${where} must be an array of Content objects`);
  const texts: string[] = [];
  content.forEach((item: unknown, index) => {
    if (typeof item !== "object" || item === null) {
      throw new InvalidArgumentError(`${where}[${index}] must be a Content object like {"type":"text","text":"…"}`);
    }
    const { type, text } = item as { type?: unknown; text?: unknown };
    if (type === "text") {
      if (typeof text !== "string") throw new InvalidArgumentError(`${where}[${index}].text must be a string`);
      texts.push(text);
    }
  });
  return texts.join("\n");
}
