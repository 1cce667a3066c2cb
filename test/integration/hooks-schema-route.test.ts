// GET /schemas/hooks.json: the JSON Schema of hooks.json, served by the emulator itself (as `npm start`
// wires it) without an API key, as application/schema+json, byte for byte the committed file, so a
// hooks.json can name it in "$schema".

import assert from "node:assert/strict";
import fs from "node:fs";
import { request } from "node:http";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { projectRoot } from "../../server/common/paths.js";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";

let emulator: FakeRuntimeEmulator;

before(async () => {
  // Keys are required here: the schema must be served without one all the same.
  emulator = await startFakeRuntimeEmulator({ EMULATOR_API_KEYS: "only-this-key" });
});
after(async () => {
  await emulator?.close();
});

describe("GET /schemas/hooks.json", () => {
  it("serves the committed JSON Schema without an API key, as application/schema+json", async () => {
    const response = await fetch(`${emulator.url}/schemas/hooks.json`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "application/schema+json; charset=utf-8");
    assert.equal(response.headers.get("access-control-allow-origin"), "*");
    const body = await response.text();
    assert.equal(body, fs.readFileSync(path.join(projectRoot, "schemas", "hooks.schema.json"), "utf8"));
    assert.equal((JSON.parse(body) as { title: string }).title, "hooks.json");
  });

  it("answers HEAD, and only to the names the emulator answers to (the Host check applies)", async () => {
    const head = await fetch(`${emulator.url}/schemas/hooks.json`, { method: "HEAD" });
    assert.equal(head.status, 200);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        { host: "127.0.0.1", port: emulator.port, path: "/schemas/hooks.json", headers: { host: "evil.example" } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on("error", reject);
      req.end();
    });
    assert.equal(status, 403);
  });

  it("still asks for a key everywhere else", async () => {
    const response = await fetch(`${emulator.url}/v1beta/environments`);
    assert.equal(response.status, 401);
  });
});
