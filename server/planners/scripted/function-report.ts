// The final answer of an interaction that answered function calls (docs/api.md#the-final-answer): first
// the results the client sent, each with the function's name and call ID, shortened as any result is
// in an answer; then what the rest of the request did, as report.ts tells it. Deterministic: the same
// results and calls always give the same text.

import type { CallOutcome, ClientFunctionResult, FunctionResultValue } from "../../agent/conversation.js";
import { reportOutcomes, resultBlock } from "./report.js";

export function reportWithFunctionResults(
  results: readonly ClientFunctionResult[],
  outcomes: readonly CallOutcome[],
  notes: readonly string[],
  failure: string | undefined,
): string {
  const paragraphs = [describeFunctionResults(results)];
  if (outcomes.length > 0) paragraphs.push(`Then I went on with your request.\n\n${reportOutcomes(outcomes, notes)}`);
  else {
    paragraphs.push(
      failure === undefined
        ? "That was the last step of your request; no tool call was left to make."
        : "No tool call was made after that.",
    );
    if (notes.length > 0) paragraphs.push(`I skipped part of your request. ${notes.join(" ")}`);
  }
  if (failure !== undefined) paragraphs.push(`The sandbox stopped answering, so the remaining steps did not run: ${failure}`);
  return paragraphs.join("\n\n");
}

/** "The client answered the function call get_weather (call_2): sunny", or a numbered list for several. */
export function describeFunctionResults(results: readonly ClientFunctionResult[]): string {
  if (results.length === 1 && results[0]) return `The client answered the function call ${describeResult(results[0])}`;
  const items = results.map((result, index) => `${index + 1}. ${describeResult(result)}`);
  return `The client answered ${results.length} function calls:\n${items.join("\n")}`;
}

function describeResult(result: ClientFunctionResult): string {
  const text = resultText(result.result);
  const call = `${result.name} (${result.callId})`;
  if (text.trim() === "") return result.isError ? `${call} with an error, and no text.` : `${call} with an empty result.`;
  return result.isError ? `${call} with an error:${resultBlock(text)}` : `${call}:${resultBlock(text)}`;
}

/**
 * A result as text: a string as it is; Content items as their text, other items named by type (and
 * MIME type or URI) in brackets, one per line; an object as its JSON.
 */
export function resultText(value: FunctionResultValue): string {
  if (typeof value === "string") return value;
  if (!Array.isArray(value)) return JSON.stringify(value);
  return value
    .map((item) => {
      if (item.type === "text") return item.text;
      const details = [item.mime_type, item.uri].filter((detail): detail is NonNullable<typeof detail> => detail !== undefined);
      return `[${[item.type, ...details].join(" ")}]`;
    })
    .join("\n");
}
