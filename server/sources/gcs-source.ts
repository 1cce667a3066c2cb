// `{type: "gcs", source: "gs://bucket/prefix", target}`: the objects under the prefix are copied into
// the target folder (an object named exactly by the prefix becomes the target file itself). Objects
// come from a GCS emulator over the JSON API when STORAGE_EMULATOR_HOST is set (the convention of
// fake-gcs-server and Google's own client libraries), otherwise from EMULATOR_GCS_DIR/<bucket>/<prefix>.

import type { Stats } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { EmulatorError } from "../common/errors.js";

export interface GcsSettings {
  /** STORAGE_EMULATOR_HOST: "http://host:port" or "host:port". */
  emulatorHost?: string | undefined;
  /** EMULATOR_GCS_DIR: a folder holding one folder per bucket. */
  localDir?: string | undefined;
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

export async function fetchGcsObjects(source: string, settings: GcsSettings, maxBytes: number): Promise<GcsObject[]> {
  const { bucket, prefix } = parseGcsUri(source);
  const objects = settings.emulatorHost
    ? await fromEmulator(settings.emulatorHost, bucket, prefix, maxBytes)
    : settings.localDir
      ? await fromFolder(settings.localDir, bucket, prefix, maxBytes)
      : null;
  if (objects === null) {
    throw new GcsSourceError("no GCS is configured: set STORAGE_EMULATOR_HOST (a GCS emulator) or EMULATOR_GCS_DIR (a folder per bucket)");
  }
  if (objects.length === 0) throw new GcsSourceError(`no objects under ${source}`);
  return objects;
}

async function fromEmulator(host: string, bucket: string, prefix: string, maxBytes: number): Promise<GcsObject[]> {
  const base = (/^https?:\/\//.test(host) ? host : `http://${host}`).replace(/\/+$/, "");
  const names: string[] = [];
  let pageToken: string | undefined;
  do {
    const url = new URL(`${base}/storage/v1/b/${encodeURIComponent(bucket)}/o`);
    url.searchParams.set("prefix", prefix);
    if (pageToken) url.searchParams.set("pageToken", pageToken);
    const page = (await getJson(url)) as { items?: Array<{ name?: string }>; nextPageToken?: string };
    for (const item of page.items ?? []) if (typeof item.name === "string") names.push(item.name);
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

async function fromFolder(root: string, bucket: string, prefix: string, maxBytes: number): Promise<GcsObject[]> {
  const bucketDir = path.resolve(root, bucket);
  const start = path.resolve(bucketDir, prefix);
  // The prefix comes from the request: it may not climb out of the bucket's folder.
  if (start !== bucketDir && !start.startsWith(`${bucketDir}${path.sep}`))
    throw new GcsSourceError(`the prefix "${prefix}" leaves the bucket`);
  let stat: Stats;
  try {
    stat = await fs.stat(start);
  } catch {
    throw new GcsSourceError(`no objects under gs://${bucket}/${prefix} (looked in ${start})`);
  }
  if (stat.isFile()) return [{ relativePath: "", content: await fs.readFile(start) }];
  const objects: GcsObject[] = [];
  let total = 0;
  const walk = async (dir: string): Promise<void> => {
    for (const entry of (await fs.readdir(dir, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile()) {
        const content = await fs.readFile(full);
        total += content.length;
        if (total > maxBytes) throw new GcsSourceError(`the objects under gs://${bucket}/${prefix} are larger than ${maxBytes} bytes`);
        objects.push({ relativePath: path.relative(start, full).split(path.sep).join("/"), content });
      }
    }
  };
  await walk(start);
  return objects;
}
