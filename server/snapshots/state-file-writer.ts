// Writes a state file (state-format.ts) to a stream: the entries in their fixed order, gzip'd.

import type { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { pack } from "tar-stream";
import { MANIFEST_ENTRY, RECORDS_ENTRY, SECRETS_ENTRY, environmentEntry, type StateManifest, type StateTables } from "./state-format.js";

export interface StateFileContent {
  manifest: StateManifest;
  tables: StateTables;
  sealedSecrets: Buffer | null;
  /** Environment ID → its saved files (a tar), in the manifest's order. */
  environmentFiles: Map<string, Buffer>;
}

export async function writeStateFile(content: StateFileContent, out: Writable): Promise<void> {
  const archive = pack();
  const done = pipeline(archive, createGzip(), out);
  const add = async (name: string, body: Buffer) => {
    const written = new Promise<void>((resolve, reject) =>
      archive.entry({ name, size: body.length, mode: 0o600 }, body, (error) => (error ? reject(error) : resolve())),
    );
    await written;
  };
  await add(MANIFEST_ENTRY, Buffer.from(JSON.stringify(content.manifest, null, 2)));
  await add(RECORDS_ENTRY, Buffer.from(JSON.stringify({ tables: content.tables })));
  if (content.sealedSecrets) await add(SECRETS_ENTRY, content.sealedSecrets);
  for (const id of content.manifest.environments) {
    const files = content.environmentFiles.get(id);
    if (files) await add(environmentEntry(id), files);
  }
  archive.finalize();
  await done;
}
