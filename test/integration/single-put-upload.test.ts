// The files API's writes as the environments page documents them: one PUT whose body is the file (the
// REST examples; before, a 400 "speaks only the resumable protocol"), and overwrite protection (before,
// overwrite defaulted to true and a second write replaced the file): without overwrite=true an existing
// file is a 409 whose code is `aborted`, and nothing changes. Through the single PUT here; the SDK's
// resumable uploads get the same answer (doc-examples-environments.test.ts, e2e/sdk-files.test.ts).

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";

const KEY = "single-put-key";
const MAX_UPLOAD = 64 * 1024;

let emulator: FakeRuntimeEmulator;
let envId: string;

async function put(filePath: string, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${emulator.url}/upload/v1beta/environments/${envId}/files/${filePath}`, {
    method: "PUT",
    headers: { "x-goog-api-key": KEY, "content-type": "text/plain", ...headers },
    body,
  });
  return { status: response.status, uploadStatus: response.headers.get("x-goog-upload-status"), json: (await response.json()) as any };
}

const files = () => emulator.runtime.channels.get(envId)!.files;

before(async () => {
  emulator = await startFakeRuntimeEmulator({ EMULATOR_MAX_UPLOAD_BYTES: String(MAX_UPLOAD) });
  const response = await fetch(`${emulator.url}/v1beta/environments`, {
    method: "POST",
    headers: { "x-goog-api-key": KEY, "content-type": "application/json" },
    body: "{}",
  });
  envId = ((await response.json()) as { id: string }).id;
});
after(async () => {
  await emulator?.close();
});

describe("one PUT with the file as its body", () => {
  it("writes the file and answers its entry", async () => {
    const answer = await put("workspace/one/put.txt", "one put\n");
    assert.equal(answer.status, 200, JSON.stringify(answer.json));
    assert.equal(answer.uploadStatus, "final");
    assert.equal(answer.json.files[0].path, "workspace/one/put.txt");
    assert.equal(answer.json.files[0].size_bytes, "8");
    assert.equal(files().get("/workspace/one/put.txt"), "one put\n");
  });

  it("refuses to replace a file without overwrite=true (409 aborted), and replaces it with it", async () => {
    for (const query of ["", "?overwrite=false"]) {
      const refused = await put(`workspace/one/put.txt${query}`, "second write");
      assert.equal(refused.status, 409, JSON.stringify(refused.json));
      assert.equal(refused.json.error.code, "aborted");
      assert.equal(refused.json.error.status, "ABORTED");
      assert.match(refused.json.error.message, /already exists.*overwrite=true/);
      assert.equal(files().get("/workspace/one/put.txt"), "one put\n");
    }
    const replaced = await put("workspace/one/put.txt?overwrite=true", "replaced");
    assert.equal(replaced.status, 200, JSON.stringify(replaced.json));
    assert.equal(files().get("/workspace/one/put.txt"), "replaced");
  });

  it("refuses a body past EMULATOR_MAX_UPLOAD_BYTES, leaving nothing", async () => {
    const answer = await put("workspace/too-big.txt", "x".repeat(MAX_UPLOAD + 1));
    assert.equal(answer.status, 413, JSON.stringify(answer.json));
    assert.match(answer.json.error.message, /EMULATOR_MAX_UPLOAD_BYTES/);
    assert.equal(files().has("/workspace/too-big.txt"), false);
    assert.deepEqual(
      [...files().keys()].filter((name) => name.startsWith("/tmp/.emulator-uploads/")),
      [],
      "no staging file is left",
    );
  });

  it("still refuses a protocol it does not speak", async () => {
    const answer = await put("workspace/multipart.txt", "x", { "x-goog-upload-protocol": "multipart" });
    assert.equal(answer.status, 400);
    assert.match(answer.json.error.message, /x-goog-upload-protocol must be "resumable"/);
  });
});
