// The emulated agent's final answer (docs/api.md#the-final-answer). The SDK shows the last model_output as
// `interaction.output_text`, so this text is what a person sees of a run: each call in order with its
// result in short, and every hook denial with the hook group and its reason verbatim, so it is plain
// what the hooks did without opening the steps.

import type { ToolCall } from "../../tools/tool-call.js";
import { type AgentCall, isMcpCall, type McpToolCall } from "../../agent/agent-call.js";
import type { CallOutcome } from "../../agent/conversation.js";

export type { CallOutcome };

/** Beyond these, a result is shortened in the answer; the step keeps the whole text. */
const REPORT_LIMITS = { headLines: 30, tailLines: 10, headChars: 3000, tailChars: 1000 } as const;
const INLINE_RESULT_MAX_CHARS = 160;
const INLINE_CODE_MAX_CHARS = 100;

/**
 * The final answer after the calls ran. `notes` are the planner's sentences about steps of the request
 * it could not read; they close the answer so nothing the user asked for disappears silently.
 */
export function reportOutcomes(outcomes: readonly CallOutcome[], notes: readonly string[] = []): string {
  const paragraphs: string[] = [];
  if (outcomes.length === 0) {
    paragraphs.push("No tool call was made.");
  } else if (outcomes.length === 1 && outcomes[0]) {
    paragraphs.push(describeOutcome(outcomes[0], true));
  } else {
    const items = outcomes.map((outcome, index) => `${index + 1}. ${describeOutcome(outcome, index === outcomes.length - 1)}`);
    paragraphs.push(`I made ${outcomes.length} tool calls, in order:\n${items.join("\n")}`);
    const summary = summarize(outcomes);
    if (summary) paragraphs.push(summary);
  }
  if (notes.length > 0) paragraphs.push(`I skipped part of your request. ${notes.join(" ")}`);
  return paragraphs.join("\n\n");
}

/** The answer when the sandbox stopped answering mid-run: what happened so far, then what did not. */
export function reportAfterSandboxFailure(outcomes: readonly CallOutcome[], notes: readonly string[], failure: string): string {
  return `${reportOutcomes(outcomes, notes)}\n\nThe sandbox stopped answering, so the remaining steps did not run: ${failure}`;
}

export const PHRASING_HELP = `${[
  "The emulated agent is deterministic: it runs the tool calls that your message spells out.",
  "It understands plain requests such as: Run `ls -la` using code_execution; read `/workspace/notes.txt`;",
  "create `/workspace/a.txt` containing 'hello'; list `/workspace`; delete `/workspace/a.txt` —",
  'several of them joined by "then" or ";". For exact calls, put a JSON array in a block fenced as tool_calls:',
].join(" ")}
\`\`\`tool_calls
[{"name": "read_file", "args": {"path": "/workspace/notes.txt"}}]
\`\`\``;

/** The final answer when the planner found nothing to run; `understood` is the planner's reading. */
export function noCallAnswer(understood: string): string {
  return `${understood.trim()} No tool call was made.\n\n${PHRASING_HELP}`;
}

function summarize(outcomes: readonly CallOutcome[]): string | undefined {
  const count = (status: CallOutcome["status"]) => outcomes.filter((outcome) => outcome.status === status).length;
  const ok = count("ok");
  if (ok === outcomes.length) return undefined;
  const parts = [`${ok} succeeded`];
  const denied = count("denied");
  const failed = count("error");
  const skipped = count("skipped");
  if (denied > 0) parts.push(`${denied} ${denied === 1 ? "was" : "were"} denied by a hook`);
  if (failed > 0) parts.push(`${failed} failed`);
  if (skipped > 0) parts.push(`${skipped} ${skipped === 1 ? "was" : "were"} not run`);
  return `In short: ${joinAsList(parts)}.`;
}

function describeOutcome(outcome: CallOutcome, isLast: boolean): string {
  switch (outcome.status) {
    case "denied":
      return describeDenial(outcome, isLast);
    case "skipped":
      return `${callPhrase(outcome.call)} was not run: ${withFinalStop(outcome.skippedReason ?? "it was skipped")}`;
    case "error":
      return describeFailure(outcome);
    case "ok":
      return describeSuccess(outcome);
  }
}

function describeDenial(outcome: CallOutcome, isLast: boolean): string {
  const by = outcome.denial
    ? `by hook "${outcome.denial.group}": ${withFinalStop(outcome.denial.reason)}`
    : "by a hook (no reason was recorded).";
  // The seed's model "adapts" after a denial; this agent does not retry, and says so.
  const after = isLast ? "I did not retry it." : "I did not retry it and went on with the next step.";
  return `${callPhrase(outcome.call)} was denied ${by} ${after}`;
}

function describeSuccess(outcome: CallOutcome): string {
  const { call, output } = outcome;
  if (isMcpCall(call))
    return output.trim() === "" ? `Called ${mcpPhrase(call)}; it returned nothing.` : `Called ${mcpPhrase(call)}:${resultBlock(output)}`;
  switch (call.name) {
    case "code_execution":
      return `Ran ${codePhrase(call)}${printed(output)}`;
    case "read_file":
      return output === "" ? `Read ${pathOf(call)}: the file is empty.` : `Read ${pathOf(call)}:${resultBlock(output)}`;
    case "write_file":
      return `Wrote ${Buffer.byteLength(stringArg(call, "content") ?? "", "utf8")} bytes to ${pathOf(call)}.`;
    case "list_files":
      return output.trim() === "" ? `Listed ${pathOf(call)}: it is empty.` : `Listed ${pathOf(call)}:${resultBlock(output)}`;
    case "delete_file":
      return call.args.recursive === true ? `Deleted ${pathOf(call)} and everything in it.` : `Deleted ${pathOf(call)}.`;
  }
}

