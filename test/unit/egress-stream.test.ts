// The server's end of egress streams, driven by hand-made executor frames: flow control, half-close,
// aborts, and what an untrusted executor must not be able to do.

import assert from "node:assert/strict";
import { once } from "node:events";
import type { Duplex } from "node:stream";
import { describe, it } from "node:test";
import { setImmediate as nextTurn } from "node:timers/promises";
import {
  EGRESS_MAX_DATA_FRAME_BYTES,
  EGRESS_MAX_HOOK_STREAMS,
  EGRESS_MAX_STREAMS,
  EGRESS_WINDOW_BYTES,
  type EgressFrame,
} from "../../sandbox-image/executor/protocol.js";
import { EgressStream, EgressStreamError } from "../../server/sandbox/egress-stream.js";
import { EgressStreams } from "../../server/sandbox/egress-streams.js";

interface SentFrame {
  frame: EgressFrame;
  body: Buffer;
}

/** A registry whose outgoing frames are recorded, with a handler that keeps every stream it gets. */
function harness() {
  const sent: SentFrame[] = [];
  const registry = new EgressStreams((frame, body) => sent.push({ frame, body: body ?? Buffer.alloc(0) }));
  const streams: Duplex[] = [];
  registry.setHandler((stream) => {
    stream.on("error", () => undefined);
    streams.push(stream);
  });
  const open = (id: number): EgressStream => {
    registry.receive({ egress: "open", stream: id }, Buffer.alloc(0));
    const stream = streams.at(-1);
    assert.ok(stream instanceof EgressStream && stream.streamId === id, `stream ${id} was not opened`);
    return stream;
  };
  const data = (id: number, bytes: number | Buffer): void =>
    registry.receive({ egress: "data", stream: id }, typeof bytes === "number" ? Buffer.alloc(bytes, 0x61) : bytes);
  const frames = (kind: EgressFrame["egress"]): SentFrame[] => sent.filter((each) => each.frame.egress === kind);
  const bytesSent = (): number => frames("data").reduce((sum, each) => sum + each.body.length, 0);
  const acknowledged = (): number => frames("ack").reduce((sum, each) => sum + (each.frame.egress === "ack" ? each.frame.bytes : 0), 0);
  return { registry, sent, streams, open, data, frames, bytesSent, acknowledged };
}

const failureOf = (stream: Duplex): Promise<Error> =>
  new Promise((resolve, reject) => {
    stream.once("error", resolve);
    stream.once("close", () => reject(new Error("closed without an error")));
  });

describe("EgressStream writing", () => {
  it("sends no more than the window until the executor acknowledges, in frames of at most 64 KiB", async () => {
    const { open, registry, bytesSent, frames } = harness();
    const stream = open(1);
    const payload = Buffer.alloc(EGRESS_WINDOW_BYTES * 3, 0x62);
    assert.equal(stream.write(payload), false);
    await nextTurn();
    assert.equal(bytesSent(), EGRESS_WINDOW_BYTES);
    assert.ok(frames("data").every((each) => each.body.length <= EGRESS_MAX_DATA_FRAME_BYTES));
    assert.equal(stream.unacknowledgedBytesSent, EGRESS_WINDOW_BYTES);

    registry.receive({ egress: "ack", stream: 1, bytes: 100 }, Buffer.alloc(0));
    assert.equal(bytesSent(), EGRESS_WINDOW_BYTES + 100);
    assert.equal(stream.unacknowledgedBytesSent, EGRESS_WINDOW_BYTES);
  });

  it("emits 'drain' only after acknowledgements let the blocked write through", async () => {
    const { open, registry, bytesSent } = harness();
    const stream = open(1);
    let drained = false;
    stream.on("drain", () => (drained = true));
    assert.equal(stream.write(Buffer.alloc(EGRESS_WINDOW_BYTES + 10)), false);
    await nextTurn();
    assert.equal(drained, false);
    registry.receive({ egress: "ack", stream: 1, bytes: 10 }, Buffer.alloc(0));
    await nextTurn();
    assert.equal(drained, true);
    assert.equal(bytesSent(), EGRESS_WINDOW_BYTES + 10);
  });

  it("half-closes with an end frame after all written data", async () => {
    const { open, sent } = harness();
    const stream = open(1);
    stream.end("last bytes");
    await once(stream, "finish");
    assert.deepEqual(
      sent.map(({ frame, body }) => `${frame.egress}:${body.toString()}`),
      ["data:last bytes", "end:"],
    );
    assert.equal(stream.readable, true, "the reading side must stay open after our end");
  });
});

