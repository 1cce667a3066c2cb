// The server's end of the executor channel: one byte stream each way, requests correlated by id.
//
// In a sandbox the executor runs as root, out of reach of the code it serves (docs/security.md); still,
// it lives in the sandbox, so everything it sends is checked against the protocol's tables, and the
// channel fails closed: a frame of the wrong shape, an answer of the wrong kind, a reply to a request
// never made or already ended, a body where none belongs, or a result that contradicts its request
// closes the channel, failing every pending call with SandboxUnavailableError. No call ever resolves
// with unchecked data. Output is capped here too.
//
// Nor does any call wait forever: every request has a deadline (a command's own timeout plus a grace,
// a fixed bound for the others). An executor that misses one is taken for wedged: the channel is
// declared broken, every pending call fails with SandboxUnavailableError, and `onBroken` lets the
// runtime end that executor; the next call opens a new channel.

import type { Duplex, Readable, Writable } from "node:stream";
import {
  CHANGED_CODE,
  checkEgressFrame,
  EGRESS_LISTEN_RETRY_MS,
  checkResponse,
  writeFrame,
  FrameDecoder,
  type Frame,
  isEgressFrameHeader,
  responseCarriesBody,
  type EgressFrame,
  type ExitMessage,
  type FileEntry,
  type FileInfo,
  type Request,
  type ReadFilesEntry,
  type Response,
  type ResultOf,
  type ResultOp,
  type TreeEntry,
  UNAVAILABLE_CODE,
} from "../../sandbox-image/executor/protocol.js";
import { CodedError } from "../common/errors.js";
import { EgressStreams } from "./egress-streams.js";
import { ReadFilesCache, type RememberedRead } from "./read-files-cache.js";
import {
  SandboxEgressError,
  SandboxFileError,
  SandboxFilesChangedError,
  SandboxLostError,
  SandboxUnavailableError,
  type CommandRequest,
  type CommandResult,
  type FileOperationReads,
  type FreshRead,
  type ReadFileResult,
  type SandboxChannel,
} from "./runtime.js";

/** An `exec` or `ping` the executor refused (EBADREQ): a bug on our side, not a sandbox failure. */
export class ExecutorRequestError extends CodedError {}

type OutgoingRequest = Request extends infer R ? (R extends Request ? Omit<R, "id"> : never) : never;

/** What is wrong with a well-formed result given the request it answers, or null when nothing is. */
type ResultCheck<Op extends ResultOp> = (result: ResultOf<Op>, body: Buffer) => string | null;

interface PendingRequest {
  onResponse(message: Response, body: Buffer): void;
  onClosed(error: SandboxUnavailableError): void;
  /** Fires when the executor has taken too long to end this request. */
  deadline?: NodeJS.Timeout;
  /** When it fires (Date.now() milliseconds). */
  deadlineAt?: number;
}

/** How long the executor may take to answer, past which the channel is declared broken. */
export interface ExecutorDeadlines {
  /**
   * Past a command's own timeout, or after it was cancelled, how long its exit may take (killing a
   * process tree takes milliseconds; this is for a loaded machine). Also bounds ping and cancel.
   */
  graceMs: number;
  /** How long one file operation may take (a walk, a usage count or a recursive delete of a big tree). */
  fileOperationMs: number;
}

export const DEFAULT_EXECUTOR_DEADLINES: ExecutorDeadlines = { graceMs: 10_000, fileOperationMs: 60_000 };

export interface ExecutorClientOptions {
  deadlines?: Partial<ExecutorDeadlines>;
  /**
   * Called once if the channel is declared broken while the executor may still run (a missed deadline,
   * a protocol violation), so that the runtime can end it; not when the executor exited or close() was called.
   */
  onBroken?: (reason: string) => void;
  /**
   * Where the input's bytes come from when not from its 'data' events: a socket reading into a buffer
   * that the next read overwrites (socket-channel.ts), whose views the client copies as it keeps them.
   * The input's 'end', 'close' and 'error' are listened to all the same.
   */
  transientInput?: { setReceiver(receive: (chunk: Buffer) => void): void };
  /**
   * When the peer ends or breaks the stream (not close(), lose() or a deadline): the calls still pending
   * wait for this before they fail, so that a runtime which may learn the sandbox was lost with its
   * machine (a stopped engine ends its containers' connections before the manager calls the node down)
   * can lose() the channel meanwhile. It must settle within a bound of its own.
   */
  beforePeerEnd?: () => Promise<void>;
}

