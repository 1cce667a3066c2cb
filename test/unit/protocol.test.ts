import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  encodeFrame,
  FrameDecoder,
  isEgressFrameHeader,
  MAX_FRAME_PART_BYTES,
  parseEgressFrame,
  type Frame,
} from "../../sandbox-image/executor/protocol.js";

interface TestHeader {
  type: string;
  id: number;
  note?: string;
}

const sampleFrames: Array<{ header: TestHeader; body: Buffer }> = [
  { header: { type: "stdout", id: 1 }, body: Buffer.from("hello\n") },
  { header: { type: "result", id: 2, note: "empty body, unicode ✓" }, body: Buffer.alloc(0) },
  { header: { type: "stderr", id: 3 }, body: Buffer.from(Array.from({ length: 300 }, (_, i) => i % 256)) },
];

function encodeAll(): Buffer {
  return Buffer.concat(sampleFrames.map((frame) => encodeFrame(frame.header, frame.body)));
}

function assertSameFrames(actual: Frame<TestHeader>[]): void {
  assert.equal(actual.length, sampleFrames.length);
  actual.forEach((frame, index) => {
    assert.deepEqual(frame.header, sampleFrames[index]!.header);
    assert.ok(frame.body.equals(sampleFrames[index]!.body), `body of frame ${index}`);
  });
}

function prefix(headerLength: number, bodyLength: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeUInt32BE(headerLength, 0);
  bytes.writeUInt32BE(bodyLength, 4);
  return bytes;
}

describe("FrameDecoder", () => {
  it("decodes several frames delivered in one chunk", () => {
    assertSameFrames(new FrameDecoder<TestHeader>().push(encodeAll()));
  });

  it("decodes frames split into two chunks at every byte boundary", () => {
    const stream = encodeAll();
    for (let split = 0; split <= stream.length; split++) {
      const decoder = new FrameDecoder<TestHeader>();
      const frames = [...decoder.push(stream.subarray(0, split)), ...decoder.push(stream.subarray(split))];
      assertSameFrames(frames);
    }
  });

  it("decodes frames delivered one byte at a time", () => {
    const stream = encodeAll();
    const decoder = new FrameDecoder<TestHeader>();
    const frames: Frame<TestHeader>[] = [];
    for (let offset = 0; offset < stream.length; offset++) frames.push(...decoder.push(stream.subarray(offset, offset + 1)));
    assertSameFrames(frames);
  });

  it("decodes frames split into three chunks at every pair of boundaries", () => {
    const stream = encodeFrame(sampleFrames[0]!.header, sampleFrames[0]!.body);
    const single = [sampleFrames[0]!];
    for (let first = 0; first <= stream.length; first++) {
      for (let second = first; second <= stream.length; second++) {
        const decoder = new FrameDecoder<TestHeader>();
        const frames = [
          ...decoder.push(stream.subarray(0, first)),
          ...decoder.push(stream.subarray(first, second)),
          ...decoder.push(stream.subarray(second)),
        ];
        assert.equal(frames.length, 1);
        assert.deepEqual(frames[0]!.header, single[0]!.header);
        assert.ok(frames[0]!.body.equals(single[0]!.body));
      }
    }
  });

  it("keeps an incomplete frame until the rest arrives", () => {
    const decoder = new FrameDecoder<TestHeader>();
    const frame = encodeFrame({ type: "stdout", id: 9 }, Buffer.from("abc"));
    assert.deepEqual(decoder.push(frame.subarray(0, frame.length - 1)), []);
    const [decoded] = decoder.push(frame.subarray(frame.length - 1));
    assert.equal(decoded?.body.toString(), "abc");
  });

  it("throws on a header length beyond the limit", () => {
    assert.throws(() => new FrameDecoder().push(prefix(MAX_FRAME_PART_BYTES + 1, 0)), /corrupt frame/);
  });

  it("throws on a body length beyond the limit, even before the body arrives", () => {
    assert.throws(() => new FrameDecoder().push(prefix(2, MAX_FRAME_PART_BYTES + 1)), /corrupt frame/);
  });

  it("throws on a header that is not JSON", () => {
    const garbage = Buffer.from("not json");
    assert.throws(() => new FrameDecoder().push(Buffer.concat([prefix(garbage.length, 0), garbage])));
  });

  it("round-trips a body at the size limit's order of magnitude", () => {
    const body = Buffer.alloc(4 * 1024 * 1024, 0xab);
    const [frame] = new FrameDecoder<TestHeader>().push(encodeFrame({ type: "stdout", id: 1 }, body));
    assert.ok(frame?.body.equals(body));
  });
});

