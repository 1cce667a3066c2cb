// The sandbox's file system as the emulator lays it out: where tools run, which folders belong to the
// operating system or to the emulator's executor, and which are not files at all. Sources, the files
// API and the tools all decide against this one description, so a folder reserved here is reserved
// everywhere.

import path from "node:path/posix";
import { isWithin } from "../common/paths.js";

/** Where tools and hook commands run, and what relative paths resolve against. */
export const SANDBOX_WORKDIR = "/workspace";

/**
 * The folders at the top of every sandbox's root (the image's, sandbox-image/build-base.sh, and the
 * emulator's /workspace and /.agents). A files API path that starts with one of them is read from the
 * root; any other relative path from /workspace (sandbox-path.ts, docs/environments-and-files.md#paths-and-reach).
 */
export const ROOT_FOLDERS = [
  ".agents",
  "bin",
  "boot",
  "dev",
  "etc",
  "home",
  "lib",
  "lib32",
  "lib64",
  "libx32",
  "media",
  "mnt",
  "opt",
  "proc",
  "root",
  "run",
  "sbin",
  "srv",
  "sys",
  "tmp",
  "usr",
  "var",
  "workspace",
];

/**
 * Where a relative path of the API (a files API path, a source's relative target) lands: from the root
 * when its first folder is one of ROOT_FOLDERS, from /workspace otherwise. `relative` is normalised,
 * without a leading "/" and not empty.
 */
export function placeOfRelative(relative: string): string {
  const top = relative.split("/")[0] ?? "";
  return ROOT_FOLDERS.includes(top) ? `/${relative}` : `${SANDBOX_WORKDIR}/${relative}`;
}

/** Top-level folders of the operating system or the emulator (docs/environments-and-files.md#reserved-folders). */
export const RESERVED_TOP_LEVEL = ["proc", "sys", "dev", "etc", "usr", "bin", "sbin", "boot"];
/**
 * Where the executor lives in every sandbox (sandbox-image/Dockerfile puts it there; the emulator
 * `docker exec`s it as root), and below it the mount of the executor channel's socket folder
 * (CHANNEL_FOLDER, socket-channel.ts). Inside /usr, so that every folder on its way (/, /usr, /usr/libexec) is
 * refused as a place for anything a request brings: see reservedPlaceOf.
 */
export const EXECUTOR_FOLDER = "/usr/libexec/interactions-emulator";
/**
 * Folders below the top level that belong to the emulator: its executor's, and /opt/emulator, where
 * the executors of earlier versions lived (kept reserved, so that nothing placed there passes for one).
 */
export const RESERVED_PREFIXES = [EXECUTOR_FOLDER.slice(1), "opt/emulator"];

/** Folders whose files always count towards an environment's file_count and size_bytes. */
export const USAGE_ROOTS = ["/workspace", "/.agents"];

/** Pseudo file systems: never listed into, read or counted (endless, or not files at all). */
export const PSEUDO_FOLDERS = ["/proc", "/sys", "/dev"];

/**
 * Every folder the files API never writes into, as a list for code that runs in the sandbox (archive
 * extraction): PSEUDO_FOLDERS and the system folders of reservedFolderOf (a unit test keeps them equal).
 */
export const UNWRITABLE_FOLDERS = [
  ...PSEUDO_FOLDERS,
  "/etc",
  "/usr",
  "/bin",
  "/sbin",
  "/boot",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  ...RESERVED_PREFIXES.map((prefix) => `/${prefix}`),
];

/** Whether a top-level folder name (no slashes) is a system folder: the fixed list and lib, lib32, lib64, libx32. */
export function isReservedTopLevel(top: string): boolean {
  return RESERVED_TOP_LEVEL.includes(top) || /^lib(32|64|x32)?$/.test(top);
}

/** The reserved place a path runs into: the folder, and whether the path is that folder or inside it, or holds it. */
export interface ReservedPlace {
  /** The reserved folder, absolute: "/etc", "/opt/emulator". */
  folder: string;
  relation: "within" | "above";
}

