// ExecutorClient against an executor that stops answering (a SIGSTOP, a wedged process): no call may
// wait forever. Each request has a deadline (a command's own timeout plus a grace, a fixed bound for
// the others); past it the channel is declared broken, every pending call fails with
// SandboxUnavailableError, the runtime is told (so it can end that executor), and later calls fail at
// once, so the caller opens a new channel.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { PROTOCOL_VERSION } from "../../sandbox-image/executor/protocol.js";
import { SandboxUnavailableError } from "../../server/sandbox/runtime.js";
import { CLEAN_EXIT, FakeExecutorPeer } from "../support/fake-executor-peer.js";

const GRACE_MS = 150;
const FILE_MS = 300;

function silentPeer(): { peer: FakeExecutorPeer; broken: string[] } {
  const broken: string[] = [];
  const peer = new FakeExecutorPeer({
    deadlines: { graceMs: GRACE_MS, fileOperationMs: FILE_MS },
    onBroken: (reason) => broken.push(reason),
  });
  return { peer, broken };
}

/** How long `call` took to reject, and with what. */
async function rejection(call: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = Date.now();
  try {
    await call;
  } catch (error) {
    return { error, ms: Date.now() - started };
  }
  assert.fail("the call resolved");
}

function assertBroken(error: unknown, what: RegExp): void {
  assert.ok(error instanceof SandboxUnavailableError, `expected SandboxUnavailableError, got ${String(error)}`);
  assert.match(error.message, what);
}

const exitOk = CLEAN_EXIT;

describe("ExecutorClient deadlines", { timeout: 20_000 }, () => {
  it("fails a ping that is never answered after the grace, and every call after it at once", async () => {
    const { peer, broken } = silentPeer();
    const { error, ms } = await rejection(peer.client.ping());
    assertBroken(error, /did not end ping request 1 within 150 ms/);
    assert.ok(ms >= GRACE_MS - 10 && ms < GRACE_MS + 1000, `took ${ms} ms`);
    assert.equal(broken.length, 1, "the runtime was told once");
    await peer.client.closed;
    assert.equal(peer.executorInput.writableEnded, true, "the executor's stdin was ended");
    const later = await rejection(peer.client.readFile("/x", 10));
    assert.ok(later.ms < 50, "a later call fails at once");
  });

  it("gives a command its own timeout plus the grace, then fails it and everything pending", async () => {
    const { peer, broken } = silentPeer();
    const command = rejection(peer.client.run({ argv: ["sleep", "1"], timeoutMs: 50, maxOutputBytes: 10 }));
    const other = rejection(peer.client.stat("/workspace"));
    const { error, ms } = await command;
    assertBroken(error, /did not end exec request 1 \(timeout 50 ms\) within 200 ms/);
    assert.ok(ms >= 190 && ms < 1500, `took ${ms} ms`);
    assertBroken((await other).error, /exec request 1/);
    assert.equal(broken.length, 1);
  });

  it("gives a cancelled command only the grace, however long its own timeout", async () => {
    const { peer } = silentPeer();
    const controller = new AbortController();
    const command = rejection(
      peer.client.run({ argv: ["sleep", "100"], timeoutMs: 60_000, maxOutputBytes: 10, signal: controller.signal }),
    );
    await peer.request("exec");
    controller.abort();
    await peer.request("cancel");
    const { error, ms } = await command;
    assertBroken(error, /\(cancelled\) within 150 ms|cancel request 2 within 150 ms/);
    assert.ok(ms < 1500, `took ${ms} ms`);
  });

  it("bounds a file operation by its own limit", async () => {
    const { peer } = silentPeer();
    const { error, ms } = await rejection(peer.client.walk("/workspace", { recursive: true, limit: 10 }));
    assertBroken(error, /did not end walk request 1 within 300 ms/);
    assert.ok(ms >= FILE_MS - 10 && ms < FILE_MS + 1000, `took ${ms} ms`);
  });

  it("keeps a channel whose executor answers in time, and clears each deadline once answered", async () => {
    const { peer, broken } = silentPeer();
    const ping = peer.client.ping();
    peer.send({ type: "result", id: (await peer.request("ping")).id, result: { op: "ping", version: PROTOCOL_VERSION, pid: 7, uid: 0 } });
    await ping;
    const run = peer.client.run({ argv: ["true"], timeoutMs: 100, maxOutputBytes: 10 });
    peer.send({ type: "exit", id: (await peer.request("exec")).id, ...exitOk });
    assert.equal((await run).exitCode, 0);
    // Well past every deadline those requests had.
    await new Promise((resolve) => setTimeout(resolve, FILE_MS + GRACE_MS + 100));
    assert.deepEqual(broken, []);
    const again = peer.client.ping();
    peer.send({ type: "result", id: (await peer.request("ping")).id, result: { op: "ping", version: PROTOCOL_VERSION, pid: 7, uid: 0 } });
    assert.equal((await again).pid, 7);
  });

  it("does not call an executor that exited broken: there is nothing left to end", async () => {
    const { peer, broken } = silentPeer();
    const ping = rejection(peer.client.ping());
    peer.endOutput();
    assertBroken((await ping).error, /closed its output/);
    assert.deepEqual(broken, []);
  });

  it("lets a closed channel's output drain for the grace at most, then lets go of it", async () => {
    const { peer } = silentPeer();
    peer.client.close();
    assert.equal(peer.executorOutput.destroyed, false, "left to drain at first");
    await new Promise((resolve) => setTimeout(resolve, GRACE_MS * 3));
    assert.equal(peer.executorOutput.destroyed, true, "an executor's output that never ended is not held past the grace");
  });
});
