// The scripted answer (docs/api.md#scripted-answers): a block fenced as ```response in the input sets the
// final answer's text exactly, so a test can script what "the model" says as well as what it does. The
// block is taken out of the input before the rest is read (its text is what the agent says, not what it
// is asked to do), and the answer is given after any tool calls of the same input have run.

import { findFencedBlocks } from "./fenced-blocks.js";

export type ResponseReading =
  | { kind: "absent"; rest: string }
  /** `text`: the block's body, exactly; `rest`: the input without the block, for the other readers. */
  | { kind: "found"; text: string; rest: string }
  | { kind: "invalid"; message: string };

/** An info string whose first word is "response" (any case). */
export const RESPONSE_OPENER = /^response(?:\s|$)/i;

export function readResponseBlock(input: string): ResponseReading {
  // Windows line endings are read as \n, as everywhere in the input (scripted-planner.ts); the answer
  // then has \n line endings too.
  const text = input.includes("\r") ? input.replace(/\r\n?/g, "\n") : input;
  if (!text.includes("```")) return { kind: "absent", rest: input };
  const blocks = findFencedBlocks(text, (info) => RESPONSE_OPENER.test(info));
  if (blocks.length === 0) return { kind: "absent", rest: input };
  if (blocks.length > 1) {
    return invalid(`found ${blocks.length} response blocks; the final answer is one text, so put it in one \`\`\`response block`);
  }
  const [block] = blocks;
  if (!block) return { kind: "absent", rest: input };
  if (block.info.split(/\s+/).length > 1) {
    return invalid("nothing may follow ```response on its opening line; start the answer's text on the next line");
  }
  if (!block.closed) return invalid("the response block is not closed; end it with ``` on a line by itself");
  // The block's place becomes a line break, so the lines around it stay apart for the phrasing reader.
  return { kind: "found", text: block.body, rest: `${text.slice(0, block.start)}\n${text.slice(block.end)}` };
}

function invalid(message: string): { kind: "invalid"; message: string } {
  return { kind: "invalid", message };
}
