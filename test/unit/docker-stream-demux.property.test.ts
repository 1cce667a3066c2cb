// The exec stream's demultiplexer against dockerode's own: whatever the frames (stdout, stderr, the odd
// stdin or empty one) and however the bytes are cut into chunks, both hand stdout and stderr the same
// bytes; and a stream that turns out not to be multiplexed goes to stdout as it is, as with dockerode.

import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { describe, it } from "node:test";
import Docker from "dockerode";
import fc from "fast-check";
import { demuxDockerStream } from "../../server/sandbox/docker/stream-demux.js";
import { runs } from "../support/property-runs.js";

function frame(stream: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header[0] = stream;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

/** Feeds `bytes` in chunks cut at `cuts` through a demultiplexer; what stdout and stderr received. */
function demux(
  split: (source: PassThrough, stdout: PassThrough, stderr: PassThrough) => void,
  bytes: Buffer,
  cuts: number[],
): { stdout: Buffer; stderr: Buffer } {
  const source = new PassThrough();
  const outputs = { stdout: new PassThrough(), stderr: new PassThrough() };
  const received = { stdout: [] as Buffer[], stderr: [] as Buffer[] };
  outputs.stdout.on("data", (chunk: Buffer) => received.stdout.push(Buffer.from(chunk)));
  outputs.stderr.on("data", (chunk: Buffer) => received.stderr.push(Buffer.from(chunk)));
  split(source, outputs.stdout, outputs.stderr);
  let at = 0;
  for (const cut of [...cuts.filter((c) => c > 0 && c < bytes.length)].sort((a, b) => a - b)) {
    source.emit("data", bytes.subarray(at, cut));
    at = cut;
  }
  source.emit("data", bytes.subarray(at));
  return { stdout: Buffer.concat(received.stdout), stderr: Buffer.concat(received.stderr) };
}

const modem = new Docker().modem;
const dockerode = (source: PassThrough, stdout: PassThrough, stderr: PassThrough) => modem.demuxStream(source, stdout, stderr);
const ours = (source: PassThrough, stdout: PassThrough, stderr: PassThrough) => demuxDockerStream(source, stdout, stderr);

describe("demuxDockerStream", () => {
  it("hands on the same bytes as dockerode, however the stream is cut", () => {
    const frames = fc.array(fc.tuple(fc.constantFrom(0, 1, 1, 2, 2), fc.uint8Array({ maxLength: 300 })), { maxLength: 12 });
    fc.assert(
      fc.property(frames, fc.array(fc.nat(4000), { maxLength: 20 }), (list, cuts) => {
        const bytes = Buffer.concat(list.map(([stream, payload]) => frame(stream, Buffer.from(payload))));
        const expected = {
          stdout: Buffer.concat(list.filter(([s]) => s === 1).map(([, p]) => Buffer.from(p))),
          stderr: Buffer.concat(list.filter(([s]) => s !== 1).map(([, p]) => Buffer.from(p))),
        };
        assert.deepEqual(demux(ours, bytes, cuts), expected);
        assert.deepEqual(demux(dockerode, bytes, cuts), expected);
      }),
      runs(300),
    );
  });

  it("passes a stream that is not multiplexed to stdout as it is, as dockerode does", () => {
    const bytes = Buffer.concat([frame(1, Buffer.from("framed ")), Buffer.from("plain text, not a frame")]);
    for (const cuts of [[], [3], [9, 20]]) {
      assert.deepEqual(demux(ours, bytes, cuts), demux(dockerode, bytes, cuts));
      assert.equal(demux(ours, bytes, cuts).stdout.toString(), "framed plain text, not a frame");
    }
  });
});
