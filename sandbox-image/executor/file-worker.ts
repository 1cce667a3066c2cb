// The file worker: a second executor process that does the file operations of one identity (the
// sandbox user). It keeps uid 0 as its real and saved uid, so that user's processes can neither signal
// nor trace it, and acts with that user's effective uid, gid and groups, so that every access is checked
// exactly as for the user and what it creates belongs to the user (identities.ts). The executor forwards
// file requests to it over its stdin and passes its answers on (file-worker-link.ts).

import { describeError, logDiagnostic } from "./diagnostics.js";
import { answerFileRequest, isFileRequest } from "./file-requests.js";
import { becomeFileWorker, type Identity } from "./identities.js";
import { BAD_REQUEST_CODE, FrameDecoder, parseRequest, type Frame, type Response, writeFrame } from "./protocol.js";

export function runFileWorker(identity: Identity): void {
  // Before reading a single request: nothing is ever done as root here.
  becomeFileWorker(identity);
  const decoder = new FrameDecoder<unknown>();
  const send = (message: Response, body?: Buffer): void => void writeFrame(process.stdout, message, body);

  const handle = (frame: Frame<unknown>): void => {
    const parsed = parseRequest(frame.header);
    if (!parsed.ok) {
      if (parsed.id === null) logDiagnostic(`file worker: ignoring a frame without a usable id: ${parsed.message}`);
      else send({ type: "error", id: parsed.id, code: BAD_REQUEST_CODE, message: parsed.message });
      return;
    }
    const { request } = parsed;
    if (!isFileRequest(request)) {
      send({ type: "error", id: request.id, code: BAD_REQUEST_CODE, message: `${request.op} is not a file operation` });
      return;
    }
    void answerFileRequest(request, frame.body).then((answer) => {
      if (answer.ok) send({ type: "result", id: request.id, result: answer.result }, answer.body);
      else send({ type: "error", id: request.id, code: answer.code, message: answer.message });
    });
  };

  process.stdin.on("data", (chunk: Buffer) => {
    let frames: Frame<unknown>[];
    try {
      frames = decoder.push(chunk);
    } catch (error) {
      logDiagnostic(`file worker: corrupt request stream: ${describeError(error)}`);
      process.exit(2);
    }
    for (const frame of frames) handle(frame);
  });
  // The executor closing our stdin (or dying) is the end of our work.
  process.stdin.on("end", () => process.exit(0));
  process.stdout.on("error", () => process.exit(0));
}
