// Reads a state file (state-format.ts) from a stream, checking as it goes: the manifest must come first
// and name this format and version before anything else is read; no entry but the known ones; every
// JSON entry parsed and checked. The bytes read (compressed and not) are bounded by maxBytes, so a
// large upload or a gzip bomb stops at the bound. Environments' saved files go to files in a private
// temporary folder (the caller removes it), not into memory. Nothing here changes any state.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Transform, type Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { extract, type Header } from "tar-stream";
import type { z } from "zod";
import { readRecords, type RecordsBounds } from "./records-reader.js";
import { StateBoundError, UnreadableStateError } from "./state-errors.js";
import {
  ENVIRONMENT_ENTRY,
  MANIFEST_ENTRY,
  RECORDS_ENTRY,
  SECRETS_ENTRY,
  STATE_FORMAT,
  STATE_VERSION,
  manifestSchema,
  type StateManifest,
  type StateTables,
} from "./state-format.js";

export { StateBoundError, UnreadableStateError } from "./state-errors.js";

/** What a file may hold (the settings named in each refusal). */
export interface StateReadLimits extends RecordsBounds {
  /** EMULATOR_STATE_MAX_BYTES: the file, compressed and not. */
  maxBytes: number;
  /** EMULATOR_STATE_MAX_RECORDS_BYTES: records.json, expanded. */
  maxRecordsBytes: number;
}

export interface ReadStateFile {
  manifest: StateManifest;
  tables: StateTables;
  sealedSecrets: Buffer | null;
  /** Environment ID → the path of its saved files' tar (in `folder`). */
  environmentFiles: Map<string, string>;
  /** The temporary folder holding them; remove it when done (removeReadState). */
  folder: string;
}

export function removeReadState(read: Pick<ReadStateFile, "folder">): void {
  fs.rmSync(read.folder, { recursive: true, force: true });
}

/** Counts the bytes that pass and fails the stream past `maxBytes`. */
function byteLimit(maxBytes: number, what: string): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      seen += chunk.length;
      if (seen > maxBytes) callback(new UnreadableStateError(`the ${what} passes ${maxBytes} bytes (EMULATOR_STATE_MAX_BYTES)`));
      else callback(null, chunk);
    },
  });
}

/** The entry's bytes; past `maxBytes` (EMULATOR_STATE_MAX_RECORDS_BYTES) refused as they arrive. */
async function collect(body: Readable, maxBytes = Number.POSITIVE_INFINITY, what = ""): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let seen = 0;
  for await (const chunk of body) {
    seen += (chunk as Buffer).length;
    if (seen > maxBytes)
      throw new StateBoundError(`${what} passes ${maxBytes} bytes (EMULATOR_STATE_MAX_RECORDS_BYTES); raise the setting to import it`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function parseJson<T>(schema: z.ZodType<T>, bytes: Buffer, entry: string): T {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString("utf8"));
  } catch {
    throw new UnreadableStateError(`${entry} is not JSON`);
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UnreadableStateError(`${entry} does not have the expected shape (${issue.path.join(".") || "top level"}: ${issue.message})`);
  }
  return parsed.data;
}

/** [choice] A manifest is a few lines (its environments' IDs): 1 MiB is far more than any needs. */
const MAX_MANIFEST_BYTES = 1024 * 1024;

export async function readStateFile(input: Readable, limits: StateReadLimits): Promise<ReadStateFile> {
  const { maxBytes } = limits;
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "emulator-state-"));
  fs.chmodSync(folder, 0o700);
  let manifest: StateManifest | null = null;
  let tables: StateTables | null = null;
  let sealedSecrets: Buffer | null = null;
  const environmentFiles = new Map<string, string>();
  const reader = extract();
  reader.on("entry", (header: Header, entryStream, next: (error?: Error | null) => void) => {
    const body = entryStream as unknown as Readable;
    void (async () => {
      const name = header.name;
      if (manifest === null) {
        if (name !== MANIFEST_ENTRY) throw new UnreadableStateError(`its first entry is ${JSON.stringify(name)}, not ${MANIFEST_ENTRY}`);
        const raw = parseJson(
          manifestSchema.pick({ format: true, version: true }).loose(),
          await collect(body, MAX_MANIFEST_BYTES, `its ${name}`),
          name,
        );
        if (raw.version !== STATE_VERSION) {
          throw new UnreadableStateError(
            `it is version ${raw.version} of ${STATE_FORMAT}; this emulator reads version ${STATE_VERSION}${raw.version > STATE_VERSION ? " (upgrade the emulator)" : ""}`,
          );
        }
        manifest = parseJson(manifestSchema, Buffer.from(JSON.stringify(raw)), name);
        return;
      }
      if (name === RECORDS_ENTRY && tables === null) {
        // Bounded before it is read (the header says its size), then read in slices (records-reader.ts).
        if ((header.size ?? 0) > limits.maxRecordsBytes) {
          throw new StateBoundError(
            `its ${name} has ${header.size} bytes, past ${limits.maxRecordsBytes} (EMULATOR_STATE_MAX_RECORDS_BYTES); raise the setting to import it`,
          );
        }
        tables = await readRecords(await collect(body, limits.maxRecordsBytes, `its ${name}`), limits, name);
        return;
      }
      if (name === SECRETS_ENTRY && sealedSecrets === null) {
        sealedSecrets = await collect(body, limits.maxRecordsBytes, `its ${name}`);
        return;
      }
      const environment = ENVIRONMENT_ENTRY.exec(name)?.[1];
      if (environment && manifest.environments.includes(environment) && !environmentFiles.has(environment)) {
        const file = path.join(folder, `${environment}.tar`);
        await pipeline(body, fs.createWriteStream(file, { mode: 0o600 }));
        environmentFiles.set(environment, file);
        return;
      }
      throw new UnreadableStateError(`it holds an entry this format does not have (${JSON.stringify(name)})`);
    })().then(
      () => next(),
      (error: unknown) => {
        body.resume();
        next(error as Error);
      },
    );
  });
  try {
    await pipeline(input, byteLimit(maxBytes, "file"), createGunzip(), byteLimit(maxBytes, "file's content"), reader);
    if (manifest === null) throw new UnreadableStateError(`it has no ${MANIFEST_ENTRY}`);
    const read = manifest as StateManifest;
    if (tables === null) throw new UnreadableStateError(`it has no ${RECORDS_ENTRY}`);
    if (read.secrets === "sealed" && sealedSecrets === null)
      throw new UnreadableStateError(`its manifest says it holds secrets, but it has no ${SECRETS_ENTRY}`);
    const missing = read.environments.filter((id) => !environmentFiles.has(id));
    if (missing.length > 0) throw new UnreadableStateError(`the saved files of ${missing.join(", ")} are missing (a truncated file?)`);
    return { manifest: read, tables, sealedSecrets, environmentFiles, folder };
  } catch (error) {
    removeReadState({ folder });
    if (error instanceof UnreadableStateError) throw error;
    // zlib and tar's own complaints: a damaged or cut-off file, or not gzip at all.
    throw new UnreadableStateError(`it is corrupt or truncated (${(error as Error).message})`);
  }
}
