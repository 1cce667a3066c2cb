// ExecutorClient.readFiles against a scripted executor: what it asks (the token of its last read of
// each path), how it takes an "unchanged" answer (the content it kept), and that an answer breaking
// the rules of the op closes the channel like any other protocol violation.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { SandboxFileError, SandboxUnavailableError, type FreshRead } from "../../server/sandbox/runtime.js";
import { FakeExecutorPeer } from "../support/fake-executor-peer.js";

const found = (token: string, content: string, extra: Record<string, unknown> = {}) => ({
  status: "found",
  token,
  unchanged: false,
  size: Buffer.byteLength(content),
  truncated: false,
  realPath: "/.agents/hooks.json",
  readOnlyMount: false,
  bytes: Buffer.byteLength(content),
  ...extra,
});
const missing = (path: string) => ({
  status: "failed",
  token: "t-missing",
  code: "ENOENT",
  message: `readFile ${path}: no such file or directory`,
});
const PATHS = ["/.agents/hooks.json", "/workspace/.agents/hooks.json"];

function contentOf(read: FreshRead | undefined): string {
  assert.ok(read?.ok, `expected a file, got ${JSON.stringify(read)}`);
  return read.file.content.toString();
}

describe("ExecutorClient.readFiles", () => {
  it("asks with the token of its last read and takes an unchanged file from what it kept", async () => {
    const peer = new FakeExecutorPeer();
    const first = peer.client.readFiles(PATHS, 1024);
    const request = await peer.request("readFiles");
    assert.deepEqual(request.header, { op: "readFiles", id: request.id, paths: PATHS, maxBytes: 1024, since: [null, null] });
    peer.send(
      { type: "result", id: request.id, result: { op: "readFiles", files: [found("t1", "{}"), missing(PATHS[1]!)] } },
      Buffer.from("{}"),
    );
    const reads = await first;
    assert.equal(contentOf(reads[0]), "{}");
    assert.equal(reads[0]?.token, "t1");
    const failure = reads[1];
    assert.ok(failure && !failure.ok && failure.error instanceof SandboxFileError);
    assert.equal(failure.error.code, "ENOENT");
    assert.equal(failure.error.message, `readFile ${PATHS[1]}: no such file or directory`);

    const second = peer.client.readFiles(PATHS, 1024);
    const again = await peer.request("readFiles");
    // A failure is not kept: there is nothing to spare sending for it.
    assert.deepEqual(again.header["since"], ["t1", null]);
    peer.send(
      {
        type: "result",
        id: again.id,
        result: { op: "readFiles", files: [found("t1", "{}", { unchanged: true, bytes: 0 }), found("t2", "[1]")] },
      },
      Buffer.from("[1]"),
    );
    const reread = await second;
    assert.equal(contentOf(reread[0]), "{}");
    assert.equal(contentOf(reread[1]), "[1]");
  });

  it("keeps nothing of a truncated file, which comes without content", async () => {
    const peer = new FakeExecutorPeer();
    const reading = peer.client.readFiles(PATHS.slice(0, 1), 2);
    const request = await peer.request("readFiles");
    peer.send({ type: "result", id: request.id, result: { op: "readFiles", files: [found("t1", "", { size: 10, truncated: true })] } });
    const [read] = await reading;
    assert.ok(read?.ok);
    assert.deepEqual([read.file.truncated, read.file.size, read.file.content.length], [true, 10, 0]);
    const next = peer.client.readFiles(PATHS.slice(0, 1), 2);
    assert.deepEqual((await peer.request("readFiles")).header["since"], [null]);
    peer.client.close();
    await assert.rejects(next, SandboxUnavailableError);
  });

  const violations: Array<[string, (id: number) => [unknown, Buffer?]]> = [
    [
      "an unchanged file it never read",
      (id) => [{ type: "result", id, result: { op: "readFiles", files: [found("t1", "", { unchanged: true, bytes: 0 })] } }],
    ],
    [
      "more entries than paths",
      (id) => [{ type: "result", id, result: { op: "readFiles", files: [found("t1", "a"), found("t2", "b")] } }, Buffer.from("ab")],
    ],
    [
      "a body that does not add up",
      (id) => [{ type: "result", id, result: { op: "readFiles", files: [found("t1", "abc")] } }, Buffer.from("ab")],
    ],
    [
      "content beyond maxBytes",
      (id) => [{ type: "result", id, result: { op: "readFiles", files: [found("t1", "x".repeat(20))] } }, Buffer.from("x".repeat(20))],
    ],
    [
      "content for an unchanged file",
      (id) => [{ type: "result", id, result: { op: "readFiles", files: [found("t1", "a", { unchanged: true })] } }, Buffer.from("a")],
    ],
  ];
  for (const [what, answer] of violations) {
    it(`closes the channel on ${what}`, async () => {
      const peer = new FakeExecutorPeer();
      const reading = peer.client.readFiles(PATHS.slice(0, 1), 10);
      const request = await peer.request("readFiles");
      const [header, body] = answer(request.id);
      peer.send(header, body);
      await assert.rejects(
        reading,
        (error: unknown) => error instanceof SandboxUnavailableError && /protocol violation|malformed/.test(error.message),
      );
      await peer.client.closed;
    });
  }
});
