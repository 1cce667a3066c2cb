// The first pass of the phrasing reader: fenced blocks, `code spans` and quoted strings become
// placeholders, so that "then", ";" or a verb inside a command or a quoted file content never splits
// or steers a step. The spans keep their exact text for the step that names them.

import { findFencedBlocks } from "./fenced-blocks.js";

const SPAN_OPEN = "\uE000";
const SPAN_CLOSE = "\uE001";

export interface ProtectedSpan {
  kind: "fence" | "code" | "quote";
  /** The original text, delimiters included (may itself hold placeholders of inner spans). */
  raw: string;
  /** The text between the delimiters, exactly. */
  value: string;
  /** A fenced block's info string; "" otherwise. */
  info: string;
}

export interface MaskedText {
  text: string;
  spans: ProtectedSpan[];
}

function placeholder(index: number): string {
  return `${SPAN_OPEN}${index}${SPAN_CLOSE}`;
}

export function maskProtectedSpans(text: string): MaskedText {
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
    out +=
      text.slice(cursor, block.start) +
      addSpan({ kind: "fence", raw: text.slice(block.start, block.end), value: block.body, info: block.info });
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
    out +=
      text.slice(cursor, open.start) + addSpan({ kind: "code", raw: text.slice(open.start, close.start + close.length), value, info: "" });
    cursor = close.start + close.length;
    i = closeIndex + 1;
  }
  return out + text.slice(cursor);
}

const QUOTE_CLOSERS: Record<string, string> = { '"': '"', "'": "'", "\u201C": "\u201D", "\u2018": "\u2019" };
const CLOSING_QUOTES = new Set(Object.values(QUOTE_CLOSERS));
// A quote opens only at a word's start and closes only at a word's end, so the apostrophes in
// "don't" or "the users' files" are never taken for quotes.
const OPENS_AFTER = /[\s([{:=,]/;
const CLOSES_BEFORE = /[\s.,;:!?)\]}]/;

function maskQuotes(text: string, addSpan: AddSpan): string {
  // For each closing character, the positions where it may close, ascending (linear overall).
  const closers = new Map<string, number[]>();
  for (let i = 0; i < text.length; i++) {
    const char = text[i] ?? "";
    if (!CLOSING_QUOTES.has(char)) continue;
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

export function resolvePlaceholders(text: string, spans: readonly ProtectedSpan[]): string {
  return text.replace(/\uE000(\d+)\uE001/g, (whole, index: string) => {
    const span = spans[Number(index)];
    return span ? resolvePlaceholders(span.raw, spans) : whole;
  });
}
