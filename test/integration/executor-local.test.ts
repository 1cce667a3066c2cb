// The executor as a local child process: the shared channel conformance suite, plus what only a raw
// connection can show (malformed requests, a corrupt stream, stdin ending, the executor dying).

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { connect, createServer } from "node:net";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  EGRESS_WINDOW_BYTES,
  encodeFrame,
  FrameDecoder,
  PROTOCOL_VERSION,
  type EgressFrame,
  type Frame,
  type Response,
} from "../../sandbox-image/executor/protocol.js";
import { executorBinaryPath as executorPath } from "../../server/common/paths.js";
import { spawnLocalExecutor, type LocalExecutor } from "../support/local-executor.js";
import { SandboxUnavailableError } from "../../server/sandbox/runtime.js";
import { channelConformanceSuite } from "../support/channel-conformance/suite.js";

channelConformanceSuite("local executor process", async () => {
  const scratchDir = await mkdtemp(join(tmpdir(), "executor-conformance-"));
  const executor = spawnLocalExecutor(executorPath, { cwd: scratchDir });
  const others: LocalExecutor[] = [];
  return {
    channel: executor.channel,
    scratchDir,
    // The host's loopback is shared with everything else running here: any free port.
    egressPort: 0,
    openAnotherChannel: async () => {
      const other = spawnLocalExecutor(executorPath, { cwd: scratchDir });
      others.push(other);
      return other.channel;
    },
    teardown: async () => {
      await Promise.all([executor, ...others].map((each) => each.stop()));
      await rm(scratchDir, { recursive: true, force: true });
    },
  };
});

/** Speaks the protocol by hand, to send what ExecutorClient never would. */
function spawnRawExecutor() {
  const child = spawn(executorPath, [], { stdio: ["pipe", "pipe", "pipe"] });
  const decoder = new FrameDecoder<Response>();
  const frames: Frame<Response>[] = [];
  let wake: Array<() => void> = [];
  const notify = (): void => {
    const waiting = wake;
    wake = [];
    for (const resolve of waiting) resolve();
  };
  let diagnostics = "";
  child.stdout.on("data", (chunk: Buffer) => {
    frames.push(...decoder.push(chunk));
    notify();
  });
  child.stderr.on("data", (chunk: Buffer) => (diagnostics += chunk.toString()));
  child.stdin.on("error", () => {});
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code) => {
      resolve(code);
      notify();
    }),
  );

  const waitFor = async (match: (frame: Frame<Response>) => boolean): Promise<Frame<Response>> => {
    for (;;) {
      const found = frames.find(match);
      if (found) return found;
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`executor exited; stderr: ${diagnostics}`);
      await new Promise<void>((resolve) => wake.push(resolve));
    }
  };
  return {
    child,
    exited,
    waitFor,
    diagnostics: () => diagnostics,
    send: (header: object, body?: Buffer) => child.stdin.write(encodeFrame(header, body)),
    sendBytes: (bytes: Buffer) => child.stdin.write(bytes),
    terminal: (id: number) => waitFor((frame) => frame.header.id === id && ["exit", "result", "error"].includes(frame.header.type)),
    output: (id: number) => waitFor((frame) => frame.header.id === id && frame.header.type === "stdout"),
    waitForExit: async (id: number) => {
      const { header } = await waitFor((frame) => frame.header.id === id && frame.header.type === "exit");
      assert.ok(header.type === "exit");
      return header;
    },
  };
}

async function isRunning(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "latin1");
    return !["Z", "X"].includes(stat[stat.lastIndexOf(")") + 2] ?? "");
  } catch {
    return false;
  }
}

