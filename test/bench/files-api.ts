// A file through the environments files API over HTTP, as a client moves it: the single PUT upload
// (the body is the file) and the download (?alt=media), each streamed, each checked for its length.
//
// Each transfer runs in a Node.js process of its own (http-transfer-child.ts), which times it and reads
// its own CPU: in the benchmark's process, by the time the bytes part runs, its heap made the same
// client spend 230 ms of CPU per 100 MiB (one fresh MiB after another against a large heap) instead of
// about 40, on the two cores the emulator and the sandbox need.

import { fileURLToPath } from "node:url";
import { runJsonChild } from "./json-child.js";

const DEADLINE_MS = 120_000;
const CHILD = fileURLToPath(new URL("./http-transfer-child.js", import.meta.url));

/** One transfer as the child made it: its time, its answer, and the CPU its client used meanwhile. */
export interface Transfer {
  ms: number;
  status: number;
  bytes: number;
  text: string;
  clientCpuMs: number;
}

export interface TransferRequest {
  baseUrl: string;
  apiKey: string;
  method: "GET" | "PUT";
  path: string;
  body?: { file: string; bytes: number };
}

function transfer(request: TransferRequest, what: string): Promise<Transfer> {
  return runJsonChild<Transfer>(CHILD, request, what, DEADLINE_MS);
}

/** Uploads `file` (`bytes` long) to `apiPath` in the environment with one PUT, until its answer. */
export async function upload(baseUrl: string, apiKey: string, environmentId: string, apiPath: string, file: string, bytes: number) {
  const answer = await transfer(
    {
      baseUrl,
      apiKey,
      method: "PUT",
      path: `/upload/v1beta/environments/${environmentId}/files/${apiPath}?overwrite=true`,
      body: { file, bytes },
    },
    "an upload through the files API",
  );
  if (answer.status !== 200) throw new Error(`upload of ${apiPath}: HTTP ${answer.status}: ${answer.text.slice(0, 300)}`);
  return answer;
}

/** Downloads `apiPath` of the environment (?alt=media) to its last byte; checks its length. */
export async function download(baseUrl: string, apiKey: string, environmentId: string, apiPath: string, bytes: number) {
  const answer = await transfer(
    { baseUrl, apiKey, method: "GET", path: `/v1beta/environments/${environmentId}/files/${apiPath}?alt=media` },
    "a download through the files API",
  );
  if (answer.status !== 200) throw new Error(`download of ${apiPath}: HTTP ${answer.status}: ${answer.text.slice(0, 300)}`);
  if (answer.bytes !== bytes) throw new Error(`download of ${apiPath}: ${answer.bytes} bytes, not ${bytes}`);
  return answer;
}

/** Milliseconds to upload (upload() above). */
export async function uploadMs(baseUrl: string, apiKey: string, environmentId: string, apiPath: string, file: string, bytes: number) {
  return (await upload(baseUrl, apiKey, environmentId, apiPath, file, bytes)).ms;
}

/** Milliseconds to download (download() above). */
export async function downloadMs(baseUrl: string, apiKey: string, environmentId: string, apiPath: string, bytes: number) {
  return (await download(baseUrl, apiKey, environmentId, apiPath, bytes)).ms;
}
