// The wire protocol between the emulator server and the executor inside a sandbox container.
//
// One long-lived byte channel per container (the stdin/stdout of one `docker exec`), carrying frames:
//   u32 BE header length | u32 BE body length | header (UTF-8 JSON) | body (raw bytes)
// Headers are small JSON messages with a request id; bodies carry bytes (file content, stdin, output
// chunks) without base64 overhead. Requests may be answered out of order; every request ends with
// exactly one terminal message (`result`, `exit` or `error`) carrying its id.
//
// Egress streams ride the same channel: each TCP connection a sandbox program makes to the executor's
// egress listener becomes a stream of `egress` frames (see EgressFrame), numbered by the executor and
// independent of request ids, with credit-based flow control per stream and direction.
//
// This file is shared by both sides and must stay dependency-free (it runs on the image's Node.js 18).

export const PROTOCOL_VERSION = 2;

/** Set in every process an exec starts, so the whole tree can be found and killed; not for users. */
export const EXEC_MARKER_VARIABLE = "EMULATOR_EXEC_ID";

/** Largest header or body a peer accepts; anything bigger means the stream is corrupt. */
export const MAX_FRAME_PART_BYTES = 64 * 1024 * 1024;

/** Error code for a request the executor could not understand (bad shape, unknown op, id in use). */
export const BAD_REQUEST_CODE = "EBADREQ";

export interface ExecRequest {
  op: "exec";
  id: number;
  /** argv; argv[0] is looked up on PATH. */
  argv: string[];
  cwd?: string;
  /** Extra variables merged over the executor's own environment. */
  env?: Record<string, string>;
  /** Stdin bytes are the frame body; stdin is closed after they are written. */
  timeoutMs: number;
  /** Output kept per stream; the rest is counted and dropped. */
  maxOutputBytes: number;
}

export interface CancelRequest {
  op: "cancel";
  id: number;
  /** The id of the exec request whose process tree must be killed. */
  target: number;
}

export interface ReadFileRequest {
  op: "readFile";
  id: number;
  path: string;
  maxBytes: number;
}

export interface WriteFileRequest {
  op: "writeFile";
  id: number;
  path: string;
  /** Content is the frame body. Parent folders are created. */
  mode?: number;
}

export interface ListFilesRequest {
  op: "listFiles";
  id: number;
  path: string;
}

export interface DeleteFileRequest {
  op: "deleteFile";
  id: number;
  path: string;
  recursive: boolean;
}

export interface PingRequest {
  op: "ping";
  id: number;
}

/**
 * Makes the executor accept egress connections on host:port (one listener per executor). Port 0 picks
 * a free port; the result carries the port bound. A port still held (typically by the previous
 * executor of the same container, still exiting) is retried for EGRESS_LISTEN_RETRY_MS before the
 * request fails with EADDRINUSE; a second listener on one executor fails with EALREADY.
 */
export interface EgressListenRequest {
  op: "egressListen";
  id: number;
  host: string;
  port: number;
}

export type Request =
  | ExecRequest
  | CancelRequest
  | ReadFileRequest
  | WriteFileRequest
  | ListFilesRequest
  | DeleteFileRequest
  | PingRequest
  | EgressListenRequest;

export type RequestOp = Request["op"];

export interface FileEntry {
  name: string;
  type: "file" | "directory" | "symlink" | "other";
  size: number;
  /** Modification time, milliseconds since the epoch. */
  mtimeMs: number;
}

/** Streamed output of an exec; the frame body holds the bytes. */
export interface OutputMessage {
  type: "stdout" | "stderr";
  id: number;
}

export interface ExitMessage {
  type: "exit";
  id: number;
  /** null when the process was killed by a signal. */
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  cancelled: boolean;
  /** Total bytes the process wrote, including what was dropped past maxOutputBytes. */
  stdoutBytes: number;
  stderrBytes: number;
  durationMs: number;
}

export type ResultPayload =
  | { op: "ping"; version: number; pid: number; uid: number }
  /** Content in the frame body; realPath is the file's path with every symlink resolved. */
  | { op: "readFile"; size: number; truncated: boolean; realPath: string }
  | { op: "writeFile"; size: number }
  | { op: "listFiles"; entries: FileEntry[] }
  | { op: "deleteFile" }
  | { op: "cancel"; found: boolean }
  | { op: "egressListen"; port: number };

