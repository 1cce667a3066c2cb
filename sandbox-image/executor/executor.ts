// The executor: requests arrive as frames on stdin and are handled concurrently; each is answered on
// stdout with exactly one terminal message. Commands run as the identity their request names; file
// operations run here (no identities: the local executor) or in the file worker (file-worker-link.ts).

import { describeError, logDiagnostic } from "./diagnostics.js";
import { DiskGuard, type DiskReading } from "./disk-guard.js";
import { readForExec, whyChanged, type ExecReads } from "./exec-reads.js";
import { EgressListener } from "./egress-listener.js";
import { answerFileRequest, isFileRequest, type FileRequest } from "./file-requests.js";
import { FileWorkerLink } from "./file-worker-link.js";
import type { Identity } from "./identities.js";
import { killAllOf } from "./identity-processes.js";
import { OomScore } from "./oom-score.js";
import {
  BAD_REQUEST_CODE,
  CHANGED_CODE,
  writeFrame,
  FrameDecoder,
  isEgressFrameHeader,
  parseEgressFrame,
  parseRequest,
  PROTOCOL_VERSION,
  type EgressFrame,
  type ExecRequest,
  type Frame,
  type ReadFilesEntry,
  type Response,
  type ResultPayload,
  type RunAs,
} from "./protocol.js";
import { notStartedExit, RunningCommand, type CommandIdentity, type ExitReport } from "./run-command.js";

const MIB = 1024 * 1024;
/** File operations that add bytes: refused while the sandbox's files are past its disk limit. */
const GROWING_OPS = new Set<FileRequest["op"]>(["writeFile", "appendFile"]);
/** File operations after which the disk guard measures again. */
const CHANGING_OPS = new Set<FileRequest["op"]>(["writeFile", "appendFile", "moveFile", "deleteFile"]);

/**
 * identities: empty to run everything as this process (see identities.ts). diskLimitMb: set when the
 * engine cannot bound the sandbox's disk use in total, so the executor guards it (disk-guard.ts).
 */
