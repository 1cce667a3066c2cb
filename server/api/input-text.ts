import type { CreateInteractionRequest } from "./create-interaction.js";
import { readInput } from "./interaction-input.js";

/**
 * The text the emulated agent reads: a string input, the text parts of Content, or the text of the
 * last user_input step when the input is a Step[] history. Other parts (images, …) are kept in the
 * user_input step but not read (interaction-input.ts, which this reads with).
 */
export function inputText(input: CreateInteractionRequest["input"]): string {
  return readInput(input).text;
}