describe("FrameDecoder with large bodies", () => {
  /** Frames with bodies from empty to past a socket read's 64 KiB, each byte telling its frame and place. */
  const frames = [0, 1, 7, 65_535, 65_536, 200_001, 1_048_576, 3].map((size, index) => ({
    header: { type: "stdout", id: index + 1, note: "é".repeat(index) },
    body: Buffer.from(Array.from({ length: size }, (_, at) => (at * 31 + index) % 251)),
  }));
  const stream = Buffer.concat(frames.map((frame) => encodeFrame(frame.header, frame.body)));

  function decodeIn(chunkSizes: () => number): Frame<TestHeader>[] {
    const decoder = new FrameDecoder<TestHeader>();
    const decoded: Frame<TestHeader>[] = [];
    for (let offset = 0; offset < stream.length; ) {
      const size = Math.max(1, chunkSizes());
      // A copy per chunk, as a socket delivers them: nothing may depend on the chunks being one buffer.
      decoded.push(...decoder.push(Buffer.from(stream.subarray(offset, offset + size))));
      offset += size;
    }
    return decoded;
  }

  function assertFrames(decoded: Frame<TestHeader>[], how: string): void {
    assert.equal(decoded.length, frames.length, how);
    decoded.forEach((frame, index) => {
      assert.deepEqual(frame.header, frames[index]!.header, `${how}: header ${index}`);
      assert.ok(frame.body.equals(frames[index]!.body), `${how}: body ${index}`);
    });
  }

  it("gives the same frames fed in one chunk, byte by byte, in socket-sized and in random chunks", () => {
    assertFrames(
      decodeIn(() => stream.length),
      "one chunk",
    );
    assertFrames(
      decodeIn(() => 1),
      "byte by byte",
    );
    assertFrames(
      decodeIn(() => 65_536),
      "64 KiB chunks",
    );
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % 3 === 0 ? seed % 13 : seed % 300_000;
    };
    for (let round = 0; round < 5; round++) assertFrames(decodeIn(random), `random chunks, round ${round}`);
  });

  it("keeps no frame's bytes in a buffer another frame's body shares, once the body came in pieces", () => {
    const decoded = decodeIn(() => 65_536);
    const large = decoded.find((frame) => frame.body.length === 1_048_576)!;
    // Assembled in a buffer of its own, exactly its size: nothing else is kept alive with it.
    assert.equal(large.body.buffer.byteLength, 1_048_576);
  });

  it("with transientChunks, gives the same frames from chunks overwritten after each push (a reused read buffer)", () => {
    for (const size of [1, 7, 4096, 65_536, 200_000]) {
      const reused = Buffer.alloc(size);
      const decoder = new FrameDecoder<TestHeader>({ transientChunks: true });
      const decoded: Frame<TestHeader>[] = [];
      for (let offset = 0; offset < stream.length; offset += size) {
        const length = stream.copy(reused, 0, offset, offset + size);
        decoded.push(...decoder.push(reused.subarray(0, length)));
        reused.fill(0xee);
      }
      assertFrames(decoded, `a reused buffer of ${size} bytes`);
    }
  });

  it("throws on an impossible body length announced in a header that came in pieces", () => {
    const decoder = new FrameDecoder();
    const bad = Buffer.concat([prefix(2, MAX_FRAME_PART_BYTES + 1), Buffer.from("{}")]);
    for (let offset = 0; offset < 5; offset++) decoder.push(bad.subarray(offset, offset + 1));
    assert.throws(() => decoder.push(bad.subarray(5, 8)), /corrupt frame/);
  });
});

describe("parseEgressFrame", () => {
  it("accepts every well-formed kind", () => {
    const frames = [
      { egress: "open", stream: 1 },
      { egress: "data", stream: 2 },
      { egress: "ack", stream: 3, bytes: 65536 },
      { egress: "end", stream: 4 },
      { egress: "close", stream: 5 },
      { egress: "close", stream: 6, error: { code: "ECONNRESET", message: "reset" } },
    ];
    for (const frame of frames) assert.deepEqual(parseEgressFrame(frame), frame);
  });

  it("keeps only the fields of the protocol", () => {
    assert.deepEqual(parseEgressFrame({ egress: "end", stream: 1, id: 9, extra: "x" }), { egress: "end", stream: 1 });
  });

  it("rejects stream ids that are not positive integers", () => {
    for (const stream of [0, -1, 1.5, "1", null, undefined, Number.MAX_SAFE_INTEGER + 2]) {
      assert.equal(parseEgressFrame({ egress: "data", stream }), null, `stream ${String(stream)}`);
    }
  });

  it("rejects unknown kinds, empty acknowledgements and malformed close errors", () => {
    assert.equal(parseEgressFrame({ egress: "teleport", stream: 1 }), null);
    assert.equal(parseEgressFrame({ egress: "ack", stream: 1 }), null);
    assert.equal(parseEgressFrame({ egress: "ack", stream: 1, bytes: 0 }), null);
    assert.equal(parseEgressFrame({ egress: "ack", stream: 1, bytes: -5 }), null);
    assert.equal(parseEgressFrame({ egress: "close", stream: 1, error: "boom" }), null);
    assert.equal(parseEgressFrame({ egress: "close", stream: 1, error: { code: 1, message: "x" } }), null);
    assert.equal(parseEgressFrame({ egress: "close", stream: 1, error: null }), null);
  });

  it("tells egress frames apart from requests and responses", () => {
    assert.equal(isEgressFrameHeader({ egress: "data", stream: 1 }), true);
    assert.equal(isEgressFrameHeader({ op: "ping", id: 1 }), false);
    assert.equal(isEgressFrameHeader({ type: "stdout", id: 1 }), false);
    assert.equal(isEgressFrameHeader(["egress"]), false);
    assert.equal(isEgressFrameHeader(null), false);
  });
});
