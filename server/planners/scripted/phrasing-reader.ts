// The plain phrasings of the service's documentation, read into tool calls ("Run `CMD` using
// code_execution.", "read `PATH`", "create PATH containing TEXT, then read it back";
// docs/api.md#the-emulated-agent). The text is masked (protected-spans.ts), split into steps on "then",
// ";", sentence ends and lines, and each step is read from its verb (phrasing-steps.ts). Steps that
// cannot be read come back as notes for the final answer instead of invented calls. A step that calls a
// function explicitly ("call the function `NAME` with {json}") is as exact as a script, so a call that
// does not fit the request's declared functions refuses the request instead (`invalid`).

import { FunctionCallChecker, isFunctionCall, type PlannedCall } from "../../agent/function-calls.js";
import { maskProtectedSpans, type MaskedText } from "./protected-spans.js";
import {
  findVerb,
  isCodeToken,
  isPathToken,
  joinedTokens,
  NOT_AFTER,
  NOT_BEFORE,
  PYTHON_FENCE,
  readStep,
  SHELL_FENCE,
  tokenize,
  VERB_WORDS,
} from "./phrasing-steps.js";
import { quoteStep, type Action, type StepContext, type VerbAt } from "./step-reading.js";

export interface PhrasingPlan {
  calls: PlannedCall[];
  notes: string[];
  /** Function calls that do not fit the declared functions, one sentence each; the request is refused. */
  invalid?: string[];
}

/**
 * [choice] Plain requests are read in the first 64 KiB of the input only, whole lines of it: reading
 * costs about half a second per MiB of prose, and the server must not stall on a pasted document. A
 * tool_calls script is read whatever its size (that is JSON.parse, fast).
 */
export const MAX_PHRASED_CHARS = 64 * 1024;

export function planFromPhrasing(text: string, functions: FunctionCallChecker = new FunctionCallChecker()): PhrasingPlan {
  const { read, note } = phrasedPart(text);
  const plan = planFromReadPart(read, functions);
  return note === undefined ? plan : { ...plan, notes: [...plan.notes, note] };
}

/** The whole lines within MAX_PHRASED_CHARS (a cut line could name half a path), and a note when that is not all. */
function phrasedPart(text: string): { read: string; note?: string } {
  if (text.length <= MAX_PHRASED_CHARS) return { read: text };
  const lastBreak = text.lastIndexOf("\n", MAX_PHRASED_CHARS);
  const read = lastBreak < 0 ? "" : text.slice(0, lastBreak);
  return {
    read,
    note: `Your message has ${text.length} characters; I read plain requests only in its first ${MAX_PHRASED_CHARS / 1024} KiB (whole lines), so the rest was not read. Put a longer request in a \`\`\`tool_calls script, which is read whole.`,
  };
}

function planFromReadPart(text: string, functions: FunctionCallChecker): PhrasingPlan {
  const masked = maskProtectedSpans(text);
  const calls: PlannedCall[] = [];
  const notes: string[] = [];
  const invalid: string[] = [];
  let context: StepContext = { lastPath: undefined };
  let previousAction: Action | undefined;

  for (const segment of splitIntoSegments(masked).flatMap((part) => splitBeforeChainedVerbs(part, masked))) {
    const verb = findVerb(segment) ?? continuedVerb(segment, masked, previousAction);
    if (!verb) continue; // "Understood.", "and summarize the details": no request, nothing to say.
    const step = { segment, masked, verb, context };
    const reading = readStep(step);
    if (reading.kind === "calls") {
      for (const call of reading.calls) {
        if (!isFunctionCall(call)) calls.push(call);
        else {
          const checked = functions.check(call.name, call.args, "function");
          if (checked.ok) calls.push(checked.call);
          else invalid.push(`${quoteStep(step)}: ${checked.message}`);
        }
      }
      context = { lastPath: reading.lastPath };
      previousAction = verb.action;
    } else if (reading.kind === "unreadable") {
      notes.push(reading.note);
    } else if (reading.kind === "invalid") {
      invalid.push(reading.message);
    }
  }
  return { calls, notes: capNotes(notes), ...(invalid.length > 0 ? { invalid } : {}) };
}

const MAX_NOTES = 10;

/** A pasted document full of verbs must not turn the answer into a wall of notes. */
function capNotes(notes: string[]): string[] {
  if (notes.length <= MAX_NOTES) return notes;
  return [...notes.slice(0, MAX_NOTES), `I also skipped ${notes.length - MAX_NOTES} more steps that I could not read.`];
}

/** What the agent made of an input in which it found nothing to run, as sentences for the answer. */
export function describeUnderstanding(text: string, notes: readonly string[]): string {
  if (notes.length > 0) return notes.join(" ");
  // Only the start is shown: no need to rewrite the whole (possibly huge) text for it.
  const snippet = text.slice(0, 4096).replace(/\s+/g, " ").trim();
  if (snippet === "") return "Your message was empty, so there was nothing for the emulated agent to do.";
  const shown = snippet.length > 80 ? `${snippet.slice(0, 79)}…` : snippet;
  return `I read your message ("${shown}") but found no request to run a command or to read, write, list or delete a file in it.`;
}

