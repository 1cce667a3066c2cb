// An engine that does not answer is not a sandbox that is gone: the environment service, the idle sweep
// and start-up reconciliation give an environment up only when the runtime positively reports its
// container gone (or its TTL passed and the container could be removed). A fake runtime answers as
// the Docker runtime does: false from ensureRunning for "gone", a RuntimeUnreachableError for "no answer".

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FailedPreconditionError, UnavailableError } from "../../server/common/errors.js";
import { CredentialStore } from "../../server/credentials/credential-store.js";
import { EnvironmentService } from "../../server/environments/environment-service.js";
import { EnvironmentStore, type EnvironmentRecord } from "../../server/environments/environment-store.js";
import { reconcileSandboxes } from "../../server/environments/reconcile.js";
import { engineUnreachable, isGone } from "../../server/sandbox/docker/engine-errors.js";
import { RuntimeUnreachableError, type SandboxHandle, type SandboxRuntime } from "../../server/sandbox/runtime.js";
import { openMemoryDatabase } from "../../server/store/database.js";

type Answer = "running" | "gone" | "unreachable";

/** A runtime whose engine answers as told; it records what it was asked to remove. */
class FakeRuntime implements Partial<SandboxRuntime> {
  readonly name = "fake";
  readonly removed: string[] = [];
  answer: Answer = "running";
  listFails = false;
  removeFails = false;
  containers: SandboxHandle[] = [];
  /** What create() throws, if anything. */
  createFails: Error | null = null;

  async create(spec: { environmentId: string }): Promise<SandboxHandle> {
    if (this.createFails) throw this.createFails;
    return { sandboxId: `container-of-${spec.environmentId}`, environmentId: spec.environmentId };
  }

  async ensureRunning(): Promise<boolean> {
    if (this.answer === "unreachable") throw new RuntimeUnreachableError("the Docker engine did not answer (ECONNREFUSED)");
    return this.answer === "running";
  }
  async list(): Promise<SandboxHandle[]> {
    if (this.listFails) throw new RuntimeUnreachableError("the Docker engine did not answer while listing sandboxes (ENOENT)");
    return this.containers;
  }
  async remove(handle: SandboxHandle): Promise<void> {
    if (this.removeFails) throw new RuntimeUnreachableError("the Docker engine did not answer while removing (ECONNRESET)");
    this.removed.push(handle.environmentId);
  }
  async connect(): Promise<never> {
    throw new Error("not used: the tests stop before a channel opens");
  }
}

function setUp() {
  const db = openMemoryDatabase();
  const store = new EnvironmentStore(db);
  const runtime = new FakeRuntime();
  const service = new EnvironmentService(store, runtime as unknown as SandboxRuntime, {
    maxSourcesBytes: 1024,
    credentials: new CredentialStore(db),
    remoteSources: { repository: { map: [], roots: [], protectedFolders: [], cloneTimeoutMs: 1000 }, gcs: {}, maxEntries: 100 },
    idleTtlMs: 1000,
  });
  const add = (id: string, lastAccessed = new Date().toISOString()): EnvironmentRecord => {
    const record: EnvironmentRecord = {
      id,
      owner: "owner",
      status: "active",
      sandboxId: `container-of-${id}`,
      config: { sources: [] },
      created: lastAccessed,
      updated: lastAccessed,
      lastAccessed,
    };
    store.insert(record);
    return record;
  };
  return { store, runtime, service, add };
}

