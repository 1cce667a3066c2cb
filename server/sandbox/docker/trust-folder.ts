// The CA files every sandbox trusts (the egress proxy's CA, and the image's bundle with it), written
// once into the emulator's data folder and mounted read-only into each sandbox that gets a socket
// channel (docker-runtime.ts), instead of a tar uploaded into every container: the engine extracts an
// upload by starting a copy of itself in the container's file system, measured here at about 35 ms of
// its CPU and 25 ms of a sandbox's creation.

import fs from "node:fs";
import path from "node:path";
import type { SandboxFile } from "../runtime.js";

/** Writes `files` into `folder` and returns their mounts, each read-only at the file's path. */
export function writeTrustFolder(
  folder: string,
  files: readonly SandboxFile[],
): Array<{ Type: "bind"; Source: string; Target: string; ReadOnly: true }> {
  fs.mkdirSync(folder, { recursive: true, mode: 0o755 });
  return files.map((file, index) => {
    const source = path.join(folder, `${index}-${path.basename(file.path)}`);
    // Written beside and renamed into place: a sandbox that has the file mounted keeps the one it got.
    const partial = `${source}.partial`;
    fs.writeFileSync(partial, file.content);
    fs.chmodSync(partial, 0o644);
    fs.renameSync(partial, source);
    return { Type: "bind" as const, Source: source, Target: file.path, ReadOnly: true as const };
  });
}
