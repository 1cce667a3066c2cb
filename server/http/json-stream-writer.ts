// JSON written to a response piece by piece, in bounded memory, however large the value: what
// JSON.stringify would give (same text, same key order), but never as one string. A stored interaction
// may hold tens of MiB of output; one string of it stalls the event loop while it is built and, past
// V8's string limit (about 512 MiB), cannot be built at all ("Invalid string length"). Here the text
// goes out in chunks of about 32 KiB (a string of up to 4 Mi characters in one piece, escaped once and
// kept as UTF-8: common/escaped-json.ts): after each the writer waits for the socket to drain when its
// buffer is full, and yields to the event loop, so /health and every other reader are served in between.
//
// A LazyArray is an array whose items are produced one at a time (steps read from the store page by
// page), so a value need not even be in memory whole.

import type { ServerResponse } from "node:http";
import type { Writable } from "node:stream";
import { yieldToEventLoop } from "../common/event-loop.js";
import { escapedBytes } from "../common/escaped-json.js";
import { LazyArray } from "../common/lazy-array.js";

export { LazyArray };

/**
 * Where chunks go: text, or UTF-8 bytes (a long string's escape, shared: never written to). Resolves when
 * the next one may be written, rejects when the reader went away.
 */
export interface ChunkSink {
  write(chunk: string | Buffer): Promise<void>;
}

/** The reader went away (or was disconnected) before the value was written whole. */
export class ReaderGoneError extends Error {}

/** Text gathered before it is handed to the sink. */
const CHUNK_CHARS = 32 * 1024;
/** A string longer than this is escaped slice by slice. */
const STRING_SLICE_CHARS = 32 * 1024;
/**
 * A string longer than STRING_SLICE_CHARS but at most this long is escaped in one call, through the
 * cache that reuses the escape its event was stored with (a tool's result of a few MiB: one escape of
 * about a millisecond per MiB, instead of a second one slice by slice).
 */
const ONE_ESCAPE_CHARS = 4 * 1024 * 1024;
/** A container whose JSON is at most about this long is stringified in one call (the fast path). */
const SMALL_JSON_CHARS = 16 * 1024;

export async function writeJson(sink: ChunkSink, value: unknown): Promise<void> {
  const writer = new ChunkedWriter(sink);
  await writer.json(value);
  await writer.flush();
}

/** Text and JSON values gathered into chunks of about CHUNK_CHARS for one sink. */
export class ChunkedWriter {
  private parts: string[] = [];
  private size = 0;

  constructor(private readonly sink: ChunkSink) {}

  /** Text as it is (SSE framing around a JSON value). */
  text(text: string): Promise<void> {
    return this.push(text);
  }

  json(value: unknown): Promise<void> {
    return this.value(value, "");
  }

  /** Undefined, functions and symbols become null in an array, as in JSON.stringify; object() skips them. */
  private async value(raw: unknown, key: string): Promise<void> {
    const value = withToJson(raw, key);
    if (value instanceof LazyArray) return this.lazyArray(value);
    if (value === null || typeof value !== "object") return this.primitive(value);
    const small = smallJson(value);
    if (small !== null) return this.push(small);
    if (Array.isArray(value)) return this.array(value);
    return this.object(value as Record<string, unknown>);
  }

  /** Hands what was gathered to the sink (and waits for it to take more). */
  async flush(): Promise<void> {
    if (this.size === 0) return;
    const chunk = this.parts.join("");
    this.parts = [];
    this.size = 0;
    await this.sink.write(chunk);
  }

  private async push(text: string | Buffer): Promise<void> {
    if (text.length >= CHUNK_CHARS || typeof text !== "string") {
      // A long piece goes out as it is, after what was gathered: joined with it, it would be copied.
      await this.flush();
      await this.sink.write(text);
      return;
    }
    this.parts.push(text);
    this.size += text.length;
    if (this.size >= CHUNK_CHARS) await this.flush();
  }

  private async primitive(value: unknown): Promise<void> {
    if (typeof value === "string" && value.length > STRING_SLICE_CHARS) return this.longString(value);
    // undefined, a function or a symbol: only an array item (or the whole value) gets here with one.
    const text = JSON.stringify(value) as string | undefined;
    return this.push(text ?? "null");
  }

  private async longString(value: string): Promise<void> {
    if (value.length <= ONE_ESCAPE_CHARS) return this.push(escapedBytes(value));
    await this.push('"');
    for (let start = 0; start < value.length; ) {
      let end = Math.min(start + STRING_SLICE_CHARS, value.length);
      // Never between the two halves of a surrogate pair: each half alone would be escaped as \udXXX.
      if (end < value.length && isHighSurrogate(value.charCodeAt(end - 1))) end += 1;
      await this.push(JSON.stringify(value.slice(start, end)).slice(1, -1));
      start = end;
    }
    await this.push('"');
  }

