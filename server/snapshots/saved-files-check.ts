// A state file's saved files are put back as root into a fresh sandbox (the engine extracts them at
// "/"), so they are checked first, entry by entry. *Threat:* a hand-made file that writes outside the
// sandbox's writable folders: over the executor (which runs as root), into /etc, through a symlink or a
// hard link the same archive made, or as a device node. Only regular files, folders and symlinks and
// hard links inside the saved folders pass, and none on, under or above a reserved folder
// (reservedPlaceOf: the same rule a source's target meets, whatever folders the file's records claim);
// a symlink may point anywhere (as one the sandbox user made may), but no later entry may lead through
// it. Returns the bytes its files hold.

import fs from "node:fs";
import path from "node:path/posix";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { extract, type Header } from "tar-stream";
import { describeReservedPlace, reservedPlaceOf } from "../sandbox/layout.js";
import { UnreadableStateError } from "./state-file-reader.js";

const ALLOWED_TYPES = new Set(["file", "directory", "symlink", "link"]);

function within(absolute: string, folders: readonly string[]): boolean {
  return folders.some((folder) => absolute === folder || absolute.startsWith(`${folder}/`));
}

export async function checkSavedFiles(file: string, environmentId: string, folders: readonly string[]): Promise<number> {
  const symlinks = new Set<string>();
  let bytes = 0;
  const refuse = (name: string, why: string) =>
    new UnreadableStateError(`the saved files of ${environmentId} hold ${JSON.stringify(name)}, which ${why}`);
  const reader = extract();
  reader.on("entry", (header: Header, entryStream, next: (error?: Error | null) => void) => {
    const body = entryStream as unknown as Readable;
    // Refusing an entry destroys the archive and with it this body: its error is the refusal's echo.
    body.on("error", () => undefined);
    body.resume();
    const name = header.name;
    const absolute = path.normalize(`/${name}`).replace(/\/+$/, "") || "/";
    const fail = (error: Error) => next(error);
    if (name.split("/").includes("..")) return fail(refuse(name, "climbs out with .."));
    if (!ALLOWED_TYPES.has(header.type ?? "file")) return fail(refuse(name, `is a ${header.type} (only files, folders and links)`));
    const reserved = reservedPlaceOf(absolute);
    if (reserved) return fail(refuse(name, describeReservedPlace(reserved)));
    if (!within(absolute, folders)) return fail(refuse(name, `lies outside the folders a sandbox saves (${folders.join(", ")})`));
    for (let parent = path.dirname(absolute); parent !== "/"; parent = path.dirname(parent)) {
      if (symlinks.has(parent)) return fail(refuse(name, `leads through the symlink ${parent}`));
    }
    if (header.type === "link") {
      const target = path.normalize(`/${header.linkname ?? ""}`);
      const linked = reservedPlaceOf(target);
      if (linked) return fail(refuse(name, `is a hard link to a file that ${describeReservedPlace(linked)}`));
      if (!within(target, folders)) return fail(refuse(name, "is a hard link to a file outside the saved folders"));
    }
    if (header.type === "symlink") symlinks.add(absolute);
    if (header.type === "file" || header.type === undefined) bytes += header.size ?? 0;
    body.on("end", () => next());
  });
  try {
    await pipeline(fs.createReadStream(file), reader);
  } catch (error) {
    if (error instanceof UnreadableStateError) throw error;
    throw new UnreadableStateError(`the saved files of ${environmentId} are not a readable tar (${(error as Error).message})`);
  }
  return bytes;
}