export function runExecutor(identities: Map<RunAs, Identity>, diskLimitMb: number | null = null): void {
  const running = new Map<number, RunningCommand>();
  /**
   * Execs not started yet (reading their readBefore files, or waiting for the disk guard to finish
   * stopping everything): true once cancelled meanwhile.
   */
  const waiting = new Map<number, { cancelled: boolean }>();
  /** While the disk guard stops every process of the sandbox's users: until its kill rounds are over. */
  let stoppingAll: Promise<void> | null = null;
  const decoder = new FrameDecoder<unknown>();
  let shuttingDown = false;

  const send = (message: Response | EgressFrame, body?: Buffer): void => {
    if (shuttingDown) return;
    writeFrame(process.stdout, message, body);
  };
  const sendResult = (id: number, result: ResultPayload, body?: Buffer): void => send({ type: "result", id, result }, body);
  const sendError = (id: number, code: string, message: string): void => send({ type: "error", id, code, message });

  const egress = new EgressListener(send);
  const isolated = identities.size > 0;
  // With identities, file operations are the sandbox user's, done by a worker acting as that user.
  const fileWorker = isolated ? new FileWorkerLink("sandbox", identities, send) : null;
  // Now, alongside the rest of our start: a new sandbox's first file request (its hooks.json) follows its
  // first ping closely. Measured, this has it ready sooner than starting it after that ping, or before
  // this module loads.
  fileWorker?.warmUp();
  const oomScore = isolated ? new OomScore() : undefined;
  if (oomScore && !oomScore.enabled) logDiagnostic("commands cannot be put first in line for the OOM killer");

  // Every process of the sandbox's users goes, the running commands' exits saying why: a writer left in
  // the background would otherwise go on filling the disk.
  // Commands that arrive meanwhile wait until it is done (startCommand): the exits of the stopped ones
  // are reported at the first kill round, and the client's next command must not be caught by the next.
  const stopEverything = (reading: DiskReading): Promise<void> => {
    logDiagnostic(`disk guard: the sandbox's files take ${describeReading(reading)}; stopping every process of the sandbox's`);
    for (const command of running.values()) command.markOverDiskLimit();
    const stopping = (async () => {
      for (const identity of identities.values()) await killAllOf(identity);
    })();
    stoppingAll = stopping;
    return stopping.finally(() => {
      if (stoppingAll === stopping) stoppingAll = null;
    });
  };
  const diskGuard =
    isolated && diskLimitMb !== null ? new DiskGuard(diskLimitMb * MIB, [...identities.values()], { overLimit: stopEverything }) : null;
  diskGuard?.start();

  const identityFor = (request: ExecRequest): CommandIdentity => {
    const name = request.runAs ?? "sandbox";
    const identity = identities.get(name);
    // Only the sandbox user's commands go first to the OOM killer: hooks are guards, like us.
    return { identity, oomScore: name === "sandbox" ? oomScore : undefined };
  };

  const readFor = (reads: ExecReads) => readForExec(reads, fileWorker);

  const startCommand = (request: ExecRequest, stdin: Buffer): void => {
    // Cancel addresses commands by id, so two live commands must never share one.
    if (running.has(request.id) || waiting.has(request.id)) {
      sendError(request.id, BAD_REQUEST_CODE, `exec: id ${request.id} is already running`);
      return;
    }
    const { readBefore } = request;
    if (readBefore === undefined && stoppingAll === null) return spawnCommand(request, stdin);
    const wait = { cancelled: false };
    waiting.set(request.id, wait);
    void (async () => {
      while (stoppingAll !== null) await stoppingAll.catch(() => undefined);
      const read = readBefore === undefined ? null : await readFor(readBefore);
      waiting.delete(request.id);
      if (shuttingDown) return;
      // Cancelled before it started: it ends as a command killed at once would.
      if (wait.cancelled) return sendExit(request, notStartedExit(), undefined);
      if (readBefore !== undefined && read !== null) {
        const changed = whyChanged(read, readBefore.paths, readBefore.since);
        if (changed !== null) return sendError(request.id, CHANGED_CODE, `exec: not started, ${changed}`);
        send({ type: "started", id: request.id });
      }
      spawnCommand(request, stdin);
    })();
  };

  const spawnCommand = (request: ExecRequest, stdin: Buffer): void => {
    const command = new RunningCommand(
      request,
      {
        output: (stream, chunk) => send({ type: stream, id: request.id }, chunk),
        exit: (report) => {
          running.delete(request.id);
          diskGuard?.noteActivity();
          // After a cancel nobody runs post hooks: nothing to read for them.
          const after = report.cancelled ? undefined : request.readAfter;
          if (after === undefined) return sendExit(request, report, undefined);
          void readFor(after).then((read) => sendExit(request, report, read.ok ? read : undefined));
        },
      },
      identityFor(request),
    );
    running.set(request.id, command);
    command.start(stdin);
    diskGuard?.noteActivity();
  };

  /** The exit, with the files read after the command when they could be (else the server reads them). */
  const sendExit = (request: ExecRequest, report: ExitReport, read: { files: ReadFilesEntry[]; body: Buffer } | undefined): void => {
    if (read === undefined) send({ type: "exit", id: request.id, ...report });
    else send({ type: "exit", id: request.id, ...report, reads: read.files }, read.body);
  };

  const handleFileRequest = (request: FileRequest, body: Buffer): void => {
    const over = GROWING_OPS.has(request.op) ? diskGuard?.overLimit : null;
    if (over) {
      sendError(request.id, "ENOSPC", `the sandbox's files take ${describeReading(over)}; delete files to make room`);
      return;
    }
    if (CHANGING_OPS.has(request.op)) diskGuard?.noteActivity();
    if (fileWorker) return fileWorker.forward(request, body);
    void answerFileRequest(request, body).then((answer) => {
      if (answer.ok) sendResult(request.id, answer.result, answer.body);
      else sendError(request.id, answer.code, answer.message);
    });
  };

  const handleFrame = (frame: Frame<unknown>): void => {
    if (isEgressFrameHeader(frame.header)) {
      const egressFrame = parseEgressFrame(frame.header);
      // Stream frames have no request id to answer an error to; a bad one is a server bug, logged and dropped.
      if (egressFrame === null || egressFrame.egress === "open") logDiagnostic("ignoring a malformed egress frame");
      else egress.receive(egressFrame, frame.body);
      return;
    }
    const parsed = parseRequest(frame.header);
    if (!parsed.ok) {
      if (parsed.id === null) logDiagnostic(`ignoring frame without a usable id: ${parsed.message}`);
      else sendError(parsed.id, BAD_REQUEST_CODE, parsed.message);
      return;
    }
    const request = parsed.request;
    if (isFileRequest(request)) {
      handleFileRequest(request, frame.body);
    } else if (request.op === "exec") {
      startCommand(request, frame.body);
    } else if (request.op === "cancel") {
      const wait = waiting.get(request.target);
      if (wait) wait.cancelled = true;
      const found = wait !== undefined || (running.get(request.target)?.cancel() ?? false);
      sendResult(request.id, { op: "cancel", found });
    } else if (request.op === "ping") {
      sendResult(request.id, { op: "ping", version: PROTOCOL_VERSION, pid: process.pid, uid: process.getuid?.() ?? -1 });
    } else {
      egress.listen(request.host, request.port).then(
        (port) => sendResult(request.id, { op: "egressListen", port }),
        (error: NodeJS.ErrnoException) => sendError(request.id, error.code ?? "EIO", `egressListen: ${describeError(error)}`),
      );
    }
  };

  /**
   * Commands run in their own sessions, so they would outlive us: kill every tree before exiting.
   * Bounded, because a wedged kill must not keep a dead channel's executor around forever.
   */
  const shutdown = async (exitCode: number, reason: string): Promise<void> => {
    if (shuttingDown) return;
    shuttingDown = true;
    if (exitCode !== 0) logDiagnostic(reason);
    // First, so programs see their proxy connections reset at once and the port is free for the next executor.
    egress.closeAll();
    diskGuard?.stop();
    fileWorker?.close();
    const kills = Promise.all([...running.values()].map((command) => command.kill()));
    await Promise.race([kills, new Promise((resolve) => setTimeout(resolve, 5000))]);
    process.exit(exitCode);
  };

  process.stdin.on("data", (chunk: Buffer) => {
    if (shuttingDown) return;
    let frames: Frame<unknown>[];
    try {
      frames = decoder.push(chunk);
    } catch (error) {
      // Framing is lost: nothing after this point can be trusted to be a request.
      void shutdown(2, `corrupt request stream: ${describeError(error)}`);
      return;
    }
    for (const frame of frames) handleFrame(frame);
  });
  process.stdin.on("end", () => void shutdown(0, "stdin closed"));
  process.stdin.on("error", (error) => void shutdown(1, `stdin: ${describeError(error)}`));
  // EPIPE: the server stopped listening, which is one way of closing the channel; nobody is left to answer.
  process.stdout.on(
    "error",
    (error: NodeJS.ErrnoException) => void shutdown(error.code === "EPIPE" ? 0 : 1, `stdout: ${describeError(error)}`),
  );
  process.on("SIGTERM", () => void shutdown(143, "SIGTERM"));
  process.on("SIGINT", () => void shutdown(130, "SIGINT"));
  process.on("uncaughtException", (error) => void shutdown(70, `internal error: ${error.stack ?? describeError(error)}`));
}

function describeReading(reading: DiskReading): string {
  const mib = (bytes: number): string => (bytes / MIB).toFixed(1);
  return `${mib(reading.bytes)} MiB, past the sandbox's disk limit of ${mib(reading.limitBytes)} MiB in total`;
}
