// A tiny stand-in for a GCS emulator (the JSON API subset fake-gcs-server serves and the emulator
// uses): list objects by prefix with paging, and download with alt=media. Loopback only.

import http from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeGcs {
  host: string;
  requests: string[];
  close(): Promise<void>;
}

export async function startFakeGcs(objects: Record<string, Record<string, string | Buffer>>, pageSize = 2): Promise<FakeGcs> {
  const requests: string[] = [];
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://gcs.local");
    requests.push(`${request.method} ${url.pathname}${url.search}`);
    const list = /^\/storage\/v1\/b\/([^/]+)\/o$/.exec(url.pathname);
    const get = /^\/storage\/v1\/b\/([^/]+)\/o\/(.+)$/.exec(url.pathname);
    const bucket = objects[decodeURIComponent((list ?? get)?.[1] ?? "")];
    if (!bucket) {
      response.writeHead(404, { "content-type": "application/json" }).end('{"error":{"code":404,"message":"no such bucket"}}');
      return;
    }
    if (list) {
      const names = Object.keys(bucket)
        .filter((name) => name.startsWith(url.searchParams.get("prefix") ?? ""))
        .sort();
      const start = Number(url.searchParams.get("pageToken") ?? "0");
      const page = names.slice(start, start + pageSize);
      const next = start + pageSize < names.length ? String(start + pageSize) : undefined;
      response.writeHead(200, { "content-type": "application/json" });
      response.end(
        JSON.stringify({
          kind: "storage#objects",
          items: page.map((name) => ({ name, size: String(Buffer.byteLength(bucket[name]!)) })),
          ...(next ? { nextPageToken: next } : {}),
        }),
      );
      return;
    }
    const name = decodeURIComponent(get![2]!);
    const content = bucket[name];
    if (content === undefined || url.searchParams.get("alt") !== "media") {
      response.writeHead(404, { "content-type": "application/json" }).end('{"error":{"code":404,"message":"no such object"}}');
      return;
    }
    response.writeHead(200, { "content-type": "application/octet-stream" }).end(content);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    host: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
