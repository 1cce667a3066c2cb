// A tar archive built in memory from a list of entries: the shape in which the Docker engine takes
// files (a sandbox's sources, an image's build context) and in which repository sources are packed.

import { pack, type Header } from "tar-stream";

export interface TarEntry {
  header: Partial<Header> & { name: string };
  content?: Buffer;
}

export async function tarBuffer(entries: TarEntry[]): Promise<Buffer> {
  const archive = pack();
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    archive.on("data", (chunk: unknown) => chunks.push(chunk as Buffer));
    archive.on("end", () => resolve(Buffer.concat(chunks)));
    archive.on("error", reject);
  });
  for (const entry of entries) {
    if (entry.content) archive.entry(entry.header, entry.content);
    else archive.entry(entry.header);
  }
  archive.finalize();
  return done;
}