describe("local executor process: raw protocol", () => {
  it("answers malformed requests with EBADREQ and keeps serving", async () => {
    const raw = spawnRawExecutor();
    try {
      raw.send({ op: "teleport", id: 1 });
      raw.send({ op: "exec", id: 2, argv: [], timeoutMs: 1000, maxOutputBytes: 10 });
      raw.send({ op: "readFile", id: 3, path: "/etc/hostname" }); // maxBytes missing
      raw.send({ op: "ping" }); // no id: nothing can be answered
      raw.send({ op: "ping", id: 4 });
      for (const id of [1, 2, 3]) {
        const { header } = await raw.terminal(id);
        assert.equal(header.type, "error");
        assert.equal(header.type === "error" && header.code, "EBADREQ");
      }
      const pong = await raw.terminal(4);
      assert.deepEqual(pong.header.type === "result" && pong.header.result.op === "ping" && pong.header.result.version, PROTOCOL_VERSION);
    } finally {
      raw.child.kill("SIGKILL");
    }
  });

  it("refuses a second exec with an id that is still running, and cancels by id", async () => {
    const raw = spawnRawExecutor();
    try {
      raw.send({ op: "exec", id: 7, argv: ["sleep", "30"], timeoutMs: 60_000, maxOutputBytes: 10 });
      raw.send({ op: "exec", id: 7, argv: ["true"], timeoutMs: 60_000, maxOutputBytes: 10 });
      const refused = await raw.terminal(7);
      assert.equal(refused.header.type === "error" && refused.header.code, "EBADREQ");
      raw.send({ op: "cancel", id: 8, target: 7 });
      raw.send({ op: "cancel", id: 9, target: 12345 });
      const cancelled = await raw.terminal(8);
      assert.equal(cancelled.header.type === "result" && cancelled.header.result.op === "cancel" && cancelled.header.result.found, true);
      const unknown = await raw.terminal(9);
      assert.equal(unknown.header.type === "result" && unknown.header.result.op === "cancel" && unknown.header.result.found, false);
      const exit = await raw.waitForExit(7);
      assert.equal(exit.cancelled, true);
    } finally {
      raw.child.kill("SIGKILL");
    }
  });

  it("exits non-zero on a corrupt stream", async () => {
    const raw = spawnRawExecutor();
    const impossible = Buffer.alloc(8, 0xff);
    raw.sendBytes(impossible);
    const code = await raw.exited;
    assert.ok(code !== 0 && code !== null, `exit code ${code}`);
    assert.match(raw.diagnostics(), /corrupt/);
  });

  it("exits cleanly when stdin ends, killing the commands it still runs", async () => {
    const raw = spawnRawExecutor();
    raw.send({
      op: "exec",
      id: 1,
      argv: ["bash", "-c", "sleep 30 & echo $!; wait"],
      timeoutMs: 60_000,
      maxOutputBytes: 1024,
    });
    const pid = Number((await raw.output(1)).body.toString().trim());
    assert.ok(pid > 0);
    assert.equal(await isRunning(pid), true);
    raw.child.stdin.end();
    assert.equal(await raw.exited, 0);
    assert.equal(await isRunning(pid), false, "the command's child outlived the executor");
  });
});

