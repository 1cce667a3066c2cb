// A folder downloaded with ?alt=media is a tar archive (the environments page's "download a directory
// as a tar archive"), the root's too, and files/environment-{id}:download is the whole environment's.
// Before, a folder was a 400 and the snapshot route a 404. What this file shows beyond the page's
// examples: the archive's bytes are the files' (a file larger than one read from the sandbox included),
// names past ustar's 100 characters survive, the upload staging folder stays out, an archive larger than
// EMULATOR_MAX_DOWNLOAD_BYTES is refused as JSON before a byte is sent, and the measure that refusal
// relies on is never below the archive's real length.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { measureFolderArchive } from "../../server/files/folder-archive.js";
import { UPLOAD_STAGING_FOLDER } from "../../server/files/file-service.js";
import { PSEUDO_FOLDERS } from "../../server/sandbox/layout.js";
import { readTar } from "../support/archives.js";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";

const KEY = "folder-download-key";
const MAX_DOWNLOAD = 4 * 1024 * 1024;
const BIG = "b".repeat(3 * 1024 * 1024 + 17);
const LONG = `${"deep-folder-name/".repeat(8)}${"n".repeat(60)}.txt`;

let emulator: FakeRuntimeEmulator;
let envId: string;

async function get(route: string): Promise<{ status: number; type: string; bytes: Buffer }> {
  const response = await fetch(`${emulator.url}${route}`, { headers: { "x-goog-api-key": KEY } });
  return { status: response.status, type: response.headers.get("content-type") ?? "", bytes: Buffer.from(await response.arrayBuffer()) };
}

before(async () => {
  emulator = await startFakeRuntimeEmulator({ EMULATOR_MAX_DOWNLOAD_BYTES: String(MAX_DOWNLOAD) });
  const response = await fetch(`${emulator.url}/v1beta/environments`, {
    method: "POST",
    headers: { "x-goog-api-key": KEY, "content-type": "application/json" },
    body: "{}",
  });
  envId = ((await response.json()) as { id: string }).id;
  const files = emulator.runtime.channels.get(envId)!.files;
  files.set("/workspace/app/big.bin", BIG);
  files.set("/workspace/app/small.txt", "small\n");
  files.set(`/workspace/app/${LONG}`, "long\n");
  files.set(`${UPLOAD_STAGING_FOLDER}/partial`, "half an upload");
});
after(async () => {
  await emulator?.close();
});

describe("folder downloads", () => {
  it("archives a folder's files with their bytes, long names included", async () => {
    const answer = await get(`/v1beta/environments/${envId}/files/workspace/app?alt=media&recursive=true`);
    assert.equal(answer.status, 200, answer.bytes.toString().slice(0, 300));
    assert.equal(answer.type, "application/x-tar");
    const entries = await readTar(answer.bytes);
    assert.equal(entries.get("big.bin")?.content, BIG);
    assert.equal(entries.get("small.txt")?.content, "small\n");
    assert.equal(entries.get(LONG)?.content, "long\n");
    const channel = emulator.runtime.channels.get(envId)!;
    const measured = await measureFolderArchive(
      channel,
      "/workspace/app",
      { recursive: true, exclude: PSEUDO_FOLDERS, chunkBytes: 1024 * 1024 },
      Number.MAX_SAFE_INTEGER,
    );
    assert.ok(measured.bytes >= answer.bytes.length, `measured ${measured.bytes}, sent ${answer.bytes.length}`);
  });

  it('sends the workspace as the snapshot and as the archive of "", without the upload staging folder', async () => {
    for (const route of [
      `/v1beta/files/environment-${envId}:download?alt=media`,
      `/v1beta/environments/${envId}/files/?alt=media&recursive=true`,
    ]) {
      const answer = await get(route);
      assert.equal(answer.status, 200, answer.bytes.toString().slice(0, 300));
      const names = [...(await readTar(answer.bytes)).keys()];
      assert.ok(names.includes("app/small.txt"), names.join(", "));
      assert.ok(!names.some((name) => name.startsWith("workspace/") || name.includes(".emulator-uploads")), names.join(", "));
    }
  });

  it("refuses an archive past EMULATOR_MAX_DOWNLOAD_BYTES as JSON, before a byte is sent", async () => {
    const files = emulator.runtime.channels.get(envId)!.files;
    files.set("/workspace/other/huge-1.bin", BIG);
    files.set("/workspace/other/huge-2.bin", BIG);
    const answer = await get(`/v1beta/environments/${envId}/files/workspace/other?alt=media`);
    files.delete("/workspace/other/huge-1.bin");
    files.delete("/workspace/other/huge-2.bin");
    assert.equal(answer.status, 400);
    const body = JSON.parse(answer.bytes.toString());
    assert.equal(body.error.code, "failed_precondition");
    assert.match(body.error.message, /EMULATOR_MAX_DOWNLOAD_BYTES/);
  });

  it("answers the snapshot route's mistakes with what to send", async () => {
    const noMedia = await get(`/v1beta/files/environment-${envId}:download`);
    assert.equal(noMedia.status, 400);
    assert.match(JSON.parse(noMedia.bytes.toString()).error.message, /alt must be "media"/);
    const other = await get("/v1beta/files/abc123");
    assert.equal(other.status, 404);
    assert.match(JSON.parse(other.bytes.toString()).error.message, /environment-\{environment_id\}:download/);
    const missing = await get("/v1beta/files/environment-env_missing:download?alt=media");
    assert.equal(missing.status, 404);
  });
});
