// The files API and the sandbox user's permissions (issue 9, defect 9): a file that user may not read
// is a 403 before any byte is sent (never a 200 cut off after the headers), and a folder it may not
// read is a 403, not an empty listing. Through the official SDK and plain REST, against the emulator
// started as `npm start` starts it, with a real Docker sandbox.

import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import {
  bashIn,
  createEnvironment,
  download,
  listFiles,
  rejectsWith,
  rest,
  useEnvironmentsEmulator,
  type Environment,
} from "../support/environments-harness.js";

useEnvironmentsEmulator();

describe("files: what the sandbox user may not read", () => {
  let env: Environment;

  before(async () => {
    env = await createEnvironment({ sources: [{ type: "inline", target: "workspace/secret.txt", content: "top secret" }] });
    // Made unreadable by its owner, the sandbox user, as a user may do with any file of theirs.
    await bashIn(
      env.id,
      "mkdir -p /workspace/closed && echo inside > /workspace/closed/a.txt && chmod 000 /workspace/secret.txt /workspace/closed",
    );
  });

  it("refuses to download /etc/shadow with a 403 before any byte, through the SDK and REST", async () => {
    await assert.rejects(download(env.id, "etc/shadow"), rejectsWith(403, /"etc\/shadow" is a file the sandbox user may not read/));
    const raw = await rest("GET", `/v1beta/environments/${env.id}/files/etc/shadow?alt=media`);
    assert.equal(raw.status, 403);
    assert.match(raw.headers.get("content-type") ?? "", /^application\/json/);
    const error = JSON.parse(raw.text).error;
    assert.equal(error.status, "PERMISSION_DENIED");
    assert.match(error.message, /cannot be downloaded \(readFileChunk \/etc\/shadow: permission denied\)/);
  });

  it("refuses to list /root with a 403 naming the folder, through the SDK and REST", async () => {
    await assert.rejects(
      listFiles(env.id, "root"),
      rejectsWith(403, /"root" is a folder the sandbox user may not read, so it cannot be listed/),
    );
    const raw = await rest("GET", `/v1beta/environments/${env.id}/files/root`);
    assert.equal(raw.status, 403);
    assert.equal(JSON.parse(raw.text).error.status, "PERMISSION_DENIED");
  });

  it("refuses a file made unreadable with chmod 000 inside /workspace, and serves it again once readable", async () => {
    await assert.rejects(
      download(env.id, "workspace/secret.txt"),
      rejectsWith(403, /"workspace\/secret.txt" is a file the sandbox user may not read/),
    );
    const raw = await rest("GET", `/v1beta/environments/${env.id}/files/workspace/secret.txt?alt=media`);
    assert.equal(raw.status, 403);
    assert.equal(raw.headers.get("content-length"), String(Buffer.byteLength(raw.text)), "a whole JSON answer, not a cut download");
    // Its metadata is no secret (stat needs no read permission): it is listed like any file.
    const listed = await listFiles(env.id, "workspace/secret.txt");
    assert.deepEqual(
      listed.files?.map((file) => [file.path, file.size_bytes]),
      [["workspace/secret.txt", "10"]],
    );
    await bashIn(env.id, "chmod 644 /workspace/secret.txt");
    assert.equal((await download(env.id, "workspace/secret.txt")).toString(), "top secret");
  });

  it("refuses to list a folder made unreadable, and lists it as an entry (without its contents) from its parent", async () => {
    await assert.rejects(
      listFiles(env.id, "workspace/closed"),
      rejectsWith(403, /"workspace\/closed" is a folder the sandbox user may not read/),
    );
    const recursive = await listFiles(env.id, "workspace", { recursive: true });
    const paths = recursive.files?.map((file) => file.path) ?? [];
    assert.ok(paths.includes("workspace/closed"), String(paths));
    assert.ok(!paths.includes("workspace/closed/a.txt"), String(paths));
  });

  it("still downloads an empty file the sandbox user may read", async () => {
    await bashIn(env.id, ": > /workspace/empty.txt");
    assert.equal((await download(env.id, "workspace/empty.txt")).length, 0);
  });
});
