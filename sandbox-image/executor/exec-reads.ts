// The files an exec reads around its command (its readBefore and readAfter): the server's hooks.json
// candidates, read exactly as a readFiles request reads them, without a round trip of their own. Before:
// the command starts only if every file reads as the server last saw it (its hooks decided on that).
// After: the files as they are once the command ended, for the post hooks.
//
// They are read here, synchronously, with the sandbox user's credentials (readingAs), not by the file
// worker: a few small files, for which the hop to the worker and back would cost more than the reads,
// on the way of every command. The access checks are the worker's: its uid, gid and groups.

import { describeError } from "./diagnostics.js";
import type { Identity } from "./identities.js";
import { readingAs } from "./identities.js";
import type { ExecRequest, ReadFilesEntry } from "./protocol.js";
import { readFiles } from "./read-files.js";

export type ExecReads = NonNullable<ExecRequest["readBefore"] | ExecRequest["readAfter"]>;

export type FilesRead = { ok: true; files: ReadFilesEntry[]; body: Buffer } | { ok: false; reason: string };

/** As `reader` (the sandbox user; undefined: as this process, which then has no identities). */
export function readForExec(reads: ExecReads, reader: Identity | undefined): FilesRead {
  try {
    return { ok: true, ...readingAs(reader, () => readFiles(reads.paths, reads.maxBytes, reads.since)) };
  } catch (error) {
    return { ok: false, reason: describeError(error) };
  }
}

/** Null when every file read with the token `since` gives for it; otherwise which one did not. */
export function whyChanged(read: FilesRead, paths: readonly string[], since: readonly (string | null)[]): string | null {
  if (!read.ok) return `the files could not be read (${read.reason})`;
  const changed = read.files.findIndex((entry, index) => entry.token !== since[index]);
  return changed === -1 ? null : `${paths[changed]} is not as it was`;
}
