// The server's end of the executor channel: one byte stream each way, requests correlated by id.
//
// The executor runs inside the sandbox as the same user as the code it runs, so that code can kill
// it, or impersonate it on the channel. Everything it sends is therefore checked: output is capped
// here too, responses of the wrong shape close the channel, and frames for unknown ids are dropped.

import type { Duplex, Readable, Writable } from "node:stream";
import {
  encodeFrame,
  FrameDecoder,
  isEgressFrameHeader,
  parseEgressFrame,
  type EgressFrame,
  type ExitMessage,
  type FileEntry,
  type FileInfo,
  type Request,
  type Response,
  type ResultPayload,
  type TreeEntry,
} from "../../sandbox-image/executor/protocol.js";
import { EgressStreams } from "./egress-streams.js";
import {
  SandboxEgressError,
  SandboxFileError,
  SandboxUnavailableError,
  type CommandRequest,
  type CommandResult,
  type ReadFileResult,
  type SandboxChannel,
} from "./runtime.js";

/** An `exec` or `ping` the executor refused (EBADREQ): a bug on our side, not a sandbox failure. */
export class ExecutorRequestError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "ExecutorRequestError";
  }
}

type OutgoingRequest = Request extends infer R ? (R extends Request ? Omit<R, "id"> : never) : never;
type ResultOf<Op extends ResultPayload["op"]> = Extract<ResultPayload, { op: Op }>;

interface PendingRequest {
  onResponse(message: Response, body: Buffer): void;
  onClosed(error: SandboxUnavailableError): void;
}

