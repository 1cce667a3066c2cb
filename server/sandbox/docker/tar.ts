// The one tar upload that places a request's sources in a new sandbox, owned as the sandbox needs.

import path from "node:path/posix";
import { tarBuffer, type TarEntry } from "../../common/tar.js";
import type { SandboxFile } from "../runtime.js";

export const SANDBOX_UID = 1000;
export const SANDBOX_GID = 1000;
/** The hooks user: runs the hooks of configurations nothing in the sandbox can change (docs/security.md). */
export const HOOKS_UID = 1001;
export const HOOKS_GID = 1001;

/**
 * Folders that exist in the image and belong to root. A tar entry for them would hand them to the
 * sandbox user, so they are left out and only new folders below them are created (as the user).
 * /workspace is root's (writable for the sandbox group) so that the sandbox user cannot chmod it.
 */
const IMAGE_FOLDERS = new Set([
  "/workspace",
  "/home",
  "/media",
  "/mnt",
  "/opt",
  "/root",
  "/run",
  "/srv",
  "/tmp",
  "/var",
  "/var/tmp",
  "/var/lib",
  "/var/log",
  "/var/cache",
  "/var/local",
  "/var/opt",
  "/var/mail",
  "/var/spool",
]);

export function sourcesTar(files: SandboxFile[], mtime = new Date()): Promise<Buffer> {
  const folders = new Set<string>();
  for (const file of files) {
    if (file.system) continue; // system files land in folders the image already has, owned by root
    for (let dir = path.dirname(file.path); dir !== "/"; dir = path.dirname(dir)) folders.add(dir);
  }
  const owner = { uid: SANDBOX_UID, gid: SANDBOX_GID, mtime };
  const root = { uid: 0, gid: 0, mtime };
  // Parents first (sorted), so each folder exists with the right owner before anything lands in it.
  const folderEntries: TarEntry[] = [...folders]
    .sort()
    .filter((dir) => !IMAGE_FOLDERS.has(dir))
    .map((dir) => ({ header: { name: `${dir.slice(1)}/`, type: "directory", mode: 0o755, ...owner } }));
  const fileEntries: TarEntry[] = files.map((file) => ({
    header: { name: file.path.slice(1), mode: file.mode, ...(file.system ? root : owner) },
    content: file.content,
  }));
  return tarBuffer([...folderEntries, ...fileEntries]);
}
