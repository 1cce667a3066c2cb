// ExecutorClient against an executor that lies. The executor lives in the sandbox (as root, out of
// sandbox code's reach, but in the same container), so every reply is untrusted: whatever arrives that
// the protocol does not allow must fail closed. Pending calls reject with SandboxUnavailableError naming the problem, the
// channel closes (its input is no longer read, the executor's stdin is ended), later calls fail at once,
// and no call ever resolves with what was not checked.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_FRAME_PART_BYTES, PROTOCOL_VERSION, UNAVAILABLE_CODE } from "../../sandbox-image/executor/protocol.js";
import { SandboxFileError, SandboxUnavailableError } from "../../server/sandbox/runtime.js";
import { CLEAN_EXIT, FakeExecutorPeer, frameOf, lengthPrefix, rawFrame } from "../support/fake-executor-peer.js";

type Outcome = { resolved: unknown } | { rejected: unknown };

/** Settles a call into a value at once, so that a rejection is never left unhandled while a test awaits something else. */
function observe(call: Promise<unknown>): Promise<Outcome> {
  return call.then(
    (resolved) => ({ resolved }),
    (rejected: unknown) => ({ rejected }),
  );
}

/** A call left hanging is no better than one resolved with garbage: give each a deadline. */
async function settledWithin(call: Promise<Outcome>, ms: number): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`a call was still pending after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([call, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function assertFailsClosed(peer: FakeExecutorPeer, calls: Array<Promise<Outcome>>, reason: RegExp): Promise<void> {
  for (const call of calls) {
    const outcome = await settledWithin(call, 2_000);
    if ("resolved" in outcome) assert.fail(`a call resolved with ${JSON.stringify(outcome.resolved)}`);
    const error = outcome.rejected;
    assert.ok(error instanceof SandboxUnavailableError, `expected SandboxUnavailableError, got ${String(error)}`);
    assert.match(error.message, reason);
  }
  await peer.client.closed;
  assert.equal(peer.executorOutput.destroyed, true, "the client still reads the executor's output");
  assert.equal(peer.executorInput.writableEnded, true, "the executor's stdin was not ended");
  await assert.rejects(peer.client.ping(), SandboxUnavailableError);
}

const pingResult = (id: number) => ({ type: "result", id, result: { op: "ping", version: PROTOCOL_VERSION, pid: 10, uid: 1000 } });
const validExit = CLEAN_EXIT;
const command = { argv: ["true"], timeoutMs: 10_000, maxOutputBytes: 1024 };

describe("ExecutorClient against a well-behaved fake executor", { timeout: 10_000 }, () => {
  it("resolves calls with what the executor answered (so the failures below are the client's doing)", async () => {
    const peer = new FakeExecutorPeer();
    const ping = observe(peer.client.ping());
    peer.send(pingResult((await peer.request("ping")).id));
    assert.deepEqual(await ping, { resolved: { version: PROTOCOL_VERSION, pid: 10, uid: 1000 } });

    const read = observe(peer.client.readFile("/etc/hostname", 5));
    const readRequest = await peer.request("readFile");
    assert.deepEqual(readRequest.header, { op: "readFile", path: "/etc/hostname", maxBytes: 5, id: readRequest.id });
    peer.send(
      {
        type: "result",
        id: readRequest.id,
        result: { op: "readFile", size: 9, truncated: true, realPath: "/etc/host", readOnlyMount: false },
      },
      Buffer.from("abcde"),
    );
    const { resolved } = (await read) as { resolved: { content: Buffer } };
    assert.equal(resolved.content.toString(), "abcde");

    const missing = observe(peer.client.stat("/nope"));
    peer.send({ type: "error", id: (await peer.request("stat")).id, code: "ENOENT", message: "stat /nope: no such file" });
    const failed = await missing;
    assert.ok("rejected" in failed && failed.rejected instanceof SandboxFileError && failed.rejected.code === "ENOENT");

    const run = observe(peer.client.run(command));
    const exec = await peer.request("exec");
    peer.send({ type: "stdout", id: exec.id }, Buffer.from("out"));
    peer.send({ type: "exit", id: exec.id, ...validExit, stdoutBytes: 3 });
    const ran = (await run) as { resolved: { exitCode: number; stdout: Buffer } };
    assert.equal(ran.resolved.exitCode, 0);
    assert.equal(ran.resolved.stdout.toString(), "out");
    assert.equal(peer.executorOutput.destroyed, false);
    peer.client.close();
  });

  it("fails a file request the executor could not carry out as unavailable, not as a file error, and stays open", async () => {
    const peer = new FakeExecutorPeer();
    const read = observe(peer.client.readFile("/.agents/hooks.json", 1024));
    const id = (await peer.request("readFile")).id;
    peer.send({
      type: "error",
      id,
      code: UNAVAILABLE_CODE,
      message: "readFile: not done, the sandbox's file worker was killed by SIGKILL",
    });
    const outcome = await read;
    assert.ok("rejected" in outcome && outcome.rejected instanceof SandboxUnavailableError, JSON.stringify(outcome));
    assert.match((outcome.rejected as Error).message, /file worker was killed/);
    assert.equal(peer.executorOutput.destroyed, false, "one failed request does not close the channel");
    peer.client.close();
  });

  it("cancels through the executor and resolves with its cancelled exit", async () => {
    const peer = new FakeExecutorPeer();
    const controller = new AbortController();
    const run = observe(peer.client.run({ ...command, signal: controller.signal }));
    const exec = await peer.request("exec");
    controller.abort();
    const cancel = await peer.request("cancel");
    assert.equal(cancel.header["target"], exec.id);
    peer.send({ type: "result", id: cancel.id, result: { op: "cancel", found: true } });
    peer.send({ type: "exit", id: exec.id, ...validExit, exitCode: null, signal: "SIGKILL", cancelled: true });
    const ran = (await run) as { resolved: { cancelled: boolean } };
    assert.equal(ran.resolved.cancelled, true);
    peer.client.close();
  });

  it("keeps only the declared fields of what it passes on", async () => {
    const peer = new FakeExecutorPeer();
    const list = observe(peer.client.listFiles("/w"));
    const entry = { name: "a", type: "file", size: 1, mtimeMs: 2 };
    const forged = { ...entry, extra: "x", __proto__: { polluted: true } };
    peer.send({ type: "result", id: (await peer.request("listFiles")).id, result: { op: "listFiles", entries: [forged], extra: 1 } });
    const listed = (await list) as { resolved: object[] };
    assert.deepEqual(listed.resolved, [entry]);
    assert.equal(Object.getPrototypeOf(listed.resolved[0]), Object.prototype);
    peer.client.close();
  });
});

describe("ExecutorClient fails closed on a broken stream", { timeout: 10_000 }, () => {
  const endingCases: Array<[string, Buffer]> = [
    ["in the length prefix", lengthPrefix(40, 0).subarray(0, 5)],
    ["in the header", frameOf({ type: "stdout", id: 1 }).subarray(0, 12)],
    ["in the body", frameOf({ type: "stdout", id: 1 }, Buffer.from("hello")).subarray(0, -2)],
  ];
  for (const [where, bytes] of endingCases) {
    it(`rejects pending calls when the executor's output ends ${where}`, async () => {
      const peer = new FakeExecutorPeer();
      const run = observe(peer.client.run(command));
      const ping = observe(peer.client.ping());
      await peer.request("ping");
      peer.sendBytes(bytes);
      peer.endOutput();
      await assertFailsClosed(peer, [run, ping], /closed its output/);
    });
  }

  it("closes on a header length beyond the frame limit", async () => {
    const peer = new FakeExecutorPeer();
    const ping = observe(peer.client.ping());
    await peer.request("ping");
    peer.sendBytes(lengthPrefix(MAX_FRAME_PART_BYTES + 1, 0));
    await assertFailsClosed(peer, [ping], /corrupt frame/);
  });

  it("closes on a body length beyond the frame limit, before any of the body arrives", async () => {
    const peer = new FakeExecutorPeer();
    const ping = observe(peer.client.ping());
    await peer.request("ping");
    peer.sendBytes(Buffer.concat([lengthPrefix(2, 0xffffffff), Buffer.from("{}")]));
    await assertFailsClosed(peer, [ping], /corrupt frame/);
  });

  it("closes on a header that is not JSON", async () => {
    const peer = new FakeExecutorPeer();
    const ping = observe(peer.client.ping());
    const { id } = await peer.request("ping");
    peer.sendBytes(Buffer.concat([rawFrame(Buffer.from(`{"type":"result","id":${id},`)), frameOf(pingResult(id))]));
    await assertFailsClosed(peer, [ping], /corrupt frame/);
  });

  for (const header of [null, 42, "result", [1, 2], true]) {
    it(`closes on a header that is not an object: ${JSON.stringify(header)}`, async () => {
      const peer = new FakeExecutorPeer();
      const ping = observe(peer.client.ping());
      await peer.request("ping");
      peer.send(header);
      await assertFailsClosed(peer, [ping], /protocol violation: malformed response \(frame header must be an object\)/);
    });
  }

  it("does not interpret frames that follow a violation in the same chunk", async () => {
    const peer = new FakeExecutorPeer();
    const ping = observe(peer.client.ping());
    const { id } = await peer.request("ping");
    peer.sendBytes(Buffer.concat([frameOf({ type: "teleport", id }), frameOf(pingResult(id))]));
    await assertFailsClosed(peer, [ping], /unknown type "teleport"/);
  });
});