export class ExecutorClient implements SandboxChannel {
  readonly closed: Promise<void>;
  private markClosed!: () => void;
  private closeReason: string | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, PendingRequest>();
  private readonly decoder = new FrameDecoder<unknown>();
  private readonly egressStreams = new EgressStreams((frame, body) => this.sendEgressFrame(frame, body));

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
  ) {
    this.closed = new Promise((resolve) => (this.markClosed = resolve));
    input.on("data", (chunk: Buffer) => this.receive(chunk));
    input.on("end", () => this.shutDown("the executor closed its output"));
    input.on("close", () => this.shutDown("the executor's output stream closed"));
    input.on("error", (error) => this.shutDown(`reading from the executor failed: ${error.message}`, error));
    // Kept for the channel's whole life: an unhandled 'error' on either stream would crash the server.
    output.on("error", (error) => this.shutDown(`writing to the executor failed: ${error.message}`, error));
    output.on("close", () => this.shutDown("the executor's input stream closed"));
  }

  async ping(): Promise<{ version: number; pid: number; uid: number }> {
    const { result } = await this.call({ op: "ping" }, "ping");
    return { version: result.version, pid: result.pid, uid: result.uid };
  }

  run(request: CommandRequest): Promise<CommandResult> {
    return new Promise<CommandResult>((resolve, reject) => {
      if (this.closeReason !== null) return reject(this.unavailable());
      const id = this.nextId++;
      const stdout = new CappedOutput(request.maxOutputBytes);
      const stderr = new CappedOutput(request.maxOutputBytes);
      let callbackError: unknown = null;
      const { signal } = request;
      const cancel = (): void => this.cancel(id);
      const settle = (): void => {
        this.pending.delete(id);
        signal?.removeEventListener("abort", cancel);
      };
      this.pending.set(id, {
        onResponse: (message, body) => {
          if (message.type === "stdout" || message.type === "stderr") {
            const kept = (message.type === "stdout" ? stdout : stderr).append(body);
            if (kept.length === 0 || !request.onOutput || callbackError !== null) return;
            try {
              request.onOutput(message.type, kept);
            } catch (error) {
              // The caller can no longer take output; stop the command rather than run it blind.
              callbackError = error;
              cancel();
            }
          } else if (message.type === "exit") {
            settle();
            if (callbackError !== null) return reject(callbackError);
            resolve(commandResult(message, stdout.bytes(), stderr.bytes()));
          } else if (message.type === "error") {
            settle();
            reject(new ExecutorRequestError(message.code, message.message));
          } else {
            this.protocolViolation(`a ${message.type} message answered exec request ${id}`);
          }
        },
        onClosed: (error) => {
          settle();
          reject(error);
        },
      });
      this.send(
        {
          op: "exec",
          argv: request.argv,
          cwd: request.cwd,
          env: request.env,
          timeoutMs: request.timeoutMs,
          maxOutputBytes: request.maxOutputBytes,
        },
        id,
        request.stdin,
      );
      // Checked after sending: the executor reads requests in order, so the cancel finds the exec.
      if (signal?.aborted) cancel();
      else signal?.addEventListener("abort", cancel, { once: true });
    });
  }

  async readFile(path: string, maxBytes: number): Promise<ReadFileResult> {
    const { result, body } = await this.call({ op: "readFile", path, maxBytes }, "readFile");
    // Never trust the body length to honour our cap.
    return { content: body.subarray(0, maxBytes), size: result.size, truncated: result.truncated, realPath: result.realPath };
  }

  async writeFile(path: string, content: Buffer, mode?: number): Promise<void> {
    await this.call({ op: "writeFile", path, mode }, "writeFile", content);
  }

  async listFiles(path: string): Promise<FileEntry[]> {
    const { result } = await this.call({ op: "listFiles", path }, "listFiles");
    return result.entries;
  }

  async deleteFile(path: string, recursive: boolean): Promise<void> {
    await this.call({ op: "deleteFile", path, recursive }, "deleteFile");
  }

  async stat(path: string): Promise<{ info: FileInfo | null; realPath: string }> {
    const { result } = await this.call({ op: "stat", path }, "stat");
    return { info: result.info, realPath: result.realPath };
  }

  async walk(
    path: string,
    options: { recursive: boolean; after?: string; limit: number; exclude?: string[] },
  ): Promise<{ entries: TreeEntry[]; more: boolean }> {
    const { result } = await this.call({ op: "walk", path, ...options }, "walk");
    // Never trust the executor to honour our limit.
    return { entries: result.entries.slice(0, options.limit), more: result.more };
  }

  async usage(paths: string[], exclude?: string[]): Promise<{ files: number; bytes: number }> {
    const { result } = await this.call({ op: "usage", paths, exclude }, "usage");
    return { files: result.files, bytes: result.bytes };
  }

  async readFileChunk(path: string, offset: number, length: number): Promise<{ content: Buffer; size: number }> {
    const { result, body } = await this.call({ op: "readFileChunk", path, offset, length }, "readFileChunk");
    return { content: body.subarray(0, Math.min(length, result.bytesRead)), size: result.size };
  }

  async appendFile(path: string, offset: number, content: Buffer, options: { create?: boolean } = {}): Promise<number> {
    const { result } = await this.call({ op: "appendFile", path, offset, create: options.create ?? false }, "appendFile", content);
    return result.size;
  }

  async moveFile(from: string, to: string, overwrite: boolean): Promise<void> {
    await this.call({ op: "moveFile", from, to, overwrite }, "moveFile");
  }

  async listenEgress(port: number, host = "127.0.0.1"): Promise<number> {
    const { result } = await this.call({ op: "egressListen", host, port }, "egressListen");
    return result.port;
  }

  onEgressStream(handler: (stream: Duplex) => void): void {
    this.egressStreams.setHandler(handler);
  }

  /** Ends the executor's stdin (it then kills what it still runs and exits); pending calls fail. */
  close(): void {
    // The input is left to drain until the executor exits: destroying it now would hand a still-running
    // executor EPIPE on its next write, instead of the clean EOF-driven shutdown.
    this.shutDown("the channel was closed", undefined, { keepReading: true });
  }

  private call<Op extends ResultPayload["op"]>(
    request: OutgoingRequest,
    expected: Op,
    body?: Buffer,
  ): Promise<{ result: ResultOf<Op>; body: Buffer }> {
    return new Promise((resolve, reject) => {
      if (this.closeReason !== null) return reject(this.unavailable());
      const id = this.nextId++;
      this.pending.set(id, {
        onResponse: (message, responseBody) => {
          if (message.type === "result" && message.result.op === expected) {
            this.pending.delete(id);
            resolve({ result: message.result as ResultOf<Op>, body: responseBody });
          } else if (message.type === "error") {
            this.pending.delete(id);
            reject(requestError(expected, message.code, message.message));
          } else {
            this.protocolViolation(`a ${message.type} message answered ${expected} request ${id}`);
          }
        },
        onClosed: (error) => {
          this.pending.delete(id);
          reject(error);
        },
      });
      this.send(request, id, body);
    });
  }

  private cancel(target: number): void {
    if (this.closeReason !== null || !this.pending.has(target)) return;
    const id = this.nextId++;
    // The exec's own `exit` (cancelled: true) is what the caller waits for; this answer only needs consuming.
    this.pending.set(id, {
      onResponse: () => this.pending.delete(id),
      onClosed: () => this.pending.delete(id),
    });
    this.send({ op: "cancel", target }, id);
  }

  private send(request: OutgoingRequest, id: number, body?: Buffer): void {
    // Writable buffering absorbs bursts; the executor reads continuously, so no backpressure wait here.
    this.output.write(encodeFrame({ ...request, id }, body));
  }

  private sendEgressFrame(frame: EgressFrame, body?: Buffer): void {
    if (this.closeReason === null) this.output.write(encodeFrame(frame, body));
  }

  private receive(chunk: Buffer): void {
    if (this.closeReason !== null) return;
    let frames;
    try {
      frames = this.decoder.push(chunk);
    } catch (error) {
      this.shutDown(`the executor sent a corrupt frame: ${(error as Error).message}`, error);
      return;
    }
    for (const frame of frames) {
      if (this.closeReason !== null) return;
      if (isEgressFrameHeader(frame.header)) {
        const egressFrame = parseEgressFrame(frame.header);
        if (egressFrame === null) {
          this.protocolViolation(`malformed egress frame ${truncateForLog(JSON.stringify(frame.header))}`);
          return;
        }
        this.egressStreams.receive(egressFrame, frame.body);
        continue;
      }
      const message = parseResponse(frame.header);
      if (message === null) {
        this.protocolViolation(`malformed response header ${truncateForLog(JSON.stringify(frame.header))}`);
        return;
      }
      // Unknown ids: a late answer to something already settled (or noise); nothing is waiting for it.
      this.pending.get(message.id)?.onResponse(message, frame.body);
    }
  }

  private protocolViolation(detail: string): void {
    this.shutDown(`executor protocol violation: ${detail}`);
  }

  private shutDown(reason: string, cause?: unknown, options: { keepReading?: boolean } = {}): void {
    if (this.closeReason !== null) return;
    this.closeReason = reason;
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const request of waiting) request.onClosed(this.unavailable(cause));
    this.egressStreams.destroyAll(this.unavailable(cause));
    try {
      this.output.end();
    } catch {
      // Already destroyed: the executor sees EOF either way.
    }
    // Frames still arriving are dropped by receive().
    if (!options.keepReading) this.input.destroy();
    this.markClosed();
  }

  private unavailable(cause?: unknown): SandboxUnavailableError {
    const message = `sandbox executor unavailable: ${this.closeReason ?? "closed"}`;
    return cause === undefined ? new SandboxUnavailableError(message) : new SandboxUnavailableError(message, { cause });
  }
}

