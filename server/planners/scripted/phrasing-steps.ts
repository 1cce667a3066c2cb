// Reading one step of a plain request (docs/api.md#the-emulated-agent): its verb, then the command,
// path or content the verb applies to. Literal on purpose: a step that does not say exactly what to run
// or which path to use is reported as unreadable, never completed with a guess.

import { isToolName, type CodeLanguage, type ToolCall } from "../../tools/tool-call.js";
import { namesAFunction, readFunctionPhrasing } from "./function-phrasing.js";
import { MCP_TOOL_AFTER, readMcpCallStep } from "./mcp-phrasing.js";
import { resolvePlaceholders, type MaskedText, type ProtectedSpan } from "./protected-spans.js";
import { quoteStep, unreadable, VERB_ACTIONS, type PhrasingStep, type StepReading, type VerbAt } from "./step-reading.js";

// Word edges that also respect paths: "then" in "/workspace/then/x" or "read" in "read_file" is no word.
export const NOT_BEFORE = "(?<![\\w/.~\\-'\u2019])";
export const NOT_AFTER = "(?![\\w/\\-'\u2019]|\\.\\w)";

// --- The verb of a step -------------------------------------------------------------------------

export const VERB_WORDS = Object.keys(VERB_ACTIONS).join("|");
const VERB = new RegExp(`${NOT_BEFORE}(${VERB_WORDS})${NOT_AFTER}`, "gi");
// Nouns that look like verbs: "the list", "a run", "your filesystem read tool".
const DETERMINER_BEFORE = /(?:^|\s)(?:a|an|the|this|that|my|your|its|our|their)\s+$/i;
const TOOL_WORD_AFTER = /^\s+tools?\b/i;
// "Don't read anything, just list `/workspace`": a negated verb is no request.
const NEGATION_BEFORE = /(?:^|\s)(?:don['\u2019]?t|do\s+not|never|not|without|no\s+need\s+to)\s+$/i;

export function findVerb(segment: string): VerbAt | undefined {
  VERB.lastIndex = 0;
  for (let match = VERB.exec(segment); match; match = VERB.exec(segment)) {
    const word = (match[1] ?? "").toLowerCase() as keyof typeof VERB_ACTIONS;
    const end = match.index + match[0].length;
    // The few words before the verb are enough, and keep long inputs linear.
    const before = segment.slice(Math.max(0, match.index - 40), match.index);
    if (DETERMINER_BEFORE.test(before) || NEGATION_BEFORE.test(before) || TOOL_WORD_AFTER.test(segment.slice(end))) continue;
    if (word === "call" && !MCP_TOOL_AFTER.test(segment.slice(end)) && !namesAFunction(segment.slice(end))) continue;
    return { action: VERB_ACTIONS[word], word, end };
  }
  return undefined;
}

// --- Reading one step ---------------------------------------------------------------------------

export interface Token {
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

export function tokenize(segment: string, spans: readonly ProtectedSpan[]): Token[] {
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

export function isPathToken(token: Token): boolean {
  return token.kind !== "fence" && token.value.trim() !== "" && !namesATool(token);
}

export function isCodeToken(token: Token): boolean {
  return token.kind !== "bare" && !namesATool(token);
}

const LIST_JOIN = /^\s*(?:,\s*(?:and\s+)?|and\s+)$/i;

/** The first matching token after `from`, plus those joined to it by "," / "and" ("`/a` and `/b`"). */
export function joinedTokens(segment: string, tokens: readonly Token[], from: number, accepts: (token: Token) => boolean): Token[] {
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

export function readStep(step: PhrasingStep): StepReading {
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
    case "call":
      return MCP_TOOL_AFTER.test(step.segment.slice(step.verb.end)) ? readMcpCallStep(step) : readCallStep(step);
  }
}

/** "call the function `NAME` with {json}": a call for the client; the reader checks it against the declarations. */
function readCallStep(step: PhrasingStep): StepReading {
  const phrasing = readFunctionPhrasing(step.segment.slice(step.verb.end), step.masked.spans);
  if (phrasing.kind === "not-a-call") return { kind: "no-request" };
  if (phrasing.kind === "invalid")
    return { kind: "invalid", message: `${quoteStep(step)} calls function ${phrasing.name}, but ${phrasing.problem}` };
  const args = phrasing.args as Record<string, unknown>;
  return { kind: "calls", calls: [{ kind: "function", name: phrasing.name, args }], lastPath: step.context.lastPath };
}

const PATH_HINT = "put the path in backticks, like `/workspace/notes.txt`, or start it with / or ./";

function resolveReference(
  step: PhrasingStep,
  textAfterVerb: string,
  asRequestTo: string,
): { path: string } | { failure: StepReading } | undefined {
  const reference = REFERENCE.exec(textAfterVerb);
  if (!reference) return undefined;
  if (step.context.lastPath === undefined) {
    const words = reference[0].trim();
    return { failure: unreadable(step, asRequestTo, `"${words}" does not refer to any path named before it (${PATH_HINT})`) };
  }
  return { path: step.context.lastPath };
}

function readPathStep(step: PhrasingStep, tool: "read_file" | "list_files" | "delete_file", asRequestTo: string): StepReading {
  const { segment, masked, verb } = step;
  const tokens = tokenize(segment, masked.spans);
  let paths = joinedTokens(segment, tokens, verb.end, isPathToken).map((token) => token.value.trim());
  if (paths.length === 0) {
    const reference = resolveReference(step, segment.slice(verb.end), asRequestTo);
    if (reference && "failure" in reference) return reference.failure;
    if (reference) paths = [reference.path];
    // "Read tmp/test.txt and tell me …" (the official CLI's cuj_33.sh): a bare relative name right
    // after the verb, with a folder or an extension, resolved from the working folder.
    else if (relativeNameAt(segment.slice(verb.end))) paths = [relativeNameAt(segment.slice(verb.end)) as string];
    // "List the files" names no folder: the working folder is the natural reading.
    else if (tool === "list_files") paths = ["."];
    else return unreadable(step, asRequestTo, `I could not tell which path (${PATH_HINT})`);
  }
  // A folder can only go with recursive: true, so asking for a folder or "recursively" sets it.
  const recursive =
    tool === "delete_file" &&
    /\brecursive(?:ly)?\b|\bfolders?\b|\bdirector(?:y|ies)\b|\bits contents\b|\beverything in it\b/i.test(proseOf(segment));
  const calls: ToolCall[] = paths.map((path) => ({ name: tool, args: recursive ? { path, recursive: true } : { path } }));
  return { kind: "calls", calls, lastPath: paths[paths.length - 1] };
}

export const PYTHON_FENCE = /^(?:python3?|py)$/i;
export const SHELL_FENCE = /^(?:bash|sh|shell|zsh|console|shell-session)$/i;
const PYTHON_WORD = new RegExp(`${NOT_BEFORE}python3?${NOT_AFTER}`, "i");
const PYTHON_AFTER = new RegExp(`^\\s*(?:in|using|with|as|via)\\s+python3?${NOT_AFTER}`, "i");
// "run the python script `python3 app.py`" is still a shell command line.
const SHELL_LAUNCHER = /^\s*(?:python3?|bash|sh|pip3?)(?:\s|$)/;

function readRunStep(step: PhrasingStep): StepReading {
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
// "write 'hello' to test.txt": after a content, a relative file name (one with a folder or an extension)
// names the file exactly enough; it resolves from the working folder, as the tools' relative paths do.
const RELATIVE_WRITE_TARGET = new RegExp(
  `${NOT_BEFORE}(?:to|into)\\s+(?:the\\s+)?(?:file\\s+)?([A-Za-z0-9_][\\w.-]*(?:/[\\w.-]+)*)(?=$|[\\s,;:!?)]|\\.(?:\\s|$))`,
  "i",
);
const FILE_LIKE = /\/|\.[A-Za-z][\w]*$/;
const RELATIVE_OBJECT = /^\s+(?:the\s+)?(?:file\s+)?([A-Za-z0-9_][\w.-]*(?:\/[\w.-]+)*)(?=$|[\s,;:!?)]|\.(?:\s|$))/i;

/** A bare relative file name at the start of `text` ("tmp/test.txt", "notes.txt"), if it is one. */
function relativeNameAt(text: string): string | undefined {
  const name = RELATIVE_OBJECT.exec(text)?.[1]?.replace(/\.+$/, "");
  return name && FILE_LIKE.test(name) ? name : undefined;
}
// "write 'hello' to …": a quoted or backticked content, then a target.
const QUOTED_CONTENT_TO = /^\s*\uE000\d+\uE001\s+(?:to|into)\s/i;
const CONTENT_FILLER = /^(?:the\s+)?(?:text|string|words?|line|content)\s*:?\s+/i;
// Words after a bare content that are about the request, not the file: "… using your filesystem tool".
const TRAILING_REQUEST_PHRASES = [
  /\s*,?\s+(?:using|with|via|through|by\s+using)\s+(?:(?:the|your|a|my)\s+)?(?:[\w-]+\s+){0,3}?tools?\b[\s\S]*$/i,
  /\s*,?\s+(?:using|with|via)\s+(?:code_execution|read_file|write_file|list_files|delete_file|\uE000\d+\uE001)\s*$/i,
  /\s*,?\s+(?:in|inside|on)\s+(?:the\s+)?sandbox\b[\s\S]*$/i,
];

function readWriteStep(step: PhrasingStep): StepReading {
  const { segment, masked, verb } = step;
  const tokens = tokenize(segment, masked.spans);
  const afterVerb = segment.slice(verb.end);
  const marker = CONTENT_MARKER.exec(afterVerb);
  const markerStart = marker ? verb.end + marker.index : segment.length;
  const objectText = segment.slice(verb.end, markerStart);

  if (/\b(?:folder|directory|dir)\b/i.test(proseOf(objectText)) && !marker) {
    return unreadable(
      step,
      "create a folder",
      "no emulated tool creates folders (write_file creates the parent folders of the file it writes)",
    );
  }

  if (marker) {
    const target = writePath(step, tokens, verb.end, markerStart, objectText);
    if ("failure" in target) return target.failure;
    const contentStart = markerStart + marker[0].length;
    return writeCall(target.path, contentAfterMarker(segment, masked, tokens, contentStart));
  }

  // "write 'hello' to /workspace/a.txt": content first, then the file.
  const contentBefore = (end: number): string => {
    const contentTokens = tokens.filter((token) => token.start >= verb.end && token.end <= end);
    const onlyToken = contentTokens.length === 1 ? contentTokens[0] : undefined;
    return onlyToken ? onlyToken.value : resolvePlaceholders(segment.slice(verb.end, end), masked.spans).trim().replace(CONTENT_FILLER, "");
  };
  const toTarget = verb.word !== "create" ? WRITE_TARGET.exec(afterVerb) : null;
  if (toTarget) {
    const pathStart = verb.end + toTarget.index + toTarget[0].length;
    const pathToken = tokens.find((token) => token.start === pathStart && isPathToken(token));
    if (pathToken) return writeCall(pathToken.value.trim(), contentBefore(verb.end + toTarget.index));
  }
  const toRelative = verb.word !== "create" ? RELATIVE_WRITE_TARGET.exec(afterVerb) : null;
  const relativeName = toRelative?.[1]?.replace(/\.+$/, "");
  if (toRelative && relativeName && FILE_LIKE.test(relativeName))
    return writeCall(relativeName, contentBefore(verb.end + toRelative.index));
  // A quoted content sent to something that is no path: not a file named after the content.
  if (verb.word !== "create" && QUOTED_CONTENT_TO.test(afterVerb)) {
    return unreadable(step, "write a file", `I could not tell which file to write (${PATH_HINT})`);
  }

  // "create /workspace/empty.txt": a file with no content.
  const target = writePath(step, tokens, verb.end, segment.length, afterVerb);
  if ("failure" in target) return target.failure;
  return writeCall(target.path, "");
}

function writePath(
  step: PhrasingStep,
  tokens: readonly Token[],
  from: number,
  to: number,
  objectText: string,
): { path: string } | { failure: StepReading } {
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
  return resolvePlaceholders(rest, masked.spans)
    .trim()
    .replace(/[.,;]$/, "");
}

function writeCall(path: string, content: string): StepReading {
  return { kind: "calls", calls: [{ name: "write_file", args: { path, content } }], lastPath: path };
}
