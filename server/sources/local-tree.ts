// A folder on the host, measured before a byte of it is read, then read into a tar. Measuring first
// means a folder over the limits is refused after a walk of its names (stopping at the first entry
// past a limit), never after copying hundreds of megabytes; reading checks each file again, so one
// that changed (or was swapped for a FIFO or a link) in between is refused instead of read.
//
// What may be in the folder: files, folders and symbolic links (kept as links, never followed). A FIFO,
// a socket or a device is refused with a 400 naming it: reading a FIFO would hang the request, and none
// of them means anything in a sandbox. For operator folders (`onlyShared`), every file and folder must
// be readable by other users of the host (local-folders.ts, rule 3); a checkout the emulator made itself
// is exempt, since its modes come from the emulator's umask rather than from an owner's choice.

import { constants, type Stats } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import type { FolderIdentity } from "./local-folders.js";
import { LocalFolderError, modeText, sharedWithOthers } from "./local-folders.js";

export interface TreeLimits {
  /** Bytes of file content. */
  maxBytes: number;
  /** Files, folders and links together (the top folder not counted). */
  maxEntries: number;
}

export interface TreeRules {
  /** Refuse whatever other users of the host could not read. */
  onlyShared: boolean;
  /** Folders never entered, recognised by identity (the emulator's data folder). */
  protectedIdentities: readonly FolderIdentity[];
  /** Names the limits' settings in refusals, e.g. "EMULATOR_MAX_SOURCES_BYTES". */
  bytesSetting: string;
  entriesSetting: string;
}

export type MeasuredEntry =
  | { kind: "directory"; name: string }
  | { kind: "file"; name: string; size: number; executable: boolean; dev: number; ino: number }
  | { kind: "symlink"; name: string; target: string };

export interface MeasuredTree {
  root: string;
  /** Parents before children; names relative to the root with "/" separators. */
  entries: MeasuredEntry[];
  bytes: number;
}

function specialKind(stat: Stats): string | null {
  if (stat.isFIFO()) return "a FIFO (named pipe)";
  if (stat.isSocket()) return "a socket";
  if (stat.isCharacterDevice()) return "a character device";
  if (stat.isBlockDevice()) return "a block device";
  return null;
}

function isProtected(stat: Stats, identities: readonly FolderIdentity[]): boolean {
  return identities.some((identity) => identity.dev === stat.dev && identity.ino === stat.ino);
}

/** Walks `root` without following links, refusing at the first entry that breaks a rule or a limit. */
export async function measureTree(root: string, limits: TreeLimits, rules: TreeRules): Promise<MeasuredTree> {
  const top = await fs.lstat(root);
  if (!top.isDirectory()) throw new LocalFolderError(`${root} is not a folder`);
  if (isProtected(top, rules.protectedIdentities))
    throw new LocalFolderError("the folder is the emulator's data folder, which is never served");
  const entries: MeasuredEntry[] = [];
  let bytes = 0;
  const walk = async (dir: string): Promise<void> => {
    const names: string[] = [];
    const handle = await fs.opendir(dir);
    for await (const dirent of handle) {
      names.push(dirent.name);
      // Stop reading a huge folder as soon as it alone breaks the limit.
      if (entries.length + names.length > limits.maxEntries) {
        throw new LocalFolderError(`the folder holds more than ${limits.maxEntries} files, folders and links (${rules.entriesSetting})`);
      }
    }
    names.sort();
    const subfolders: string[] = [];
    for (const entryName of names) {
      const full = path.join(dir, entryName);
      const name = path.relative(root, full).split(path.sep).join("/");
      const stat = await fs.lstat(full);
      const special = specialKind(stat);
      if (special !== null) {
        throw new LocalFolderError(`"${name}" is ${special}; only files, folders and symbolic links can be copied into a sandbox`);
      }
      if (rules.onlyShared && !stat.isSymbolicLink() && !sharedWithOthers(stat)) {
        throw new LocalFolderError(
          `"${name}${stat.isDirectory() ? "/" : ""}" is not readable by other users of the host (mode ${modeText(stat)}); ` +
            "only what every user of the host may read is copied",
        );
      }
      if (stat.isDirectory()) {
        if (isProtected(stat, rules.protectedIdentities)) {
          throw new LocalFolderError(`"${name}/" is the emulator's data folder, which is never served`);
        }
        entries.push({ kind: "directory", name });
        subfolders.push(full);
      } else if (stat.isSymbolicLink()) {
        entries.push({ kind: "symlink", name, target: await fs.readlink(full) });
      } else {
        bytes += stat.size;
        if (bytes > limits.maxBytes)
          throw new LocalFolderError(`the folder is larger than ${limits.maxBytes} bytes (${rules.bytesSetting})`);
        entries.push({ kind: "file", name, size: stat.size, executable: (stat.mode & 0o111) !== 0, dev: stat.dev, ino: stat.ino });
      }
    }
    for (const subfolder of subfolders) await walk(subfolder);
  };
  await walk(root);
  return { root, entries, bytes };
}

/**
 * Reads one measured file: opened without following a link and without blocking (a FIFO put in its
 * place would otherwise hang), then checked to be the very file that was measured, at the same size.
 */
export async function readMeasuredFile(root: string, entry: Extract<MeasuredEntry, { kind: "file" }>): Promise<Buffer> {
  const full = path.join(root, ...entry.name.split("/"));
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(full, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    throw new LocalFolderError(`"${entry.name}" could not be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.dev !== entry.dev || stat.ino !== entry.ino || stat.size !== entry.size) {
      throw new LocalFolderError(`"${entry.name}" changed while the folder was being read; try again once it is still`);
    }
    const content = Buffer.alloc(entry.size);
    let offset = 0;
    while (offset < entry.size) {
      const { bytesRead } = await handle.read(content, offset, entry.size - offset, offset);
      if (bytesRead === 0)
        throw new LocalFolderError(`"${entry.name}" changed while the folder was being read; try again once it is still`);
      offset += bytesRead;
    }
    return content;
  } finally {
    await handle.close();
  }
}
