// The executor: runs inside a sandbox container, speaks the frame protocol on stdin/stdout.
// Requests are handled concurrently; each is answered with exactly one terminal message.
// Only node: built-ins here: this runs on the image's Node.js 18 with no node_modules.

import { describeError, logDiagnostic } from "./diagnostics.js";
import { EgressListener } from "./egress-listener.js";
import { deletePath, FileOpError, listDirectory, readFileHead, writeFileCreatingParents } from "./file-ops.js";
import { appendFileAt, moveFile, readFileChunk } from "./file-transfer.js";
import { diskUsage, statPath, walkTree } from "./file-tree.js";
import {
  BAD_REQUEST_CODE,
  encodeFrame,
  FrameDecoder,
  isEgressFrameHeader,
  parseEgressFrame,
  parseRequest,
  PROTOCOL_VERSION,
  type EgressFrame,
  type ExecRequest,
  type Frame,
  type Request,
  type Response,
  type ResultPayload,
} from "./protocol.js";
import { RunningCommand } from "./run-command.js";

const running = new Map<number, RunningCommand>();
const decoder = new FrameDecoder<unknown>();
let shuttingDown = false;

function send(message: Response | EgressFrame, body?: Buffer): void {
  if (shuttingDown) return;
  process.stdout.write(encodeFrame(message, body));
}

const egress = new EgressListener(send);

function sendResult(id: number, result: ResultPayload, body?: Buffer): void {
  send({ type: "result", id, result }, body);
}

function sendError(id: number, code: string, message: string): void {
  send({ type: "error", id, code, message });
}

function handleFrame(frame: Frame<unknown>): void {
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
  if (request.op === "exec") {
    startCommand(request, frame.body);
  } else if (request.op === "cancel") {
    const found = running.get(request.target)?.cancel() ?? false;
    sendResult(request.id, { op: "cancel", found });
  } else if (request.op === "ping") {
    sendResult(request.id, { op: "ping", version: PROTOCOL_VERSION, pid: process.pid, uid: process.getuid?.() ?? -1 });
  } else if (request.op === "egressListen") {
    egress.listen(request.host, request.port).then(
      (port) => sendResult(request.id, { op: "egressListen", port }),
      (error: NodeJS.ErrnoException) => sendError(request.id, error.code ?? "EIO", `egressListen: ${describeError(error)}`),
    );
  } else {
    handleFileRequest(request, frame.body).then(
      ({ result, body }) => sendResult(request.id, result, body),
      (error: unknown) => {
        if (error instanceof FileOpError) sendError(request.id, error.code, error.message);
        else sendError(request.id, "EIO", `${request.op}: ${describeError(error)}`);
      },
    );
  }
}

function startCommand(request: ExecRequest, stdin: Buffer): void {
  // Cancel addresses commands by id, so two live commands must never share one.
  if (running.has(request.id)) {
    sendError(request.id, BAD_REQUEST_CODE, `exec: id ${request.id} is already running`);
    return;
  }
  const command = new RunningCommand(request, {
    output: (stream, chunk) => send({ type: stream, id: request.id }, chunk),
    exit: (report) => {
      running.delete(request.id);
      send({ type: "exit", id: request.id, ...report });
    },
  });
  running.set(request.id, command);
  command.start(stdin);
}

type FileRequest = Exclude<Request, { op: "exec" | "cancel" | "ping" | "egressListen" }>;

async function handleFileRequest(request: FileRequest, body: Buffer): Promise<{ result: ResultPayload; body?: Buffer }> {
  switch (request.op) {
    case "readFile": {
      const { content, size, truncated, realPath } = await readFileHead(request.path, request.maxBytes);
      return { result: { op: "readFile", size, truncated, realPath }, body: content };
    }
    case "writeFile":
      return { result: { op: "writeFile", size: await writeFileCreatingParents(request.path, body, request.mode) } };
    case "listFiles":
      return { result: { op: "listFiles", entries: await listDirectory(request.path) } };
    case "deleteFile":
      await deletePath(request.path, request.recursive);
      return { result: { op: "deleteFile" } };
    case "stat":
      return { result: { op: "stat", ...(await statPath(request.path)) } };
    case "walk": {
      const { recursive, after, limit, exclude } = request;
      return { result: { op: "walk", ...(await walkTree(request.path, { recursive, after, limit, exclude })) } };
    }
    case "usage":
      return { result: { op: "usage", ...(await diskUsage(request.paths, request.exclude)) } };
    case "readFileChunk": {
      const { content, size } = await readFileChunk(request.path, request.offset, request.length);
      return { result: { op: "readFileChunk", size, bytesRead: content.length }, body: content };
    }
    case "appendFile":
      return { result: { op: "appendFile", size: await appendFileAt(request.path, request.offset, request.create, body) } };
    case "moveFile":
      await moveFile(request.from, request.to, request.overwrite);
      return { result: { op: "moveFile" } };
  }
}

/**
 * Commands run in their own sessions, so they would outlive us: kill every tree before exiting.
 * Bounded, because a wedged kill must not keep a dead channel's executor around forever.
 */
async function shutdown(exitCode: number, reason: string): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  if (exitCode !== 0) logDiagnostic(reason);
  // First, so programs see their proxy connections reset at once and the port is free for the next executor.
  egress.closeAll();
  const kills = Promise.all([...running.values()].map((command) => command.kill()));
  await Promise.race([kills, new Promise((resolve) => setTimeout(resolve, 5000))]);
  process.exit(exitCode);
}

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
