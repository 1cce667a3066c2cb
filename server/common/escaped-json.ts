// A long string is escaped into JSON once, not once per consumer, and kept as its UTF-8 bytes. A tool's
// result of 1 MiB (a file read by read_file, a command's output) goes into its step.delta event, which
// the event store keeps as JSON, and then into the interaction's answer (and a stream's frame): each
// escaped it again (about 1 ms of the event loop per MiB), then measured and encoded that escape as
// UTF-8 to copy it out (SQLite, the socket), two more passes each (docs/benchmarks.md#read_file-of-1-mib).
// The bytes of the last long strings' escapes are kept, keyed by the string (the same string object
// flows from the event to the step the answer is written from, so that lookup finds it; a string of the
// same text from another read is found too, after a comparison of the whole text), in a cache bounded
// by its total size, the strings it keeps as keys counted too. The bytes are shared: never written to.

import { randomUUID } from "node:crypto";

/** A string at least this long is escaped through the cache; a shorter one costs too little to keep. */
export const LONG_STRING_CHARS = 64 * 1024;
/**
 * The most the cache keeps alive, all entries together, each counted as its string's characters and its
 * escape's bytes: the cache holds the string too, as its key.
 */
export const CACHE_CHARS = 16 * 1024 * 1024;

const cache = new Map<string, Buffer>();
let cachedChars = 0;
/**
 * The entry used last (the cache's last entry): the string it was last asked for, and its escape. A
 * lookup of a long string in the map compares its whole text with a key of its length (V8 hashes a long
 * string by its length alone) unless the key is that very string; `===` does the same, so a string
 * asked for again at once (its event's escape, then its answer's) is found with no comparison of text.
 * That string may be another copy of the entry's text (a file read again): one more string, of an
 * entry's length at most, is then kept alive beyond CACHE_CHARS until the next lookup.
 */
let newestText: string | null = null;
let newest: Buffer | null = null;

/**
 * The UTF-8 bytes of JSON.stringify(text), from the cache when this string was escaped lately. Shared
 * with the cache and every other caller: read them, never write to them.
 */
export function escapedBytes(text: string): Buffer {
  if (text.length < LONG_STRING_CHARS) return Buffer.from(JSON.stringify(text));
  // Another string of the same text (a file read again) costs one comparison here, as in the map.
  if (newest !== null && text === newestText) {
    newestText = text;
    return newest;
  }
  const cached = cache.get(text);
  if (cached !== undefined) {
    // Most recently used last, so the oldest entry is the first to go (two more lookups).
    cache.delete(text);
    cache.set(text, cached);
    newestText = text;
    newest = cached;
    return cached;
  }
  // JSON.stringify escapes a lone surrogate (\udXXX), so the escape is well-formed and its UTF-8 exact.
  const escaped = Buffer.from(JSON.stringify(text));
  if (text.length + escaped.length > CACHE_CHARS) return escaped;
  cache.set(text, escaped);
  newestText = text;
  newest = escaped;
  cachedChars += text.length + escaped.length;
  for (const [key, value] of cache) {
    if (cachedChars <= CACHE_CHARS) break;
    cache.delete(key);
    cachedChars -= key.length + value.length;
  }
  return escaped;
}

/**
 * A placeholder a replacer puts where a long string was. JSON.stringify escapes its NUL, so the text it
 * leaves is `"\u0000…"`; with a random part per process no value a client sent can spell it.
 */
const PLACEHOLDER = `\u0000iemu-escaped-${randomUUID()}:`;
const PLACEHOLDER_JSON = JSON.stringify(PLACEHOLDER).slice(0, -1);

/**
 * JSON.stringify(value) in pieces, in order: text, and its long strings' escapes as UTF-8 bytes (through
 * escapedBytes()), pieces of their own. A consumer that copies the JSON out anyway (the event store
 * writes it into SQLite) takes it without one more string of its whole length. One piece, the text,
 * when the value holds no long string.
 */
export function jsonPartsReusingEscapes(value: unknown): Array<string | Buffer> {
  const longs: string[] = [];
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item !== "string" || item.length < LONG_STRING_CHARS) return item;
    longs.push(item);
    return `${PLACEHOLDER}${longs.length - 1}`;
  });
  if (longs.length === 0) return [text];
  const parts: Array<string | Buffer> = [];
  let from = 0;
  for (const [index, long] of longs.entries()) {
    const marker = `${PLACEHOLDER_JSON}${index}"`;
    const at = text.indexOf(marker, from);
    // Never expected (a replacer's value always lands in the text), but a wrong splice must not be stored.
    if (at < 0) return [JSON.stringify(value)];
    parts.push(text.slice(from, at), escapedBytes(long));
    from = at + marker.length;
  }
  parts.push(text.slice(from));
  return parts;
}

/** Forgets every kept escape (tests). */
export function clearEscapes(): void {
  cache.clear();
  newestText = null;
  newest = null;
  cachedChars = 0;
}
