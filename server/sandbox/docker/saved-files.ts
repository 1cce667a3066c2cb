// A sandbox's saved files for a state snapshot: the engine's archive of each folder the sandbox's users
// may write (the container's own changes that matter), joined into one tar with paths from "/", so that
// putting it back at "/" of a fresh container restores them with their owners and modes. The engine
// names an archive's entries from the folder's own name ("sandbox/…" for /home/sandbox): they are
// re-rooted here. Read as root by the engine, from outside the sandbox: nothing in it runs. Nothing on,
// under or above a reserved folder is kept (reservedPlaceOf): a state file never carries the executor,
// whatever folder an environment's sources made saved.

import path from "node:path/posix";
import type { Readable } from "node:stream";
import type Docker from "dockerode";
import { extract, pack, type Header } from "tar-stream";
import { reservedPlaceOf } from "../layout.js";
import { SandboxFilesTooLargeError } from "../runtime.js";

export async function savedFilesTar(container: Docker.Container, folders: readonly string[], maxBytes: number): Promise<Buffer> {
  return reRootedTar(
    folders.map((folder) => ({
      parent: path.dirname(folder),
      open: async () => {
        try {
          return (await container.getArchive({ path: folder })) as Readable;
        } catch (error) {
          if ((error as { statusCode?: number }).statusCode === 404) return null; // not in this image
          throw error;
        }
      },
    })),
    maxBytes,
  );
}

/**
 * One tar of the parts' entries, each with its part's `parent` before its name (paths from "/"),
 * without anything on, under or above a reserved folder; a part that opens as null is skipped. Past
 * maxBytes it rejects with SandboxFilesTooLargeError.
 */
export async function reRootedTar(
  parts: Array<{ parent: string; open: () => Promise<Readable | null> }>,
  maxBytes: number,
): Promise<Buffer> {
  const archive = pack();
  const chunks: Buffer[] = [];
  let total = 0;
  archive.on("data", (chunk: unknown) => {
    chunks.push(chunk as Buffer);
    total += (chunk as Buffer).length;
  });
  const ended = new Promise<void>((resolve, reject) => {
    archive.on("end", resolve);
    archive.on("error", reject);
  });
  for (const part of parts) {
    const stream = await part.open();
    if (stream === null) continue;
    await reRoot(stream, part.parent, archive, () => {
      if (total > maxBytes) throw new SandboxFilesTooLargeError("too_large", `the sandbox's files pass ${maxBytes} bytes`);
    });
  }
  archive.finalize();
  await ended;
  return Buffer.concat(chunks);
}

/** Copies every entry of `source` into `target` with `parent` before its name. */
function reRoot(source: Readable, parent: string, target: ReturnType<typeof pack>, check: () => void): Promise<void> {
  const reader = extract();
  return new Promise<void>((resolve, reject) => {
    reader.on("entry", (header: Header, entryStream, next: (error?: Error | null) => void) => {
      const body = entryStream as unknown as Readable;
      body.on("error", () => undefined); // destroyed with the archive when the size check stops it
      try {
        check();
      } catch (error) {
        body.resume();
        reader.destroy(error as Error);
        return;
      }
      const name = path.join(parent, header.name).replace(/^\/+/, "");
      const link = header.type === "link" ? (header.linkname ?? "") : null;
      if (reservedPlaceOf(name) || (link !== null && (reservedPlaceOf(link) || reservedPlaceOf(path.join(parent, link))))) {
        body.on("end", () => next()).resume();
        return;
      }
      // A hard link names its target as the archive names entries: from the folder's own name too.
      const linkname = link === null ? header.linkname : path.join(parent, link).replace(/^\/+/, "");
      const copy = target.entry({ ...header, name, linkname }, (error) => next(error ?? null));
      body.pipe(copy);
    });
    reader.on("finish", resolve);
    reader.on("error", reject);
    source.on("error", reject);
    source.pipe(reader);
  });
}
