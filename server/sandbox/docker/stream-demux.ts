// Splits the output of a `docker exec` without a TTY into its stdout and stderr. The engine frames each
// piece it forwards: one byte for the stream (0 stdin, 1 stdout, 2 stderr), three zero bytes, a u32 BE
// length, then that many bytes. dockerode's own demuxStream copies everything it has buffered for every
// piece (a Buffer.concat per chunk, then a copy of the rest per frame); here the payloads are handed on
// as slices of the chunks they arrived in, and only a header split across chunks is ever copied.

import type { Readable, Writable } from "node:stream";

const HEADER_BYTES = 8;

export function demuxDockerStream(source: Readable, stdout: Writable, stderr: Writable): void {
  const header = Buffer.alloc(HEADER_BYTES);
  let headerFilled = 0;
  /** Bytes of the current payload still to come, and where they go. */
  let remaining = 0;
  let target: Writable = stdout;
  let raw = false;

  const onData = (chunk: Buffer): void => {
    if (raw) {
      stdout.write(chunk);
      return;
    }
    let at = 0;
    while (at < chunk.length) {
      if (remaining > 0) {
        const take = Math.min(remaining, chunk.length - at);
        target.write(chunk.subarray(at, at + take));
        at += take;
        remaining -= take;
        continue;
      }
      const take = Math.min(HEADER_BYTES - headerFilled, chunk.length - at);
      chunk.copy(header, headerFilled, at, at + take);
      headerFilled += take;
      at += take;
      if (headerFilled < HEADER_BYTES) break;
      headerFilled = 0;
      const stream = header[0];
      if (stream !== 0 && stream !== 1 && stream !== 2) {
        // Not a multiplexed stream after all (a TTY, or out of step): the rest goes to stdout as it is,
        // as dockerode does.
        raw = true;
        stdout.write(Buffer.concat([header, chunk.subarray(at)]));
        return;
      }
      // dockerode sends anything but stdout to stderr; so does this.
      target = stream === 1 ? stdout : stderr;
      remaining = header.readUInt32BE(4);
    }
  };
  source.on("data", onData);
}