describe("ExecutorClient fails closed on malformed messages", { timeout: 10_000 }, () => {
  const cases: Array<[string, (id: number) => unknown, RegExp]> = [
    ["an unknown message type", (id) => ({ type: "teleport", id }), /unknown type "teleport"/],
    ["a message without a type", (id) => ({ id }), /unknown type undefined/],
    ["a message without an id", () => ({ type: "stdout" }), /stdout: id must be a non-negative integer/],
    ["a negative id", () => ({ type: "stdout", id: -1 }), /id must be a non-negative integer/],
    ["a fractional id", () => ({ type: "stdout", id: 1.5 }), /id must be a non-negative integer/],
    ["an id given as a string", (id) => ({ type: "stdout", id: String(id) }), /id must be a non-negative integer/],
    ["an error without a code", (id) => ({ type: "error", id, message: "x" }), /error: code must be a string/],
    [
      "an error whose message is not text",
      (id) => ({ type: "error", id, code: "EIO", message: { text: "x" } }),
      /error: message must be a string/,
    ],
    ["a result that is not an object", (id) => ({ type: "result", id, result: "ok" }), /result: result must be an object/],
    ["a result for an unknown op", (id) => ({ type: "result", id, result: { op: "teleport" } }), /result: unknown op "teleport"/],
    [
      "an egress frame of an unknown kind",
      () => ({ egress: "teleport", stream: 1 }),
      /malformed egress frame \(unknown egress "teleport"\)/,
    ],
    ["an egress frame for stream 0", () => ({ egress: "open", stream: 0 }), /egress open: stream must be a positive integer/],
    ["an empty egress acknowledgement", () => ({ egress: "ack", stream: 1, bytes: 0 }), /egress ack: bytes must be a positive integer/],
    [
      "an egress close whose error is not an object",
      () => ({ egress: "close", stream: 1, error: "boom" }),
      /egress close: error must be an object/,
    ],
  ];
  for (const [what, header, reason] of cases) {
    it(`closes on ${what}`, async () => {
      const peer = new FakeExecutorPeer();
      const ping = observe(peer.client.ping());
      const { id } = await peer.request("ping");
      peer.send(header(id));
      await assertFailsClosed(peer, [ping], reason);
    });
  }
});

