// A single PUT upload several batches long (server/files/upload-service.ts appends the request's bytes
// in batches, one written in the sandbox while the next is read): the file arrives whole and in order,
// each append at the offset the one before ended at, also across the batches' edges. The body is lines
// that each spell their own offset, so a batch lost, repeated or reordered shows where.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";

const KEY = "upload-batches-key";
const MiB = 1024 * 1024;
/** Past two batches of any size the upload service might pick (at most 8 MiB, the executor's chunk bound). */
const BYTES = 17 * MiB + 5;

let emulator: FakeRuntimeEmulator;
let envId: string;

before(async () => {
  emulator = await startFakeRuntimeEmulator({ EMULATOR_MAX_UPLOAD_BYTES: String(32 * MiB) });
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

/** `bytes` of 16-byte lines, each its own offset, zero-padded (the last one cut short). */
function numberedLines(bytes: number): string {
  const lines: string[] = [];
  for (let offset = 0; offset < bytes; offset += 16) lines.push(`${String(offset).padStart(15, "0")}\n`);
  return lines.join("").slice(0, bytes);
}

describe("an upload of several batches", () => {
  it("arrives whole and in order, each append where the one before ended", async () => {
    const channel = emulator.runtime.channels.get(envId)!;
    const appends: Array<{ offset: number; length: number }> = [];
    const appendFile = channel.appendFile.bind(channel);
    channel.appendFile = (path, offset, content, options) => {
      if (content.length > 0) appends.push({ offset, length: content.length });
      return appendFile(path, offset, content, options);
    };
    const body = numberedLines(BYTES);
    const response = await fetch(`${emulator.url}/upload/v1beta/environments/${envId}/files/workspace/big.txt`, {
      method: "PUT",
      headers: { "x-goog-api-key": KEY, "content-type": "text/plain" },
      body,
    });
    const answer = (await response.json()) as { files: Array<{ size_bytes: string }> };
    assert.equal(response.status, 200, JSON.stringify(answer));
    assert.equal(answer.files[0]?.size_bytes, String(BYTES));
    const stored = channel.files.get("/workspace/big.txt");
    assert.equal(stored?.length, BYTES);
    assert.ok(stored === body, "the stored file differs from the upload");
    assert.ok(appends.length >= 3, `${appends.length} appends: the upload did not span several batches`);
    let end = 0;
    for (const append of appends) {
      assert.equal(append.offset, end, "an append did not start where the one before ended");
      end += append.length;
    }
    assert.equal(end, BYTES);
  });
});
