// A file through the environments files API over HTTP, as a client moves it: the single PUT upload
// (the body is the file) and the download (?alt=media), each streamed, each checked for its length.

import fs from "node:fs";
import http from "node:http";
import { withDeadline } from "./bounded.js";
import { elapsedMs } from "./stats.js";

const DEADLINE_MS = 120_000;

function send(
  baseUrl: string,
  apiKey: string,
  method: "GET" | "PUT",
  path: string,
  body?: { file: string; bytes: number },
): Promise<{ status: number; bytes: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      new URL(path, baseUrl),
      {
        method,
        headers: {
          "x-goog-api-key": apiKey,
          ...(body ? { "content-type": "application/octet-stream", "content-length": String(body.bytes) } : {}),
        },
      },
      (response) => {
        let bytes = 0;
        const head: Buffer[] = [];
        response.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
          if (bytes <= 4096) head.push(chunk);
        });
        response.on("error", reject);
        response.on("end", () => resolve({ status: response.statusCode ?? 0, bytes, text: Buffer.concat(head).toString("utf8") }));
      },
    );
    request.on("error", reject);
    if (body) fs.createReadStream(body.file, { highWaterMark: 1024 * 1024 }).pipe(request);
    else request.end();
  });
}

/** Milliseconds to upload `file` (`bytes` long) to `apiPath` in the environment with one PUT, until its answer. */
export async function uploadMs(baseUrl: string, apiKey: string, environmentId: string, apiPath: string, file: string, bytes: number) {
  const start = process.hrtime.bigint();
  const answer = await withDeadline(
    send(baseUrl, apiKey, "PUT", `/upload/v1beta/environments/${environmentId}/files/${apiPath}?overwrite=true`, { file, bytes }),
    DEADLINE_MS,
    "an upload through the files API",
  );
  const ms = elapsedMs(start);
  if (answer.status !== 200) throw new Error(`upload of ${apiPath}: HTTP ${answer.status}: ${answer.text.slice(0, 300)}`);
  return ms;
}

/** Milliseconds to download `apiPath` of the environment (?alt=media) to its last byte; checks its length. */
export async function downloadMs(baseUrl: string, apiKey: string, environmentId: string, apiPath: string, bytes: number) {
  const start = process.hrtime.bigint();
  const answer = await withDeadline(
    send(baseUrl, apiKey, "GET", `/v1beta/environments/${environmentId}/files/${apiPath}?alt=media`),
    DEADLINE_MS,
    "a download through the files API",
  );
  const ms = elapsedMs(start);
  if (answer.status !== 200) throw new Error(`download of ${apiPath}: HTTP ${answer.status}: ${answer.text.slice(0, 300)}`);
  if (answer.bytes !== bytes) throw new Error(`download of ${apiPath}: ${answer.bytes} bytes, not ${bytes}`);
  return ms;
}