describe("EgressStream reading", () => {
  it("delivers data and ends the readable side on the executor's end", async () => {
    const { open, registry, data } = harness();
    const stream = open(1);
    data(1, Buffer.from("hello "));
    data(1, Buffer.from("world"));
    registry.receive({ egress: "end", stream: 1 }, Buffer.alloc(0));
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    await once(stream, "end");
    assert.equal(Buffer.concat(chunks).toString(), "hello world");
    assert.equal(stream.writable, true, "the writing side must stay open after their end");
  });

  it("acknowledges nothing while nobody reads, and everything once it is read", async () => {
    const { open, data, acknowledged } = harness();
    const stream = open(1);
    for (let sent = 0; sent < EGRESS_WINDOW_BYTES; sent += EGRESS_MAX_DATA_FRAME_BYTES) data(1, EGRESS_MAX_DATA_FRAME_BYTES);
    await nextTurn();
    assert.equal(acknowledged(), 0);
    assert.equal(stream.unacknowledgedBytesReceived, EGRESS_WINDOW_BYTES);
    let read = 0;
    stream.on("data", (chunk: Buffer) => (read += chunk.length));
    await nextTurn();
    assert.equal(read, EGRESS_WINDOW_BYTES);
    assert.equal(acknowledged(), EGRESS_WINDOW_BYTES);
    assert.equal(stream.unacknowledgedBytesReceived, 0);
  });

  it("hands a paused reader no more than its buffer, so acknowledgements stop", async () => {
    const { open, data, acknowledged } = harness();
    const stream = open(1);
    stream.on("data", () => stream.pause());
    for (let sent = 0; sent < EGRESS_WINDOW_BYTES; sent += EGRESS_MAX_DATA_FRAME_BYTES) data(1, EGRESS_MAX_DATA_FRAME_BYTES);
    await nextTurn();
    assert.ok(acknowledged() <= stream.readableHighWaterMark + EGRESS_MAX_DATA_FRAME_BYTES, `${acknowledged()} acknowledged`);
  });
});

describe("EgressStream closing", () => {
  it("sends close when destroyed before both ends, and the executor resets the program's socket", async () => {
    const { open, frames, registry } = harness();
    const stream = open(1);
    stream.destroy();
    await once(stream, "close");
    assert.deepEqual(
      frames("close").map((each) => each.frame),
      [{ egress: "close", stream: 1 }],
    );
    assert.equal(registry.size, 0);
  });

  it("passes the destroying error's code along in the close frame", async () => {
    const { open, frames } = harness();
    const stream = open(1);
    stream.destroy(Object.assign(new Error("upstream refused"), { code: "ECONNREFUSED" }));
    await new Promise((resolve) => stream.once("close", resolve));
    assert.deepEqual(frames("close")[0]?.frame, {
      egress: "close",
      stream: 1,
      error: { code: "ECONNREFUSED", message: "upstream refused" },
    });
  });

  it("sends no close once both ends were exchanged (the program may still be reading)", async () => {
    const { open, frames, registry } = harness();
    const stream = open(1);
    registry.receive({ egress: "end", stream: 1 }, Buffer.alloc(0));
    stream.resume();
    stream.end();
    await once(stream, "close");
    assert.equal(frames("close").length, 0);
    assert.equal(registry.size, 0);
  });

  it("fails with the executor's error code when the executor closes the stream", async () => {
    const { open, registry, frames } = harness();
    const stream = open(1);
    const failed = failureOf(stream);
    registry.receive({ egress: "close", stream: 1, error: { code: "EPIPE", message: "broken pipe" } }, Buffer.alloc(0));
    const error = await failed;
    assert.ok(error instanceof EgressStreamError);
    assert.equal(error.code, "EPIPE");
    assert.equal(frames("close").length, 0, "a close is never answered");
  });

  it("fails with ECONNRESET when the executor closes before both ends without saying why", async () => {
    const { open, registry } = harness();
    const stream = open(1);
    const failed = failureOf(stream);
    registry.receive({ egress: "close", stream: 1 }, Buffer.alloc(0));
    assert.equal(((await failed) as EgressStreamError).code, "ECONNRESET");
  });
});

