// The deterministic planner behind the emulated agent (docs/api.md#the-emulated-agent): input text → tool calls.
// Two ways in: an exact ```tool_calls script (for tests), or a small reader for the plain phrasings
// the seed documentation uses ("Run `CMD` using code_execution.", "read `PATH`", "create PATH
// containing TEXT, then read it back"). The reader is deliberately literal: it never guesses a command
// or a path that the user did not write, and it reports the steps it could not read instead of
// inventing calls, because the point of the emulator is a known sequence of tool calls for hooks.

import { parseToolCall, describeValueKind, isToolName, UNKNOWN_TOOL_HINT, type ToolCall, type CodeLanguage } from "../tools/tool-call.js";

export type PlanResult =
  | {
      kind: "calls";
      calls: ToolCall[];
      source: "script" | "phrasing";
      /** Steps of a plain request that could not be read, as sentences for the final answer. */
      notes?: string[];
    }
  | {
      kind: "none";
      /** What the agent made of the input, as sentences; `noCallAnswer` turns it into the answer. */
      understood: string;
    }
  | { kind: "invalid"; message: string };

export function planFromInput(text: string): PlanResult {
  // Windows line endings and stray placeholder characters must not change how anything is read.
  const normalized = text.replace(/\r\n?/g, "\n").replace(/[\uE000\uE001]/g, "");
  const script = findToolCallsScript(normalized);
  if (script.kind === "invalid") return script;
  if (script.kind === "found") return parseScript(script.body);
  const phrased = planFromPhrasing(normalized);
  if (phrased.calls.length > 0) {
    return { kind: "calls", calls: phrased.calls, source: "phrasing", ...(phrased.notes.length > 0 ? { notes: phrased.notes } : {}) };
  }
  return { kind: "none", understood: describeUnderstanding(normalized, phrased.notes) };
}

// ---------------------------------------------------------------------------------------------
// Fenced blocks (shared by the script reader and the phrasing reader)

interface FencedBlock {
  start: number;
  end: number;
  /** The text after the opening backticks on the same line ("tool_calls", "python", ""). */
  info: string;
  body: string;
  closed: boolean;
}

// An opening fence may follow text on its line ("Run this ```python"), as people type in chat, but not
// directly after a word character, so the closing half of an inline ```x``` is not an opener.
const FENCE_OPENER = /(?<=^|[\s:(])(`{3,})([^`\n]*)\n/gm;

function findFencedBlocks(text: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  FENCE_OPENER.lastIndex = 0;
  for (let opener = FENCE_OPENER.exec(text); opener; opener = FENCE_OPENER.exec(text)) {
    const fence = opener[1] ?? "```";
    const bodyStart = opener.index + opener[0].length;
    const rest = text.slice(bodyStart);
    const block = closeFence(rest, fence.length);
    blocks.push({
      start: opener.index,
      end: bodyStart + block.consumed,
      info: (opener[2] ?? "").trim(),
      body: block.body,
      closed: block.closed,
    });
    FENCE_OPENER.lastIndex = bodyStart + block.consumed;
  }
  return blocks;
}

function closeFence(rest: string, fenceLength: number): { body: string; consumed: number; closed: boolean } {
  // Markdown's rule first: the closing fence is a line of its own. Only that makes code or JSON that
  // contains ``` inside a string safe.
  const ownLine = new RegExp(`^[ \\t]*\`{${fenceLength},}[ \\t]*$`, "m").exec(rest);
  if (ownLine) {
    return { body: rest.slice(0, Math.max(0, ownLine.index - 1)), consumed: ownLine.index + ownLine[0].length, closed: true };
  }
  // Chat habit: "print(1)```" closes on the last code line.
  const inline = new RegExp(`\`{${fenceLength},}`).exec(rest);
  if (inline) return { body: rest.slice(0, inline.index).replace(/[ \t]+$/, ""), consumed: inline.index + inline[0].length, closed: true };
  return { body: rest, consumed: rest.length, closed: false };
}

// ---------------------------------------------------------------------------------------------
// 1. Explicit script: ```tool_calls [ {"name", "args"}, … ] ```

