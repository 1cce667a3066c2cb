// The wire protocol between the emulator server and the executor inside a sandbox container.
//
// One long-lived byte channel per container (the stdin/stdout of one `docker exec`), carrying frames:
//   u32 BE header length | u32 BE body length | header (UTF-8 JSON) | body (raw bytes)
// Headers are small JSON messages with a request id; bodies carry bytes (file content, stdin, output
// chunks) without base64 overhead. Requests may be answered out of order; every request ends with
// exactly one terminal message (`result`, `exit` or `error`) carrying its id.
//
// This file is shared by both sides and must stay dependency-free (it runs on the image's Node.js 18).

export const PROTOCOL_VERSION = 1;

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

export type Request =
  | ExecRequest
  | CancelRequest
  | ReadFileRequest
  | WriteFileRequest
  | ListFilesRequest
  | DeleteFileRequest
  | PingRequest;

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
  | { op: "cancel"; found: boolean };

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
