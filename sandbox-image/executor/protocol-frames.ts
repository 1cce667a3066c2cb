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
 *
 * Each byte is copied at most once: a frame lying whole in one chunk is returned as views of that chunk;
 * a body spread over several chunks is copied into a buffer of the announced size, made when its header
 * has arrived, as the chunks come (never gathered and joined). Only a frame's prefix and header, split
 * across chunks, are gathered (they are small).
 *
 * With `transientChunks`, each chunk is a view of a buffer the next read overwrites (a socket's `onread`
 * buffer): then every byte kept is copied (a body into a buffer of its own, a piece of a head), and no
 * frame is a view of a chunk.
 */
export class FrameDecoder<H = unknown> {
  /** Bytes of the current frame's prefix and header received so far, when they came in pieces. */
  private headParts: Buffer[] = [];
  private headBytes = 0;
  /** Once the header is in: the header, and the body being filled. */
  private header: H | undefined;
  private body: Buffer | null = null;
  private bodyFilled = 0;
  private readonly transient: boolean;

  constructor(options: { transientChunks?: boolean } = {}) {
    this.transient = options.transientChunks === true;
  }

  push(chunk: Buffer): Frame<H>[] {
    const frames: Frame<H>[] = [];
    let offset = 0;
    while (offset < chunk.length) {
      if (this.body === null) {
        offset = this.readHead(chunk, offset, frames);
        continue;
      }
      const wanted = this.body.length - this.bodyFilled;
      const taken = Math.min(wanted, chunk.length - offset);
      chunk.copy(this.body, this.bodyFilled, offset, offset + taken);
      this.bodyFilled += taken;
      offset += taken;
      if (this.bodyFilled === this.body.length) {
        frames.push({ header: this.header as H, body: this.body });
        this.body = null;
        this.header = undefined;
      }
    }
    return frames;
  }

  /** Takes prefix and header bytes from `chunk` at `offset` (a whole frame when it is all there); returns the new offset. */
  private readHead(chunk: Buffer, offset: number, frames: Frame<H>[]): number {
    if (this.headBytes === 0 && chunk.length - offset >= 8) {
      // The usual case: the prefix, and often the whole frame, lies in this chunk.
      const [headerLength, bodyLength] = checkedLengths(chunk, offset);
      const headerEnd = offset + 8 + headerLength;
      if (headerEnd <= chunk.length) {
        const header = JSON.parse(chunk.toString("utf8", offset + 8, headerEnd)) as H;
        if (headerEnd + bodyLength <= chunk.length) {
          const body = bodyLength === 0 ? EMPTY : chunk.subarray(headerEnd, headerEnd + bodyLength);
          frames.push({ header, body: this.transient && bodyLength > 0 ? Buffer.from(body) : body });
          return headerEnd + bodyLength;
        }
        this.startBody(header, bodyLength);
        return headerEnd;
      }
    }
    // The prefix or header is split across chunks: gather them (at most 8 + header length bytes).
    offset = this.gather(chunk, offset, 8);
    if (this.headBytes < 8) return offset;
    const [headerLength] = checkedLengths(this.gatheredHead(), 0);
    offset = this.gather(chunk, offset, 8 + headerLength);
    if (this.headBytes < 8 + headerLength) return offset;
    const head = this.gatheredHead();
    this.headParts = [];
    this.headBytes = 0;
    const [, bodyLength] = checkedLengths(head, 0);
    const header = JSON.parse(head.toString("utf8", 8, 8 + headerLength)) as H;
    if (bodyLength === 0) frames.push({ header, body: EMPTY });
    else this.startBody(header, bodyLength);
    return offset;
  }

  /** Gathers head bytes from `chunk` until `upTo` of them are in; returns the new offset. */
  private gather(chunk: Buffer, offset: number, upTo: number): number {
    const taken = Math.max(0, Math.min(upTo - this.headBytes, chunk.length - offset));
    if (taken === 0) return offset;
    const piece = chunk.subarray(offset, offset + taken);
    this.headParts.push(this.transient ? Buffer.from(piece) : piece);
    this.headBytes += taken;
    return offset + taken;
  }

  private startBody(header: H, bodyLength: number): void {
    this.header = header;
    this.body = Buffer.allocUnsafe(bodyLength);
    this.bodyFilled = 0;
  }

  private gatheredHead(): Buffer {
    if (this.headParts.length > 1) this.headParts = [Buffer.concat(this.headParts)];
    return this.headParts[0]!;
  }
}

/** The header and body lengths of the prefix at `offset`; throws when either is impossible. */
function checkedLengths(bytes: Buffer, offset: number): [number, number] {
  const headerLength = bytes.readUInt32BE(offset);
  const bodyLength = bytes.readUInt32BE(offset + 4);
  if (headerLength > MAX_FRAME_PART_BYTES || bodyLength > MAX_FRAME_PART_BYTES) {
    throw new Error(`corrupt frame: header ${headerLength} bytes, body ${bodyLength} bytes`);
  }
  return [headerLength, bodyLength];
}
