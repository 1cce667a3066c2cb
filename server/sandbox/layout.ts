// The sandbox's file system as the emulator lays it out: where tools run, which folders belong to the
// operating system or to the emulator's executor, and which are not files at all. Sources, the files
// API and the tools all decide against this one description, so a folder reserved here is reserved
// everywhere.

import { isWithin } from "../common/paths.js";

/** Where tools and hook commands run, and what relative paths resolve against. */
export const SANDBOX_WORKDIR = "/workspace";

/** Top-level folders of the operating system or the emulator (docs/environments-and-files.md#reserved-folders). */
export const RESERVED_TOP_LEVEL = ["proc", "sys", "dev", "etc", "usr", "bin", "sbin", "boot"];
/** Folders below the top level that the emulator's executor uses. */
export const RESERVED_PREFIXES = ["opt/emulator"];

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
  "/opt/emulator",
];

/** Whether a top-level folder name (no slashes) is a system folder: the fixed list and lib, lib32, lib64, libx32. */
export function isReservedTopLevel(top: string): boolean {
  return RESERVED_TOP_LEVEL.includes(top) || /^lib(32|64|x32)?$/.test(top);
}

/**
 * The system or emulator folder an absolute, normalised path lies in ("/etc", "/lib64", "/opt/emulator"),
 * or null: the places the environments files API never writes to, whatever symlink leads there.
 */
export function reservedFolderOf(absolute: string): string | null {
  const relative = absolute.replace(/^\/+/, "");
  const top = relative.split("/")[0] ?? "";
  if (isReservedTopLevel(top)) return `/${top}`;
  const reserved = RESERVED_PREFIXES.find((prefix) => isWithin(relative, prefix));
  return reserved ? `/${reserved}` : null;
}
