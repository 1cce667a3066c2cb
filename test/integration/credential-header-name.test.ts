// A bearer_token credential's header_name is where the egress proxy injects its token, so it must be a
// header the proxy may inject (proxy/header-rules.ts). The API refuses the others when the credential is
// created or changed, with a 400 that names the header and why, instead of storing it and letting the
// proxy refuse every connection of the environments that use it.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";

let emulator: FakeRuntimeEmulator;
before(async () => {
  emulator = await startFakeRuntimeEmulator();
});
after(async () => {
  await emulator.close();
});

async function call(method: string, path: string, body: unknown) {
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    headers: { "x-goog-api-key": "credential-key", "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    json: (await response.json()) as { error?: { status: string; message: string }; header_name?: string },
  };
}

const REFUSED: Array<[string, RegExp]> = [
  ["Host", /frames or routes the request/],
  ["content-length", /frames or routes the request/],
  ["Transfer-Encoding", /frames or routes the request/],
  ["Connection", /hop-by-hop header/],
  ["Keep-Alive", /hop-by-hop header/],
  ["TE", /hop-by-hop header/],
  ["Trailer", /hop-by-hop header/],
  ["Upgrade", /hop-by-hop header/],
  ["Expect", /answered by the proxy itself/],
  ["Proxy-Authorization", /proxy header/],
  ["proxy-connection", /proxy header/],
  ["Bad Header", /not a valid HTTP header name/],
  ["__proto__", /cannot be the key of a header map/],
];

describe("a credential's header_name", () => {
  it("is refused at creation when the proxy could never inject it, naming the header and why", async () => {
    for (const [name, why] of REFUSED) {
      const { status, json } = await call("POST", "/v1beta/credentials", {
        type: "bearer_token",
        id: "c1",
        token: "t0ken",
        header_name: name,
      });
      assert.equal(status, 400, `${name}: ${JSON.stringify(json)}`);
      assert.equal(json.error?.status, "INVALID_ARGUMENT");
      assert.ok(json.error?.message.includes(`header_name`), json.error?.message);
      assert.ok(json.error?.message.includes(`"${name}" cannot carry a credential`), json.error?.message);
      assert.match(json.error?.message ?? "", why);
    }
    // Nothing was stored.
    assert.equal((await call("GET", "/v1beta/credentials/c1", undefined)).status, 404);
  });

  it("is refused in an update too, and the stored credential keeps its header", async () => {
    const created = await call("POST", "/v1beta/credentials", { type: "bearer_token", id: "c2", token: "t0ken", header_name: "X-Api-Key" });
    assert.equal(created.status, 200, JSON.stringify(created.json));
    const { status, json } = await call("PATCH", "/v1beta/credentials/c2", { type: "bearer_token", header_name: "Transfer-Encoding" });
    assert.equal(status, 400);
    assert.match(json.error?.message ?? "", /"Transfer-Encoding" cannot carry a credential: it frames or routes the request/);
    assert.equal((await call("GET", "/v1beta/credentials/c2", undefined)).json.header_name, "X-Api-Key");
  });

  it("accepts ordinary request headers", async () => {
    for (const [index, name] of ["Authorization", "X-Goog-Api-Key", "PRIVATE-TOKEN", "x_custom"].entries()) {
      const { status, json } = await call("POST", "/v1beta/credentials", {
        type: "bearer_token",
        id: `ok${index}`,
        token: "t",
        header_name: name,
      });
      assert.equal(status, 200, `${name}: ${JSON.stringify(json)}`);
    }
  });
});