function describeFailure(outcome: CallOutcome): string {
  const { call, output, exitCode } = outcome;
  if (isMcpCall(call)) return `${callPhrase(call)} failed:${resultBlock(output === "" ? "(no error text)" : output)}`;
  if (call.name === "code_execution") {
    const how =
      typeof exitCode === "number" && exitCode !== 0
        ? `it failed with exit status ${exitCode}`
        : exitCode === null
          ? "it was stopped before it finished (no exit status)"
          : "it failed";
    return `Ran ${codePhrase(call)}; ${how}${output.trim() === "" ? " and printed nothing." : `. Output:${resultBlock(output)}`}`;
  }
  return `${callPhrase(call)} failed:${resultBlock(output === "" ? "(no error text)" : output)}`;
}

function printed(output: string): string {
  return output.trim() === "" ? "; it printed nothing." : `. Output:${resultBlock(output)}`;
}

/** "The read_file call on /x" / "The code_execution call `ls`": the brief's wording for denials. */
function callPhrase(call: AgentCall): string {
  if (isMcpCall(call)) return `The call of ${mcpPhrase(call)}`;
  return call.name === "code_execution" ? `The code_execution call ${codePhrase(call)}` : `The ${call.name} call on ${pathOf(call)}`;
}

/** "the MCP tool `search` of server "docs"". */
function mcpPhrase(call: McpToolCall): string {
  return `the MCP tool ${inlineCode(call.name)} of server "${call.server}"`;
}

function codePhrase(call: ToolCall): string {
  const code = stringArg(call, "code") ?? "";
  const language = call.args.language === "python" ? "python" : "bash";
  const lines = code.split("\n");
  if (lines.length === 1 && code.length <= INLINE_CODE_MAX_CHARS) return `${inlineCode(code)} (${language})`;
  const firstLine = lines[0] ?? "";
  const shownFirst = firstLine.length > 60 ? `${firstLine.slice(0, 59)}…` : firstLine;
  const size = lines.length === 1 ? `${code.length}-character` : `${lines.length}-line`;
  return `a ${size} ${language} script starting ${inlineCode(shownFirst)}`;
}

function pathOf(call: ToolCall): string {
  const path = stringArg(call, "path") ?? ".";
  return path === "." ? ". (the working folder)" : path;
}

function stringArg(call: ToolCall, key: string): string | undefined {
  const value = call.args[key];
  return typeof value === "string" ? value : undefined;
}

/** A code span that survives backticks inside the code (Markdown's longer-fence rule). */
function inlineCode(text: string): string {
  const fence = "`".repeat(longestBacktickRun(text) + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** Short one-line results follow the colon; anything longer goes in a fenced block, shortened. */
export function resultBlock(text: string): string {
  const shown = shorten(withoutTrailingNewlines(text));
  if (!shown.includes("\n") && shown.length <= INLINE_RESULT_MAX_CHARS) return ` ${shown}`;
  const fence = "`".repeat(Math.max(3, longestBacktickRun(shown) + 1));
  return `\n${fence}\n${shown}\n${fence}`;
}

/**
 * The text without the newlines that end it. Not `replace(/\n+$/, "")`: that regular expression tries
 * every run of newlines to its end, quadratic in the run's length, and a result of a megabyte of newlines
 * with one character after them held the event loop for minutes.
 */
function withoutTrailingNewlines(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === NEWLINE) end--;
  return end === text.length ? text : text.slice(0, end);
}

const NEWLINE = 10;

/**
 * The first REPORT_LIMITS.headLines lines and the last tailLines with a note of how many were left out
 * between them, then the same by characters. The lines are found by scanning for newlines, never by
 * splitting the whole text: a tool's result may be a megabyte of short lines.
 */
export function shorten(text: string): string {
  const { headLines, tailLines, headChars, tailChars } = REPORT_LIMITS;
  let result = text;
  const lineCount = countNewlines(text) + 1;
  if (lineCount > headLines + tailLines) {
    const omitted = lineCount - headLines - tailLines;
    // The head ends at its last line's newline; the tail starts after the newline before its first line.
    let headEnd = -1;
    for (let line = 0; line < headLines; line++) headEnd = text.indexOf("\n", headEnd + 1);
    let tailStart = text.length;
    for (let line = 0; line < tailLines; line++) tailStart = text.lastIndexOf("\n", tailStart - 1);
    result = `${text.slice(0, headEnd)}\n${omissionNote(`${omitted} lines`)}\n${text.slice(tailStart + 1)}`;
  }
  if (result.length > headChars + tailChars) {
    const omitted = result.length - headChars - tailChars;
    result = `${result.slice(0, headChars)}\n${omissionNote(`${omitted} characters`)}\n${result.slice(-tailChars)}`;
  }
  return result;
}

function countNewlines(text: string): number {
  let count = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) count++;
  return count;
}

function omissionNote(amount: string): string {
  return `[… ${amount} left out here; the tool's result step has the full text …]`;
}

function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const match of text.matchAll(/`+/g)) longest = Math.max(longest, match[0].length);
  return longest;
}

function withFinalStop(sentence: string): string {
  return /[.!?]["')\]]*\s*$/.test(sentence) ? sentence : `${sentence}.`;
}

function joinAsList(parts: readonly string[]): string {
  if (parts.length <= 1) return parts.join("");
  return `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}`;
}
