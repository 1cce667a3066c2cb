// ExecutorClient.readFiles against a scripted executor: what it asks (the token of its last read of
// each path), how it takes an "unchanged" answer (the content it kept), and that an answer breaking
// the rules of the op closes the channel like any other protocol violation. Then the same files read
// around a command (run) and around a file operation (readFile, writeFile, listFiles, deleteFile).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  SandboxFileError,
  SandboxFilesChangedError,
  SandboxUnavailableError,
  type FileOperationReads,
  type FreshRead,
} from "../../server/sandbox/runtime.js";
import { CLEAN_EXIT, FakeExecutorPeer } from "../support/fake-executor-peer.js";

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
    assert.ok(failure && !failure.ok);
    assert.equal(failure.code, "ENOENT");
    assert.equal(failure.message, `readFile ${PATHS[1]}: no such file or directory`);

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

describe("ExecutorClient.run with files read around the command", () => {
  const exit = CLEAN_EXIT;
  const confirming = { paths: PATHS.slice(0, 1), maxBytes: 10, tokens: ["t1"] };
  const command = { argv: ["true"], timeoutMs: 1000, maxOutputBytes: 100 };

  it("asks the executor to confirm the tokens and to read after, and takes both answers", async () => {
    const peer = new FakeExecutorPeer();
    let started = 0;
    const running = peer.client.run({
      ...command,
      unlessChanged: confirming,
      onStarted: () => started++,
      readAfter: { paths: PATHS.slice(0, 1), maxBytes: 10 },
    });
    const request = await peer.request("exec");
    assert.deepEqual(request.header["readBefore"], { paths: PATHS.slice(0, 1), maxBytes: 10, since: ["t1"] });
    assert.deepEqual(request.header["readAfter"], { paths: PATHS.slice(0, 1), maxBytes: 10, since: [null] });
    peer.send({ type: "started", id: request.id });
    peer.send({ type: "exit", id: request.id, ...exit, reads: [found("t2", "{}")] }, Buffer.from("{}"));
    const result = await running;
    assert.equal(started, 1);
    assert.equal(contentOf(result.readsAfter?.[0]), "{}");
  });

  it("rejects with SandboxFilesChangedError when the files changed, and stays open", async () => {
    const peer = new FakeExecutorPeer();
    const running = peer.client.run({ ...command, unlessChanged: confirming });
    const request = await peer.request("exec");
    peer.send({ type: "error", id: request.id, code: "ECHANGED", message: "exec: not started, /.agents/hooks.json is not as it was" });
    await assert.rejects(running, SandboxFilesChangedError);
    const pinging = peer.client.ping();
    const ping = await peer.request("ping");
    peer.send({ type: "result", id: ping.id, result: { op: "ping", version: 1, pid: 1, uid: 0 } });
    await pinging;
  });

  it("takes a cancelled exit before the start: the command never ran", async () => {
    const peer = new FakeExecutorPeer();
    const running = peer.client.run({ ...command, unlessChanged: confirming });
    const request = await peer.request("exec");
    peer.send({ type: "exit", id: request.id, ...exit, exitCode: null, signal: "SIGKILL", cancelled: true });
    assert.equal((await running).cancelled, true);
  });

  const violations: Array<[string, Partial<Parameters<FakeExecutorPeer["client"]["run"]>[0]>, (id: number) => Array<[unknown, Buffer?]>]> =
    [
      ["a start it did not ask to wait for", {}, (id) => [[{ type: "started", id }]]],
      ["output before the start", { unlessChanged: confirming }, (id) => [[{ type: "stdout", id }, Buffer.from("x")]]],
      ["an exit before the start, not cancelled", { unlessChanged: confirming }, (id) => [[{ type: "exit", id, ...exit }]]],
      ["a second start", { unlessChanged: confirming }, (id) => [[{ type: "started", id }], [{ type: "started", id }]]],
      ["reads it did not ask for", {}, (id) => [[{ type: "exit", id, ...exit, reads: [found("t2", "{}")] }, Buffer.from("{}")]]],
      [
        "reads that do not add up",
        { readAfter: { paths: PATHS.slice(0, 1), maxBytes: 10 } },
        (id) => [[{ type: "exit", id, ...exit, reads: [found("t2", "{}")] }, Buffer.from("{")]],
      ],
    ];
  for (const [what, extra, answers] of violations) {
    it(`closes the channel on ${what}`, async () => {
      const peer = new FakeExecutorPeer();
      const running = peer.client.run({ ...command, ...extra });
      const request = await peer.request("exec");
      for (const [header, body] of answers(request.id)) peer.send(header, body);
      await assert.rejects(
        running,
        (error: unknown) => error instanceof SandboxUnavailableError && /protocol violation/.test(error.message),
      );
      await peer.client.closed;
    });
  }
});

