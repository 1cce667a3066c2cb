// The files an exec reads around its command (its readBefore and readAfter): the server's hooks.json
// candidates, read as the sandbox user exactly as a readFiles request would read them, without a round
// trip of their own. Before: the command starts only if every file reads as the server last saw it (its
// hooks decided on that). After: the files as they are once the command ended, for the post hooks.

import { answerFileRequest, type FileRequest } from "./file-requests.js";
import type { FileWorkerLink } from "./file-worker-link.js";
import type { ExecRequest, ReadFilesEntry, Response } from "./protocol.js";

export type ExecReads = NonNullable<ExecRequest["readBefore"] | ExecRequest["readAfter"]>;

export type FilesRead = { ok: true; files: ReadFilesEntry[]; body: Buffer } | { ok: false; reason: string };

/** Reads through the file worker when there is one (it acts as the sandbox user), else here. */
export async function readForExec(reads: ExecReads, fileWorker: FileWorkerLink | null): Promise<FilesRead> {
  const request: FileRequest = { op: "readFiles", id: 0, paths: reads.paths, maxBytes: reads.maxBytes, since: reads.since };
  const answered = fileWorker ? await fileWorker.ask(request) : await answerHere(request);
  const { message, body } = answered;
  if (message.type === "result" && message.result.op === "readFiles") return { ok: true, files: message.result.files, body };
  return { ok: false, reason: message.type === "error" ? `${message.code}: ${message.message}` : `an unexpected ${message.type} answer` };
}

async function answerHere(request: FileRequest): Promise<{ message: Response; body: Buffer }> {
  const answer = await answerFileRequest(request, Buffer.alloc(0));
  if (!answer.ok) return { message: { type: "error", id: request.id, code: answer.code, message: answer.message }, body: Buffer.alloc(0) };
  return { message: { type: "result", id: request.id, result: answer.result }, body: answer.body ?? Buffer.alloc(0) };
}

/** Null when every file read with the token `since` gives for it; otherwise which one did not. */
export function whyChanged(read: FilesRead, paths: readonly string[], since: readonly (string | null)[]): string | null {
  if (!read.ok) return `the files could not be read (${read.reason})`;
  const changed = read.files.findIndex((entry, index) => entry.token !== since[index]);
  return changed === -1 ? null : `${paths[changed]} is not as it was`;
}