/** Keeps the first `limit` bytes of a stream. */
class CappedOutput {
  private readonly chunks: Buffer[] = [];
  private kept = 0;

  constructor(private readonly limit: number) {}

  /** Returns the part of the chunk that was kept (possibly empty). */
  append(chunk: Buffer): Buffer {
    const room = this.limit - this.kept;
    if (room <= 0) return chunk.subarray(0, 0);
    const kept = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.chunks.push(kept);
    this.kept += kept.length;
    return kept;
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks, this.kept);
  }
}

function requestError(op: ResultPayload["op"], code: string, message: string): Error {
  switch (op) {
    case "ping":
      return new ExecutorRequestError(code, message);
    case "egressListen":
      return new SandboxEgressError(code, message);
    default:
      return new SandboxFileError(code, message);
  }
}

function commandResult(exit: ExitMessage, stdout: Buffer, stderr: Buffer): CommandResult {
  return {
    exitCode: exit.exitCode,
    signal: exit.signal,
    timedOut: exit.timedOut,
    cancelled: exit.cancelled,
    stdout,
    stderr,
    stdoutBytes: exit.stdoutBytes,
    stderrBytes: exit.stderrBytes,
    durationMs: exit.durationMs,
  };
}

// ---- Response validation: the shapes protocol.ts promises, checked at the trust boundary. ----

type Fields = Record<string, unknown>;

function parseResponse(header: unknown): Response | null {
  if (!isObject(header) || !isCount(header["id"])) return null;
  const id = header["id"];
  switch (header["type"]) {
    case "stdout":
    case "stderr":
      return { type: header["type"], id };
    case "exit":
      return parseExit(header, id);
    case "error":
      return typeof header["code"] === "string" && typeof header["message"] === "string"
        ? { type: "error", id, code: header["code"], message: header["message"] }
        : null;
    case "result": {
      const result = parseResult(header["result"]);
      return result === null ? null : { type: "result", id, result };
    }
    default:
      return null;
  }
}