export interface ResultMessage {
  type: "result";
  id: number;
  result: ResultPayload;
}

/** A request that failed. `code` is an errno-style code (ENOENT, EISDIR, EACCES, …) or EBADREQ. */
export interface ErrorMessage {
  type: "error";
  id: number;
  code: string;
  message: string;
}

export type Response = OutputMessage | ExitMessage | ResultMessage | ErrorMessage;

// ---- Egress streams ----
//
// Lifecycle of stream N (N > 0, strictly increasing per executor, never reused):
//   executor → server  open                       a sandbox program connected
//   both ways          data (body = bytes)        at most the window unacknowledged, see below
//   both ways          ack {bytes}                the receiver consumed `bytes`: the sender may send that many more
//   both ways          end                        half-close: the sender sends no more data
//   both ways          close {error?}             the sender is done with the stream; the receiver drops it and
//                                                 never answers a close. An abort (the executor resets the
//                                                 program's socket), except from the server after its own end
//                                                 and without an error: then the executor still delivers what
//                                                 the server wrote and closes the socket normally, as close()
//                                                 after shutdown(SHUT_WR) would
// A stream whose both ends were exchanged is complete; a close may still follow and means nothing more.
// Frames for streams a side does not know (already closed, never opened) are ignored: both sides may
// close at the same moment, so late frames are normal.
//
// Flow control: each direction of each stream has a window of EGRESS_WINDOW_BYTES. A sender keeps
// (bytes sent − bytes acknowledged) within the window; a receiver acknowledges bytes only once they left
// its hands (written to the socket, handed to the reader), so neither side ever holds more than one
// window per stream and direction. Sending more than the window allows is a violation that closes the
// stream.

/** Per stream and direction: how many bytes may be in flight, unacknowledged. */
export const EGRESS_WINDOW_BYTES = 256 * 1024;

/** Largest data frame body, so one busy stream cannot hold the channel for long. */
export const EGRESS_MAX_DATA_FRAME_BYTES = 64 * 1024;

/** Concurrent streams per executor; connections beyond it are refused at the executor (and at the server). */
export const EGRESS_MAX_STREAMS = 256;

/** How long egressListen keeps retrying a port that is in use. */
export const EGRESS_LISTEN_RETRY_MS = 5_000;

export interface EgressStreamErrorInfo {
  /** errno-style, e.g. ECONNRESET, EPIPE, EPROTO (a flow-control or protocol violation). */
  code: string;
  message: string;
}

export type EgressFrame =
  | { egress: "open"; stream: number }
  | { egress: "data"; stream: number }
  | { egress: "ack"; stream: number; bytes: number }
  | { egress: "end"; stream: number }
  | { egress: "close"; stream: number; error?: EgressStreamErrorInfo };

export type EgressFrameKind = EgressFrame["egress"];

/** Egress frames are told apart from requests (`op`) and responses (`type`) by their `egress` field. */
export function isEgressFrameHeader(header: unknown): boolean {
  return typeof header === "object" && header !== null && !Array.isArray(header) && "egress" in header;
}

/** The frame, if the header has exactly the shape above; null otherwise. Both sides use it on what they receive. */
export function parseEgressFrame(header: unknown): EgressFrame | null {
  if (!isEgressFrameHeader(header)) return null;
  const fields = header as Record<string, unknown>;
  const stream = fields["stream"];
  if (!isPositiveInteger(stream)) return null;
  const kind = fields["egress"];
  switch (kind) {
    case "open":
    case "data":
    case "end":
      return { egress: kind, stream };
    case "ack": {
      const bytes = fields["bytes"];
      return isPositiveInteger(bytes) ? { egress: "ack", stream, bytes } : null;
    }
    case "close": {
      const error = fields["error"];
      if (error === undefined) return { egress: "close", stream };
      if (typeof error !== "object" || error === null) return null;
      const { code, message } = error as Record<string, unknown>;
      if (typeof code !== "string" || typeof message !== "string") return null;
      return { egress: "close", stream, error: { code, message } };
    }
    default:
      return null;
  }
}

function isPositiveInteger(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) > 0;
}

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
