// The frame format: u32 BE header length | u32 BE body length | header (UTF-8 JSON) | body (raw bytes).
// Headers are small JSON messages; bodies carry bytes (file content, stdin, output chunks) without
// base64 overhead.

import { MAX_FRAME_PART_BYTES } from "./protocol-constants.js";

export interface Frame<H> {
  header: H;
  body: Buffer;
}

const EMPTY = Buffer.alloc(0);

export function encodeFrame(header: object, body: Buffer = EMPTY): Buffer {
  const headerBytes = Buffer.from(JSON.stringify(header), "utf8");
  const prefix = Buffer.allocUnsafe(8);
  prefix.writeUInt32BE(headerBytes.length, 0);
  prefix.writeUInt32BE(body.length, 4);
  return Buffer.concat([prefix, headerBytes, body]);
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
