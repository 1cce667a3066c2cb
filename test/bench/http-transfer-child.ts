// One HTTP transfer of the files API, in a process of its own (files-api.ts says why): the request in
// argv[2] as JSON, the outcome on stdout as JSON: its time from the request to the answer's last byte,
// its status, the bytes of the answer, the answer's first 4 KiB as text, and this process's CPU
// meanwhile. An upload's body is the file, streamed a MiB at a time.

import fs from "node:fs";
import http from "node:http";
import type { Transfer, TransferRequest } from "./files-api.js";

const request = JSON.parse(process.argv[2] ?? "{}") as TransferRequest;
const started = process.hrtime.bigint();
const cpu = process.cpuUsage();
const outgoing = http.request(
  new URL(request.path, request.baseUrl),
  {
    method: request.method,
    headers: {
      "x-goog-api-key": request.apiKey,
      ...(request.body ? { "content-type": "application/octet-stream", "content-length": String(request.body.bytes) } : {}),
    },
  },
  (response) => {
    let bytes = 0;
    const head: Buffer[] = [];
    response.on("data", (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes <= 4096) head.push(chunk);
    });
    response.on("end", () => {
      const used = process.cpuUsage(cpu);
      const outcome: Transfer = {
        ms: Number(process.hrtime.bigint() - started) / 1e6,
        status: response.statusCode ?? 0,
        bytes,
        text: Buffer.concat(head).toString("utf8"),
        clientCpuMs: (used.user + used.system) / 1000,
      };
      process.stdout.write(JSON.stringify(outcome));
    });
  },
);
if (request.body) fs.createReadStream(request.body.file, { highWaterMark: 1024 * 1024 }).pipe(outgoing);
else outgoing.end();
