// The frame format: u32 BE header length | u32 BE body length | header (UTF-8 JSON) | body (raw bytes).
// Headers are small JSON messages; bodies carry bytes (file content, stdin, output chunks) without
// base64 overhead.

import { MAX_FRAME_PART_BYTES } from "./protocol-constants.js";

export interface Frame<H> {
  header: H;
  body: Buffer;
}

const EMPTY = Buffer.alloc(0);

/** A body this large is written beside its header as it is, rather than copied into one buffer with it. */
const COPY_BELOW_BYTES = 16 * 1024;

/** Where frames are written: a Writable (a pipe, a socket, a process's stdin or stdout). */
export interface FrameSink {
  write(chunk: Buffer): boolean;
  cork(): void;
  uncork(): void;
}

export function encodeFrame(header: object, body: Buffer = EMPTY): Buffer {
  const headerBytes = Buffer.from(JSON.stringify(header), "utf8");
  const prefix = Buffer.allocUnsafe(8);
  prefix.writeUInt32BE(headerBytes.length, 0);
  prefix.writeUInt32BE(body.length, 4);
  return Buffer.concat([prefix, headerBytes, body]);
}

/**
 * Writes one frame. A large body (file content, a command's output) is not copied: the header and the
 * body go out together in one vectored write. The body must not change afterwards. Returns what the
 * sink's write returned (false: its buffer is full).
 */
export function writeFrame(sink: FrameSink, header: object, body: Buffer = EMPTY): boolean {
  if (body.length < COPY_BELOW_BYTES) return sink.write(encodeFrame(header, body));
  const headerBytes = Buffer.from(JSON.stringify(header), "utf8");
  const head = Buffer.allocUnsafe(8 + headerBytes.length);
  head.writeUInt32BE(headerBytes.length, 0);
  head.writeUInt32BE(body.length, 4);
  headerBytes.copy(head, 8);
  sink.cork();
  sink.write(head);
  const written = sink.write(body);
  sink.uncork();
  return written;
}

/**
 * Incremental decoder: feed it chunks as they arrive, it yields whole frames.
 * Throws on a frame that announces an impossible size (a corrupt or foreign stream).
 */
export class FrameDecoder<H = unknown> {
  private chunks: Buffer[] = [];
  private buffered = 0;

  push(chunk: Buffer): Frame<H>[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const frames: Frame<H>[] = [];
    for (;;) {
      if (this.buffered < 8) break;
      const head = this.peek(8);
      const headerLength = head.readUInt32BE(0);
      const bodyLength = head.readUInt32BE(4);
      if (headerLength > MAX_FRAME_PART_BYTES || bodyLength > MAX_FRAME_PART_BYTES) {
        throw new Error(`corrupt frame: header ${headerLength} bytes, body ${bodyLength} bytes`);
      }
      const total = 8 + headerLength + bodyLength;
      if (this.buffered < total) break;
      const whole = this.take(total);
      const header = JSON.parse(whole.subarray(8, 8 + headerLength).toString("utf8")) as H;
      frames.push({ header, body: whole.subarray(8 + headerLength) });
    }
    return frames;
  }

  private peek(length: number): Buffer {
    if (this.chunks[0]!.length >= length) return this.chunks[0]!.subarray(0, length);
    const joined = Buffer.concat(this.chunks);
    this.chunks = [joined];
    return joined.subarray(0, length);
  }

  private take(length: number): Buffer {
    const joined = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    const taken = joined.subarray(0, length);
    const rest = joined.subarray(length);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return taken;
  }
}
