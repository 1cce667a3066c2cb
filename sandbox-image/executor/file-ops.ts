// File requests. Paths are used as given: the server validates them, and the sandbox (container) is
// the security boundary, not this process. Errors keep their errno code for the API to map.

import { constants } from "node:fs";
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

export async function readFileHead(
  path: string,
  maxBytes: number,
): Promise<{ content: Buffer; size: number; truncated: boolean; realPath: string; readOnlyMount: boolean }> {
  // O_NONBLOCK: opening a FIFO for reading would otherwise park a libuv thread until a writer shows up.
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch(rethrowFor("readFile", path));
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw new FileOpError("EISDIR", `readFile ${path}: is a directory`);
    if (info.isFIFO() || info.isSocket()) throw new FileOpError("EINVAL", `readFile ${path}: not a regular file`);
    const chunks: Buffer[] = [];
    let total = 0;
    // One byte past the cap tells us whether files of unknown size (/proc, devices) were truncated.
    while (total <= maxBytes) {
      const want = Math.min(READ_CHUNK_BYTES, maxBytes + 1 - total);
      const chunk = Buffer.allocUnsafe(want);
      const { bytesRead } = await handle.read(chunk, 0, want, null).catch(rethrowFor("readFile", path));
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
    }
    const content = Buffer.concat(chunks);
    const size = Math.max(info.size, content.length);
    // Hook discovery reads two paths that may name one file (a symlink); the real path tells them apart,
    // and whether it lies on a read-only mount decides who runs its hooks. Both are of the file we read:
    // the path may have been pointed elsewhere since.
    const realPath = await openedPath(handle.fd, path);
    return {
      content: content.subarray(0, maxBytes),
      size,
      truncated: size > maxBytes,
      realPath,
      readOnlyMount: isOnReadOnlyMount(realPath),
    };
  } finally {
    await handle.close();
  }
}

/** The path of an open file, from /proc/self/fd; realpath(path) where there is no /proc (not Linux). */
async function openedPath(fd: number, path: string): Promise<string> {
  const linked = await readlink(`/proc/self/fd/${fd}`).catch(() => null);
  // A file deleted since it was opened reads as "… (deleted)": like realpath, call that gone.
  if (linked?.startsWith("/") && !linked.endsWith(" (deleted)")) return linked;
  return realpath(path).catch(rethrowFor("readFile", path));
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