const EXAMPLE_CALL = '{"name": "read_file", "args": {"path": "/workspace/a.txt"}}';
const TOOL_CALLS_INFO = /^tool[_-]?calls?$/i;

type ScriptSearch = { kind: "absent" } | { kind: "found"; body: string } | { kind: "invalid"; message: string };

function findToolCallsScript(text: string): ScriptSearch {
  const scripts = findFencedBlocks(text).filter((block) => TOOL_CALLS_INFO.test(block.info.split(/\s+/)[0] ?? ""));
  if (scripts.length === 0) {
    // A one-line ```tool_calls [...]``` has no opener line; say so rather than read it as prose.
    if (/```[ \t]*tool[_-]?calls?\b/i.test(text)) {
      return invalid("the tool_calls block must be fenced on lines of its own: ```tool_calls on one line, the JSON array on the next lines, then ``` on a line by itself");
    }
    return { kind: "absent" };
  }
  if (scripts.length > 1) return invalid(`found ${scripts.length} tool_calls blocks; put all the calls in one block's JSON array`);
  const [script] = scripts;
  if (!script) return { kind: "absent" };
  const [marker, ...extra] = script.info.split(/\s+/);
  if (marker?.toLowerCase() !== "tool_calls") {
    return invalid(`found a \`\`\`${marker} block; the emulated agent runs only blocks marked exactly \`\`\`tool_calls`);
  }
  if (extra.length > 0) return invalid("nothing may follow ```tool_calls on its opening line; start the JSON array on the next line");
  if (!script.closed) return invalid("the tool_calls block is not closed; end it with ``` on a line by itself");
  return { kind: "found", body: script.body };
}

function parseScript(body: string): PlanResult {
  if (body.trim() === "") return invalid(`the tool_calls block is empty; it must hold a JSON array of calls like [${EXAMPLE_CALL}]`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return invalid(`the tool_calls block is not valid JSON (${reason}); it must hold a JSON array of calls like [${EXAMPLE_CALL}]`);
  }
  if (!Array.isArray(parsed)) {
    const looksLikeOneCall = typeof parsed === "object" && parsed !== null && "name" in parsed;
    return invalid(
      looksLikeOneCall
        ? "the tool_calls block must hold a JSON array; wrap the single call in [ ]"
        : `the tool_calls block must hold a JSON array of calls like [${EXAMPLE_CALL}], got ${describeValueKind(parsed)}`,
    );
  }
  if (parsed.length === 0) return invalid(`the tool_calls array is empty; add at least one call like ${EXAMPLE_CALL}`);

  const calls: ToolCall[] = [];
  const problems: string[] = [];
  parsed.forEach((item: unknown, index) => {
    // 1-based, as a person counts the lines of their script.
    const label = `tool_calls item ${index + 1}`;
    const checked = checkScriptItem(item);
    if (typeof checked === "string") problems.push(`${label}: ${checked}`);
    else calls.push(checked);
  });
  // One line per item, so several mistakes can be fixed in one go.
  if (problems.length > 0) return invalid(problems.join("\n"));
  return { kind: "calls", calls, source: "script" };
}

const MISNAMED_ARGS_KEYS = new Set(["arguments", "parameters", "params", "input", "tool_input"]);

function checkScriptItem(item: unknown): ToolCall | string {
  if (typeof item !== "object" || item === null || Array.isArray(item)) {
    return `expected an object like ${EXAMPLE_CALL}, got ${describeValueKind(item)}`;
  }
  const record = item as Record<string, unknown>;
  const unknownKeys = Object.keys(record).filter((key) => key !== "name" && key !== "args");
  const firstUnknown = unknownKeys[0];
  if (firstUnknown !== undefined) {
    // "arguments" is what the interaction's steps use, so it is the likeliest slip.
    if (MISNAMED_ARGS_KEYS.has(firstUnknown) && !("args" in record)) return `unknown key "${firstUnknown}"; write the arguments under "args"`;
    return `unknown key${unknownKeys.length > 1 ? "s" : ""} ${unknownKeys.map((key) => `"${key}"`).join(", ")}; an item has only "name" and "args"`;
  }
  if (!("name" in record)) return `missing "name"; ${UNKNOWN_TOOL_HINT}`;
  const parsed = parseToolCall(record.name, record.args);
  return parsed.ok ? parsed.call : parsed.message;
}

function invalid(message: string): { kind: "invalid"; message: string } {
  return { kind: "invalid", message };
}

// ---------------------------------------------------------------------------------------------
// 2. Plain phrasings
//
// The text is first "masked": fenced blocks, `code spans` and quoted strings become placeholders, so
// that "then", ";" or a verb inside a command or a quoted file content never splits or steers a step.
// Steps are then split on "then" / ";" / sentence ends / lines, and each step is read from its verb.

const SPAN_OPEN = "\uE000";
const SPAN_CLOSE = "\uE001";

interface ProtectedSpan {
  kind: "fence" | "code" | "quote";
  /** The original text, delimiters included (may itself hold placeholders of inner spans). */
  raw: string;
  /** The text between the delimiters, exactly. */
  value: string;
  /** A fenced block's info string; "" otherwise. */
  info: string;
}

interface MaskedText {
  text: string;
  spans: ProtectedSpan[];
}

function placeholder(index: number): string {
  return `${SPAN_OPEN}${index}${SPAN_CLOSE}`;
}

function maskProtectedSpans(text: string): MaskedText {
  const spans: ProtectedSpan[] = [];
  const addSpan = (span: ProtectedSpan): string => placeholder(spans.push(span) - 1);
  const withoutFences = maskFences(text, addSpan);
  const withoutCode = maskInlineCode(withoutFences, addSpan);
  return { text: maskQuotes(withoutCode, addSpan), spans };
}

type AddSpan = (span: ProtectedSpan) => string;

function maskFences(text: string, addSpan: AddSpan): string {
  let out = "";
  let cursor = 0;
  for (const block of findFencedBlocks(text)) {
    out += text.slice(cursor, block.start) + addSpan({ kind: "fence", raw: text.slice(block.start, block.end), value: block.body, info: block.info });
    cursor = block.end;
  }
  return out + text.slice(cursor);
}

/** Markdown code spans: a run of n backticks closes at the next run of exactly n (linear time). */
function maskInlineCode(text: string, addSpan: AddSpan): string {
  const runs = [...text.matchAll(/`+/g)].map((match) => ({ start: match.index, length: match[0].length }));
  const nextOfSameLength: (number | undefined)[] = [];
  const lastSeen = new Map<number, number>();
  for (let i = runs.length - 1; i >= 0; i--) {
    const run = runs[i];
    if (!run) continue;
    nextOfSameLength[i] = lastSeen.get(run.length);
    lastSeen.set(run.length, i);
  }
  let out = "";
  let cursor = 0;
  for (let i = 0; i < runs.length; ) {
    const open = runs[i];
    const closeIndex = nextOfSameLength[i];
    const close = closeIndex === undefined ? undefined : runs[closeIndex];
    if (!open || closeIndex === undefined || !close) {
      i++;
      continue;
    }
    let value = text.slice(open.start + open.length, close.start);
    // Markdown strips one space on each side so that `` `x` `` can show a backtick at its edge.
    if (value.length >= 2 && value.startsWith(" ") && value.endsWith(" ") && value.trim() !== "") value = value.slice(1, -1);
    out += text.slice(cursor, open.start) + addSpan({ kind: "code", raw: text.slice(open.start, close.start + close.length), value, info: "" });
    cursor = close.start + close.length;
    i = closeIndex + 1;
  }
  return out + text.slice(cursor);
}

const QUOTE_CLOSERS: Record<string, string> = { '"': '"', "'": "'", "\u201C": "\u201D", "\u2018": "\u2019" };
// A quote opens only at a word's start and closes only at a word's end, so the apostrophes in
// "don't" or "the users' files" are never taken for quotes.
const OPENS_AFTER = /[\s(\[{:=,]/;
const CLOSES_BEFORE = /[\s.,;:!?)\]}]/;

function maskQuotes(text: string, addSpan: AddSpan): string {
  // For each closing character, the positions where it may close, ascending (linear overall).
  const closers = new Map<string, number[]>();
  for (let i = 0; i < text.length; i++) {
    const char = text[i] ?? "";
    if (!Object.values(QUOTE_CLOSERS).includes(char)) continue;
    const after = text[i + 1];
    if (after !== undefined && !CLOSES_BEFORE.test(after)) continue;
    const positions = closers.get(char) ?? [];
    positions.push(i);
    closers.set(char, positions);
  }
  const pointers = new Map<string, number>();
  let out = "";
  let cursor = 0;
  for (let i = 0; i < text.length; i++) {
    const closer = QUOTE_CLOSERS[text[i] ?? ""];
    if (closer === undefined) continue;
    const before = text[i - 1];
    if (before !== undefined && !OPENS_AFTER.test(before)) continue;
    const positions = closers.get(closer) ?? [];
    let pointer = pointers.get(closer) ?? 0;
    while (pointer < positions.length && (positions[pointer] ?? 0) <= i) pointer++;
    pointers.set(closer, pointer);
    const end = positions[pointer];
    if (end === undefined) continue;
    out += text.slice(cursor, i) + addSpan({ kind: "quote", raw: text.slice(i, end + 1), value: text.slice(i + 1, end), info: "" });
    cursor = end + 1;
    i = end;
  }
  return out + text.slice(cursor);
}

function resolvePlaceholders(text: string, spans: readonly ProtectedSpan[]): string {
  return text.replace(/\uE000(\d+)\uE001/g, (whole, index: string) => {
    const span = spans[Number(index)];
    return span ? resolvePlaceholders(span.raw, spans) : whole;
  });
}

// --- Splitting into steps -----------------------------------------------------------------------

// Word edges that also respect paths: "then" in "/workspace/then/x" or "read" in "read_file" is no word.
const NOT_BEFORE = "(?<![\\w/.~\\-'\u2019])";
const NOT_AFTER = "(?![\\w/\\-'\u2019]|\\.\\w)";

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

const VERB_ACTIONS = {
  run: "run",
  execute: "run",
  read: "read",
  cat: "read",
  create: "write",
  write: "write",
  save: "write",
  list: "list",
  delete: "delete",
  remove: "delete",
} as const;

type Action = (typeof VERB_ACTIONS)[keyof typeof VERB_ACTIONS];

const VERB_WORDS = Object.keys(VERB_ACTIONS).join("|");
const VERB = new RegExp(`${NOT_BEFORE}(${VERB_WORDS})${NOT_AFTER}`, "gi");
const ADVERBS = "(?:(?:please|now|also|immediately|finally|next|just|then)\\s+)?";
// ", read …" / "and read …" start a new step only when what follows reads as a whole step on its own,
// so "containing salt and pepper" and "read X and summarize it" stay one step.
const WEAK_SEPARATOR = new RegExp(`(?:,\\s*(?:and\\s+)?|${NOT_BEFORE}and\\s+)${ADVERBS}(?=(?:${VERB_WORDS})${NOT_AFTER})`, "gi");
// Nouns that look like verbs: "the list", "a run", "your filesystem read tool".
const DETERMINER_BEFORE = /(?:^|\s)(?:a|an|the|this|that|my|your|its|our|their)\s+$/i;
const TOOL_WORD_AFTER = /^\s+tools?\b/i;
// "Don't read anything, just list `/workspace`": a negated verb is no request.
const NEGATION_BEFORE = /(?:^|\s)(?:don['\u2019]?t|do\s+not|never|not|without|no\s+need\s+to)\s+$/i;

interface VerbAt {
  action: Action;
  word: string;
  /** Offset just after the verb, where its object starts. */
  end: number;
}

function findVerb(segment: string): VerbAt | undefined {
  VERB.lastIndex = 0;
  for (let match = VERB.exec(segment); match; match = VERB.exec(segment)) {
    const word = (match[1] ?? "").toLowerCase() as keyof typeof VERB_ACTIONS;
    const end = match.index + match[0].length;
    // The few words before the verb are enough, and keep long inputs linear.
    const before = segment.slice(Math.max(0, match.index - 40), match.index);
    if (DETERMINER_BEFORE.test(before) || NEGATION_BEFORE.test(before) || TOOL_WORD_AFTER.test(segment.slice(end))) continue;
    return { action: VERB_ACTIONS[word], word, end };
  }
  return undefined;
}

// --- Reading one step ---------------------------------------------------------------------------

interface Token {
  kind: "fence" | "code" | "quote" | "bare";
  start: number;
  end: number;
  /** Exact text: a span's content, or a bare path without trailing punctuation. */
  value: string;
  info: string;
}

// Bare paths start with /, ./, ../ or ~/ at a word's start ("read/write" and "https://" are no paths).
const TOKEN = /\uE000(\d+)\uE001|(?<![\w\uE001~.\-/:])(?:~\/|\.{1,2}\/|\/)[^\s\uE000]*/g;
const TRAILING_PUNCTUATION = /[.,;:!?)\]}"'\u2019\u201D]+$/;

function tokenize(segment: string, spans: readonly ProtectedSpan[]): Token[] {
  const tokens: Token[] = [];
  for (const match of segment.matchAll(TOKEN)) {
    const start = match.index;
    if (match[1] !== undefined) {
      const span = spans[Number(match[1])];
      if (!span) continue;
      tokens.push({ kind: span.kind, start, end: start + match[0].length, value: resolvePlaceholders(span.value, spans), info: span.info });
      continue;
    }
    const bare = match[0].length > 1 ? match[0].replace(TRAILING_PUNCTUATION, "") : match[0];
    if (bare !== "") tokens.push({ kind: "bare", start, end: start + bare.length, value: bare, info: "" });
  }
  return tokens;
}

/** The words of a step without its spans and paths, so "/workspace/folder/x" says nothing about folders. */
function proseOf(segment: string): string {
  return segment.replace(TOKEN, " ");
}

/** A `read_file` in backticks names the tool ("using `read_file`"), never a path or a command. */
function namesATool(token: Token): boolean {
  return isToolName(token.value.trim());
}

function isPathToken(token: Token): boolean {
  return token.kind !== "fence" && token.value.trim() !== "" && !namesATool(token);
}

function isCodeToken(token: Token): boolean {
  return token.kind !== "bare" && !namesATool(token);
}

const LIST_JOIN = /^\s*(?:,\s*(?:and\s+)?|and\s+)$/i;

/** The first matching token after `from`, plus those joined to it by "," / "and" ("`/a` and `/b`"). */
function joinedTokens(segment: string, tokens: readonly Token[], from: number, accepts: (token: Token) => boolean): Token[] {
  const candidates = tokens.filter((token) => token.start >= from);
  const firstIndex = candidates.findIndex(accepts);
  const first = candidates[firstIndex];
  if (!first) return [];
  const chosen = [first];
  for (let i = firstIndex + 1; i < candidates.length; i++) {
    const previous = chosen[chosen.length - 1];
    const next = candidates[i];
    if (!previous || !next || !accepts(next) || !LIST_JOIN.test(segment.slice(previous.end, next.start))) break;
    chosen.push(next);
  }
  return chosen;
}

const REFERENCE = /^\s*(?:back\b|(?:back\s+)?(?:it|that|this|them)\b|(?:back\s+)?the\s+(?:same\s+|new\s+)?(?:file|folder|directory)\b)/i;

interface StepContext {
  /** The last path a file step named; "read it back" refers to it. */
  lastPath: string | undefined;
}

type StepReading =
  | { kind: "calls"; calls: ToolCall[]; lastPath: string | undefined }
  | { kind: "unreadable"; note: string }
  | { kind: "no-request" };

interface Step {
  segment: string;
  masked: MaskedText;
  verb: VerbAt;
  context: StepContext;
}

function readStep(step: Step): StepReading {
  switch (step.verb.action) {
    case "run":
      return readRunStep(step);
    case "read":
      return readPathStep(step, "read_file", "read a file");
    case "list":
      return readPathStep(step, "list_files", "list a folder");
    case "delete":
      return readPathStep(step, "delete_file", "delete a file");
    case "write":
      return readWriteStep(step);
  }
}

function quoteStep(step: Step): string {
  const text = resolvePlaceholders(step.segment, step.masked.spans).replace(/\s+/g, " ").trim();
  return `"${text.length > 80 ? `${text.slice(0, 79)}…` : text}"`;
}

function unreadable(step: Step, asRequestTo: string, problem: string): StepReading {
  return { kind: "unreadable", note: `I took ${quoteStep(step)} as a request to ${asRequestTo}, but ${problem}, so I skipped that step.` };
}

const PATH_HINT = "put the path in backticks, like `/workspace/notes.txt`, or start it with / or ./";

function resolveReference(step: Step, textAfterVerb: string, asRequestTo: string): { path: string } | { failure: StepReading } | undefined {
  const reference = REFERENCE.exec(textAfterVerb);
  if (!reference) return undefined;
  if (step.context.lastPath === undefined) {
    const words = reference[0].trim();
    return { failure: unreadable(step, asRequestTo, `"${words}" does not refer to any path named before it (${PATH_HINT})`) };
  }
  return { path: step.context.lastPath };
}

function readPathStep(step: Step, tool: "read_file" | "list_files" | "delete_file", asRequestTo: string): StepReading {
  const { segment, masked, verb } = step;
  const tokens = tokenize(segment, masked.spans);
  let paths = joinedTokens(segment, tokens, verb.end, isPathToken).map((token) => token.value.trim());
  if (paths.length === 0) {
    const reference = resolveReference(step, segment.slice(verb.end), asRequestTo);
    if (reference && "failure" in reference) return reference.failure;
    if (reference) paths = [reference.path];
    // "List the files" names no folder: the working folder is the natural reading.
    else if (tool === "list_files") paths = ["."];
    else return unreadable(step, asRequestTo, `I could not tell which path (${PATH_HINT})`);
  }
  // A folder can only go with recursive: true, so asking for a folder or "recursively" sets it.
  const recursive = tool === "delete_file" && /\brecursive(?:ly)?\b|\bfolders?\b|\bdirector(?:y|ies)\b|\bits contents\b|\beverything in it\b/i.test(proseOf(segment));
  const calls: ToolCall[] = paths.map((path) => ({ name: tool, args: recursive ? { path, recursive: true } : { path } }));
  return { kind: "calls", calls, lastPath: paths[paths.length - 1] };
}

const PYTHON_FENCE = /^(?:python3?|py)$/i;
const SHELL_FENCE = /^(?:bash|sh|shell|zsh|console|shell-session)$/i;
const PYTHON_WORD = new RegExp(`${NOT_BEFORE}python3?${NOT_AFTER}`, "i");
const PYTHON_AFTER = new RegExp(`^\\s*(?:in|using|with|as|via)\\s+python3?${NOT_AFTER}`, "i");
// "run the python script `python3 app.py`" is still a shell command line.
const SHELL_LAUNCHER = /^\s*(?:python3?|bash|sh|pip3?)(?:\s|$)/;

function readRunStep(step: Step): StepReading {
  const { segment, masked, verb } = step;
  const tokens = tokenize(segment, masked.spans);
  const codeTokens = joinedTokens(segment, tokens, verb.end, isCodeToken);
  const first = codeTokens[0];
  if (!first) {
    return unreadable(step, "run code", "I found no command in backticks (write it like: Run `ls -la` using code_execution)");
  }
  const pythonNamedBefore = PYTHON_WORD.test(segment.slice(verb.end, first.start));
  const calls: ToolCall[] = [];
  for (const token of codeTokens) {
    if (token.value.trim() === "") return unreadable(step, "run code", "the command in backticks is empty");
    const language = languageOf(token, pythonNamedBefore || PYTHON_AFTER.test(segment.slice(token.end)));
    if (language === undefined) {
      return unreadable(step, "run code", `the code block is marked "${token.info}", and code_execution runs only bash or python`);
    }
    calls.push({ name: "code_execution", args: { code: token.value, language } });
  }
  return { kind: "calls", calls, lastPath: step.context.lastPath };
}

function languageOf(token: Token, pythonNamed: boolean): CodeLanguage | undefined {
  const fenceLanguage = token.kind === "fence" ? (token.info.split(/\s+/)[0] ?? "") : "";
  if (PYTHON_FENCE.test(fenceLanguage)) return "python";
  if (SHELL_FENCE.test(fenceLanguage)) return "bash";
  if (fenceLanguage !== "") return undefined;
  return pythonNamed && !SHELL_LAUNCHER.test(token.value) ? "python" : "bash";
}

const CONTENT_MARKER = new RegExp(
  `${NOT_BEFORE}(?:containing|that\\s+(?:contains|says)|which\\s+(?:contains|says)|saying|with\\s+(?:the\\s+)?(?:following\\s+)?(?:content|contents|text|body))${NOT_AFTER}\\s*:?\\s*` +
    // A plain "with" introduces content only right before a quoted or fenced span: "create X with 'hi'".
    `|${NOT_BEFORE}with\\s*:?\\s*(?=\\uE000)`,
  "i",
);
const WRITE_TARGET = new RegExp(`${NOT_BEFORE}(?:to|into)\\s+(?:the\\s+)?(?:file\\s+)?(?=\\uE000|~/|\\.{1,2}/|/)`, "i");
const CONTENT_FILLER = /^(?:the\s+)?(?:text|string|words?|line|content)\s*:?\s+/i;
// Words after a bare content that are about the request, not the file: "… using your filesystem tool".
const TRAILING_REQUEST_PHRASES = [
  /\s*,?\s+(?:using|with|via|through|by\s+using)\s+(?:(?:the|your|a|my)\s+)?(?:[\w-]+\s+){0,3}?tools?\b[\s\S]*$/i,
  /\s*,?\s+(?:using|with|via)\s+(?:code_execution|read_file|write_file|list_files|delete_file|\uE000\d+\uE001)\s*$/i,
  /\s*,?\s+(?:in|inside|on)\s+(?:the\s+)?sandbox\b[\s\S]*$/i,
];

function readWriteStep(step: Step): StepReading {
  const { segment, masked, verb } = step;
  const tokens = tokenize(segment, masked.spans);
  const afterVerb = segment.slice(verb.end);
  const marker = CONTENT_MARKER.exec(afterVerb);
  const markerStart = marker ? verb.end + marker.index : segment.length;
  const objectText = segment.slice(verb.end, markerStart);

  if (/\b(?:folder|directory|dir)\b/i.test(proseOf(objectText)) && !marker) {
    return unreadable(step, "create a folder", "no emulated tool creates folders (write_file creates the parent folders of the file it writes)");
  }

  if (marker) {
    const target = writePath(step, tokens, verb.end, markerStart, objectText);
    if ("failure" in target) return target.failure;
    const contentStart = markerStart + marker[0].length;
    return writeCall(target.path, contentAfterMarker(segment, masked, tokens, contentStart));
  }

  // "write 'hello' to /workspace/a.txt": content first, then the file.
  const toTarget = verb.word !== "create" ? WRITE_TARGET.exec(afterVerb) : null;
  if (toTarget) {
    const pathStart = verb.end + toTarget.index + toTarget[0].length;
    const pathToken = tokens.find((token) => token.start === pathStart && isPathToken(token));
    if (pathToken) {
      const contentTokens = tokens.filter((token) => token.start >= verb.end && token.end <= verb.end + toTarget.index);
      const onlyToken = contentTokens.length === 1 ? contentTokens[0] : undefined;
      const content = onlyToken
        ? onlyToken.value
        : resolvePlaceholders(segment.slice(verb.end, verb.end + toTarget.index), masked.spans).trim().replace(CONTENT_FILLER, "");
      return writeCall(pathToken.value.trim(), content);
    }
  }

  // "create /workspace/empty.txt": a file with no content.
  const target = writePath(step, tokens, verb.end, segment.length, afterVerb);
  if ("failure" in target) return target.failure;
  return writeCall(target.path, "");
}

function writePath(step: Step, tokens: readonly Token[], from: number, to: number, objectText: string): { path: string } | { failure: StepReading } {
  const token = tokens.find((candidate) => candidate.start >= from && candidate.end <= to && isPathToken(candidate));
  if (token) return { path: token.value.trim() };
  const reference = resolveReference(step, objectText, "write a file");
  if (reference) return reference;
  return { failure: unreadable(step, "write a file", `I could not tell which file to write (${PATH_HINT})`) };
}

function contentAfterMarker(segment: string, masked: MaskedText, tokens: readonly Token[], contentStart: number): string {
  // A quoted, backticked or fenced content is taken exactly; anything else is the rest of the step.
  const spanToken = tokens.find((token) => token.start === contentStart && token.kind !== "bare");
  if (spanToken) return spanToken.value;
  let rest = segment.slice(contentStart);
  for (const phrase of TRAILING_REQUEST_PHRASES) rest = rest.replace(phrase, "");
  return resolvePlaceholders(rest, masked.spans).trim().replace(/[.,;]$/, "");
}

function writeCall(path: string, content: string): StepReading {
  return { kind: "calls", calls: [{ name: "write_file", args: { path, content } }], lastPath: path };
}

// --- Putting the steps together -----------------------------------------------------------------

interface PhrasingPlan {
  calls: ToolCall[];
  notes: string[];
}

function planFromPhrasing(text: string): PhrasingPlan {
  const masked = maskProtectedSpans(text);
  const calls: ToolCall[] = [];
  const notes: string[] = [];
  let context: StepContext = { lastPath: undefined };
  let previousAction: Action | undefined;

  for (const segment of splitIntoSegments(masked).flatMap((part) => splitBeforeChainedVerbs(part, masked))) {
    const verb = findVerb(segment) ?? continuedVerb(segment, masked, previousAction);
    if (!verb) continue; // "Understood.", "and summarize the details": no request, nothing to say.
    const reading = readStep({ segment, masked, verb, context });
    if (reading.kind === "calls") {
      calls.push(...reading.calls);
      context = { lastPath: reading.lastPath };
      previousAction = verb.action;
    } else if (reading.kind === "unreadable") {
      notes.push(reading.note);
    }
  }
  return { calls, notes: capNotes(notes) };
}

const MAX_NOTES = 10;

/** A pasted document full of verbs must not turn the answer into a wall of notes. */
function capNotes(notes: string[]): string[] {
  if (notes.length <= MAX_NOTES) return notes;
  return [...notes.slice(0, MAX_NOTES), `I also skipped ${notes.length - MAX_NOTES} more steps that I could not read.`];
}

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
 * Writes never continue: a bare path after a write is too likely to be something else.
 */
function continuedVerb(segment: string, masked: MaskedText, previousAction: Action | undefined): VerbAt | undefined {
  const tokenStart = /^(?:(?:and|also|next|finally)\s+)?/i.exec(segment)?.[0].length ?? 0;
  const tokens = tokenize(segment, masked.spans);
  const first = tokens.find((token) => token.start === tokenStart);
  if (!first) return undefined;
  const runnableFence = first.kind === "fence" && (PYTHON_FENCE.test(first.info) || SHELL_FENCE.test(first.info));
  const action = previousAction === "write" ? undefined : (previousAction ?? (runnableFence ? "run" : undefined));
  if (action === undefined) return undefined;
  const joined = joinedTokens(segment, tokens, tokenStart, action === "run" ? isCodeToken : isPathToken);
  const last = joined[joined.length - 1];
  if (joined[0] !== first || !last) return undefined;
  if (!/^[\s.!?]*$|^\s*(?:using|with|via|in|as)\b/i.test(segment.slice(last.end))) return undefined;
  return { action, word: action, end: tokenStart };
}

// ---------------------------------------------------------------------------------------------
// 3. Nothing to run

function describeUnderstanding(text: string, notes: readonly string[]): string {
  if (notes.length > 0) return notes.join(" ");
  const snippet = text.replace(/\s+/g, " ").trim();
  if (snippet === "") return "Your message was empty, so there was nothing for the emulated agent to do.";
  const shown = snippet.length > 80 ? `${snippet.slice(0, 79)}…` : snippet;
  return `I read your message ("${shown}") but found no request to run a command or to read, write, list or delete a file in it.`;
}
