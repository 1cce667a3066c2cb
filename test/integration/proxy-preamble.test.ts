// A connection is served only after a valid identity preamble. Anything else is closed without a
// byte of answer, so a local process that finds the port learns nothing and reaches nothing.

import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { startEgressProxy, type EgressProxy } from "../../proxy/egress-proxy.js";
import { encodePreamble } from "../../proxy/preamble.js";
import {
  noDnsResolver,
  openProxyConnection,
  preambleFor,
  requestOn,
  startEchoServer,
  TEST_SECRET,
  waitForClose,
  type EchoServer,
} from "../support/proxy-fixtures.js";

describe("the identity preamble", () => {
  let dataDir: string;
  let upstream: EchoServer;
  let proxy: EgressProxy;
  const rejections: Array<{ reason: string; detail: string }> = [];

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "proxy-preamble-"));
    upstream = await startEchoServer("upstream");
    proxy = await startEgressProxy({
      secret: TEST_SECRET,
      caDirectory: path.join(dataDir, "egress-ca"),
      resolver: noDnsResolver,
      hostMap: new Map([["allowed.example", { host: "127.0.0.1", port: upstream.port }]]),
      preambleTimeoutMs: 300,
      maxPreambleBytes: 4096,
      onConnectionRejected: (event) => rejections.push(event),
    });
  });
  after(async () => {
    await proxy.close();
    await upstream.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const request = "GET http://allowed.example/ HTTP/1.1\r\nHost: allowed.example\r\n\r\n";
  const table: Array<{ name: string; bytes: string; reason: string }> = [
    { name: "a bare HTTP request (no preamble)", bytes: request, reason: "not-json" },
    {
      name: "a wrong secret",
      bytes: encodePreamble(preambleFor({ mode: "open" }, "env_x", "wrong-secret-wrong-secret")) + request,
      reason: "wrong-secret",
    },
    {
      name: "a preamble without a secret",
      bytes: `${JSON.stringify({ environment_id: "env_x", policy: { mode: "open" } })}\n${request}`,
      reason: "wrong-secret",
    },
    {
      name: "an invalid policy",
      bytes: `${JSON.stringify({ secret: TEST_SECRET, environment_id: "env_x", policy: { mode: "everything" } })}\n${request}`,
      reason: "invalid",
    },
    { name: "an oversized preamble", bytes: `${"x".repeat(10_000)}\n`, reason: "no-preamble" },
    { name: "no newline before the deadline", bytes: '{"secret":', reason: "no-preamble" },
  ];
  for (const { name, bytes, reason } of table) {
    it(`closes a connection with ${name}, answering nothing`, async () => {
      const socket = net.connect({ host: "127.0.0.1", port: proxy.port });
      socket.on("error", () => undefined);
      await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
      socket.write(bytes);
      const { received } = await waitForClose(socket);
      assert.equal(received, "");
      assert.ok(
        rejections.some((rejection) => rejection.reason === reason),
        JSON.stringify(rejections),
      );
      assert.doesNotMatch(JSON.stringify(rejections), new RegExp(TEST_SECRET));
    });
  }
  it("reached no upstream with any of them", () => assert.equal(upstream.requests.length, 0));

  it("serves a request written in the same packet as the preamble", async () => {
    const socket = net.connect({ host: "127.0.0.1", port: proxy.port });
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    socket.write(encodePreamble(preambleFor({ mode: "open" })) + request.replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n"));
    const { received } = await waitForClose(socket);
    assert.match(received, /^HTTP\/1\.1 200 /);
    assert.match(received, /"server":"upstream"/);
  });

  it("serves a request written long after the preamble", async () => {
    const socket = await openProxyConnection(proxy.port, preambleFor({ mode: "open" }));
    await new Promise((resolve) => setTimeout(resolve, 400));
    const response = await requestOn(socket, { url: "http://allowed.example/late" });
    socket.destroy();
    assert.equal(response.status, 200);
  });
});