describe("local executor process: egress streams against a misbehaving server", () => {
  const listen = async (raw: ReturnType<typeof spawnRawExecutor>): Promise<number> => {
    raw.send({ op: "egressListen", id: 1, host: "127.0.0.1", port: 0 });
    const { header } = await raw.terminal(1);
    assert.ok(header.type === "result" && header.result.op === "egressListen", JSON.stringify(header));
    return header.result.port;
  };
  const egressFrame = (raw: ReturnType<typeof spawnRawExecutor>, kind: string) =>
    raw.waitFor((frame) => (frame.header as unknown as EgressFrame).egress === kind);

  it("resets a connection whose window the server overruns, reporting EPROTO", async () => {
    const raw = spawnRawExecutor();
    try {
      const port = await listen(raw);
      const socket = connect({ host: "127.0.0.1", port });
      const socketClosed = new Promise<string>((resolve) => {
        socket.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
        socket.on("close", () => resolve("closed"));
      });
      const opened = (await egressFrame(raw, "open")).header as unknown as EgressFrame;
      // One frame, so that no acknowledgement (the kernel takes the bytes at once) can open the window meanwhile.
      raw.send({ egress: "data", stream: opened.stream }, Buffer.alloc(EGRESS_WINDOW_BYTES + 1));
      const closed = (await egressFrame(raw, "close")).header as unknown as EgressFrame;
      assert.equal(closed.egress === "close" && closed.error?.code, "EPROTO");
      assert.equal(await socketClosed, "ECONNRESET");
      raw.send({ op: "ping", id: 2 });
      assert.equal((await raw.terminal(2)).header.type, "result");
    } finally {
      raw.child.kill("SIGKILL");
    }
  });

  it("ignores frames for unknown streams and malformed egress frames, and keeps serving", async () => {
    const raw = spawnRawExecutor();
    try {
      await listen(raw);
      raw.send({ egress: "data", stream: 999 }, Buffer.from("nobody home"));
      raw.send({ egress: "ack", stream: 999, bytes: 10 });
      raw.send({ egress: "close", stream: 999 });
      raw.send({ egress: "teleport", stream: 1 });
      raw.send({ egress: "open", stream: 1 });
      raw.send({ egress: "data", stream: -1 });
      raw.send({ op: "ping", id: 2 });
      assert.equal((await raw.terminal(2)).header.type, "result");
      // stderr is its own pipe: the diagnostic may arrive after the ping's answer on stdout (it did, under load).
      for (let waited = 0; !/malformed egress frame/.test(raw.diagnostics()) && waited < 5000; waited += 20) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.match(raw.diagnostics(), /malformed egress frame/);
    } finally {
      raw.child.kill("SIGKILL");
    }
  });

  it("refuses a listen request with a bad port or host", async () => {
    const raw = spawnRawExecutor();
    try {
      raw.send({ op: "egressListen", id: 1, host: "127.0.0.1", port: 70_000 });
      raw.send({ op: "egressListen", id: 2, host: "", port: 3128 });
      for (const id of [1, 2]) {
        const { header } = await raw.terminal(id);
        assert.equal(header.type === "error" && header.code, "EBADREQ");
      }
    } finally {
      raw.child.kill("SIGKILL");
    }
  });

  it("frees the listener's port when stdin ends", async () => {
    const raw = spawnRawExecutor();
    const port = await listen(raw);
    raw.child.stdin.end();
    assert.equal(await raw.exited, 0);
    const probe = createServer();
    await new Promise<void>((resolve, reject) => {
      probe.once("error", reject);
      probe.listen({ host: "127.0.0.1", port }, resolve);
    });
    await new Promise((resolve) => probe.close(resolve));
  });
});

describe("ExecutorClient when the executor goes away", () => {
  it("rejects pending and later calls with SandboxUnavailableError and resolves closed", async () => {
    const executor = spawnLocalExecutor(executorPath, { onDiagnostics: () => {} });
    assert.equal((await executor.channel.ping()).version, PROTOCOL_VERSION);
    const pending = executor.channel.run({ argv: ["sleep", "3"], timeoutMs: 10_000, maxOutputBytes: 100 });
    const rejected = assert.rejects(pending, SandboxUnavailableError);
    await executor.kill();
    await rejected;
    await executor.channel.closed;
    await assert.rejects(executor.channel.ping(), SandboxUnavailableError);
    await assert.rejects(executor.channel.readFile("/etc/hostname", 10), SandboxUnavailableError);
  });

  it("close() fails pending calls, and the executor exits cleanly", async () => {
    const executor = spawnLocalExecutor(executorPath);
    const pending = executor.channel.run({ argv: ["sleep", "30"], timeoutMs: 60_000, maxOutputBytes: 100 });
    await executor.channel.ping();
    const rejected = assert.rejects(pending, SandboxUnavailableError);
    executor.channel.close();
    await rejected;
    await executor.channel.closed;
    assert.deepEqual(await executor.exited, { code: 0, signal: null });
  });
});