describe("ExecutorClient fails closed on results of the wrong shape", { timeout: 10_000 }, () => {
  const cases: Array<[string, (client: FakeExecutorPeer["client"]) => Promise<unknown>, string, object, RegExp]> = [
    [
      "ping with a uid that is not a number",
      (c) => c.ping(),
      "ping",
      { op: "ping", version: 3, pid: 1, uid: "root" },
      /ping result: uid must be an integer of at least -1/,
    ],
    [
      "readFile with a size given as a string",
      (c) => c.readFile("/a", 10),
      "readFile",
      { op: "readFile", size: "10", truncated: false, realPath: "/a" },
      /readFile result: size must be a non-negative integer/,
    ],
    [
      "readFile without realPath",
      (c) => c.readFile("/a", 10),
      "readFile",
      { op: "readFile", size: 0, truncated: false, readOnlyMount: false },
      /readFile result: realPath must be a string/,
    ],
    [
      "readFile without readOnlyMount (it decides who runs a hooks file's handlers)",
      (c) => c.readFile("/a", 10),
      "readFile",
      { op: "readFile", size: 0, truncated: false, realPath: "/a" },
      /readFile result: readOnlyMount must be a boolean/,
    ],
    [
      "listFiles with an entry of an unknown type",
      (c) => c.listFiles("/a"),
      "listFiles",
      { op: "listFiles", entries: [{ name: "a", type: "fifo", size: 0, mtimeMs: 1 }] },
      /listFiles result: entries\[0\]\.type must be one of "file", "directory", "symlink", "other"/,
    ],
    [
      "listFiles whose entries are not an array",
      (c) => c.listFiles("/a"),
      "listFiles",
      { op: "listFiles", entries: { 0: "a" } },
      /listFiles result: entries must be an array/,
    ],
    [
      "stat whose info has a time given as text",
      (c) => c.stat("/a"),
      "stat",
      { op: "stat", info: { type: "file", size: 1, mtimeMs: "yesterday", birthtimeMs: 1 }, realPath: "/a" },
      /stat result: info\.mtimeMs must be a number/,
    ],
    [
      "stat whose info is neither null nor an object",
      (c) => c.stat("/a"),
      "stat",
      { op: "stat", info: 0, realPath: "/a" },
      /stat result: info must be null or an object/,
    ],
    [
      "walk without more",
      (c) => c.walk("/a", { recursive: true, limit: 5 }),
      "walk",
      { op: "walk", entries: [] },
      /walk result: more must be a boolean/,
    ],
    [
      "usage with a negative count",
      (c) => c.usage(["/a"]),
      "usage",
      { op: "usage", files: -1, bytes: 0 },
      /usage result: files must be a non-negative integer/,
    ],
    [
      "egressListen with port 0",
      (c) => c.listenEgress(0),
      "egressListen",
      { op: "egressListen", port: 0 },
      /egressListen result: port must be an integer between 1 and 65535/,
    ],
    [
      "appendFile with a fractional size",
      (c) => c.appendFile("/a", 0, Buffer.from("x")),
      "appendFile",
      { op: "appendFile", size: 0.5 },
      /appendFile result: size must be a non-negative integer/,
    ],
  ];
  for (const [what, call, op, result, reason] of cases) {
    it(`closes on ${what}`, async () => {
      const peer = new FakeExecutorPeer();
      const pending = observe(call(peer.client));
      const bystander = observe(peer.client.ping());
      peer.send({ type: "result", id: (await peer.request(op)).id, result });
      await assertFailsClosed(peer, [pending, bystander], reason);
    });
  }
});