describe("an engine that does not answer", () => {
  it("makes a channel request a 503 that keeps the environment active", async () => {
    const { store, runtime, service, add } = setUp();
    const record = add("env_a");
    runtime.answer = "unreachable";
    await assert.rejects(service.channel(record), (error: unknown) => {
      assert.ok(error instanceof UnavailableError);
      assert.equal(error.httpStatus, 503);
      assert.match(error.message, /env_a cannot be reached right now: the Docker engine did not answer .*files are kept; retry/);
      return true;
    });
    assert.equal(store.getById("env_a")?.status, "active");
  });

  it("while a container the engine reports gone expires its environment with a 400 saying so", async () => {
    const { store, runtime, service, add } = setUp();
    const record = add("env_b");
    runtime.answer = "gone";
    await assert.rejects(service.channel(record), (error: unknown) => {
      assert.ok(error instanceof FailedPreconditionError);
      assert.match(error.message, /env_b has expired: its sandbox container is gone/);
      return true;
    });
    assert.equal(store.getById("env_b")?.status, "expired");
  });

  it("leaves an idle environment for the next sweep when its container cannot be removed", async () => {
    const { store, runtime, service, add } = setUp();
    add("env_c", new Date(Date.now() - 60_000).toISOString());
    runtime.removeFails = true;
    assert.equal(await service.expireIdle(), 0);
    assert.equal(store.getById("env_c")?.status, "active");
    runtime.removeFails = false;
    assert.equal(await service.expireIdle(), 1);
    assert.equal(store.getById("env_c")?.status, "expired");
    assert.deepEqual(runtime.removed, ["env_c"]);
  });
});

describe("start-up reconciliation", () => {
  it("removes nothing when the engine could not list the containers, and expires nothing it could not check", async () => {
    const { store, runtime, add } = setUp();
    add("env_d");
    runtime.listFails = true;
    runtime.answer = "unreachable";
    const lines: string[] = [];
    await reconcileSandboxes(store, runtime as unknown as SandboxRuntime, (line) => lines.push(line));
    assert.deepEqual(runtime.removed, []);
    assert.equal(store.getById("env_d")?.status, "active");
    assert.match(lines.join("\n"), /could not list them .*no container is removed/);
    assert.match(lines.join("\n"), /1 not checked \(the engine did not answer; kept\)/);
  });

  it("still removes orphans and expires environments whose containers the engine reports gone", async () => {
    const { store, runtime, add } = setUp();
    add("env_e");
    runtime.containers = [
      { sandboxId: "container-of-env_e", environmentId: "env_e" },
      { sandboxId: "stray", environmentId: "env_unknown" },
    ];
    runtime.answer = "gone";
    await reconcileSandboxes(store, runtime as unknown as SandboxRuntime, () => undefined);
    assert.deepEqual(runtime.removed.sort(), ["env_e", "env_unknown"]);
    assert.equal(store.getById("env_e")?.status, "expired");
  });
});

describe("reading the engine's failures", () => {
  it("counts only a 404 as gone", () => {
    assert.equal(isGone({ statusCode: 404, message: "no such container" }), true);
    for (const failure of [{ statusCode: 500 }, { statusCode: 409 }, { code: "ECONNREFUSED" }, { code: "ENOENT" }, new Error("timeout")]) {
      assert.equal(isGone(failure), false, JSON.stringify(failure));
    }
  });

  it("names what was being done and why", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED /var/run/docker.sock"), { code: "ECONNREFUSED" });
    assert.match(engineUnreachable(refused, "listing sandboxes").message, /while listing sandboxes \(ECONNREFUSED: connect ECONNREFUSED/);
    const failed = Object.assign(new Error("(HTTP code 500) server error - boom "), { statusCode: 500 });
    assert.match(engineUnreachable(failed, "starting").message, /it answered 500: \(HTTP code 500\) server error - boom\)$/);
    assert.ok(engineUnreachable(refused, "x") instanceof RuntimeUnreachableError);
  });
});

describe("a refusal the runtime words itself", () => {
  it("reaches the caller as it is (a 400 saying what the runtime cannot do), not as a 503 to retry, and creates nothing", async () => {
    const { store, runtime, service } = setUp();
    runtime.createFails = new FailedPreconditionError(
      "A repository source (a read-only tree) is not yet available with EMULATOR_SANDBOX_RUNTIME=swarm (docs/scale-out.md)",
    );
    const make = await service.plan("owner", undefined);
    await assert.rejects(make(), (error: unknown) => {
      assert.ok(error instanceof FailedPreconditionError, String(error));
      assert.equal(error.httpStatus, 400);
      assert.match(error.message, /not yet available with EMULATOR_SANDBOX_RUNTIME=swarm/);
      return true;
    });
    assert.deepEqual(store.listLive(), []);
    runtime.createFails = new Error("the Docker engine did not answer");
    await assert.rejects((await service.plan("owner", undefined))(), UnavailableError);
  });
});
