// A sandbox's saved files as one tar with paths from "/" (server/sandbox/docker/saved-files.ts): the
// engine names an archive's entries, and a hard link's target, from the folder's own name ("sandbox/…"
// for /home/sandbox); both must be re-rooted, or the tar's hard link points at /sandbox/… (a state file
// that its own import refuses as "a hard link to a file outside the saved folders").

import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { describe, it } from "node:test";
import { extract } from "tar-stream";
import { tarBuffer } from "../../server/common/tar.js";
import { reRootedTar } from "../../server/sandbox/docker/saved-files.js";

async function entriesOf(tar: Buffer): Promise<Array<{ name: string; type: string; linkname: string | null }>> {
  const entries: Array<{ name: string; type: string; linkname: string | null }> = [];
  const reader = extract();
  await new Promise<void>((resolve, reject) => {
    reader.on("entry", (header, stream, next) => {
      entries.push({ name: header.name, type: header.type ?? "file", linkname: header.linkname ?? null });
      stream.on("end", () => next()).resume();
    });
    reader.on("finish", resolve);
    reader.on("error", reject);
    reader.end(tar);
  });
  return entries;
}

describe("saved files re-rooted from the engine's archives", () => {
  it("re-roots a hard link's target with its name", async () => {
    // As the engine archives /home/sandbox holding a file with two names.
    const archive = await tarBuffer([
      { header: { name: "sandbox/", type: "directory", mode: 0o755 } },
      { header: { name: "sandbox/a", mode: 0o644 }, content: Buffer.from("a\n") },
      { header: { name: "sandbox/b", type: "link", linkname: "sandbox/a", mode: 0o644 } },
      { header: { name: "sandbox/s", type: "symlink", linkname: "a", mode: 0o777 } },
    ]);
    const tar = await reRootedTar([{ parent: "/home", open: async () => Readable.from([archive]) }], 1024 * 1024);
    assert.deepEqual(await entriesOf(tar), [
      { name: "home/sandbox/", type: "directory", linkname: null },
      { name: "home/sandbox/a", type: "file", linkname: null },
      { name: "home/sandbox/b", type: "link", linkname: "home/sandbox/a" },
      // A symlink's target is the link's own text: never re-rooted.
      { name: "home/sandbox/s", type: "symlink", linkname: "a" },
    ]);
  });
});
