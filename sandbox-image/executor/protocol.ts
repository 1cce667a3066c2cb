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

export const PROTOCOL_VERSION = 3;

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

// ---- File transfer and file trees (the environments files API) ----

/** Largest readFileChunk length and appendFile body: large files move in many frames, never one. */
export const MAX_FILE_CHUNK_BYTES = 8 * 1024 * 1024;

/** Most entries one walk request returns; a bigger tree is paged with `after`. */
export const MAX_WALK_ENTRIES = 10_000;

/**
 * What a path names: symlinks followed. When it does not exist (or is a dangling symlink), `info` is
 * null and `realPath` is the nearest existing ancestor's real path joined with the rest, which is where
 * a file created at `path` would land.
 */
export interface StatRequest {
  op: "stat";
  id: number;
  path: string;
}

/**
 * The entries of a tree in depth-first pre-order, each folder's children in code-unit order of their
 * names: the start itself first (path ""; symlinks followed for it only), then what lies below it
 * (children only unless `recursive`), never following a symlink. Entries up to and including `after`
 * (a path relative to the start, from a previous page) are skipped. Folders whose absolute path is in
 * `exclude` are listed but not entered; unreadable folders are listed and their contents skipped.
 */
export interface WalkRequest {
  op: "walk";
  id: number;
  path: string;
  recursive: boolean;
  after?: string;
  /** At most this many entries; `more` tells whether others follow. */
  limit: number;
  exclude?: string[];
}

/**
 * Regular files (never through a symlink, each inode once) under the given paths, which may overlap or
 * be missing; folders in `exclude` and unreadable folders are skipped.
 */
export interface UsageRequest {
  op: "usage";
  id: number;
  paths: string[];
  exclude?: string[];
}

/** Up to `length` bytes of a regular file from `offset` (fewer at its end); the bytes are the result body. */
export interface ReadFileChunkRequest {
  op: "readFileChunk";
  id: number;
  path: string;
  offset: number;
  length: number;
}

/**
 * Writes the frame body at `offset` of a regular file whose size must be exactly `offset` (code EOFFSET
 * otherwise, naming the size), never through a symlink. `create` makes a new file (parents too) and
 * refuses an existing one (EEXIST); `offset` is then 0.
 */
export interface AppendFileRequest {
  op: "appendFile";
  id: number;
  path: string;
  offset: number;
  create: boolean;
}

/**
 * Moves a file to `to`, creating its parents. With `overwrite` an existing file there is replaced
 * atomically (a folder there is EISDIR); without it an existing entry of any kind is EEXIST. A move
 * across file systems copies, then removes `from`.
 */
export interface MoveFileRequest {
  op: "moveFile";
  id: number;
  from: string;
  to: string;
  overwrite: boolean;
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
  | EgressListenRequest
  | StatRequest
  | WalkRequest
  | UsageRequest
  | ReadFileChunkRequest
  | AppendFileRequest
  | MoveFileRequest;

export type RequestOp = Request["op"];

export interface FileEntry {
  name: string;
  type: "file" | "directory" | "symlink" | "other";
  size: number;
  /** Modification time, milliseconds since the epoch. */
  mtimeMs: number;
}

/** File metadata for stat and walk; times in milliseconds since the epoch. */
export interface FileInfo {
  type: FileEntry["type"];
  size: number;
  mtimeMs: number;
  /** Creation time where the file system records it, else the last status change (ctime). */
  birthtimeMs: number;
}

/** One entry of a walk: its path relative to the walk's start ("" for the start itself). */
export interface TreeEntry extends FileInfo {
  path: string;
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
  | { op: "egressListen"; port: number }
  | { op: "stat"; info: FileInfo | null; realPath: string }
  | { op: "walk"; entries: TreeEntry[]; more: boolean }
  | { op: "usage"; files: number; bytes: number }
  /** The bytes are the frame body; size is the file's whole size now. */
  | { op: "readFileChunk"; size: number; bytesRead: number }
  | { op: "appendFile"; size: number }
  | { op: "moveFile" };

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
