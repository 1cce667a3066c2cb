// Reads one file out of an image without running anything: create a container, copy the file out
// of it (the engine's archive API works on containers that never started), remove it. The caller's
// labels go on that container: without them it would still carry the image's own "managed" label and
// none naming its emulator, so one left behind by a kill would be found by no reconcile or sweep.

import type Docker from "dockerode";
import { extract } from "tar-stream";

export async function readImageFile(docker: Docker, image: string, filePath: string, labels: Record<string, string>): Promise<Buffer> {
  const container = await docker.createContainer({
    Image: image,
    Cmd: ["true"],
    NetworkDisabled: true,
    Labels: labels,
    // Never started, so never on a network; said outright all the same (docs/security.md#availability-faults-of-docker-are-never-the-users-loss).
    HostConfig: { NetworkMode: "none" },
  });
  try {
    const archive = (await container.getArchive({ path: filePath })) as NodeJS.ReadableStream;
    return await firstFileOf(archive);
  } finally {
    await container.remove({ force: true }).catch(() => undefined);
  }
}

function firstFileOf(archive: NodeJS.ReadableStream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const reader = extract();
    let found: Buffer | null = null;
    reader.on("entry", (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: unknown) => chunks.push(chunk as Buffer));
      stream.on("end", () => {
        if (found === null && header.type === "file") found = Buffer.concat(chunks);
        next();
      });
      stream.resume();
    });
    reader.on("finish", () => (found ? resolve(found) : reject(new Error("the archive held no file"))));
    reader.on("error", reject);
    archive.on("error", reject);
    archive.pipe(reader);
  });
}
