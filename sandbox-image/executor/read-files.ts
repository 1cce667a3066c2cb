// readFiles: several small files read one after another, each exactly as readFile reads it, each
// answered with a token that stands for the whole read. A caller that keeps what it read last (the
// server keeps the hooks.json it read before every tool call) gives those tokens back, and a file that
// reads the same is answered "unchanged" without its content.
//
// The reads are synchronous: a few small files (at most MAX_READ_FILES_BYTES each), where the thread
// pool's round trips would cost more than the reads themselves. O_NONBLOCK keeps a FIFO from blocking.
//
// The token is a hash of what was read, not of the file's metadata: inode, size, mtime and ctime can
// all stay the same while the content changes (a write within one tick of the kernel's coarse clock,
// or a write through a shared writable mapping, which updates the times only on the first fault), so
// they could not prove that nothing changed. Reading a small file is microseconds; the round trip and
// the transfer are what this saves.

import { createHash } from "node:crypto";
import { describeError } from "./diagnostics.js";
import { FileOpError, readFileHeadSync, type FileHead } from "./file-ops.js";
import type { ReadFilesEntry } from "./protocol.js";

export function readFiles(
  paths: readonly string[],
  maxBytes: number,
  since: readonly (string | null)[],
): { files: ReadFilesEntry[]; body: Buffer } {
  const files: ReadFilesEntry[] = [];
  const contents: Buffer[] = [];
  // One after another, as the caller would have read them one request at a time.
  for (const [index, path] of paths.entries()) {
    const { entry, content } = readOne(path, maxBytes, since[index] ?? null);
    files.push(entry);
    if (content !== null) contents.push(content);
  }
  return { files, body: Buffer.concat(contents) };
}

function readOne(path: string, maxBytes: number, since: string | null): { entry: ReadFilesEntry; content: Buffer | null } {
  let read: FileHead;
  try {
    read = readFileHeadSync(path, maxBytes);
  } catch (error) {
    // The same code and message readFile would answer with (file-requests.ts).
    const code = error instanceof FileOpError ? error.code : "EIO";
    const message = error instanceof FileOpError ? error.message : `readFile: ${describeError(error)}`;
    return { entry: { status: "failed", token: tokenOf([maxBytes, "failed", code, message]), code, message }, content: null };
  }
  const { content, size, truncated, realPath, readOnlyMount } = read;
  const token = tokenOf([maxBytes, "found", size, truncated, realPath, readOnlyMount], content);
  const unchanged = token === since;
  const sent = unchanged || truncated ? null : content;
  return {
    entry: { status: "found", token, unchanged, size, truncated, realPath, readOnlyMount, bytes: sent?.length ?? 0 },
    content: sent,
  };
}

function tokenOf(facts: readonly unknown[], content?: Buffer): string {
  const hash = createHash("sha256").update(JSON.stringify(facts)).update("\n");
  if (content !== undefined) hash.update(content);
  return hash.digest("base64url");
}
