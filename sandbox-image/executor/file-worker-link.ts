// The executor's side of its file worker (file-worker.ts): started once the executor has answered its
// first request (the server's ping), so the two Node.js start-ups do not compete for the CPU and the
// first file request rarely waits for one; started again whenever it has ended (killed, say).
// Requests are passed on as they came and answers passed back unchanged; a request the worker had not
// answered when it ended fails with EIO, and the server may send it again.

import { spawn, type ChildProcessByStdio } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { describeError, logDiagnostic } from "./diagnostics.js";
import type { FileRequest } from "./file-requests.js";
import { FILE_WORKER_FLAG, identityArguments, type Identity } from "./identities.js";
import { encodeFrame, FrameDecoder, type Frame, type Response } from "./protocol.js";
import type { RunAs } from "./protocol.js";

type WorkerProcess = ChildProcessByStdio<Writable, Readable, null>;

export class FileWorkerLink {
  private worker: WorkerProcess | null = null;
  /** Requests the current worker has not answered yet: id → op, for the error if it ends first. */
  private readonly pending = new Map<number, string>();
  private closed = false;

  constructor(
    private readonly actingAs: RunAs,
    private readonly identities: Map<RunAs, Identity>,
    private readonly answer: (message: Response, body?: Buffer) => void,
  ) {}

  /** Starts the worker ahead of the first file request. */
  warmUp(): void {
    this.ensureWorker();
  }

  forward(request: FileRequest, body: Buffer): void {
    const worker = this.ensureWorker();
    if (worker === null) {
      this.answer({ type: "error", id: request.id, code: "EIO", message: `${request.op}: the file worker could not be started` });
      return;
    }
    this.pending.set(request.id, request.op);
    worker.stdin.write(encodeFrame(request, body));
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
    worker.stdin.on("error", () => {}); // it ended: reported by 'exit'
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
    worker.on("exit", (code, signal) => this.onWorkerExit(worker, code, signal));
    return worker;
  }

  private passOn(frame: Frame<unknown>): void {
    const id = (frame.header as { id?: unknown } | null)?.id;
    // Our own worker answers only what it was asked; anything else would be a bug of ours, dropped here.
    if (typeof id !== "number" || !this.pending.delete(id)) {
      logDiagnostic(`file worker answered a request it was not given: ${JSON.stringify(frame.header)?.slice(0, 200)}`);
      return;
    }
    this.answer(frame.header as Response, frame.body);
  }

  private onWorkerExit(worker: WorkerProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.worker !== worker) return;
    this.worker = null;
    const how = signal === null ? `exited with ${code}` : `was killed by ${signal}`;
    if (!this.closed) logDiagnostic(`file worker ${how}; a new one starts with the next file request`);
    for (const [id, op] of this.pending) {
      this.answer({ type: "error", id, code: "EIO", message: `${op}: interrupted, the sandbox's file worker ${how}` });
    }
    this.pending.clear();
  }
}