function parseExit(header: Fields, id: number): ExitMessage | null {
  const { exitCode, signal, timedOut, cancelled, stdoutBytes, stderrBytes, durationMs } = header;
  const valid =
    (exitCode === null || Number.isSafeInteger(exitCode)) &&
    (signal === null || typeof signal === "string") &&
    typeof timedOut === "boolean" &&
    typeof cancelled === "boolean" &&
    isCount(stdoutBytes) &&
    isCount(stderrBytes) &&
    isCount(durationMs);
  if (!valid) return null;
  return {
    type: "exit",
    id,
    exitCode: exitCode as number | null,
    signal: signal as string | null,
    timedOut,
    cancelled,
    stdoutBytes,
    stderrBytes,
    durationMs,
  };
}

function parseResult(result: unknown): ResultPayload | null {
  if (!isObject(result)) return null;
  switch (result["op"]) {
    case "ping":
      return isCount(result["version"]) && isCount(result["pid"]) && Number.isSafeInteger(result["uid"])
        ? { op: "ping", version: result["version"], pid: result["pid"], uid: result["uid"] as number }
        : null;
    case "readFile":
      return isCount(result["size"]) && typeof result["truncated"] === "boolean" && typeof result["realPath"] === "string"
        ? { op: "readFile", size: result["size"], truncated: result["truncated"], realPath: result["realPath"] }
        : null;
    case "writeFile":
      return isCount(result["size"]) ? { op: "writeFile", size: result["size"] } : null;
    case "listFiles": {
      const entries = result["entries"];
      if (!Array.isArray(entries)) return null;
      const parsed = entries.map(parseEntry);
      return parsed.every((entry): entry is FileEntry => entry !== null) ? { op: "listFiles", entries: parsed } : null;
    }
    case "deleteFile":
      return { op: "deleteFile" };
    case "cancel":
      return typeof result["found"] === "boolean" ? { op: "cancel", found: result["found"] } : null;
    case "egressListen": {
      const port = result["port"];
      return isCount(port) && port > 0 && port <= 65_535 ? { op: "egressListen", port } : null;
    }
    case "stat": {
      const info = result["info"] === null ? null : parseInfo(result["info"]);
      if (info === undefined || typeof result["realPath"] !== "string") return null;
      return { op: "stat", info, realPath: result["realPath"] };
    }
    case "walk": {
      const entries = result["entries"];
      if (!Array.isArray(entries) || typeof result["more"] !== "boolean") return null;
      const parsed = entries.map(parseTreeEntry);
      return parsed.every((entry): entry is TreeEntry => entry !== undefined) ? { op: "walk", entries: parsed, more: result["more"] } : null;
    }
    case "usage":
      return isCount(result["files"]) && isCount(result["bytes"]) ? { op: "usage", files: result["files"], bytes: result["bytes"] } : null;
    case "readFileChunk":
      return isCount(result["size"]) && isCount(result["bytesRead"])
        ? { op: "readFileChunk", size: result["size"], bytesRead: result["bytesRead"] }
        : null;
    case "appendFile":
      return isCount(result["size"]) ? { op: "appendFile", size: result["size"] } : null;
    case "moveFile":
      return { op: "moveFile" };
    default:
      return null;
  }
}

function parseInfo(value: unknown): FileInfo | undefined {
  if (!isObject(value)) return undefined;
  const { type, size, mtimeMs, birthtimeMs } = value;
  if (!ENTRY_TYPES.has(type) || !isCount(size) || typeof mtimeMs !== "number" || typeof birthtimeMs !== "number") return undefined;
  return { type: type as FileInfo["type"], size, mtimeMs, birthtimeMs };
}

function parseTreeEntry(value: unknown): TreeEntry | undefined {
  const info = parseInfo(value);
  if (!info || !isObject(value) || typeof value["path"] !== "string") return undefined;
  return { path: value["path"], ...info };
}

const ENTRY_TYPES: ReadonlySet<unknown> = new Set(["file", "directory", "symlink", "other"]);

function parseEntry(entry: unknown): FileEntry | null {
  if (!isObject(entry)) return null;
  const { name, type, size, mtimeMs } = entry;
  if (typeof name !== "string" || !ENTRY_TYPES.has(type) || !isCount(size) || typeof mtimeMs !== "number") return null;
  return { name, type: type as FileEntry["type"], size, mtimeMs };
}

function isObject(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

function truncateForLog(text: string | undefined): string {
  const shown = text ?? "undefined";
  return shown.length > 200 ? `${shown.slice(0, 200)}…` : shown;
}
