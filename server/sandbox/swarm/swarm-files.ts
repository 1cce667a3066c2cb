// A swarm sandbox's files that the sandbox user cannot move itself: forks, snapshots (exportFiles and
// restore), the emulator's system files and repository sources (read-only trees). The Docker runtime
// moves them with the engine's archive API, `docker commit` and volumes, which a Swarm manager has not
// for a task on another node; here every byte goes through the sandbox's channel, to and from the
// executor's root side (exportTree, extractTree: sandbox-image/executor-go/tree_archive.go), and only
// ever in one frame (MAX_FRAME_PART_BYTES). docs/scale-out.md says what differs.

import { Readable } from "node:stream";
import { MAX_FRAME_PART_BYTES, TOO_LARGE_CODE } from "../../../sandbox-image/executor/protocol.js";
import { FailedPreconditionError } from "../../common/errors.js";
import { tarBuffer } from "../../common/tar.js";
import { SANDBOX_WORKDIR, savedFoldersFor } from "../layout.js";
import type { ExecutorClient } from "../executor-client.js";
import { type ReadOnlyTree, type SandboxFile, SandboxFileError, SandboxFilesTooLargeError } from "../runtime.js";
import { reRootedTar } from "../docker/saved-files.js";
import { SANDBOX_GID, sourcesTar } from "../docker/tar.js";

/** The most one sandbox's files may take in one move under the swarm runtime: one frame of the channel. */
export const SWARM_FILES_MAX_BYTES = MAX_FRAME_PART_BYTES;

/**
 * The service label listing the folders a fork copies beyond SAVED_FOLDERS: those of the sandbox's
 * sources and read-only trees (a fork of a fork keeps them), as JSON.
 */
export const LABEL_SAVED_FOLDERS = "dev.interactions-emulator.saved-folders";

/**
 * The folders a sandbox made with these files and trees keeps its files in (what a fork copies), with
 * those of the sandbox it is a fork of (already folders: taken as they are).
 */
export function foldersOfSandbox(
  files: readonly SandboxFile[],
  trees: readonly ReadOnlyTree[],
  inherited: readonly string[] = [],
): string[] {
  const own = savedFoldersFor([...files.filter((file) => !file.system).map((file) => file.path), ...trees.map((tree) => tree.path)]);
  return [...new Set([...own, ...inherited])];
}

/** The folders a service's label lists; none when it has no such label or a malformed one. */
export function foldersOfLabel(value: string | undefined): string[] {
  if (value === undefined) return [];
  try {
    const parsed = JSON.parse(value) as unknown;
    return Array.isArray(parsed) ? parsed.filter((folder): folder is string => typeof folder === "string" && folder.startsWith("/")) : [];
  } catch {
    return [];
  }
}

/**
 * A tar of what the sandbox holds under `folders` (paths from "/", owners and modes kept, reserved
 * places left out), as DockerRuntime.exportFiles gives. Past maxBytes: SandboxFilesTooLargeError, as
 * the Docker runtime's; past the swarm runtime's own bound when maxBytes is larger: a refusal naming it.
 */
export async function exportSandboxFiles(channel: ExecutorClient, folders: readonly string[], maxBytes: number): Promise<Buffer> {
  const bound = Math.min(maxBytes, SWARM_FILES_MAX_BYTES);
  let tar: Buffer;
  try {
    tar = await channel.exportTree([...folders], bound);
  } catch (error) {
    if (!(error instanceof SandboxFileError && error.code === TOO_LARGE_CODE)) throw error;
    if (bound === maxBytes) throw new SandboxFilesTooLargeError("too_large", `the sandbox's files pass ${maxBytes} bytes`);
    throw tooLargeForSwarm();
  }
  return reRootedTar([{ parent: "/", open: async () => Readable.from([tar]) }], bound);
}

function tooLargeForSwarm(): FailedPreconditionError {
  return new FailedPreconditionError(
    `The sandbox's files pass ${SWARM_FILES_MAX_BYTES} bytes, the most EMULATOR_SANDBOX_RUNTIME=swarm moves at once (a fork, a state snapshot's environment); delete files, or use the docker runtime (docs/scale-out.md).`,
  );
}

/** Reads a tar to put back (SandboxSpec.restore) into memory, refusing one past the swarm runtime's bound. */
export async function restoreTar(restore: () => Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  const stream = restore();
  for await (const chunk of stream) {
    total += (chunk as Buffer).length;
    if (total > SWARM_FILES_MAX_BYTES) {
      stream.destroy();
      throw tooLargeForSwarm();
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/**
 * What a new sandbox gets as root before anything of its users has run, in the order the channel puts
 * them: the read-only trees (root's, without write bits, at their paths: copies, not read-only mounts),
 * then the emulator's system files (root's, parents left as they are). Empty ones are left out.
 *
 * A tree in /workspace, which the sandbox group may write, could be renamed away as a whole (a mount
 * point cannot): /workspace gets the sticky bit, so that only root renames or deletes root's entries in
 * it, while the sandbox user's own files there stay theirs to move.
 */
export async function rootTars(files: readonly SandboxFile[], trees: readonly ReadOnlyTree[]): Promise<Buffer[]> {
  const tars: Buffer[] = [];
  if (trees.some((tree) => tree.path.startsWith(`${SANDBOX_WORKDIR}/`)))
    tars.push(
      await tarBuffer([{ header: { name: `${SANDBOX_WORKDIR.slice(1)}/`, type: "directory", mode: 0o1775, uid: 0, gid: SANDBOX_GID } }]),
    );
  if (trees.length > 0) {
    tars.push(
      await reRootedTar(
        trees.map((tree) => ({ parent: tree.path, open: async () => Readable.from([tree.tar]) })),
        SWARM_FILES_MAX_BYTES,
      ),
    );
  }
  const system = files.filter((file) => file.system);
  if (system.length > 0) tars.push(await sourcesTar(system));
  return tars;
}

/** Puts each tar in place through the channel, as root. */
export async function placeAsRoot(channel: ExecutorClient, tars: readonly Buffer[]): Promise<void> {
  for (const tar of tars) {
    if (tar.length > SWARM_FILES_MAX_BYTES) throw tooLargeForSwarm();
    await channel.extractTree(tar);
  }
}
