// The streaming JSON writer (server/http/json-stream-writer.ts): the text is exactly JSON.stringify's,
// whatever the value (__proto__ keys, lone surrogates, toJSON, undefined), lazily produced arrays are
// read only as far as the writer got, and a socket that never drains holds the writer at one chunk
// instead of receiving the whole value. sendJson answers a small value whole, with its length.

import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import { Writable } from "node:stream";
import fc from "fast-check";
import { LazyArray, ReaderGoneError, responseSink, sendJson, writeJson } from "../../server/http/json-stream-writer.js";
import { jsonText } from "../support/read-feed.js";
import { runs } from "../support/property-runs.js";

const MiB = 1024 * 1024;

/** A socket whose reader never reads: its buffer fills once and never drains. */
function neverDraining(highWaterMark = 16 * 1024): Writable & { received: number } {
  const sink = new Writable({
    highWaterMark,
    decodeStrings: false,
    write(chunk: string, _encoding, _callback) {
      (sink as Writable & { received: number }).received += chunk.length;
      // The callback is never called: the first chunk stays in flight and the rest stay buffered.
    },
  }) as Writable & { received: number };
  sink.received = 0;
  return sink;
}

async function* slowly<T>(items: T[], pulled: { count: number }): AsyncGenerator<T> {
  for (const item of items) {
    pulled.count += 1;
    yield item;
  }
}

describe("the streaming JSON writer", () => {
  it("writes what JSON.stringify writes, for any JSON value", async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        assert.equal(await jsonText(value), JSON.stringify(value));
      }),
      runs(200),
    );
  });

  it("keeps JSON.stringify's rules for keys like __proto__, toJSON, undefined and lone surrogates", async () => {
    const proto = JSON.parse('{"__proto__": {"polluted": 1}, "constructor": 0}') as unknown;
    const value = {
      proto,
      when: new Date(0),
      skipped: undefined,
      fn: () => 1,
      list: [undefined, () => 1, Number.NaN, -0, 1e21],
      lone: "\ud800 and \udfff",
      // Long enough to be written in one escape (at most 4 Mi characters)…
      long: "😀".repeat(300_000),
      // …and slice by slice past that, with a surrogate pair across each slice boundary.
      longer: "😀".repeat(2_200_000),
      nested: { deep: [{ a: "x".repeat(20_000) }] },
    };
    assert.equal(await jsonText(value), JSON.stringify(value));
  });

  it("renders a LazyArray as an array of what its items become", async () => {
    const pulled = { count: 0 };
    const text = await jsonText({ id: "int_1", steps: new LazyArray(slowly([{ a: 1 }, "two", [3]], pulled)), after: true });
    assert.equal(text, '{"id":"int_1","steps":[{"a":1},"two",[3]],"after":true}');
    assert.equal(pulled.count, 3);
  });

  it("refuses to be JSON.stringified, rather than silently becoming {}", () => {
    assert.throws(() => JSON.stringify({ steps: new LazyArray([]) }), /streaming JSON writer/);
  });

  it("holds at one chunk against a socket that never drains, reading no further than it wrote", async () => {
    const socket = neverDraining();
    const pulled = { count: 0 };
    // 64 items of 1 MiB: 64 MiB in all, read lazily.
    const items = Array.from({ length: 64 }, (_, index) => ({ index, result: "x".repeat(MiB) }));
    const writing = writeJson(responseSink(socket), { steps: new LazyArray(slowly(items, pulled)) });
    let settled = false;
    void writing.then(
      () => (settled = true),
      () => (settled = true),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(settled, false, "the writer finished against a socket that never drained");
    // One chunk in flight and what fit in the buffer: far from the 64 MiB of the value.
    assert.ok(socket.writableLength + socket.received < 2 * MiB, `${socket.writableLength + socket.received} chars handed to the socket`);
    assert.ok(pulled.count <= 2, `${pulled.count} items were read while the writer waited`);
    socket.destroy();
    await assert.rejects(writing, ReaderGoneError);
  });

  it("stops with ReaderGoneError when its abort signal fires while it waits", async () => {
    const socket = neverDraining();
    const stop = new AbortController();
    const writing = writeJson(responseSink(socket, stop.signal), { big: "y".repeat(4 * MiB) });
    await new Promise((resolve) => setTimeout(resolve, 50));
    stop.abort();
    await assert.rejects(writing, ReaderGoneError);
    socket.destroy();
  });
});

/** What a client receives when sendJson answers with `value`: the framing headers and the body. */
async function sent(value: unknown): Promise<{ length?: string; encoding?: string; body: string }> {
  const server = http.createServer((_req, res) => void sendJson(res, value));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const response = await fetch(`http://127.0.0.1:${port}/`);
    const length = response.headers.get("content-length") ?? undefined;
    const encoding = response.headers.get("transfer-encoding") ?? undefined;
    return { ...(length ? { length } : {}), ...(encoding ? { encoding } : {}), body: await response.text() };
  } finally {
    server.close();
  }
}

describe("sendJson", () => {
  it("answers a small value whole, with its length in bytes; a large one or a LazyArray in chunks", async () => {
    const small = { id: "int_1", text: "é€😀", at: new Date(0), skipped: undefined };
    assert.deepEqual(await sent(small), {
      length: String(Buffer.byteLength(JSON.stringify(small))),
      body: JSON.stringify(small),
    });
    // A value whose toJSON makes it small is judged by what it becomes.
    const described = { toJSON: () => ({ shown: true }), hidden: "z".repeat(64 * 1024) };
    assert.deepEqual(await sent(described), { length: "14", body: '{"shown":true}' });
    const large = { text: "x".repeat(64 * 1024) };
    assert.deepEqual(await sent(large), { encoding: "chunked", body: JSON.stringify(large) });
    const pulled = { count: 0 };
    assert.deepEqual(await sent({ items: new LazyArray(slowly([1, 2], pulled)) }), { encoding: "chunked", body: '{"items":[1,2]}' });
  });
});