/** setTimeout treats larger delays as 1 ms. */
const MAX_TIMER_DELAY_MS = 2_147_483_647;

export class ExecutorClient implements SandboxChannel {
  readonly closed: Promise<void>;
  private markClosed!: () => void;
  private closeReason: string | null = null;
  /** Set by lose(): pending and later calls fail with SandboxLostError. */
  private lost = false;
  /** The peer ended the stream and beforePeerEnd is running. */
  private peerEnding = false;
  private nextId = 1;
  private readonly pending = new Map<number, PendingRequest>();
  private readonly decoder: FrameDecoder<unknown>;
  private readonly egressStreams = new EgressStreams((frame, body) => this.sendEgressFrame(frame, body));
  private readonly deadlines: ExecutorDeadlines;
  /** What readFiles read last, per path, so that a file read the same is not sent again. */
  private readonly lastReads = new ReadFilesCache();

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly options: ExecutorClientOptions = {},
  ) {
    this.deadlines = { ...DEFAULT_EXECUTOR_DEADLINES, ...options.deadlines };
    this.closed = new Promise((resolve) => (this.markClosed = resolve));
    this.decoder = new FrameDecoder<unknown>({ transientChunks: options.transientInput !== undefined });
    if (options.transientInput) options.transientInput.setReceiver((chunk) => this.receive(chunk));
    else input.on("data", (chunk: Buffer) => this.receive(chunk));
    input.on("end", () => this.peerEnded("the executor closed its output"));
    input.on("close", () => this.peerEnded("the executor's output stream closed"));
    input.on("error", (error) => this.peerEnded(`reading from the executor failed: ${error.message}`, error));
    // Kept for the channel's whole life: an unhandled 'error' on either stream would crash the server.
    output.on("error", (error) => this.peerEnded(`writing to the executor failed: ${error.message}`, error));
    output.on("close", () => this.peerEnded("the executor's input stream closed"));
  }

  /** Unanswered within `deadlineMs` (the grace by default), the channel is broken. */
  async ping(deadlineMs = this.deadlines.graceMs): Promise<{ version: number; pid: number; uid: number }> {
    const { result } = await this.call({ op: "ping" }, "ping", { deadlineMs });
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
      const cancel = (): void => {
        // Cancelled, the command must be gone within the grace, however long its own timeout.
        this.armDeadline(id, this.deadlines.graceMs, `exec request ${id} (cancelled)`, { onlyIfSooner: true });
        this.cancel(id);
      };
      const settle = (): void => {
        this.endRequest(id);
        signal?.removeEventListener("abort", cancel);
      };
      const { unlessChanged, readAfter } = request;
      // Until the executor says it started, an exec with unlessChanged has no output and no exit but a cancelled one.
      let started = unlessChanged === undefined;
      const after = readAfter ? this.knownReads(readAfter.paths) : undefined;
      this.pending.set(id, {
        onResponse: (message, body) => {
          if (message.type === "started") {
            if (started)
              return this.protocolViolation(
                `${describeMessage(message)} for exec request ${id}, which ${unlessChanged ? "had started already" : "had nothing to wait for"}`,
              );
            started = true;
            try {
              request.onStarted?.();
            } catch (error) {
              callbackError = error;
              cancel();
            }
            return;
          }
          if (!started && !(message.type === "error" || (message.type === "exit" && message.cancelled))) {
            return this.protocolViolation(`${describeMessage(message)} for exec request ${id} before it started`);
          }
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
            // The executor counts every byte it forwards, so its totals can never be below what arrived.
            if (message.stdoutBytes < stdout.received || message.stderrBytes < stderr.received) {
              return this.protocolViolation(
                `exec request ${id} exited reporting ${message.stdoutBytes}/${message.stderrBytes} bytes of output ` +
                  `after sending ${stdout.received}/${stderr.received}`,
              );
            }
            let readsAfter: FreshRead[] | undefined;
            if (message.reads !== undefined) {
              if (readAfter === undefined || after === undefined)
                return this.protocolViolation(`exec request ${id} exited with reads it did not ask for`);
              const taken = this.checkedReads(`exec request ${id}`, readAfter, after, message.reads, body);
              if (taken === null) return;
              readsAfter = taken;
            }
            settle();
            if (callbackError !== null) return reject(callbackError);
            const result = commandResult(message, stdout.bytes(), stderr.bytes());
            if (readsAfter !== undefined) result.readsAfter = readsAfter;
            resolve(result);
          } else if (message.type === "error") {
            settle();
            if (unlessChanged !== undefined && message.code === CHANGED_CODE)
              reject(new SandboxFilesChangedError(message.code, message.message));
            else reject(new ExecutorRequestError(message.code, message.message));
          } else {
            this.protocolViolation(`${describeMessage(message)} answered exec request ${id}`);
          }
        },
        onClosed: (error) => {
          settle();
          reject(error);
        },
      });
      // Cancelled already: the exec and its cancel leave in one write, so the executor reads them together
      // and the cancel finds the exec before its readBefore can end (a read in the executor's own process
      // ends within the same turn of its event loop, before a cancel arriving in a later chunk is seen).
      const cancelledAlready = signal?.aborted === true;
      if (cancelledAlready) this.output.cork();
      this.send(
        {
          op: "exec",
          argv: request.argv,
          cwd: request.cwd,
          env: request.env,
          timeoutMs: request.timeoutMs,
          maxOutputBytes: request.maxOutputBytes,
          runAs: request.runAs,
          readBefore: unlessChanged && { paths: unlessChanged.paths, maxBytes: unlessChanged.maxBytes, since: unlessChanged.tokens },
          readAfter: readAfter && after && { paths: readAfter.paths, maxBytes: readAfter.maxBytes, since: after.since },
        },
        id,
        request.stdin,
      );
      this.armDeadline(id, request.timeoutMs + this.deadlines.graceMs, `exec request ${id} (timeout ${request.timeoutMs} ms)`);
      // Checked after sending: the executor reads requests in order, so the cancel finds the exec.
      if (signal?.aborted) cancel();
      else signal?.addEventListener("abort", cancel, { once: true });
      if (cancelledAlready) this.output.uncork();
    });
  }

  async readFile(path: string, maxBytes: number, reads?: FileOperationReads): Promise<ReadFileResult> {
    const { result, body } = await this.call({ op: "readFile", path, maxBytes }, "readFile", {
      check: (_, content) => (content.length > maxBytes ? `${content.length} bytes of content, more than the ${maxBytes} asked for` : null),
      reads,
    });
    return {
      content: body,
      size: result.size,
      truncated: result.truncated,
      realPath: result.realPath,
      readOnlyMount: result.readOnlyMount,
    };
  }

  async readFiles(paths: string[], maxBytes: number): Promise<FreshRead[]> {
    const { known, since } = this.knownReads(paths);
    const { result, body } = await this.call({ op: "readFiles", paths, maxBytes, since }, "readFiles", {
      check: ({ files }, content) => checkReadFiles(files, content, since, maxBytes),
    });
    return this.takeReads(paths, known, result.files, body);
  }

  /** What was read last of each path (kept so that an unchanged file is not sent again), with its token. */
  private knownReads(paths: string[]): { known: Array<RememberedRead | undefined>; since: Array<string | null> } {
    const known = paths.map((path) => this.lastReads.get(path));
    return { known, since: known.map((read) => read?.token ?? null) };
  }

  /**
   * A request's reads after it, checked as a readFiles answer to what it asked, then taken (takeReads);
   * null when they break the rules, the channel closed for it.
   */
  private checkedReads(
    request: string,
    readAfter: { paths: string[]; maxBytes: number },
    after: { known: Array<RememberedRead | undefined>; since: Array<string | null> },
    entries: ReadFilesEntry[],
    body: Buffer,
  ): FreshRead[] | null {
    const problem = checkReadFiles(entries, body, after.since, readAfter.maxBytes);
    if (problem === null) return this.takeReads(readAfter.paths, after.known, entries, body);
    this.protocolViolation(`${request}'s reads: ${problem}`);
    return null;
  }

  /** A checked readFiles answer as reads, keeping what was read for next time. */
  private takeReads(paths: string[], known: Array<RememberedRead | undefined>, files: ReadFilesEntry[], body: Buffer): FreshRead[] {
    let offset = 0;
    return files.map((entry, index): FreshRead => {
      const path = paths[index]!;
      if (entry.status === "failed") {
        this.lastReads.forget(path);
        return { ok: false, code: entry.code, message: entry.message, token: entry.token };
      }
      // Checked: an unchanged entry answers the token we sent, whose read we kept.
      const content = entry.unchanged ? known[index]!.file.content : body.subarray(offset, offset + entry.bytes);
      offset += entry.bytes;
      const file = { content, size: entry.size, truncated: entry.truncated, realPath: entry.realPath, readOnlyMount: entry.readOnlyMount };
      if (entry.truncated) this.lastReads.forget(path);
      else this.lastReads.remember(path, { token: entry.token, file });
      return { ok: true, file, token: entry.token };
    });
  }

  async writeFile(path: string, content: Buffer, mode?: number, reads?: FileOperationReads): Promise<void> {
    await this.call({ op: "writeFile", path, mode }, "writeFile", { body: content, reads });
  }

  async listFiles(path: string, reads?: FileOperationReads): Promise<FileEntry[]> {
    const { result } = await this.call({ op: "listFiles", path }, "listFiles", { reads });
    return result.entries;
  }

  async deleteFile(path: string, recursive: boolean, reads?: FileOperationReads): Promise<void> {
    await this.call({ op: "deleteFile", path, recursive }, "deleteFile", { reads });
  }

  async stat(path: string): Promise<{ info: FileInfo | null; realPath: string }> {
    const { result } = await this.call({ op: "stat", path }, "stat");
    return { info: result.info, realPath: result.realPath };
  }

  async walk(
    path: string,
    options: { recursive: boolean; after?: string; limit: number; exclude?: string[] },
  ): Promise<{ entries: TreeEntry[]; more: boolean }> {
    const { result } = await this.call({ op: "walk", path, ...options }, "walk", {
      check: ({ entries }) =>
        entries.length > options.limit ? `${entries.length} entries, more than the limit of ${options.limit}` : null,
    });
    return { entries: result.entries, more: result.more };
  }

  async usage(paths: string[], exclude?: string[]): Promise<{ files: number; bytes: number }> {
    const { result } = await this.call({ op: "usage", paths, exclude }, "usage");
    return { files: result.files, bytes: result.bytes };
  }

  async readFileChunk(path: string, offset: number, length: number): Promise<{ content: Buffer; size: number }> {
    const { result, body } = await this.call({ op: "readFileChunk", path, offset, length }, "readFileChunk", {
      check: ({ bytesRead }, content) => {
        if (bytesRead > length) return `${bytesRead} bytes read, more than the ${length} asked for`;
        return content.length === bytesRead ? null : `${content.length} bytes of content for ${bytesRead} bytes read`;
      },
    });
    return { content: body, size: result.size };
  }

  async appendFile(path: string, offset: number, content: Buffer, options: { create?: boolean } = {}): Promise<number> {
    const { result } = await this.call({ op: "appendFile", path, offset, create: options.create ?? false }, "appendFile", {
      body: content,
    });
    return result.size;
  }

  async moveFile(from: string, to: string, overwrite: boolean): Promise<void> {
    await this.call({ op: "moveFile", from, to, overwrite }, "moveFile");
  }

  /**
   * Root's tar of what lies under the absolute paths (owners and modes kept, names from "/"); rejects
   * with a SandboxFileError of code TOO_LARGE_CODE past maxBytes (at most MAX_FRAME_PART_BYTES).
   */
  async exportTree(paths: string[], maxBytes: number): Promise<Buffer> {
    const { body } = await this.call({ op: "exportTree", paths, maxBytes }, "exportTree", {
      check: (_result, tar) => (tar.length > maxBytes ? `a tar of ${tar.length} bytes, more than the ${maxBytes} asked for` : null),
    });
    return body;
  }

  /** Root's extract of a tar at "/" (owners and modes as the tar gives them); the number of entries placed. */
  async extractTree(tar: Buffer): Promise<number> {
    const { result } = await this.call({ op: "extractTree" }, "extractTree", { body: tar });
    return result.entries;
  }

  async listenEgress(port: number, host = "127.0.0.1"): Promise<number> {
    const { result } = await this.call({ op: "egressListen", host, port }, "egressListen", {
      // The executor retries a port still held by its predecessor for EGRESS_LISTEN_RETRY_MS.
      deadlineMs: EGRESS_LISTEN_RETRY_MS + this.deadlines.graceMs,
    });
    return result.port;
  }

  onEgressStream(handler: (stream: Duplex) => void): void {
    this.egressStreams.setHandler(handler);
  }

  /** Ends the executor's stdin (it then kills what it still runs and exits); pending calls fail. */
  close(): void {
    // The input is left to drain until the executor exits: destroying it now would hand a still-running
    // executor EPIPE on its next write, instead of the clean EOF-driven shutdown. For the grace at most:
    // once seen, the engine kept an exec's stream open after its container was removed (under runsc),
    // and the stream held its process open with it.
    this.shutDown("the channel was closed", undefined, { keepReading: true });
    if (this.input.destroyed) return;
    const drained = setTimeout(() => this.input.destroy(), this.deadlines.graceMs);
    drained.unref();
    this.input.once("close", () => clearTimeout(drained));
  }

  /**
   * The sandbox is gone with its files (its machine was lost): every pending and later call fails at once
   * with SandboxLostError saying `reason`. Waits for nothing from the peer, which may never answer again.
   */
  lose(reason: string): void {
    if (this.closeReason !== null) return;
    this.lost = true;
    this.shutDown(reason);
  }

  /**
   * Sends a request (with `body` as its frame body) that is answered by a `result` or an `error`:
   * resolves with the result once it is the one `expected` and `check` finds nothing wrong with it.
   */
  private call<Op extends ResultOp>(
    request: OutgoingRequest,
    expected: Op,
    { body, check, deadlineMs, reads }: { body?: Buffer; check?: ResultCheck<Op>; deadlineMs?: number; reads?: FileOperationReads } = {},
  ): Promise<{ result: ResultOf<Op>; body: Buffer }> {
    return new Promise((resolve, reject) => {
      if (this.closeReason !== null) return reject(this.unavailable());
      const id = this.nextId++;
      const unlessChanged = reads?.unlessChanged;
      const readAfter = reads?.readAfter;
      const after = readAfter ? this.knownReads(readAfter.paths) : undefined;
      let readsAfter: FreshRead[] | undefined;
      // The operation went ahead (its files confirmed) and ended: its reader is told before its outcome.
      const tell = (): unknown => {
        try {
          reads?.onStarted?.();
          if (readsAfter !== undefined) reads?.onReadsAfter?.(readsAfter);
          return null;
        } catch (error) {
          return error;
        }
      };
      this.pending.set(id, {
        onResponse: (message, responseBody) => {
          if (message.type === "reads") {
            if (readAfter === undefined || after === undefined || readsAfter !== undefined) {
              return this.protocolViolation(
                `${describeMessage(message)} for ${expected} request ${id}, which ${readAfter ? "had its reads already" : "asked for none"}`,
              );
            }
            readsAfter = this.checkedReads(`${expected} request ${id}`, readAfter, after, message.reads, responseBody) ?? undefined;
            return;
          }
          if (message.type === "error") {
            const changed = unlessChanged !== undefined && message.code === CHANGED_CODE;
            // Files changed: the operation was not done, so nothing was read after it either.
            if (changed && readsAfter !== undefined)
              return this.protocolViolation(
                `${expected} request ${id} said its files had changed (nothing done) after sending what it read after it`,
              );
            this.endRequest(id);
            if (changed) return reject(new SandboxFilesChangedError(message.code, message.message));
            const failed = tell();
            return reject(failed ?? requestError(expected, message.code, message.message));
          }
          if (message.type !== "result" || message.result.op !== expected) {
            return this.protocolViolation(`${describeMessage(message)} answered ${expected} request ${id}`);
          }
          // The op was just compared: this is the result shape the table declares for `expected`.
          const result = message.result as ResultOf<Op>;
          const problem = check?.(result, responseBody) ?? null;
          if (problem !== null) return this.protocolViolation(`${expected} request ${id}: ${problem}`);
          this.endRequest(id);
          const failed = tell();
          if (failed !== null) return reject(failed);
          resolve({ result, body: responseBody });
        },
        onClosed: (error) => {
          this.endRequest(id);
          reject(error);
        },
      });
      const around = {
        ...(unlessChanged
          ? { readBefore: { paths: unlessChanged.paths, maxBytes: unlessChanged.maxBytes, since: unlessChanged.tokens } }
          : {}),
        ...(readAfter && after ? { readAfter: { paths: readAfter.paths, maxBytes: readAfter.maxBytes, since: after.since } } : {}),
      };
      this.send({ ...request, ...around } as OutgoingRequest, id, body);
      this.armDeadline(id, deadlineMs ?? this.deadlines.fileOperationMs, `${expected} request ${id}`);
    });
  }

  /**
   * Gives the pending request `id` until `ms` from now to end; past that the channel is broken. With
   * onlyIfSooner, an earlier deadline already set is kept.
   */
  private armDeadline(id: number, ms: number, what: string, { onlyIfSooner = false } = {}): void {
    const pending = this.pending.get(id);
    if (pending === undefined) return;
    const due = Date.now() + ms;
    if (onlyIfSooner && pending.deadlineAt !== undefined && pending.deadlineAt <= due) return;
    if (pending.deadline) clearTimeout(pending.deadline);
    pending.deadline = setTimeout(
      () => this.shutDown(`the executor did not end ${what} within ${ms} ms`, undefined, { broken: true }),
      Math.min(ms, MAX_TIMER_DELAY_MS),
    );
    pending.deadlineAt = due;
  }

  private endRequest(id: number): void {
    const pending = this.pending.get(id);
    if (pending?.deadline) clearTimeout(pending.deadline);
    this.pending.delete(id);
  }

  private cancel(target: number): void {
    if (this.closeReason !== null || !this.pending.has(target)) return;
    const id = this.nextId++;
    // The exec's own `exit` (cancelled: true) is what the caller waits for; this answer only needs consuming.
    this.pending.set(id, {
      onResponse: (message) => {
        if (message.type === "error" || (message.type === "result" && message.result.op === "cancel")) this.endRequest(id);
        else this.protocolViolation(`${describeMessage(message)} answered cancel request ${id}`);
      },
      onClosed: () => this.endRequest(id),
    });
    this.send({ op: "cancel", target }, id);
    this.armDeadline(id, this.deadlines.graceMs, `cancel request ${id}`);
  }

  private send(request: OutgoingRequest, id: number, body?: Buffer): void {
    // Writable buffering absorbs bursts; the executor reads continuously, so no backpressure wait here.
    writeFrame(this.output, { ...request, id }, body);
  }

  private sendEgressFrame(frame: EgressFrame, body?: Buffer): void {
    if (this.closeReason === null) writeFrame(this.output, frame, body);
  }

  private receive(chunk: Buffer): void {
    if (this.closeReason !== null) return;
    let frames: Frame<unknown>[];
    try {
      frames = this.decoder.push(chunk);
    } catch (error) {
      this.shutDown(`the executor sent a corrupt frame: ${(error as Error).message}`, error);
      return;
    }
    for (const frame of frames) {
      // A violation closes the channel; what followed it in the same chunk is not looked at.
      if (this.closeReason !== null) return;
      if (isEgressFrameHeader(frame.header)) {
        const egressFrame = checkEgressFrame(frame.header);
        if (!egressFrame.ok)
          return this.protocolViolation(`malformed egress frame (${egressFrame.problem}): ${headerForLog(frame.header)}`);
        this.egressStreams.receive(egressFrame.value, frame.body);
        continue;
      }
      const checked = checkResponse(frame.header);
      if (!checked.ok) return this.protocolViolation(`malformed response (${checked.problem}): ${headerForLog(frame.header)}`);
      const message = checked.value;
      if (frame.body.length > 0 && !responseCarriesBody(message)) {
        return this.protocolViolation(`${describeMessage(message)} for request ${message.id} came with a ${frame.body.length}-byte body`);
      }
      const pending = this.pending.get(message.id);
      if (pending === undefined) {
        // Every request stays pending until its one terminal message, and nothing follows that message.
        const whose = message.id >= 1 && message.id < this.nextId ? "which had already ended" : "which was never made";
        return this.protocolViolation(`${describeMessage(message)} for request ${message.id}, ${whose}`);
      }
      pending.onResponse(message, frame.body);
    }
  }

  private protocolViolation(detail: string): void {
    this.shutDown(`executor protocol violation: ${detail}`, undefined, { broken: true });
  }

  /** The stream ended or broke on the peer's side: shut down, after beforePeerEnd when there is one. */
  private peerEnded(reason: string, cause?: unknown): void {
    const before = this.options.beforePeerEnd;
    if (!before || this.closeReason !== null) return this.shutDown(reason, cause);
    if (this.peerEnding) return;
    this.peerEnding = true;
    before().then(
      () => this.shutDown(reason, cause),
      () => this.shutDown(reason, cause),
    );
  }

  /**
   * keepReading: leave the executor's output to drain (a clean close). broken: the executor may still
   * run but can no longer be trusted or waited for; the runtime is told so it can end it.
   */
  private shutDown(reason: string, cause?: unknown, options: { keepReading?: boolean; broken?: boolean } = {}): void {
    if (this.closeReason !== null) return;
    this.closeReason = reason;
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const request of waiting) {
      if (request.deadline) clearTimeout(request.deadline);
      request.onClosed(this.unavailable(cause));
    }
    this.egressStreams.destroyAll(this.unavailable(cause));
    try {
      this.output.end();
    } catch {
      // Already destroyed: the executor sees EOF either way.
    }
    // Frames still arriving are dropped by receive().
    if (!options.keepReading) this.input.destroy();
    this.markClosed();
    if (options.broken) this.options.onBroken?.(reason);
  }

  private unavailable(cause?: unknown): SandboxUnavailableError {
    const message = `sandbox executor unavailable: ${this.closeReason ?? "closed"}`;
    const Kind = this.lost ? SandboxLostError : SandboxUnavailableError;
    return cause === undefined ? new Kind(message) : new Kind(message, { cause });
  }
}