// --- Splitting into steps -----------------------------------------------------------------------

const STRONG_SEPARATOR = new RegExp(`\\s*;[\\s;]*|[\\s,]*${NOT_BEFORE}(?:and\\s+)?then${NOT_AFTER}[\\s,:]*`, "gi");
const SENTENCE_END = /(?<=[.!?])\s+/;
const LIST_MARKER = /^\s*(?:[-*+\u2022]|\d+[.)])\s+/;

function splitIntoSegments(masked: MaskedText): string[] {
  return joinContinuedLines(masked)
    .flatMap((line) => line.split(SENTENCE_END))
    .flatMap((sentence) => sentence.split(STRONG_SEPARATOR))
    .map((segment) => segment.trim())
    .filter((segment) => segment !== "");
}

/** Lines are steps, except that a line ending in ":" or followed by a fenced block continues. */
function joinContinuedLines(masked: MaskedText): string[] {
  // Each step is kept as its lines until the end: growing one string line by line would be quadratic.
  const steps: string[][] = [];
  let previousLine: string | undefined;
  for (const rawLine of masked.text.split("\n")) {
    const line = rawLine.replace(LIST_MARKER, "");
    const startsWithFence = /^\s*\uE000(\d+)\uE001/.exec(line);
    const fenceFollows = startsWithFence !== null && masked.spans[Number(startsWithFence[1])]?.kind === "fence";
    const current = steps[steps.length - 1];
    if (current && previousLine !== undefined && line.trim() !== "" && (fenceFollows || /:\s*$/.test(previousLine))) {
      current.push(line);
    } else {
      steps.push([line]);
    }
    previousLine = line;
  }
  return steps.map((lines) => lines.join(" "));
}

const ADVERBS = "(?:(?:please|now|also|immediately|finally|next|just|then)\\s+)?";
// ", read …" / "and read …" start a new step only when what follows reads as a whole step on its own,
// so "containing salt and pepper" and "read X and summarize it" stay one step.
const WEAK_SEPARATOR = new RegExp(`(?:,\\s*(?:and\\s+)?|${NOT_BEFORE}and\\s+)${ADVERBS}(?=(?:${VERB_WORDS})${NOT_AFTER})`, "gi");

/** Splits "run `ls` and read /a" at "and read", but only when the part after reads as a step. */
function splitBeforeChainedVerbs(segment: string, masked: MaskedText): string[] {
  const cuts = [...segment.matchAll(WEAK_SEPARATOR)].map((match) => ({ start: match.index, verbStart: match.index + match[0].length }));
  const parts: string[] = [];
  let end = segment.length;
  for (let i = cuts.length - 1; i >= 0; i--) {
    const cut = cuts[i];
    if (!cut) continue;
    // Probing only up to the next cut keeps long inputs linear; an accepted step still runs to `end`.
    const probeText = segment.slice(cut.verbStart, cuts[i + 1]?.start ?? end);
    const verb = findVerb(probeText);
    // A stand-in earlier path lets "and read it back" count as a step here; the real one is used later.
    const probe = verb ? readStep({ segment: probeText, masked, verb, context: { lastPath: "(earlier path)" } }) : undefined;
    if (probe?.kind === "calls" && segment.slice(0, cut.start).trim() !== "") {
      parts.unshift(segment.slice(cut.verbStart, end));
      end = cut.start;
    }
  }
  parts.unshift(segment.slice(0, end));
  return parts;
}

/**
 * "run `a` then `b`", "read `/a`; `/b`": a step made only of spans or paths (and perhaps "using …")
 * continues the previous step's verb. A lone ```bash or ```python block is a request to run it.
 * Writes never continue: a bare path after a write is too likely to be something else; nor do function or MCP calls.
 */
function continuedVerb(segment: string, masked: MaskedText, previousAction: Action | undefined): VerbAt | undefined {
  const tokenStart = /^(?:(?:and|also|next|finally)\s+)?/i.exec(segment)?.[0].length ?? 0;
  const tokens = tokenize(segment, masked.spans);
  const first = tokens.find((token) => token.start === tokenStart);
  if (!first) return undefined;
  const runnableFence = first.kind === "fence" && (PYTHON_FENCE.test(first.info) || SHELL_FENCE.test(first.info));
  const action =
    previousAction === "write" || previousAction === "call" ? undefined : (previousAction ?? (runnableFence ? "run" : undefined));
  if (action === undefined) return undefined;
  const joined = joinedTokens(segment, tokens, tokenStart, action === "run" ? isCodeToken : isPathToken);
  const last = joined[joined.length - 1];
  if (joined[0] !== first || !last) return undefined;
  if (!/^[\s.!?]*$|^\s*(?:using|with|via|in|as)\b/i.test(segment.slice(last.end))) return undefined;
  return { action, word: action, end: tokenStart };
}
