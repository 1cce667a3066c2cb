// DNS rebinding (docs/security.md#dns-rebinding-the-host-header): a web page whose own name now
// resolves to 127.0.0.1 makes the browser send its requests to the emulator with that name in `Host`.
// The emulator answers only requests addressed to a loopback name, an IP address, its HOST setting or a
// name the operator lists in EMULATOR_ALLOWED_HOSTS; everything else, /health included, is a 403.

import assert from "node:assert/strict";
import { request } from "node:http";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";

/** A request to the emulator on 127.0.0.1 with the Host header as given (a browser sends the page's name). */
function withHost(
  emulator: FakeRuntimeEmulator,
  host: string,
  path: string,
  method = "GET",
): Promise<{ status: number; json: { error?: { code: number; status: string; message: string } } & Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: emulator.port,
        path,
        method,
        headers: { host, "x-goog-api-key": "host-test-key", "content-type": "application/json" },
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(body) }));
      },
    );
    req.on("error", reject);
    req.end(method === "POST" ? "{}" : undefined);
  });
}

/** Bytes as written, for headers node:http would not send (an empty Host, none at all); the whole answer. */
function rawRequest(emulator: FakeRuntimeEmulator, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port: emulator.port }, () => socket.end(text));
    let answer = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (answer += chunk));
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
  });
}

describe("the Host header (default settings)", () => {
  let emulator: FakeRuntimeEmulator;
  before(async () => {
    emulator = await startFakeRuntimeEmulator();
  });
  after(async () => {
    await emulator.close();
  });

  it("refuses a name that is not loopback with a 403 naming EMULATOR_ALLOWED_HOSTS, on every route, /health included", async () => {
    for (const [host, path, method] of [
      [`rebind.attacker.example:${0}`, "/health", "GET"],
      ["rebind.attacker.example", "/v1beta/environments", "GET"],
      [`rebind.attacker.example:${8080}`, "/v1beta/interactions", "POST"],
      ["evil.example.", "/v1beta/credentials", "GET"],
      ["localhost.attacker.example", "/emulator/interactions/x/hooks", "GET"],
      ["127.0.0.1.nip.io", "/upload/v1beta/environments/env_x/files/a", "PUT"],
      ["rebind.attacker.example", "/ui", "GET"],
      ["rebind.attacker.example", "/ui/assets/app.js", "GET"],
      ["rebind.attacker.example", "/emulator/interactions?stream=true", "GET"],
    ] as const) {
      const { status, json } = await withHost(emulator, host, path, method);
      assert.equal(status, 403, `${host} ${path}`);
      assert.equal(json.error?.status, "PERMISSION_DENIED");
      assert.equal(json.error?.code, "permission_denied");
      assert.match(json.error?.message ?? "", /EMULATOR_ALLOWED_HOSTS/);
      assert.ok(json.error?.message.includes(`"${host}"`), json.error?.message);
    }
  });

  it("refuses an empty Host header, and answers a request that has none (no browser sends one)", async () => {
    const empty = await rawRequest(emulator, "GET /health HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n");
    assert.match(empty, /^HTTP\/1\.1 403 /);
    assert.match(empty, /EMULATOR_ALLOWED_HOSTS/);
    const none = await rawRequest(emulator, "GET /health HTTP/1.0\r\n\r\n");
    assert.match(none, /^HTTP\/1\.1 200 /);
  });

  it("answers loopback names, IP addresses and the bound address, with or without a port", async () => {
    for (const host of [
      `127.0.0.1:${emulator.port}`,
      "127.0.0.1",
      `localhost:${emulator.port}`,
      "LOCALHOST",
      "localhost.",
      "emulator.localhost:8080",
      "127.5.6.7",
      `[::1]:${emulator.port}`,
      "[::1]",
      "10.20.30.40:8080",
      "[fd00::1]",
    ]) {
      const health = await withHost(emulator, host, "/health");
      assert.equal(health.status, 200, `${host}: ${JSON.stringify(health.json)}`);
      const list = await withHost(emulator, host, "/v1beta/environments");
      assert.equal(list.status, 200, `${host}: ${JSON.stringify(list.json)}`);
    }
  });

  it("refuses an IPv6 address without brackets and a port that is not a number", async () => {
    for (const host of ["::1", "localhost:http", "localhost:80:80"]) {
      assert.equal((await withHost(emulator, host, "/health")).status, 403, host);
    }
  });
});

describe("the Host header with EMULATOR_ALLOWED_HOSTS", () => {
  it("answers the names listed (a compose service name, a wildcard) and still refuses others", async () => {
    const emulator = await startFakeRuntimeEmulator({ EMULATOR_ALLOWED_HOSTS: "emulator, *.dev.example" });
    try {
      for (const host of ["emulator:8080", "Emulator", "api.dev.example", "a.b.dev.example:1", "localhost"]) {
        assert.equal((await withHost(emulator, host, "/health")).status, 200, host);
      }
      for (const host of ["dev.example", "emulator.attacker.example", "xemulator"]) {
        assert.equal((await withHost(emulator, host, "/health")).status, 403, host);
      }
    } finally {
      await emulator.close();
    }
  });

  it('turns the check off with "*"', async () => {
    const emulator = await startFakeRuntimeEmulator({ EMULATOR_ALLOWED_HOSTS: "*" });
    try {
      assert.equal((await withHost(emulator, "rebind.attacker.example", "/health")).status, 200);
    } finally {
      await emulator.close();
    }
  });
});