describe("EgressStream against a misbehaving executor", () => {
  it("closes a stream whose executor side overruns the window", async () => {
    const { open, data, frames } = harness();
    const stream = open(1);
    const failed = failureOf(stream);
    data(1, EGRESS_WINDOW_BYTES);
    data(1, 1);
    const error = (await failed) as EgressStreamError;
    assert.equal(error.code, "EPROTO");
    assert.match(error.message, /window/);
    const close = frames("close")[0]?.frame;
    assert.ok(close?.egress === "close" && close.error?.code === "EPROTO");
  });

  it("closes a stream that acknowledges bytes never sent", async () => {
    const { open, registry } = harness();
    const stream = open(1);
    const failed = failureOf(stream);
    stream.write("abc");
    registry.receive({ egress: "ack", stream: 1, bytes: 4 }, Buffer.alloc(0));
    assert.equal(((await failed) as EgressStreamError).code, "EPROTO");
  });

  it("closes a stream that sends data after its end", async () => {
    const { open, registry, data } = harness();
    const stream = open(1);
    const failed = failureOf(stream);
    registry.receive({ egress: "end", stream: 1 }, Buffer.alloc(0));
    data(1, 5);
    assert.equal(((await failed) as EgressStreamError).code, "EPROTO");
  });

  it("keeps error codes it is given to errno-like names and trims long messages", async () => {
    const { open, registry } = harness();
    const stream = open(1);
    const failed = failureOf(stream);
    registry.receive({ egress: "close", stream: 1, error: { code: "<script>", message: "x".repeat(10_000) } }, Buffer.alloc(0));
    const error = (await failed) as EgressStreamError;
    assert.equal(error.code, "ECONNRESET");
    assert.ok(error.message.length < 300);
  });
});

