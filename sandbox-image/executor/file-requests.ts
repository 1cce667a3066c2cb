// The file operations of the protocol, answered in this process: by the executor itself when it has no
// identities (the local executor), otherwise by its file worker, which acts as the sandbox user.

import { describeError } from "./diagnostics.js";
import { deletePath, FileOpError, listDirectory, readFileHead, writeFileCreatingParents } from "./file-ops.js";
import { appendFileAt, moveFile, readFileChunk } from "./file-transfer.js";
import { diskUsage, statPath, walkTree } from "./file-tree.js";
import type { Request, ResultPayload } from "./protocol.js";
import { readFiles } from "./read-files.js";

export type FileRequest = Exclude<Request, { op: "exec" | "cancel" | "ping" | "egressListen" }>;

export function isFileRequest(request: Request): request is FileRequest {
  return request.op !== "exec" && request.op !== "cancel" && request.op !== "ping" && request.op !== "egressListen";
}

export type FileAnswer = { ok: true; result: ResultPayload; body?: Buffer } | { ok: false; code: string; message: string };

/** Never rejects: a failure is an answer with an errno-style code. */
export async function answerFileRequest(request: FileRequest, body: Buffer): Promise<FileAnswer> {
  try {
    return { ok: true, ...(await handleFileRequest(request, body)) };
  } catch (error) {
    if (error instanceof FileOpError) return { ok: false, code: error.code, message: error.message };
    return { ok: false, code: "EIO", message: `${request.op}: ${describeError(error)}` };
  }
}

async function handleFileRequest(request: FileRequest, body: Buffer): Promise<{ result: ResultPayload; body?: Buffer }> {
  switch (request.op) {
    case "readFile": {
      const { content, size, truncated, realPath, readOnlyMount } = await readFileHead(request.path, request.maxBytes);
      return { result: { op: "readFile", size, truncated, realPath, readOnlyMount }, body: content };
    }
    case "readFiles": {
      const { files, body } = readFiles(request.paths, request.maxBytes, request.since);
      return { result: { op: "readFiles", files }, body };
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
