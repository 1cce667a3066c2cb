// A sandbox lost with its machine (the swarm runtime's node watcher, docs/scale-out.md#losing-a-machine),
// without a cluster: ExecutorClient.lose() fails pending and later calls at once with SandboxLostError
// saying why; a peer that ends the stream first waits for beforePeerEnd, so a loss learnt meanwhile wins;
// the environment service, told by the runtime, marks the environment lost (shown as expired with
// emulator_status "lost"), refuses its use saying why, and removes its sandbox.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FailedPreconditionError } from "../../server/common/errors.js";
import { CredentialStore } from "../../server/credentials/credential-store.js";
import { EnvironmentService } from "../../server/environments/environment-service.js";
import { EnvironmentStore } from "../../server/environments/environment-store.js";
import { renderEnvironment } from "../../server/environments/render-environment.js";
import { fileApiError } from "../../server/files/file-errors.js";
import { SandboxLostError, SandboxUnavailableError, type SandboxHandle, type SandboxRuntime } from "../../server/sandbox/runtime.js";
import { openMemoryDatabase } from "../../server/store/database.js";
import { FakeExecutorPeer } from "../support/fake-executor-peer.js";

const REASON = "the machine holding this environment's files, Swarm node n3, is down: the files were on it";

async function rejection(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => assert.fail("the call resolved"),
    (error: unknown) => error,
  );
}

describe("a sandbox lost with its machine", { timeout: 20_000 }, () => {
  it("lose() fails a pending call and every later one with SandboxLostError saying why", async () => {
    const peer = new FakeExecutorPeer();
    const running = rejection(peer.client.run({ argv: ["sleep", "600"], timeoutMs: 600_000, maxOutputBytes: 10 }));
    await peer.request("exec");
    peer.client.lose(REASON);
    const error = await running;
    assert.ok(error instanceof SandboxLostError, String(error));
    assert.match((error as Error).message, /Swarm node n3, is down: the files were on it/);
    const later = await rejection(peer.client.ping());
    assert.ok(later instanceof SandboxLostError, String(later));
  });

  it("holds calls on a channel its peer ended until beforePeerEnd settles, so that a loss learnt meanwhile is what they fail with", async () => {
    let settle!: () => void;
    const peer = new FakeExecutorPeer({ beforePeerEnd: () => new Promise<void>((resolve) => (settle = resolve)) });
    const running = rejection(peer.client.run({ argv: ["sleep", "600"], timeoutMs: 600_000, maxOutputBytes: 10 }));
    await peer.request("exec");
    peer.executorOutput.end();
    await new Promise((resolve) => setTimeout(resolve, 50));
    peer.client.lose(REASON);
    settle();
    const error = await running;
    assert.ok(error instanceof SandboxLostError, String(error));
  });

  it("fails them as an ordinary broken channel when no loss is learnt", async () => {
    const peer = new FakeExecutorPeer({ beforePeerEnd: async () => undefined });
    const running = rejection(peer.client.run({ argv: ["sleep", "600"], timeoutMs: 600_000, maxOutputBytes: 10 }));
    await peer.request("exec");
    peer.executorOutput.end();
    const error = await running;
    assert.ok(error instanceof SandboxUnavailableError && !(error instanceof SandboxLostError), String(error));
    assert.match((error as Error).message, /the executor closed its output/);
  });

  it("marks the environment lost when the runtime says so, refuses its use saying why, and removes its sandbox", async () => {
    let tell!: (handle: SandboxHandle, reason: string) => void;
    const removed: string[] = [];
    const runtime = {
      name: "fake",
      onSandboxLost: (listener: typeof tell) => (tell = listener),
      remove: async (handle: SandboxHandle) => void removed.push(handle.sandboxId),
      ensureRunning: async () => false,
    } as unknown as SandboxRuntime;
    const db = openMemoryDatabase();
    const store = new EnvironmentStore(db);
    const service = new EnvironmentService(store, runtime, {
      maxSourcesBytes: 1024,
      credentials: new CredentialStore(db),
      remoteSources: { repository: { map: [], roots: [], protectedFolders: [], cloneTimeoutMs: 1000 }, gcs: {}, maxEntries: 100 },
      idleTtlMs: 60_000,
    });
    const now = new Date().toISOString();
    const record = {
      id: "env_lost",
      owner: "owner",
      status: "active" as const,
      sandboxId: "svc1",
      config: { sources: [] },
      created: now,
      updated: now,
      lastAccessed: now,
    };
    store.insert(record);
    // Another sandbox's loss (one the environment no longer has) changes nothing.
    tell({ sandboxId: "svc0", environmentId: "env_lost" }, REASON);
    assert.equal(store.getById("env_lost")?.status, "active");
    tell({ sandboxId: "svc1", environmentId: "env_lost" }, REASON);
    const stored = store.getById("env_lost")!;
    assert.equal(stored.status, "lost");
    assert.deepEqual(removed, ["svc1"]);
    const shown = renderEnvironment(stored, { files: 0, bytes: 0 });
    assert.equal(shown.status, "expired");
    assert.equal(shown.emulator_status, "lost");
    assert.equal(shown.emulator_status_reason, REASON);
    assert.equal(renderEnvironment(record, { files: 0, bytes: 0 }).emulator_status, undefined);
    assert.throws(
      () => service.getUsable("env_lost", "owner"),
      (error: unknown) => error instanceof FailedPreconditionError && error.message === `Environment env_lost is lost: ${REASON}.`,
    );
    // A channel asked for with the record read before the loss is refused as lost, not marked expired.
    await assert.rejects(service.channel(record), /is lost: .*Swarm node n3/);
    assert.equal(store.getById("env_lost")?.status, "lost");
  });
});

describe("a files call on a sandbox lost with its machine", () => {
  it("is a 400 FAILED_PRECONDITION saying the environment is lost, not a 503 to retry", () => {
    const answer = fileApiError(new SandboxLostError(`sandbox executor unavailable: ${REASON}`), "workspace/a.txt", "env_lost");
    assert.ok(answer instanceof FailedPreconditionError, answer.constructor.name);
    assert.equal(answer.httpStatus, 400);
    assert.match(answer.message, /Environment env_lost is lost: .*Swarm node n3, is down/);
    assert.equal(fileApiError(new SandboxUnavailableError("gone"), "a", "env_x").httpStatus, 503);
  });
});
