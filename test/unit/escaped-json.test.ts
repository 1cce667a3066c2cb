// One escape of a long string for all its consumers (server/common/escaped-json.ts): the pieces are
// exactly JSON.stringify's text as UTF-8, whatever the value (also one that spells the placeholder's
// visible part), a long string escaped once is not escaped again by the next consumer, and the cache
// stays within its bound.

import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import fc from "fast-check";
import { CACHE_CHARS, clearEscapes, escapedBytes, jsonPartsReusingEscapes, LONG_STRING_CHARS } from "../../server/common/escaped-json.js";
import { runs } from "../support/property-runs.js";

/** Runs `work` counting the calls of JSON.stringify given a string of at least LONG_STRING_CHARS. */
function longEscapesDuring(work: () => void): number {
  const original = JSON.stringify;
  let count = 0;
  JSON.stringify = ((value: unknown, ...rest: unknown[]) => {
    if (typeof value === "string" && value.length >= LONG_STRING_CHARS) count += 1;
    return (original as (...args: unknown[]) => string)(value, ...rest);
  }) as typeof JSON.stringify;
  try {
    work();
  } finally {
    JSON.stringify = original;
  }
  return count;
}

/** The pieces of jsonPartsReusingEscapes(value) joined, as the UTF-8 a consumer copies out. */
function jsonBytes(value: unknown): Buffer {
  return Buffer.concat(jsonPartsReusingEscapes(value).map((part) => (typeof part === "string" ? Buffer.from(part) : part)));
}

const longText = fc
  .tuple(fc.string({ unit: "binary", maxLength: 40 }), fc.integer({ min: LONG_STRING_CHARS, max: LONG_STRING_CHARS + 500 }))
  .map(([piece, length]) => (piece === "" ? "x" : piece).repeat(Math.ceil(length / Math.max(1, piece.length))).slice(0, length));

describe("escaping a long string once", () => {
  afterEach(() => clearEscapes());

  it("gives JSON.stringify's text for any value, long strings (lone surrogates too) anywhere in it", () => {
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { maxDepth: 3 },
        fc.jsonValue({ maxDepth: 1 }),
        longText,
        fc.array(tie("node"), { maxLength: 4 }),
        fc.dictionary(fc.string(), tie("node"), { maxKeys: 4 }),
      ),
    })).node;
    fc.assert(
      fc.property(value, (item) => assert.deepEqual(jsonBytes(item), Buffer.from(JSON.stringify(item)))),
      runs(100),
    );
  });

  it("is not fooled by a value that spells the placeholder's visible part", () => {
    const long = "y".repeat(LONG_STRING_CHARS);
    const value = { a: "\u0000iemu-escaped-", b: long, c: ["\u0000iemu-escaped-0", "\\u0000iemu-escaped-"], d: long };
    assert.deepEqual(jsonBytes(value), Buffer.from(JSON.stringify(value)));
  });

  it("escapes a long result once for the stored event and the answer written after it", () => {
    const result = 'a\n"b"'.repeat(LONG_STRING_CHARS);
    const event = { event_type: "step.delta", index: 1, delta: { type: "function_result", result } };
    const escapes = longEscapesDuring(() => {
      jsonBytes(event);
      escapedBytes(result);
      escapedBytes(result);
    });
    assert.equal(escapes, 1);
    // A short string is not kept: it costs less to escape than to look up.
    assert.equal(
      longEscapesDuring(() => escapedBytes("short")),
      0,
    );
  });

  it("finds the escape of a copy of a text (a file read again), whether it was used last or earlier", () => {
    // Built at run time, each its own string object: equal texts, not the same strings.
    const copy = (letter: string) => [letter.repeat(LONG_STRING_CHARS), "\n"].join("");
    const [a, b] = [copy("a"), copy("b")];
    assert.equal(
      longEscapesDuring(() => {
        escapedBytes(a);
        escapedBytes(b);
      }),
      2,
    );
    for (const text of [copy("b"), copy("a"), copy("a"), copy("b")]) {
      const escapes: Buffer[] = [];
      assert.equal(
        longEscapesDuring(() => escapes.push(escapedBytes(text))),
        0,
      );
      assert.equal(escapes[0]?.toString(), JSON.stringify(text));
    }
  });

  it("keeps at most CACHE_CHARS of strings and escapes together, dropping the least recently used first", () => {
    // Each entry holds its string and its escape: about CACHE_CHARS / 4 together, so four fit.
    const size = Math.floor(CACHE_CHARS / 8);
    const strings = ["a", "b", "c", "d", "e"].map((letter) => letter.repeat(size - 2));
    for (const text of strings.slice(0, 4)) escapedBytes(text);
    // Used again, so "b" (not "a") is the oldest when "e" comes in.
    escapedBytes(strings[0] as string);
    escapedBytes(strings[4] as string);
    const again = (text: string) => longEscapesDuring(() => escapedBytes(text));
    assert.equal(again(strings[0] as string), 0);
    assert.equal(again(strings[4] as string), 0);
    assert.equal(again(strings[1] as string), 1, "the least recently used entry was kept past the bound");
    // A string whose escape alone is larger than the cache is escaped every time and never kept.
    const huge = "z".repeat(CACHE_CHARS / 2);
    assert.equal(again(huge), 1);
    assert.equal(again(huge), 1);
  });
});
