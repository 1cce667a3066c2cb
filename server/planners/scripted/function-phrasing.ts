// The plain phrasing of a function call (docs/api.md#function-calling): "call the function `NAME` with
// {json}", also "call function NAME", "call the `NAME` function", with the arguments as a JSON object
// after "with" (bare on the line, in backticks, or in a ```json block after "with:"). Only the words
// are read here; whether NAME is declared and the arguments fit its parameters is checked by the
// phrasing reader with the request's FunctionCallChecker.

import { resolvePlaceholders, type ProtectedSpan } from "./protected-spans.js";

/** Right after the verb "call": "the function `NAME`", "function NAME", "the `NAME` function". */
const FUNCTION_NAMED = /^\s+(?:the\s+)?(?:functions?\s+(?:\uE000(\d+)\uE001|([A-Za-z_][\w.:-]*))|\uE000(\d+)\uE001\s+function\b)/i;
const WITH_ARGUMENTS = /^\s*,?\s*(?:with|using)(?:\s+(?:the\s+)?(?:arguments|args|parameters|input))?\s*:?\s*/i;
const PLACEHOLDER_AT_START = /^\uE000(\d+)\uE001/;

/** Whether the words after "call" name a function: only then is "call" the verb of a step. */
export function namesAFunction(afterVerb: string): boolean {
  return FUNCTION_NAMED.test(afterVerb);
}

export type FunctionPhrasing =
  | { kind: "call"; name: string; args: unknown }
  | { kind: "not-a-call" }
  /** The words name a function but its arguments cannot be read; `problem` says what to write. */
  | { kind: "invalid"; name: string; problem: string };

const EXAMPLE = 'call the function `get_weather` with {"city": "Paris"}';

/** Reads the function's name and its JSON arguments from the (masked) text after the verb "call". */
export function readFunctionPhrasing(afterVerb: string, spans: readonly ProtectedSpan[]): FunctionPhrasing {
  const named = FUNCTION_NAMED.exec(afterVerb);
  if (!named) return { kind: "not-a-call" };
  const spanIndex = named[1] ?? named[3];
  const name = spanIndex !== undefined ? (spans[Number(spanIndex)]?.value.trim() ?? "") : (named[2] ?? "").replace(/[.:-]+$/, "");
  if (name === "") return { kind: "not-a-call" };
  const rest = afterVerb.slice(named[0].length);
  const withArguments = WITH_ARGUMENTS.exec(rest);
  const argumentsText = withArguments ? rest.slice(withArguments[0].length) : rest.trimStart();
  // Without "with" or an object right after the name, the call has no arguments: {}.
  if (!withArguments && !argumentsText.startsWith("{") && !PLACEHOLDER_AT_START.test(argumentsText))
    return { kind: "call", name, args: {} };
  const json = jsonText(argumentsText, spans);
  if (json === undefined) {
    return { kind: "invalid", name, problem: `write its arguments as a JSON object after "with", like: ${EXAMPLE}` };
  }
  try {
    return { kind: "call", name, args: JSON.parse(json) };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { kind: "invalid", name, problem: `its arguments are not valid JSON (${reason}); write them like: ${EXAMPLE}` };
  }
}

/** The JSON after "with": a span's content (`{…}`, a ```json block), or a bare {…} up to its closing brace. */
function jsonText(text: string, spans: readonly ProtectedSpan[]): string | undefined {
  const placeholder = PLACEHOLDER_AT_START.exec(text);
  if (placeholder) {
    const span = spans[Number(placeholder[1])];
    return span ? resolvePlaceholders(span.value, spans) : undefined;
  }
  if (!text.startsWith("{")) return undefined;
  // Quoted strings are placeholders in the masked text, so braces inside them do not count here.
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}" && --depth === 0) return resolvePlaceholders(text.slice(0, i + 1), spans);
  }
  return resolvePlaceholders(text, spans);
}
