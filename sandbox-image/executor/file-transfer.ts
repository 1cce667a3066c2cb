// Moving file content in pieces, so that a large download or upload never sits whole in memory on
// either side of the channel: read a chunk at an offset, append a chunk at the expected offset, and move
// a finished file into place (atomically, or refusing to replace what is there).

import { constants } from "node:fs";
import { copyFile, link, mkdir, open, rename, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { FileOpError, rethrowFor } from "./file-ops.js";

export async function readFileChunk(path: string, offset: number, length: number): Promise<{ content: Buffer; size: number }> {
  // O_NONBLOCK: opening a FIFO for reading would otherwise park a libuv thread until a writer shows up.
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK).catch(rethrowFor("readFileChunk", path));
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw new FileOpError("EISDIR", `readFileChunk ${path}: is a directory`);
    if (!info.isFile()) throw new FileOpError("EINVAL", `readFileChunk ${path}: not a regular file`);
    const content = Buffer.allocUnsafe(Math.min(length, Math.max(0, info.size - offset)));
    let filled = 0;
    while (filled < content.length) {
      const { bytesRead } = await handle
        .read(content, filled, content.length - filled, offset + filled)
        .catch(rethrowFor("readFileChunk", path));
      if (bytesRead === 0) break; // shrank meanwhile
      filled += bytesRead;
    }
    return { content: content.subarray(0, filled), size: info.size };
  } finally {
    await handle.close();
  }
}

export async function appendFileAt(path: string, offset: number, create: boolean, content: Buffer): Promise<number> {
  if (create) await mkdir(dirname(path), { recursive: true }).catch(rethrowFor("appendFile", path));
  const handle = await (create
    ? // O_EXCL also refuses a symlink planted at the path, dangling or not.
      open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644)
    : open(path, constants.O_WRONLY | constants.O_NOFOLLOW)
  ).catch(rethrowFor("appendFile", path));
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new FileOpError("EINVAL", `appendFile ${path}: not a regular file`);
    if (info.size !== offset) {
      throw new FileOpError(
        "EOFFSET",
        `appendFile ${path}: the file has ${info.size} bytes, so the next bytes go at offset ${info.size}, not ${offset}`,
      );
    }
    let written = 0;
    while (written < content.length) {
      const { bytesWritten } = await handle
        .write(content, written, content.length - written, offset + written)
        .catch(rethrowFor("appendFile", path));
      written += bytesWritten;
    }
    return offset + written;
  } finally {
    await handle.close();
  }
}

export async function moveFile(from: string, to: string, overwrite: boolean): Promise<void> {
  try {
    await mkdir(dirname(to), { recursive: true });
    if (overwrite) {
      // rename replaces a file (or a symlink, never what it points to) atomically; onto a folder it is EISDIR.
      await rename(from, to).catch(async (error: NodeJS.ErrnoException) => {
        if (error.code !== "EXDEV") throw error;
        // Not atomic across file systems; removing first means a symlink at `to` is replaced, not followed.
        await unlink(to).catch((unlinkError: NodeJS.ErrnoException) => {
          if (unlinkError.code !== "ENOENT") throw unlinkError;
        });
        await copyFile(from, to, constants.COPYFILE_EXCL);
        await unlink(from);
      });
    } else {
      // link fails with EEXIST whatever is at `to`: no window in which an existing file could be replaced.
      await link(from, to).catch(async (error: NodeJS.ErrnoException) => {
        if (error.code !== "EXDEV" && error.code !== "EPERM") throw error;
        await copyFile(from, to, constants.COPYFILE_EXCL);
      });
      await unlink(from);
    }
  } catch (error) {
    rethrowFor("moveFile", to)(error);
  }
}
