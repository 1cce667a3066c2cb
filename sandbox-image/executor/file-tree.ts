// Read-only views of the sandbox's file tree for the environments files API: what a path names (stat),
// a sorted, pageable listing (walk), and how many files and bytes lie under some folders (usage).
// Symlinks are never followed below the starting point, so a listing cannot wander out of it.

import type { Stats } from "node:fs";
import { lstat, readdir, realpath, stat } from "node:fs/promises";
import { posix } from "node:path";
import { entryType, rethrowFor } from "./file-ops.js";
import type { FileInfo, TreeEntry } from "./protocol.js";

function infoOf(info: Stats): FileInfo {
  return {
    type: entryType(info),
    size: info.isDirectory() ? 0 : info.size,
    mtimeMs: Math.trunc(info.mtimeMs),
    // Overlay and some other file systems record no birth time (0): the status change time stands in.
    birthtimeMs: Math.trunc(info.birthtimeMs > 0 ? info.birthtimeMs : info.ctimeMs),
  };
}

const isMissing = (error: unknown): boolean => ["ENOENT", "ENOTDIR"].includes((error as NodeJS.ErrnoException).code ?? "");

export async function statPath(path: string): Promise<{ info: FileInfo | null; realPath: string }> {
  const absolute = posix.resolve(path);
  try {
    const info = await stat(absolute);
    return { info: infoOf(info), realPath: await realpath(absolute) };
  } catch (error) {
    if (!isMissing(error)) rethrowFor("stat", path)(error);
  }
  // Not there (or a dangling symlink): where would it be created? The nearest existing ancestor, resolved.
  const rest: string[] = [];
  for (let current = absolute; ; current = posix.dirname(current)) {
    try {
      const real = await realpath(current);
      return { info: null, realPath: rest.length === 0 ? real : posix.join(real, ...rest.reverse()) };
    } catch (error) {
      if (!isMissing(error) || current === "/") rethrowFor("stat", path)(error);
      rest.push(posix.basename(current));
    }
  }
}

/** Compares relative paths component by component: the order of a depth-first, name-sorted walk. */
export function comparePaths(a: readonly string[], b: readonly string[]): number {
  const shared = Math.min(a.length, b.length);
  for (let index = 0; index < shared; index += 1) {
    const x = a[index]!;
    const y = b[index]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

const splitRelative = (path: string): string[] => (path === "" ? [] : path.split("/"));

export interface WalkOptions {
  recursive: boolean;
  after?: string;
  limit: number;
  exclude?: string[];
}

export async function walkTree(path: string, options: WalkOptions): Promise<{ entries: TreeEntry[]; more: boolean }> {
  const start = await stat(path).catch(rethrowFor("walk", path));
  const realStart = await realpath(path).catch(rethrowFor("walk", path));
  const after = options.after === undefined ? null : splitRelative(options.after);
  const excluded = new Set((options.exclude ?? []).map((folder) => posix.resolve(folder)));
  const entries: TreeEntry[] = [];
  // One more than asked: it tells whether another page follows.
  const full = (): boolean => entries.length > options.limit;

  if (after === null) entries.push({ path: "", ...infoOf(start) });
  if (!start.isDirectory() || full()) return finish();

  const visit = async (folder: string, realFolder: string, relative: string[]): Promise<boolean> => {
    let names: string[];
    try {
      names = await readdir(folder);
    } catch (error) {
      // The folder asked for must be readable: an empty page would say it is empty (EACCES, a 403).
      if (relative.length === 0) rethrowFor("walk", path)(error);
      return false; // a subfolder that is unreadable (or gone): listed, but its contents are not
    }
    names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    for (const name of names) {
      const childRelative = [...relative, name];
      const order = after === null ? 1 : comparePaths(childRelative, after);
      // Before the page's start and not on the way to it: its whole subtree is before it too.
      if (order < 0 && !isPrefix(childRelative, after!)) continue;
      let info: Stats;
      try {
        info = await lstat(posix.join(folder, name));
      } catch {
        continue; // removed since readdir
      }
      if (order > 0) {
        entries.push({ path: childRelative.join("/"), ...infoOf(info) });
        if (full()) return true;
      }
      const realChild = posix.join(realFolder, name);
      if (options.recursive && info.isDirectory() && !excluded.has(realChild)) {
        if (await visit(posix.join(folder, name), realChild, childRelative)) return true;
      }
    }
    return false;
  };
  if (!excluded.has(realStart)) await visit(path, realStart, []);
  return finish();

  function finish(): { entries: TreeEntry[]; more: boolean } {
    const more = entries.length > options.limit;
    return { entries: entries.slice(0, options.limit), more };
  }
}

function isPrefix(prefix: readonly string[], of: readonly string[]): boolean {
  return prefix.length < of.length && prefix.every((part, index) => of[index] === part);
}

/** How many entries of one folder are examined at once. */
const USAGE_BATCH = 64;

export async function diskUsage(paths: string[], exclude: string[] = []): Promise<{ files: number; bytes: number }> {
  const excluded = new Set(exclude.map((folder) => posix.resolve(folder)));
  const seen = new Set<string>();
  let files = 0;
  let bytes = 0;
  // A stack: depth first, so what waits is bounded by the folders on the current path, not a whole level.
  const pending = paths.map((path) => posix.resolve(path));
  while (pending.length > 0) {
    const batch = pending.splice(Math.max(0, pending.length - USAGE_BATCH));
    const infos = await Promise.all(batch.map((path) => lstat(path).catch(() => null)));
    const folders: string[] = [];
    batch.forEach((path, index) => {
      const info = infos[index];
      if (!info) return;
      const identity = `${info.dev}:${info.ino}`;
      if (seen.has(identity)) return;
      seen.add(identity);
      if (info.isFile()) {
        files += 1;
        bytes += info.size;
      } else if (info.isDirectory() && !excluded.has(path)) {
        folders.push(path);
      }
    });
    for (const folder of folders) {
      const names = await readdir(folder).catch(() => [] as string[]);
      for (const name of names) pending.push(posix.join(folder, name));
    }
  }
  return { files, bytes };
}