describe("ExecutorClient fails closed on replies that do not fit the request", { timeout: 10_000 }, () => {
  it("closes on a result for another operation", async () => {
    const peer = new FakeExecutorPeer();
    const read = observe(peer.client.readFile("/a", 10));
    peer.send(pingResult((await peer.request("readFile")).id));
    await assertFailsClosed(peer, [read], /a ping result answered readFile request 1/);
  });

  it("closes on output or an exit answering a request that is not an exec", async () => {
    for (const message of [{ type: "stdout" }, { type: "exit", ...validExit }]) {
      const peer = new FakeExecutorPeer();
      const ping = observe(peer.client.ping());
      peer.send({ ...message, id: (await peer.request("ping")).id });
      await assertFailsClosed(peer, [ping], new RegExp(`an? ${message.type} message answered ping request 1`));
    }
  });

  it("closes on a result answering an exec", async () => {
    const peer = new FakeExecutorPeer();
    const run = observe(peer.client.run(command));
    peer.send(pingResult((await peer.request("exec")).id));
    await assertFailsClosed(peer, [run], /a ping result answered exec request 1/);
  });

  it("closes on a reply to a request that was never made", async () => {
    const peer = new FakeExecutorPeer();
    const read = observe(peer.client.readFile("/a", 10));
    await peer.request("readFile");
    peer.send(pingResult(99));
    await assertFailsClosed(peer, [read], /a ping result for request 99, which was never made/);
  });

  it("closes on output for an exec that was never started", async () => {
    const peer = new FakeExecutorPeer();
    const run = observe(peer.client.run(command));
    await peer.request("exec");
    peer.send({ type: "stdout", id: 0 }, Buffer.from("forged"));
    await assertFailsClosed(peer, [run], /a stdout message for request 0, which was never made/);
  });

  it("closes on a second terminal reply for the same request", async () => {
    const peer = new FakeExecutorPeer();
    const ping = observe(peer.client.ping());
    const { id } = await peer.request("ping");
    peer.send(pingResult(id));
    assert.ok("resolved" in (await ping), "the first answer is a legitimate one");
    const read = observe(peer.client.readFile("/a", 10));
    await peer.request("readFile");
    peer.send({ type: "error", id, code: "EIO", message: "again" });
    await assertFailsClosed(peer, [read], /an error message for request 1, which had already ended/);
  });

  it("closes on output after an exec's exit", async () => {
    const peer = new FakeExecutorPeer();
    const run = observe(peer.client.run(command));
    const exec = await peer.request("exec");
    peer.send({ type: "exit", id: exec.id, ...validExit });
    assert.ok("resolved" in (await run));
    const ping = observe(peer.client.ping());
    await peer.request("ping");
    peer.send({ type: "stdout", id: exec.id }, Buffer.from("late"));
    await assertFailsClosed(peer, [ping], /a stdout message for request 1, which had already ended/);
  });

  it("closes on anything but a cancel result answering a cancel", async () => {
    const peer = new FakeExecutorPeer();
    const controller = new AbortController();
    const run = observe(peer.client.run({ ...command, signal: controller.signal }));
    await peer.request("exec");
    controller.abort();
    peer.send(pingResult((await peer.request("cancel")).id));
    await assertFailsClosed(peer, [run], /a ping result answered cancel request 2/);
  });

  it("closes on a body where the protocol has none", async () => {
    const bodies: Array<[string, (id: number) => object]> = [
      ["a ping result", pingResult],
      ["an error message", (id) => ({ type: "error", id, code: "EIO", message: "x" })],
    ];
    for (const [what, message] of bodies) {
      const peer = new FakeExecutorPeer();
      const ping = observe(peer.client.ping());
      peer.send(message((await peer.request("ping")).id), Buffer.from("smuggled"));
      await assertFailsClosed(peer, [ping], new RegExp(`${what} for request 1 came with a 8-byte body`));
    }
    const peer = new FakeExecutorPeer();
    const run = observe(peer.client.run(command));
    peer.send({ type: "exit", id: (await peer.request("exec")).id, ...validExit }, Buffer.from("smuggled"));
    await assertFailsClosed(peer, [run], /an exit message for request 1 came with a 8-byte body/);
  });

  it("closes on a readFile body longer than asked for", async () => {
    const peer = new FakeExecutorPeer();
    const read = observe(peer.client.readFile("/a", 4));
    const result = { op: "readFile", size: 6, truncated: true, realPath: "/a", readOnlyMount: false };
    peer.send({ type: "result", id: (await peer.request("readFile")).id, result }, Buffer.from("abcdef"));
    await assertFailsClosed(peer, [read], /readFile request 1: 6 bytes of content, more than the 4 asked for/);
  });

  it("closes on a readFileChunk whose body and bytesRead disagree, or that read more than asked", async () => {
    const cases: Array<[object, string, RegExp]> = [
      [{ size: 10, bytesRead: 5 }, "abc", /3 bytes of content for 5 bytes read/],
      [{ size: 10, bytesRead: 9 }, "abcdefghi", /9 bytes read, more than the 8 asked for/],
    ];
    for (const [fields, body, reason] of cases) {
      const peer = new FakeExecutorPeer();
      const chunk = observe(peer.client.readFileChunk("/a", 0, 8));
      peer.send(
        { type: "result", id: (await peer.request("readFileChunk")).id, result: { op: "readFileChunk", ...fields } },
        Buffer.from(body),
      );
      await assertFailsClosed(peer, [chunk], reason);
    }
  });

  it("closes on a walk page longer than the limit", async () => {
    const peer = new FakeExecutorPeer();
    const walk = observe(peer.client.walk("/a", { recursive: false, limit: 1 }));
    const entry = { path: "", type: "directory", size: 0, mtimeMs: 1, birthtimeMs: 1 };
    const entries = [entry, { ...entry, path: "b", type: "file" }];
    peer.send({ type: "result", id: (await peer.request("walk")).id, result: { op: "walk", entries, more: false } });
    await assertFailsClosed(peer, [walk], /walk request 1: 2 entries, more than the limit of 1/);
  });
});

