// Owner-only files and folders for the data folder (docs/security.md#the-data-folder): it holds the
// egress CA's private key and the SQLite store with every key's credential tokens, so other local users
// must not read it. Used by the server (its store) and by the proxy (its CA), which share the folder.
//
// Modes are set explicitly with chmod after creating, so the result does not depend on the process's
// umask (SQLite creates its files 0644 & ~umask; a umask of 0 would leave them world-readable). Only
// what this process's user owns is ever changed: a folder the operator mounted from another account is
// reported, never taken over, and a failing chmod is a warning, never a reason not to start.

import fs from "node:fs";
import path from "node:path";

export const PRIVATE_FOLDER_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Where the tightening reports what it changed (`info`) and what it could not or would not (`warn`). */
export interface PermissionReport {
  info(line: string): void;
  warn(line: string): void;
}

/** Creates `folder` and its missing parents owner-only (exactly 0700, whatever the umask); an existing folder is left as it is. */
export function ensurePrivateFolder(folder: string): void {
  const firstCreated = fs.mkdirSync(folder, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  if (firstCreated === undefined) return;
  // mkdir created every folder from firstCreated down to folder: all of them are ours. Should the two
  // spellings ever disagree, only the folder itself is certain to be new; never walk above what was made.
  const leaf = path.resolve(folder);
  const first = path.resolve(firstCreated);
  if (leaf !== first && !leaf.startsWith(`${first}/`)) {
    fs.chmodSync(leaf, PRIVATE_FOLDER_MODE);
    return;
  }
  for (let current = leaf; ; current = path.dirname(current)) {
    fs.chmodSync(current, PRIVATE_FOLDER_MODE);
    if (current === first) break;
  }
}

/** Creates `file` empty and owner-only (exactly 0600) when it does not exist; an existing file is left as it is. */
export function ensurePrivateFile(file: string): void {
  let descriptor: number;
  try {
    descriptor = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, PRIVATE_FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return;
    throw error;
  }
  try {
    fs.fchmodSync(descriptor, PRIVATE_FILE_MODE);
  } finally {
    fs.closeSync(descriptor);
  }
}

/**
 * Takes group and other permissions away from an existing file or folder that has any, when this
 * process's user owns it, and says so. Missing paths and symbolic links are left alone; so is a folder
 * with the sticky bit (a shared folder such as /tmp, which an operator may have named by mistake).
 * `chmod` is replaceable so that a test can make it fail.
 */
export function tightenToOwner(
  target: string,
  report: PermissionReport,
  chmod: (target: string, mode: number) => void = fs.chmodSync,
): void {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    report.warn(`cannot check the permissions of ${target}: ${(error as Error).message}`);
    return;
  }
  if (stat.isSymbolicLink() || (stat.mode & 0o077) === 0) return;
  const mode = stat.mode & 0o7777;
  const wanted = mode & ~0o077;
  const fix = `chmod ${octal(stat.isDirectory() ? PRIVATE_FOLDER_MODE : PRIVATE_FILE_MODE)} ${target}`;
  if (stat.isDirectory() && (mode & 0o1000) !== 0) {
    report.warn(
      `${target} is a shared folder (sticky bit, mode ${octal(mode)}); it was left as it is: point EMULATOR_DATA_DIR at a folder of its own`,
    );
    return;
  }
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid !== uid) {
    report.warn(
      `${target} can be read by other users (mode ${octal(mode)}) but belongs to uid ${stat.uid}, not to this process (uid ${uid}); it was left as it is: make it private (${fix})`,
    );
    return;
  }
  try {
    chmod(target, wanted);
    report.info(`${target} was open to other users (mode ${octal(mode)}); made it owner-only (${octal(wanted)})`);
  } catch (error) {
    report.warn(`could not make ${target} owner-only (${(error as Error).message}); make it private yourself (${fix})`);
  }
}

function octal(mode: number): string {
  return `0${mode.toString(8).padStart(3, "0")}`;
}