describe("ExecutorClient's file operations with files read around them", () => {
  const confirming = { paths: PATHS.slice(0, 1), maxBytes: 10, tokens: ["t1"] };
  const readAfter = { paths: PATHS.slice(0, 1), maxBytes: 10 };
  /** The reads, with what they told their caller, in order. */
  function told(): { reads: FileOperationReads; events: string[]; after: FreshRead[][] } {
    const events: string[] = [];
    const after: FreshRead[][] = [];
    return {
      events,
      after,
      reads: {
        unlessChanged: confirming,
        readAfter,
        onStarted: () => events.push("started"),
        onReadsAfter: (files) => {
          events.push("read after");
          after.push(files);
        },
      },
    };
  }

  it("asks each of the four to confirm the tokens and to read after, and takes the reads before the result", async () => {
    const peer = new FakeExecutorPeer();
    const operations: Array<[string, (reads: FileOperationReads) => Promise<unknown>, Record<string, unknown>, Buffer?]> = [
      [
        "readFile",
        (reads) => peer.client.readFile("/workspace/a", 100, reads),
        { size: 1, truncated: false, realPath: "/workspace/a", readOnlyMount: false },
        Buffer.from("a"),
      ],
      ["writeFile", (reads) => peer.client.writeFile("/workspace/a", Buffer.from("a"), undefined, reads), { size: 1 }],
      ["listFiles", (reads) => peer.client.listFiles("/workspace", reads), { entries: [] }],
      ["deleteFile", (reads) => peer.client.deleteFile("/workspace/a", false, reads), {}],
    ];
    // Each read after is remembered: the next request asks with its token.
    let last: string | null = null;
    for (const [index, [op, start, result, body]] of operations.entries()) {
      const token = `t${index + 2}`;
      const { reads, events, after } = told();
      const doing = start(reads).then(() => events.push("resolved"));
      const request = await peer.request(op);
      assert.deepEqual(request.header["readBefore"], { paths: PATHS.slice(0, 1), maxBytes: 10, since: ["t1"] }, op);
      assert.deepEqual(request.header["readAfter"], { ...readAfter, since: [last] }, op);
      peer.send({ type: "reads", id: request.id, reads: [found(token, "{}")] }, Buffer.from("{}"));
      peer.send({ type: "result", id: request.id, result: { op, ...result } }, body);
      await doing;
      assert.deepEqual(events, ["started", "read after", "resolved"], op);
      assert.equal(contentOf(after[0]?.[0]), "{}", op);
      last = token;
    }
  });

  it("tells of the start and the reads of an operation that failed, then rejects with its failure", async () => {
    const peer = new FakeExecutorPeer();
    const { reads, events, after } = told();
    const reading = peer.client.readFile("/workspace/missing", 100, reads);
    const request = await peer.request("readFile");
    peer.send({ type: "reads", id: request.id, reads: [found("t2", "{}")] }, Buffer.from("{}"));
    peer.send({ type: "error", id: request.id, code: "ENOENT", message: "readFile /workspace/missing: no such file or directory" });
    await assert.rejects(reading, (error: unknown) => error instanceof SandboxFileError && error.code === "ENOENT");
    assert.deepEqual(events, ["started", "read after"]);
    assert.equal(after.length, 1);
  });

  it("rejects with SandboxFilesChangedError when the files changed, telling nothing, and stays open", async () => {
    const peer = new FakeExecutorPeer();
    const { reads, events } = told();
    const deleting = peer.client.deleteFile("/workspace/a", false, reads);
    const request = await peer.request("deleteFile");
    peer.send({ type: "error", id: request.id, code: "ECHANGED", message: "deleteFile: not done, /.agents/hooks.json is not as it was" });
    await assert.rejects(deleting, SandboxFilesChangedError);
    assert.deepEqual(events, []);
    const pinging = peer.client.ping();
    const ping = await peer.request("ping");
    peer.send({ type: "result", id: ping.id, result: { op: "ping", version: 1, pid: 1, uid: 0 } });
    await pinging;
  });

  it("takes ECHANGED for a plain failure when it asked for no confirmation", async () => {
    const peer = new FakeExecutorPeer();
    const listing = peer.client.listFiles("/workspace", { readAfter });
    const request = await peer.request("listFiles");
    peer.send({ type: "error", id: request.id, code: "ECHANGED", message: "odd" });
    await assert.rejects(listing, (error: unknown) => error instanceof SandboxFileError && !(error instanceof SandboxFilesChangedError));
  });

  const violations: Array<[string, FileOperationReads, (id: number) => Array<[unknown, Buffer?]>]> = [
    ["reads it did not ask for", {}, (id) => [[{ type: "reads", id, reads: [found("t2", "{}")] }, Buffer.from("{}")]]],
    [
      "reads twice",
      { readAfter },
      (id) => [
        [{ type: "reads", id, reads: [found("t2", "{}")] }, Buffer.from("{}")],
        [{ type: "reads", id, reads: [found("t2", "{}")] }, Buffer.from("{}")],
      ],
    ],
    ["reads that do not add up", { readAfter }, (id) => [[{ type: "reads", id, reads: [found("t2", "{}")] }, Buffer.from("{")]]],
    [
      "files changed after reading after",
      { unlessChanged: confirming, readAfter },
      (id) => [
        [{ type: "reads", id, reads: [found("t2", "{}")] }, Buffer.from("{}")],
        [{ type: "error", id, code: "ECHANGED", message: "deleteFile: not done" }],
      ],
    ],
  ];
  for (const [what, reads, answers] of violations) {
    it(`closes the channel on ${what}`, async () => {
      const peer = new FakeExecutorPeer();
      const deleting = peer.client.deleteFile("/workspace/a", false, reads);
      const request = await peer.request("deleteFile");
      for (const [header, body] of answers(request.id)) peer.send(header, body);
      await assert.rejects(
        deleting,
        (error: unknown) => error instanceof SandboxUnavailableError && /protocol violation/.test(error.message),
      );
      await peer.client.closed;
    });
  }
});