describe("ExecutorClient fails closed on a bogus exec exit", { timeout: 10_000 }, () => {
  const cases: Array<[string, object, RegExp]> = [
    ["an exit code above 255", { exitCode: 256 }, /exit: exitCode must be null or an integer between 0 and 255/],
    ["a negative exit code", { exitCode: -1 }, /exit: exitCode must be null or an integer between 0 and 255/],
    ["a fractional exit code", { exitCode: 1.5 }, /exit: exitCode must be null or an integer between 0 and 255/],
    ["an exit code given as text", { exitCode: "0" }, /exit: exitCode must be null or an integer between 0 and 255/],
    ["neither an exit code nor a signal", { exitCode: null, signal: null }, /exit: exactly one of exitCode and signal must be null/],
    ["both an exit code and a signal", { exitCode: 0, signal: "SIGKILL" }, /exit: exactly one of exitCode and signal must be null/],
    ["an empty signal name", { exitCode: null, signal: "" }, /exit: signal must be null or a non-empty string/],
    ["a missing timedOut", { timedOut: undefined }, /exit: timedOut must be a boolean/],
    ["a negative duration", { durationMs: -5 }, /exit: durationMs must be a non-negative integer/],
  ];
  for (const [what, fields, reason] of cases) {
    it(`closes on ${what}`, async () => {
      const peer = new FakeExecutorPeer();
      const run = observe(peer.client.run(command));
      peer.send({ type: "exit", id: (await peer.request("exec")).id, ...validExit, ...fields });
      await assertFailsClosed(peer, [run], reason);
    });
  }

  it("closes on an exit reporting less output than it sent", async () => {
    const peer = new FakeExecutorPeer();
    const run = observe(peer.client.run(command));
    const { id } = await peer.request("exec");
    peer.send({ type: "stdout", id }, Buffer.from("0123456789"));
    peer.send({ type: "exit", id, ...validExit, stdoutBytes: 3 });
    await assertFailsClosed(peer, [run], /exec request 1 exited reporting 3\/0 bytes of output after sending 10\/0/);
  });
});
