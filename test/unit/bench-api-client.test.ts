// The benchmark's HTTP client (test/bench/api-client.ts): a request sent on a kept-alive connection that
// the server closes unread (its idle close racing the request) is sent again on a new connection; a
// connection reset on a request's own new connection is not retried.

import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import { ApiClient } from "../bench/api-client.js";

/**
 * A server whose `drop(n)` says which requests (1-based, counted over the whole server) it reads and
 * then resets their connection without answering; every other request is answered `{"n": n}`.
 */
async function server(drop: (n: number) => boolean): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let count = 0;
  const created = http.createServer((request, response) => {
    count++;
    request.resume();
    if (drop(count)) {
      request.socket.resetAndDestroy();
      return;
    }
    response.setHeader("content-type", "application/json");
    response.end(JSON.stringify({ n: count }));
  });
  await new Promise<void>((resolve) => created.listen(0, "127.0.0.1", resolve));
  const { port } = created.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        created.closeAllConnections();
        created.close(() => resolve());
      }),
  };
}

describe("the benchmark's API client", () => {
  it("sends a request again on a new connection when its kept-alive one was reset unread", async () => {
    const test = await server((n) => n === 2);
    const client = new ApiClient(test.url, "key", 1);
    try {
      assert.deepEqual(await client.request("GET", "/first"), { n: 1 });
      // The second request goes out on the first one's connection, which the server resets.
      assert.deepEqual(await client.request("POST", "/second", { a: 1 }), { n: 3 });
      assert.equal(test.requests(), 3);
    } finally {
      client.close();
      await test.close();
    }
  });

  it("does not send again a request whose own new connection was reset", async () => {
    const test = await server((n) => n === 1);
    const client = new ApiClient(test.url, "key", 1);
    try {
      await assert.rejects(client.request("POST", "/first", {}), (error: NodeJS.ErrnoException) => error.code === "ECONNRESET");
      assert.equal(test.requests(), 1);
    } finally {
      client.close();
      await test.close();
    }
  });
});