describe("EgressStreams registry", () => {
  it("refuses connections while no handler is set", () => {
    const sent: EgressFrame[] = [];
    const registry = new EgressStreams((frame) => sent.push(frame));
    registry.receive({ egress: "open", stream: 1 }, Buffer.alloc(0));
    assert.deepEqual(sent, [{ egress: "close", stream: 1, error: { code: "ECONNREFUSED", message: "no egress handler on the server" } }]);
    assert.equal(registry.size, 0);
  });

  it("ignores frames for streams it does not know", () => {
    const { registry, sent, data } = harness();
    data(42, 10);
    registry.receive({ egress: "ack", stream: 42, bytes: 1 }, Buffer.alloc(0));
    registry.receive({ egress: "close", stream: 42 }, Buffer.alloc(0));
    assert.deepEqual(sent, []);
  });

  it("ignores an open whose id is not above every earlier one", () => {
    const { open, registry, streams } = harness();
    open(5);
    registry.receive({ egress: "open", stream: 5 }, Buffer.alloc(0));
    registry.receive({ egress: "open", stream: 3 }, Buffer.alloc(0));
    assert.equal(streams.length, 1);
    assert.equal(registry.size, 1);
  });

  it(`refuses streams beyond ${EGRESS_MAX_STREAMS} at once, and takes new ones when slots free up`, async () => {
    const { registry, frames, streams } = harness();
    for (let id = 1; id <= EGRESS_MAX_STREAMS + 2; id++) registry.receive({ egress: "open", stream: id }, Buffer.alloc(0));
    assert.equal(registry.size, EGRESS_MAX_STREAMS);
    assert.deepEqual(
      frames("close").map((each) => each.frame.stream),
      [EGRESS_MAX_STREAMS + 1, EGRESS_MAX_STREAMS + 2],
    );
    streams[0]!.destroy();
    await once(streams[0]!, "close");
    registry.receive({ egress: "open", stream: 1000 }, Buffer.alloc(0));
    assert.equal(registry.size, EGRESS_MAX_STREAMS);
    assert.equal((streams.at(-1) as EgressStream).streamId, 1000);
  });

  it(`counts the hooks user's streams apart: ${EGRESS_MAX_STREAMS} of the sandbox's leave room for ${EGRESS_MAX_HOOK_STREAMS} of the hooks'`, async () => {
    const { registry, frames, streams } = harness();
    const hooks = { identity: "hooks" } as const;
    for (let id = 1; id <= EGRESS_MAX_STREAMS + 1; id++) registry.receive({ egress: "open", stream: id }, Buffer.alloc(0));
    let id = EGRESS_MAX_STREAMS + 1;
    for (let count = 0; count < EGRESS_MAX_HOOK_STREAMS + 1; count++)
      registry.receive({ egress: "open", stream: ++id, ...hooks }, Buffer.alloc(0));
    assert.equal(registry.size, EGRESS_MAX_STREAMS + EGRESS_MAX_HOOK_STREAMS);
    assert.deepEqual(
      frames("close").map((each) => [each.frame.stream, (each.frame as { error?: { message: string } }).error?.message]),
      [
        [EGRESS_MAX_STREAMS + 1, `more than ${EGRESS_MAX_STREAMS} concurrent egress streams`],
        [id, `more than ${EGRESS_MAX_HOOK_STREAMS} concurrent egress streams of the hooks user`],
      ],
    );
    // A hooks stream that ends frees a hooks slot, not one of the sandbox's.
    const hookStream = streams.at(-1) as EgressStream;
    hookStream.destroy();
    await once(hookStream, "close");
    const closedBefore = frames("close").length;
    registry.receive({ egress: "open", stream: ++id }, Buffer.alloc(0));
    registry.receive({ egress: "open", stream: ++id, ...hooks }, Buffer.alloc(0));
    assert.equal(registry.size, EGRESS_MAX_STREAMS + EGRESS_MAX_HOOK_STREAMS);
    assert.deepEqual(
      frames("close")
        .slice(closedBefore)
        .map((each) => each.frame.stream),
      [id - 1],
    );
    assert.equal((streams.at(-1) as EgressStream).streamId, id);
  });

  it("resets a stream whose handler throws", () => {
    const sent: EgressFrame[] = [];
    const registry = new EgressStreams((frame) => sent.push(frame));
    registry.setHandler(() => {
      throw new Error("handler bug");
    });
    registry.receive({ egress: "open", stream: 1 }, Buffer.alloc(0));
    assert.deepEqual(sent, [{ egress: "close", stream: 1 }]);
    assert.equal(registry.size, 0);
  });

  it("fails every open stream with the channel's error when it closes, and sends nothing", async () => {
    const { registry, open, sent } = harness();
    const first = open(1);
    const second = open(2);
    const failures = [failureOf(first), failureOf(second)];
    const channelGone = new Error("channel closed");
    registry.destroyAll(channelGone);
    assert.deepEqual(await Promise.all(failures), [channelGone, channelGone]);
    registry.receive({ egress: "open", stream: 3 }, Buffer.alloc(0));
    assert.equal(registry.size, 0);
    assert.deepEqual(sent, []);
  });
});
