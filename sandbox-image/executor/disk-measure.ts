// How much of the engine's disk the sandbox's users hold, for the disk guard (disk-guard.ts). Everything
// here is synchronous on purpose, in slices that yield to the event loop between them: a slice never
// holds the executor's loop for long (egress streams and requests keep flowing), and no file system
// call of ours is ever in flight on libuv's threads while actingAs() switches this process's uid (it
// switches every thread, identities.ts).

import { type Dirent, lstatSync, readdirSync, readlinkSync, statSync, type Stats } from "node:fs";
import { setImmediate as yieldToLoop } from "node:timers/promises";
import type { Identity } from "./identities.js";
import { actingAs } from "./identities.js";
import { processesOf } from "./identity-processes.js";

/**
 * The least an entry costs: ext4 allocates in 4 KiB blocks and spends an inode on every file, folder
 * and link, so a million empty files fill a disk's inode table as surely as bytes fill its blocks.
 */
export const MIN_ENTRY_BYTES = 4096;
/** File system entries looked at between two yields to the event loop. */
const ENTRIES_PER_SLICE = 2000;
/** Never measured, nor entered when looking for writable folders: not disk, or not the sandbox's. */
const PSEUDO_FOLDERS = new Set(["/proc", "/sys", "/dev"]);

/** What one entry costs on disk: its allocated blocks, and never less than MIN_ENTRY_BYTES. */
export function chargedBytes(info: Pick<Stats, "blocks">): number {
  return Math.max(info.blocks * 512, MIN_ENTRY_BYTES);
}

/**
 * Whether any of `identities` may create entries in a folder with this owner and mode. A folder of
 * their own counts whatever its mode: its owner may chmod it writable at any time.
 */
export function writableBy(info: Pick<Stats, "uid" | "gid" | "mode">, identities: readonly Identity[]): boolean {
  if (info.mode & 0o002) return true;
  return identities.some((identity) => info.uid === identity.uid || (info.gid === identity.gid && (info.mode & 0o020) !== 0));
}

/**
 * The outermost folders of the root file system that the identities may write in, and their files
 * that lie elsewhere (a source placed straight into a system folder): every byte they can ever add is
 * below or in one of these. Other file systems (tmpfs, read-only source volumes) are not entered: they
 * are memory, or nobody's to fill. Entries made later stay below these roots, since creating an entry
 * needs a writable folder.
 */
export async function findWritableRoots(identities: readonly Identity[]): Promise<string[]> {
  const rootDevice = lstatSync("/").dev;
  const roots: string[] = [];
  const pending = ["/"];
  let looked = 0;
  while (pending.length > 0) {
    const folder = pending.pop()!;
    let entries: Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const path = folder === "/" ? `/${entry.name}` : `${folder}/${entry.name}`;
      if (PSEUDO_FOLDERS.has(path)) continue;
      let info: Stats;
      try {
        info = lstatSync(path);
      } catch {
        continue;
      }
      if (info.dev !== rootDevice) continue;
      if (!entry.isDirectory()) {
        if (identities.some((identity) => info.uid === identity.uid)) roots.push(path);
      } else if (writableBy(info, identities)) roots.push(path);
      else pending.push(path);
      if (++looked % ENTRIES_PER_SLICE === 0) await yieldToLoop();
    }
  }
  return roots.sort();
}

export interface TreeUsage {
  /** Bytes charged for every entry below the roots (the roots included), hard links once. */
  bytes: number;
  entries: number;
  /** Folders that could not be read, so what they hold is not counted. */
  unreadable: number;
}

/** Measures the trees below `roots`, on the root file system only. */
export async function measureTrees(roots: readonly string[]): Promise<TreeUsage> {
  const rootDevice = lstatSync("/").dev;
  // Only entries with several links are remembered: a set of every inode would grow with the attack it measures.
  const linked = new Set<number>();
  const usage: TreeUsage = { bytes: 0, entries: 0, unreadable: 0 };
  const pending = [...roots];
  while (pending.length > 0) {
    const path = pending.pop()!;
    let info: Stats;
    try {
      info = lstatSync(path);
    } catch {
      continue; // gone since its folder was read
    }
    if (info.dev !== rootDevice) continue;
    if (!info.isDirectory() && info.nlink > 1) {
      if (linked.has(info.ino)) continue;
      linked.add(info.ino);
    }
    usage.bytes += chargedBytes(info);
    usage.entries += 1;
    if (info.isDirectory()) {
      try {
        for (const name of readdirSync(path)) pending.push(`${path}/${name}`);
      } catch {
        usage.unreadable += 1;
      }
    }
    if (usage.entries % ENTRIES_PER_SLICE === 0) await yieldToLoop();
  }
  return usage;
}

/**
 * Bytes held by files that were deleted while a process of `identity` kept them open: invisible to a
 * walk, yet on disk until the last descriptor closes. Read as that user, who may look at its own
 * processes' descriptors (root without CAP_SYS_PTRACE may not). A process that made itself
 * undumpable hides its descriptors even from its own user; its files are not counted.
 */
export function openDeletedBytes(identity: Identity): number {
  return actingAs(identity, () => {
    const seen = new Set<string>();
    let bytes = 0;
    for (const pid of processesOf(identity)) {
      let descriptors: string[];
      try {
        descriptors = readdirSync(`/proc/${pid}/fd`);
      } catch {
        continue;
      }
      for (const descriptor of descriptors) {
        const link = `/proc/${pid}/fd/${descriptor}`;
        try {
          if (!readlinkSync(link).endsWith(" (deleted)")) continue;
          const info = statSync(link);
          const key = `${info.dev}:${info.ino}`;
          if (!info.isFile() || seen.has(key)) continue;
          seen.add(key);
          bytes += chargedBytes(info);
        } catch {
          // closed or exited meanwhile
        }
      }
    }
    return bytes;
  });
}