/** Keeps the first `limit` bytes of a stream. */
class CappedOutput {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  /** Every byte that arrived, kept or not. */
  received = 0;

  constructor(private readonly limit: number) {}

  /** Returns the part of the chunk that was kept (possibly empty). */
  append(chunk: Buffer): Buffer {
    this.received += chunk.length;
    const room = this.limit - this.kept;
    if (room <= 0) return chunk.subarray(0, 0);
    const kept = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.chunks.push(kept);
    this.kept += kept.length;
    return kept;
  }

  bytes(): Buffer {
    // Output that came in one frame (the executor reads up to a pipe's worth at a time) is not copied again.
    return this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.kept);
  }
}

/** What is wrong with a readFiles answer given what was asked (`since`: the tokens sent), or null. */
function checkReadFiles(files: ReadFilesEntry[], body: Buffer, since: (string | null)[], maxBytes: number): string | null {
  if (files.length !== since.length) return `${files.length} entries for ${since.length} paths`;
  let bytes = 0;
  for (const [index, entry] of files.entries()) {
    if (entry.status !== "found") continue;
    if (entry.unchanged && entry.token !== since[index]) return `entry ${index} is unchanged, but not since the token sent`;
    if (entry.bytes > maxBytes) return `entry ${index} has ${entry.bytes} bytes of content, more than the ${maxBytes} asked for`;
    bytes += entry.bytes;
  }
  return bytes === body.length ? null : `${body.length} bytes of content for entries totalling ${bytes}`;
}

function requestError(op: ResultOp, code: string, message: string): Error {
  // The executor could not do it at all: the outcome is unknown, which a caller must not take for a
  // missing or unreadable file (a hooks.json that "cannot be read" would contribute no hooks).
  if (code === UNAVAILABLE_CODE) return new SandboxUnavailableError(`sandbox executor unavailable: ${message}`);
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
    overDiskLimit: exit.overDiskLimit,
    stdout,
    stderr,
    stdoutBytes: exit.stdoutBytes,
    stderrBytes: exit.stderrBytes,
    durationMs: exit.durationMs,
  };
}

/** A message as named in violation reports: "a stdout message", "an exit message", "a readFile result". */
function describeMessage(message: Response): string {
  const name = message.type === "result" ? `${message.result.op} result` : `${message.type} message`;
  return `${/^[aeiou]/.test(name) ? "an" : "a"} ${name}`;
}

function headerForLog(header: unknown): string {
  const shown = JSON.stringify(header) ?? "undefined";
  return shown.length > 200 ? `${shown.slice(0, 200)}…` : shown;
}
