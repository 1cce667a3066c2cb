// The executor's side of its file worker (file-worker.ts): started with the executor, so that it is
// usually up by a new sandbox's first file request (its hooks.json, right after the first ping), and
// again whenever it has ended.
// Requests are passed on as they came and answers passed back unchanged. A request the worker had not
// answered when it ended (it may never have arrived) is sent once more to the next worker if doing it
// twice changes nothing; otherwise, or if that one ends too, it fails with UNAVAILABLE_CODE: its outcome
// is unknown, which is not the same as a file that is missing or unreadable (a hooks.json read that
// failed so must not count as "no hooks").

import { spawn, type ChildProcessByStdio } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { describeError, logDiagnostic } from "./diagnostics.js";
import type { FileRequest } from "./file-requests.js";
import { FILE_WORKER_FLAG, identityArguments, type Identity } from "./identities.js";
import { UNAVAILABLE_CODE } from "./protocol-constants.js";
import { FrameDecoder, type Frame, writeFrame } from "./protocol-frames.js";
import type { Response, RunAs } from "./protocol.js";

type WorkerProcess = ChildProcessByStdio<Writable, Readable, null>;

/**
 * Requests that end the same done once or twice: safe to send again to a new worker. Not deleteFile,
 * moveFile or appendFile: done once already, the second attempt would fail (ENOENT, EOFFSET).
 */
const REPEATABLE_OPS: ReadonlySet<FileRequest["op"]> = new Set([
  "readFile",
  "readFiles",
  "listFiles",
  "stat",
  "walk",
  "usage",
  "readFileChunk",
  "writeFile",
]);

interface Forwarded {
  request: FileRequest;
  body: Buffer;
  /** Already sent to a worker that ended before answering. */
  retried: boolean;
  /** Where its answer goes when the request is the executor's own (ask), not the server's. */
  reply?: (message: Response, body: Buffer) => void;
}

/** The executor's own requests count down from here; the server's count up from 1, so the two never meet. */
const FIRST_OWN_ID = Number.MAX_SAFE_INTEGER;

export class FileWorkerLink {
  private worker: WorkerProcess | null = null;
  /** Requests the current worker has not answered yet, by id. */
  private readonly pending = new Map<number, Forwarded>();
  private closed = false;
  private nextOwnId = FIRST_OWN_ID;

  constructor(
    private readonly actingAs: RunAs,
    private readonly identities: Map<RunAs, Identity>,
    /** Where the worker's answers go (the executor's output). */
    private readonly answer: (message: Response, body?: Buffer) => void,
  ) {}

  /** Starts the worker ahead of the first file request. */
  warmUp(): void {
    this.ensureWorker();
  }

  forward(request: FileRequest, body: Buffer): void {
    this.send({ request, body, retried: false });
  }

  /** Has the worker do a request of the executor's own (an exec's reads); resolves with its answer. */
  ask(request: FileRequest, body: Buffer = Buffer.alloc(0)): Promise<{ message: Response; body: Buffer }> {
    return new Promise((resolve) => {
      const own = { ...request, id: this.nextOwnId-- } as FileRequest;
      this.send({ request: own, body, retried: false, reply: (message, answerBody) => resolve({ message, body: answerBody }) });
    });
  }

  private send(forwarded: Forwarded): void {
    const { request, body } = forwarded;
    const worker = this.ensureWorker();
    if (worker === null) {
      this.deliver(forwarded, {
        type: "error",
        id: request.id,
        code: UNAVAILABLE_CODE,
        message: `${request.op}: the file worker could not be started`,
      });
      return;
    }
    this.pending.set(request.id, forwarded);
    writeFrame(worker.stdin, request, body);
  }

  /** Ends the worker with the executor: its stdin closes, and it is killed if it lingers. */
  close(): void {
    this.closed = true;
    const worker = this.worker;
    if (worker === null) return;
    worker.stdin.end();
    setTimeout(() => worker.kill("SIGKILL"), 1000).unref();
  }

  private ensureWorker(): WorkerProcess | null {
    if (this.worker !== null || this.closed) return this.worker;
    const script = process.argv[1];
    if (script === undefined) return null;
    let worker: WorkerProcess;
    try {
      // As root like us: it changes its effective identity itself, keeping a real uid of 0 (file-worker.ts).
      worker = spawn(
        process.execPath,
        [...process.execArgv, script, FILE_WORKER_FLAG, this.actingAs, ...identityArguments(this.identities)],
        {
          stdio: ["pipe", "pipe", "inherit"],
        },
      );
    } catch (error) {
      logDiagnostic(`starting the file worker failed: ${describeError(error)}`);
      return null;
    }
    this.worker = worker;
    const decoder = new FrameDecoder<unknown>();
    worker.stdin.on("error", () => {}); // it ended: reported by 'close'
    worker.stdout.on("data", (chunk: Buffer) => {
      let frames: Frame<unknown>[];
      try {
        frames = decoder.push(chunk);
      } catch (error) {
        logDiagnostic(`file worker sent a corrupt frame (${describeError(error)}); restarting it`);
        worker.kill("SIGKILL");
        return;
      }
      for (const frame of frames) this.passOn(frame);
    });
    worker.on("error", (error) => logDiagnostic(`file worker: ${describeError(error)}`));
    // close, not exit: by then every answer it wrote has been read, so none is taken for lost.
    worker.on("close", (code, signal) => this.onWorkerExit(worker, code, signal));
    return worker;
  }

  private passOn(frame: Frame<unknown>): void {
    const id = (frame.header as { id?: unknown } | null)?.id;
    const forwarded = typeof id === "number" ? this.pending.get(id) : undefined;
    // Our own worker answers only what it was asked; anything else would be a bug of ours, dropped here.
    if (forwarded === undefined) {
      logDiagnostic(`file worker answered a request it was not given: ${JSON.stringify(frame.header)?.slice(0, 200)}`);
      return;
    }
    this.pending.delete(forwarded.request.id);
    this.deliver(forwarded, frame.header as Response, frame.body);
  }

  private deliver(forwarded: Forwarded, message: Response, body: Buffer = Buffer.alloc(0)): void {
    if (forwarded.reply) forwarded.reply(message, body);
    else this.answer(message, body);
  }

  private onWorkerExit(worker: WorkerProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.worker !== worker) return;
    this.worker = null;
    const how = signal === null ? `exited with ${code}` : `was killed by ${signal}`;
    if (!this.closed) logDiagnostic(`file worker ${how}; a new one starts with the next file request`);
    const interrupted = [...this.pending.values()];
    this.pending.clear();
    for (const forwarded of interrupted) {
      const { request } = forwarded;
      if (!this.closed && !forwarded.retried && REPEATABLE_OPS.has(request.op)) {
        this.send({ ...forwarded, retried: true });
        continue;
      }
      const message = `${request.op}: not done, the sandbox's file worker ${how}`;
      this.deliver(forwarded, { type: "error", id: request.id, code: UNAVAILABLE_CODE, message });
    }
  }
}