  private async array(items: readonly unknown[]): Promise<void> {
    await this.push("[");
    for (let index = 0; index < items.length; index++) {
      if (index > 0) await this.push(",");
      await this.value(items[index], String(index));
    }
    await this.push("]");
  }

  private async lazyArray(lazy: LazyArray): Promise<void> {
    await this.push("[");
    let index = 0;
    for await (const item of lazy.items) {
      if (index > 0) await this.push(",");
      await this.value(item, String(index));
      index += 1;
    }
    await this.push("]");
  }

  private async object(object: Record<string, unknown>): Promise<void> {
    await this.push("{");
    let first = true;
    for (const key of Object.keys(object)) {
      const item = withToJson(object[key], key);
      if (!(item instanceof LazyArray) && skippedInObject(item)) continue;
      await this.push(`${first ? "" : ","}${JSON.stringify(key)}:`);
      first = false;
      await this.value(item, key);
    }
    await this.push("}");
  }
}

function withToJson(value: unknown, key: string): unknown {
  if (value instanceof LazyArray) return value;
  if (value !== null && typeof value === "object" && typeof (value as { toJSON?: unknown }).toJSON === "function") {
    return (value as { toJSON(key: string): unknown }).toJSON(key);
  }
  return value;
}

function skippedInObject(value: unknown): boolean {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * The JSON of a container known to be small without building it (its strings and keys counted as they
 * are walked, the walk given up past the bound), or null when it is not small or holds a LazyArray.
 */
function smallJson(value: object): string | null {
  let budget = SMALL_JSON_CHARS;
  const fits = (node: unknown): boolean => {
    budget -= 4;
    if (budget < 0) return false;
    if (node instanceof LazyArray) return false;
    if (typeof node === "string") {
      budget -= node.length;
      return budget >= 0;
    }
    if (node === null || typeof node !== "object") return true;
    if (Array.isArray(node)) return node.every(fits);
    for (const key of Object.keys(node)) {
      budget -= key.length;
      if (!fits((node as Record<string, unknown>)[key])) return false;
    }
    return true;
  };
  return fits(value) ? JSON.stringify(value) : null;
}

/**
 * A response as a ChunkSink: each chunk is written, then the writer waits for 'drain' when the socket's
 * buffer is full (so a reader that does not read holds one chunk, not the whole value) and yields to the
 * event loop. `abort` ends a wait early (a reader disconnected for falling behind).
 */
export function responseSink(res: Writable, abort?: AbortSignal): ChunkSink {
  return {
    async write(chunk: string | Buffer): Promise<void> {
      if (res.destroyed || res.writableEnded || abort?.aborted) throw new ReaderGoneError("the reader went away");
      if (!res.write(chunk)) await drained(res, abort);
      await yieldToEventLoop();
    },
  };
}

/** Resolves on 'drain'; rejects when the response closes or `abort` fires first. */
export function drained(res: Writable, abort?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (error?: Error) => {
      res.off("drain", onDrain);
      res.off("close", onClose);
      abort?.removeEventListener("abort", onAbort);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = () => done();
    const onClose = () => done(new ReaderGoneError("the reader went away"));
    const onAbort = () => done(new ReaderGoneError("the reader was disconnected"));
    res.once("drain", onDrain);
    res.once("close", onClose);
    abort?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Answers `status` with `value` as JSON, written piece by piece. A failure before the first byte goes to
 * the error handler as usual (thrown); after it the answer cannot become an error JSON, so the connection
 * is cut, which every client reads as a failed response rather than as a short one.
 */
export async function sendJson(res: ServerResponse, value: unknown, status = 200): Promise<void> {
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  // A small answer (most are: an interaction without a long result, an environment, a list's page) goes
  // out whole with its length, in one write with its headers: streamed, it was chunked, and its last
  // chunk was a second write one turn of the event loop later (the turn a chunk yields after it).
  const top = withToJson(value, "");
  const small = top instanceof LazyArray || top === null || typeof top !== "object" ? null : smallJson(top);
  if (small !== null) {
    res.setHeader("Content-Length", Buffer.byteLength(small));
    res.end(small);
    return;
  }
  try {
    await writeJson(responseSink(res), value);
    res.end();
  } catch (error) {
    if (error instanceof ReaderGoneError) return;
    if (!res.headersSent) throw error;
    console.error("a JSON answer failed after its first byte:", error);
    res.destroy(error as Error);
  }
}
