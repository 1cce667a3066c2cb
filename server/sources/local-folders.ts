// Which host folders a request may have copied into its sandbox. The server reads them with its own
// identity (often root in a container), and the request comes from any API key, so a path in a request
// is never enough: a folder is served only when
//   1. it lies inside a folder the operator named (EMULATOR_REPO_ROOTS, a local folder of
//      EMULATOR_REPO_MAP, EMULATOR_GCS_DIR), after symbolic links are resolved;
//   2. it neither lies inside nor holds a protected folder (the emulator's data folder: the egress CA's
//      private key, the SQLite store with every key's credential tokens), after symbolic links are
//      resolved, even when an operator's root holds it;
//   3. every user of the host could reach it: each folder between the operator's root and it grants
//      read and search to "others" (what a folder's owner did not share stays unshared). The files
//      inside are held to the same rule as they are measured (local-tree.ts).
// Nothing is looked at on disk before rule 1 holds by name, so a refusal reveals nothing about the
// host's other folders.

import type { Stats } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { EmulatorError } from "../common/errors.js";
import { isWithin } from "../common/paths.js";

export class LocalFolderError extends EmulatorError {}

/** Read (4) and search (1) for "others": what any user of the host may list and enter. */
export const OTHERS_READ = 0o004;
export const OTHERS_SEARCH = 0o001;

export function sharedWithOthers(stat: Stats): boolean {
  return stat.isDirectory()
    ? (stat.mode & (OTHERS_READ | OTHERS_SEARCH)) === (OTHERS_READ | OTHERS_SEARCH)
    : (stat.mode & OTHERS_READ) !== 0;
}

/** A folder's identity on disk, so it is recognised however it is reached (bind mounts included). */
export interface FolderIdentity {
  dev: number;
  ino: number;
}

export interface ServedFolder {
  /** The real path (symbolic links resolved). */
  path: string;
  /** The real path of the operator's root it lies in. */
  root: string;
  /** Identities of the protected folders, for the walk to recognise them however they are reached. */
  protectedIdentities: FolderIdentity[];
}

async function realpathOrNull(file: string): Promise<string | null> {
  try {
    return await fs.realpath(file);
  } catch {
    return null;
  }
}

/** The protected folders as real paths (those that do not exist yet as given) and identities. */
async function protectedFolders(folders: readonly string[]): Promise<{ paths: string[]; identities: FolderIdentity[] }> {
  const paths: string[] = [];
  const identities: FolderIdentity[] = [];
  for (const folder of folders) {
    const absolute = path.resolve(folder);
    paths.push(absolute);
    const real = await realpathOrNull(absolute);
    if (real === null) continue;
    paths.push(real);
    const stat = await fs.stat(real);
    identities.push({ dev: stat.dev, ino: stat.ino });
  }
  return { paths, identities };
}

export interface ServeRequest {
  /** The absolute path asked for (from a file:// URL, an absolute path, or a mapped URL). */
  requested: string;
  /** The operator's folders it may lie in. */
  roots: readonly string[];
  /** Never served, nor any folder that holds them. */
  protectedFolders: readonly string[];
  /** How to allow it, for the refusal's message (e.g. "set EMULATOR_REPO_ROOTS …"). */
  howToAllow: string;
}

/** Checks rules 1–3 for a folder (or a file, for GCS objects) and returns where it really is. */
export async function serveLocalPath(request: ServeRequest): Promise<ServedFolder> {
  const requested = path.resolve(request.requested);
  const lexicalRoot = request.roots.map((root) => path.resolve(root)).find((root) => isWithin(requested, root));
  if (lexicalRoot === undefined) {
    throw new LocalFolderError(`${request.requested} is not in a folder the operator allows; ${request.howToAllow}`);
  }
  const root = await realpathOrNull(lexicalRoot);
  if (root === null) throw new LocalFolderError(`the allowed folder holding ${request.requested} does not exist on the emulator's host`);
  const real = await realpathOrNull(requested);
  if (real === null) throw new LocalFolderError(`${request.requested} does not exist`);
  if (!isWithin(real, root)) {
    throw new LocalFolderError(`${request.requested} leads outside the folder the operator allows (through a symbolic link)`);
  }
  const guarded = await protectedFolders(request.protectedFolders);
  for (const folder of guarded.paths) {
    if (isWithin(real, folder) || isWithin(folder, real)) {
      throw new LocalFolderError(
        `${request.requested} ${isWithin(real, folder) ? "is inside" : "holds"} the emulator's data folder, which is never served`,
      );
    }
  }
  // Rule 3 for the folders on the way: each one below the root must let others in.
  const below = path
    .relative(root, real)
    .split(path.sep)
    .filter((part) => part.length > 0);
  let current = root;
  for (const part of below) {
    current = path.join(current, part);
    const stat = await fs.stat(current);
    if (!sharedWithOthers(stat)) {
      throw new LocalFolderError(
        `${path.relative(root, current) || current} is not readable by other users of the host (mode ${modeText(stat)}); ` +
          "only what every user of the host may read is served",
      );
    }
  }
  return { path: real, root, protectedIdentities: guarded.identities };
}

export function modeText(stat: Stats): string {
  return (stat.mode & 0o7777).toString(8).padStart(4, "0");
}