/**
 * The one rule every input that places a file (a source's target or mount, a saved file of a state
 * file, an upload, an export's entries) is decided by: whether `place` lands on, within or above a
 * reserved folder. Above counts because a mount or a replaced folder there would hide or swap what
 * the reserved folder holds ("opt" over /opt hides /opt/emulator; "/" holds every one). `place` may be
 * relative (to the sandbox root) or absolute, in any spelling: it is normalised first ("/opt/",
 * "./opt", "opt/../opt" and "opt//." are all /opt), and a path that climbs above the root stays at it.
 * Null when the place is clear.
 */
export function reservedPlaceOf(place: string): ReservedPlace | null {
  const absolute = path.normalize(`/${place}`).replace(/\/+$/, "") || "/";
  const within = reservedFolderOf(absolute);
  if (within) return { folder: within, relation: "within" };
  // Above: the emulator's own folders first, so that "/" and "usr" name the executor's.
  const reserved = [...RESERVED_PREFIXES, ...RESERVED_TOP_LEVEL].map((folder) => `/${folder}`);
  const above = reserved.find((folder) => isWithin(folder, absolute));
  return above ? { folder: above, relation: "above" } : null;
}

/** How a refusal says which reserved folder a place runs into, and why that folder is reserved. */
export function describeReservedPlace(place: ReservedPlace): string {
  const why = RESERVED_PREFIXES.some((prefix) => place.folder === `/${prefix}`) ? "which the emulator's executor uses" : "a system folder";
  return place.relation === "within"
    ? `is under ${place.folder}, ${why}`
    : `holds ${place.folder}, ${why}, and nothing may be placed over it`;
}

/**
 * The system or emulator folder an absolute, normalised path lies in ("/etc", "/lib64", "/opt/emulator"),
 * or null. reservedPlaceOf adds the folders above them; this alone is what reading code needs.
 */
export function reservedFolderOf(absolute: string): string | null {
  const relative = absolute.replace(/^\/+/, "");
  // The emulator's own first, so that the executor's folder is named rather than /usr.
  const reserved = RESERVED_PREFIXES.find((prefix) => isWithin(relative, prefix));
  if (reserved) return `/${reserved}`;
  const top = relative.split("/")[0] ?? "";
  return isReservedTopLevel(top) ? `/${top}` : null;
}

/**
 * Folders of a sandbox whose files are saved: every place the sandbox user (and the hooks user) may
 * write in the sandbox image (sandbox-image/Dockerfile; found with `find / -writable` as each): the
 * work folder, the hook configuration, their homes (where `pip install --user`, `npm install -g` with a
 * user prefix and any tool's caches go), the temporary folders and /run/lock (/var/lock links to it).
 * The system folders (/usr, /etc, …) are root's: nothing of the sandbox's can change them.
 */
export const SAVED_FOLDERS = ["/workspace", "/.agents", "/home/sandbox", "/home/hooks", "/tmp", "/var/tmp", "/run/lock"] as const;

/**
 * The folder saved with a file placed at `place` (absolute): its top-level folder, or, where that holds
 * a reserved one ("/opt/app/run.sh" in /opt, which holds /opt/emulator), the shallowest folder on the
 * way to it that does not (/opt/app): a saved folder never holds the executor.
 */
export function savedFolderOf(place: string): string {
  const parts = place.split("/").slice(1);
  let depth = 1;
  while (depth < parts.length && reservedPlaceOf(parts.slice(0, depth).join("/"))) depth += 1;
  return `/${parts.slice(0, depth).join("/")}`;
}

/** SAVED_FOLDERS, and the saved folder of each place (absolute) that none of them holds. */
export function savedFoldersFor(places: Iterable<string>): string[] {
  const folders = new Set<string>(SAVED_FOLDERS);
  for (const place of places) {
    const top = savedFolderOf(place);
    if (![...folders].some((folder) => top === folder || top.startsWith(`${folder}/`))) folders.add(top);
  }
  return [...folders];
}
