// File requests. Paths are used as given: the server validates them, and the sandbox (container) is
// the security boundary, not this process. Errors keep their errno code for the API to map.

import { closeSync, constants, fstatSync, openSync, readlinkSync, readSync, realpathSync, type Stats } from "node:fs";
import { chmod, lstat, mkdir, open, readdir, readlink, realpath, rm, unlink, writeFile as writeWholeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { isOnReadOnlyMount } from "./mounts.js";
import type { FileEntry } from "./protocol.js";

/** A failure with an errno-style code and a message that names the path. */
export class FileOpError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const READ_CHUNK_BYTES = 1024 * 1024;
/** What is read past a file's known size (or of a file of unknown size, /proc's), to find its end. */
const END_PROBE_BYTES = 64 * 1024;

export interface FileHead {
  content: Buffer;
  size: number;
  truncated: boolean;
  realPath: string;
  readOnlyMount: boolean;
}

export async function readFileHead(path: string, maxBytes: number): Promise<FileHead> {
  // O_NONBLOCK: opening a FIFO for reading would otherwise park a libuv thread until a writer shows up.
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch(rethrowFor("readFile", path));
  try {
    const info = await handle.stat();
    checkReadable(info, path);
    const chunks: Buffer[] = [];
    for (let total = 0, want = nextRead(info, maxBytes, 0); want > 0; want = nextRead(info, maxBytes, total)) {
      const chunk = Buffer.allocUnsafe(want);
      const { bytesRead } = await handle.read(chunk, 0, want, null).catch(rethrowFor("readFile", path));
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
    }
    return fileHead(info, maxBytes, chunks, await openedPath(handle.fd, path));
  } finally {
    await handle.close();
  }
}

/**
 * readFileHead without the thread pool: the same answer, and the same failures. For small files read on
 * the way of every tool call (hooks.json, readFiles), where the pool's round trips (open, stat, read,
 * read, readlink, close) would cost more than the reads. O_NONBLOCK keeps a FIFO from blocking the open.
 */
export function readFileHeadSync(path: string, maxBytes: number): FileHead {
  const fd = reading(path, () => openSync(path, constants.O_RDONLY | constants.O_NONBLOCK));
  try {
    const info = fstatSync(fd);
    checkReadable(info, path);
    const chunks: Buffer[] = [];
    for (let total = 0, want = nextRead(info, maxBytes, 0); want > 0; want = nextRead(info, maxBytes, total)) {
      const chunk = Buffer.allocUnsafe(want);
      const bytesRead = reading(path, () => readSync(fd, chunk, 0, want, null));
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
    }
    return fileHead(info, maxBytes, chunks, openedPathSync(fd, path));
  } finally {
    closeSync(fd);
  }
}

function checkReadable(info: Stats, path: string): void {
  if (info.isDirectory()) throw new FileOpError("EISDIR", `readFile ${path}: is a directory`);
  if (info.isFIFO() || info.isSocket()) throw new FileOpError("EINVAL", `readFile ${path}: not a regular file`);
}

/**
 * How much to read next, 0 once enough was read: as much as the file holds (one read for a file up to
 * READ_CHUNK_BYTES), then a small read to see its end (or what it grew by). One byte past the cap tells
 * whether files of unknown size (/proc, devices) were truncated.
 */
function nextRead(info: Stats, maxBytes: number, total: number): number {
  if (total > maxBytes) return 0;
  const expected = info.size + 1 - total;
  return Math.min(READ_CHUNK_BYTES, maxBytes + 1 - total, expected > 1 ? expected : END_PROBE_BYTES);
}

function fileHead(info: Stats, maxBytes: number, chunks: Buffer[], realPath: string): FileHead {
  // Most files come in one read: no copy then.
  const content = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  const size = Math.max(info.size, content.length);
  // Hook discovery reads two paths that may name one file (a symlink); the real path tells them apart,
  // and whether it lies on a read-only mount decides who runs its hooks. Both are of the file we read:
  // the path may have been pointed elsewhere since.
  return { content: content.subarray(0, maxBytes), size, truncated: size > maxBytes, realPath, readOnlyMount: isOnReadOnlyMount(realPath) };
}

/** The path of an open file, from /proc/self/fd; realpath(path) where there is no /proc (not Linux). */
async function openedPath(fd: number, path: string): Promise<string> {
  const linked = await readlink(`/proc/self/fd/${fd}`).catch(() => null);
  // A file deleted since it was opened reads as "… (deleted)": like realpath, call that gone.
  if (linked?.startsWith("/") && !linked.endsWith(" (deleted)")) return linked;
  return realpath(path).catch(rethrowFor("readFile", path));
}

function openedPathSync(fd: number, path: string): string {
  let linked: string | null = null;
  try {
    linked = readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    // No /proc: realpath below.
  }
  if (linked?.startsWith("/") && !linked.endsWith(" (deleted)")) return linked;
  return reading(path, () => realpathSync(path));
}

/** A synchronous step of readFile, failing as the asynchronous one does. */
function reading<T>(path: string, step: () => T): T {
  try {
    return step();
  } catch (error) {
    return rethrowFor("readFile", path)(error);
  }
}

export async function writeFileCreatingParents(path: string, content: Buffer, mode?: number): Promise<number> {
  try {
    await mkdir(dirname(path), { recursive: true });
    await writeWholeFile(path, content, mode === undefined ? {} : { mode });
    // The creation mode is filtered by the umask and ignored for an existing file; the caller asked for exactly this.
    if (mode !== undefined) await chmod(path, mode);
  } catch (error) {
    rethrowFor("writeFile", path)(error);
  }
  return content.length;
}

export async function listDirectory(path: string): Promise<FileEntry[]> {
  const names = await readdir(path).catch(rethrowFor("listFiles", path));
  const entries: FileEntry[] = [];
  for (const name of names) {
    try {
      // lstat: a symlink is reported as a symlink, never as what it points to.
      const info = await lstat(join(path, name));
      entries.push({ name, type: entryType(info), size: info.size, mtimeMs: Math.trunc(info.mtimeMs) });
    } catch {
      // Deleted between readdir and lstat: it is not there any more, so it is not listed.
    }
  }
  // Code-unit order: stable across locales and identical to the server's default sort.
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export async function deletePath(path: string, recursive: boolean): Promise<void> {
  try {
    const info = await lstat(path);
    if (!info.isDirectory()) {
      await unlink(path);
    } else if (recursive) {
      await rm(path, { recursive: true });
    } else {
      throw new FileOpError("EISDIR", `deleteFile ${path}: is a directory; pass recursive: true to delete it and its contents`);
    }
  } catch (error) {
    rethrowFor("deleteFile", path)(error);
  }
}

export function entryType(info: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }): FileEntry["type"] {
  if (info.isSymbolicLink()) return "symlink";
  if (info.isFile()) return "file";
  if (info.isDirectory()) return "directory";
  return "other";
}

const REASONS: Record<string, string> = {
  ENOENT: "no such file or directory",
  EISDIR: "is a directory",
  ENOTDIR: "not a directory",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EEXIST: "file exists",
  ENOTEMPTY: "directory not empty",
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  EROFS: "read-only file system",
  ELOOP: "too many levels of symbolic links",
  ENAMETOOLONG: "file name too long",
  EFBIG: "file too large",
  EBUSY: "resource busy",
  EXDEV: "on another file system",
};

/** Node's messages name the syscall ("open"); ours name the request and the path the caller gave. */
export function rethrowFor(op: string, path: string): (error: unknown) => never {
  return (error: unknown) => {
    if (error instanceof FileOpError) throw error;
    const code = (error as NodeJS.ErrnoException).code ?? "EIO";
    const reason = REASONS[code] ?? (error instanceof Error ? error.message : String(error));
    throw new FileOpError(code, `${op} ${path}: ${reason}`);
  };
}
