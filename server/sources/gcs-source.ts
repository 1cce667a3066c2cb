// `{type: "gcs", source: "gs://bucket/prefix", target}`: the objects under the prefix are copied into
// the target folder (an object named exactly by the prefix becomes the target file itself). Objects
// come from a GCS emulator over the JSON API when STORAGE_EMULATOR_HOST is set (the convention of
// fake-gcs-server and Google's own client libraries), otherwise from EMULATOR_GCS_DIR/<bucket>/<prefix>.

import fs from "node:fs/promises";
import path from "node:path";
import { EmulatorError } from "../common/errors.js";
import { isWithin } from "../common/paths.js";
import { serveLocalPath } from "./local-folders.js";
import { measureTree, readMeasuredFile, type TreeLimits } from "./local-tree.js";

export interface GcsSettings {
  /** STORAGE_EMULATOR_HOST: "http://host:port" or "host:port". */
  emulatorHost?: string | undefined;
  /** EMULATOR_GCS_DIR: a folder holding one folder per bucket. */
  localDir?: string | undefined;
  /** Never read from EMULATOR_GCS_DIR, nor any folder holding them: the emulator's data folder. */
  protectedFolders?: readonly string[];
}

export interface GcsObject {
  /** Path below the prefix ("" when the prefix names the object itself). */
  relativePath: string;
  content: Buffer;
}

export class GcsSourceError extends EmulatorError {}

export function parseGcsUri(source: string): { bucket: string; prefix: string } {
  const match = /^gs:\/\/([a-z0-9][a-z0-9._-]{1,221}[a-z0-9])(?:\/(.*))?$/.exec(source);
  if (!match) throw new GcsSourceError(`"${source}" is not a gs://bucket/prefix URI`);
  return { bucket: match[1]!, prefix: match[2] ?? "" };
}

/** The object's place below the prefix, or null when it lies outside it (a "dir" prefix must match a whole segment). */
function relativeTo(prefix: string, name: string): string | null {
  if (name === prefix) return "";
  const folder = prefix === "" || prefix.endsWith("/") ? prefix : `${prefix}/`;
  return name.startsWith(folder) ? name.slice(folder.length) : null;
}

export async function fetchGcsObjects(source: string, settings: GcsSettings, limits: TreeLimits): Promise<GcsObject[]> {
  const { bucket, prefix } = parseGcsUri(source);
  const objects = settings.emulatorHost
    ? await fromEmulator(settings.emulatorHost, bucket, prefix, limits)
    : settings.localDir
      ? await fromFolder(settings.localDir, bucket, prefix, limits, settings.protectedFolders ?? [])
      : null;
  if (objects === null) {
    throw new GcsSourceError("no GCS is configured: set STORAGE_EMULATOR_HOST (a GCS emulator) or EMULATOR_GCS_DIR (a folder per bucket)");
  }
  if (objects.length === 0) throw new GcsSourceError(`no objects under ${source}`);
  return objects;
}

async function fromEmulator(host: string, bucket: string, prefix: string, limits: TreeLimits): Promise<GcsObject[]> {
  const { maxBytes, maxEntries } = limits;
  const base = (/^https?:\/\//.test(host) ? host : `http://${host}`).replace(/\/+$/, "");
  const names: string[] = [];
  let pageToken: string | undefined;
  do {
    const url = new URL(`${base}/storage/v1/b/${encodeURIComponent(bucket)}/o`);
    url.searchParams.set("prefix", prefix);
    if (pageToken) url.searchParams.set("pageToken", pageToken);
    const page = (await getJson(url)) as { items?: Array<{ name?: string }>; nextPageToken?: string };
    for (const item of page.items ?? []) if (typeof item.name === "string") names.push(item.name);
    // Stop listing as soon as there are too many: a huge bucket is refused, not listed to its end.
    if (names.length > maxEntries) {
      throw new GcsSourceError(`gs://${bucket}/${prefix} holds more than ${maxEntries} objects (EMULATOR_MAX_SOURCES_FILES)`);
    }
    pageToken = page.nextPageToken || undefined;
  } while (pageToken);
  const objects: GcsObject[] = [];
  let total = 0;
  for (const name of names) {
    const relativePath = relativeTo(prefix, name);
    if (relativePath === null || name.endsWith("/")) continue; // outside the prefix, or a folder placeholder
    const response = await fetchOrExplain(`${base}/storage/v1/b/${encodeURIComponent(bucket)}/o/${encodeURIComponent(name)}?alt=media`);
    const content = Buffer.from(await response.arrayBuffer());
    total += content.length;
    if (total > maxBytes) throw new GcsSourceError(`the objects under gs://${bucket}/${prefix} are larger than ${maxBytes} bytes`);
    objects.push({ relativePath, content });
  }
  return objects;
}

async function getJson(url: URL): Promise<unknown> {
  const response = await fetchOrExplain(url.toString());
  return response.json();
}

async function fetchOrExplain(url: string): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  } catch (error) {
    throw new GcsSourceError(
      `the GCS emulator at ${new URL(url).origin} did not answer (${(error as Error).message}); check STORAGE_EMULATOR_HOST`,
    );
  }
  if (response.status === 404) throw new GcsSourceError(`not found in the GCS emulator: ${new URL(url).pathname}`);
  if (!response.ok) throw new GcsSourceError(`the GCS emulator answered ${response.status} for ${new URL(url).pathname}`);
  return response;
}

async function fromFolder(
  root: string,
  bucket: string,
  prefix: string,
  limits: TreeLimits,
  protectedFolders: readonly string[],
): Promise<GcsObject[]> {
  const bucketDir = path.resolve(root, bucket);
  const start = path.resolve(bucketDir, prefix);
  // The prefix comes from the request: it may not climb out of the bucket's folder.
  if (!isWithin(start, bucketDir)) throw new GcsSourceError(`the prefix "${prefix}" leaves the bucket`);
  try {
    await fs.lstat(start);
  } catch {
    throw new GcsSourceError(`no objects under gs://${bucket}/${prefix} (looked in ${start})`);
  }
  // The same rules as a repository's local folder: inside EMULATOR_GCS_DIR once links are resolved,
  // never the data folder, only what other users of the host may read; measured before it is read.
  const served = await serveLocalPath({
    requested: start,
    roots: [root],
    protectedFolders,
    howToAllow: "it leaves EMULATOR_GCS_DIR",
  });
  const stat = await fs.stat(served.path);
  if (stat.isFile()) {
    if (stat.size > limits.maxBytes)
      throw new GcsSourceError(`the objects under gs://${bucket}/${prefix} are larger than ${limits.maxBytes} bytes`);
    const entry = {
      kind: "file" as const,
      name: path.basename(served.path),
      size: stat.size,
      executable: false,
      dev: stat.dev,
      ino: stat.ino,
    };
    return [{ relativePath: "", content: await readMeasuredFile(path.dirname(served.path), entry) }];
  }
  const measured = await measureTree(served.path, limits, {
    onlyShared: true,
    protectedIdentities: served.protectedIdentities,
    bytesSetting: "EMULATOR_MAX_SOURCES_BYTES",
    entriesSetting: "EMULATOR_MAX_SOURCES_FILES",
  });
  const objects: GcsObject[] = [];
  for (const entry of measured.entries) {
    // A bucket holds objects only: folders are implied by their names, links have no meaning there.
    if (entry.kind === "file") objects.push({ relativePath: entry.name, content: await readMeasuredFile(served.path, entry) });
  }
  return objects;
}
