// The environment service taking its sandboxes from the warm pool, over an in-memory runtime: a new
// environment takes the ready sandbox (its sources written into it, its ID the one the sandbox was
// made for, its channel the pooled one, no second connect); a take that fails is discarded and the
// environment created cold, so the pool never turns into a failed request; with nothing ready, a cold
// create. The real engine: test/e2e/warm-pool.test.ts.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { CredentialStore } from "../../server/credentials/credential-store.js";
import { EnvironmentService } from "../../server/environments/environment-service.js";
import { EnvironmentStore } from "../../server/environments/environment-store.js";
import { SandboxPool } from "../../server/sandbox/sandbox-pool.js";
import { openMemoryDatabase } from "../../server/store/database.js";
import { PoolRuntime } from "../support/pool-runtime.js";

async function until(what: string, condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

async function setUp() {
  const db = openMemoryDatabase();
  const store = new EnvironmentStore(db);
  const runtime = new PoolRuntime();
  const pool = new SandboxPool(runtime, { size: 1, log: () => undefined, refillDelayMs: 0 });
  const service = new EnvironmentService(store, runtime, {
    maxSourcesBytes: 1024,
    credentials: new CredentialStore(db),
    remoteSources: { repository: { map: [], roots: [], protectedFolders: [], cloneTimeoutMs: 1000 }, gcs: {}, maxEntries: 100 },
    idleTtlMs: 60_000,
    pool,
  });
  pool.start();
  await until("a ready pooled sandbox", () => pool.readyCount === 1);
  return { store, runtime, pool, service };
}

const sources = [{ type: "inline" as const, target: "workspace/a.txt", content: "a" }];

describe("environments from the warm pool", () => {
  it("take the ready sandbox, with its ID, its sources written into it and its open channel", async () => {
    const { store, runtime, pool, service } = await setUp();
    const create = await service.plan("owner", { type: "remote", sources });
    const record = await create();

    assert.deepEqual(runtime.coldCreates, [], "nothing was created cold");
    assert.equal(runtime.claims.length, 1);
    const claim = runtime.claims[0]!;
    assert.equal(record.sandboxId, claim.sandboxId);
    assert.equal(record.id, claim.spec.environmentId, "the environment has the ID its sandbox was made for");
    assert.equal(claim.spec.owner, "owner");
    assert.deepEqual(
      claim.spec.files.map((file) => [file.path, file.content.toString()]),
      [["/workspace/a.txt", "a"]],
    );
    assert.equal(store.getById(record.id)?.sandboxId, claim.sandboxId);
    assert.equal(await service.channel(record), runtime.channels.get(claim.sandboxId), "the pooled channel, not a new one");
    await until("the replacement", () => pool.readyCount === 1 && runtime.created === 2);
    await pool.close();
  });

  it("create the environment cold when taking the sandbox fails, and remove that sandbox", async () => {
    const { runtime, pool, service } = await setUp();
    runtime.claimFails = true;
    const record = await (await service.plan("owner", { type: "remote", sources }))();

    assert.equal(runtime.claims.length, 1);
    const failed = runtime.claims[0]!;
    assert.equal(runtime.coldCreates.length, 1, "created cold instead");
    assert.equal(runtime.coldCreates[0]!.environmentId, record.id);
    assert.notEqual(record.id, failed.spec.environmentId, "a new ID: the failed sandbox keeps the one it was made for");
    assert.equal(record.sandboxId, `cold-${record.id}`);
    await until("the failed sandbox removed", () => !runtime.alive.has(failed.sandboxId));
    await runtime.channels.get(failed.sandboxId)!.closed;
    await pool.close();
  });

  it("answer a new environment's usage as measured while its sandbox waited, asking it only once something could have changed", async () => {
    const { store, runtime, pool, service } = await setUp();
    const [sandboxId] = [...runtime.channels.keys()];
    const channel = runtime.channels.get(sandboxId!)!;
    assert.equal(channel.usageCalls, 1, "measured once, while it waited");
    channel.usageAnswer = { files: 7, bytes: 700 };

    const record = await (await service.plan("owner", { type: "remote" }))();
    assert.equal(record.sandboxId, sandboxId);
    assert.deepEqual(await service.usage(record), { files: 0, bytes: 0 }, "the create's answer: the measure taken in the pool");
    assert.equal(channel.usageCalls, 1, "the sandbox was not asked");
    // Once only, and only for the object create() returned: every later read asks the sandbox.
    assert.deepEqual(await service.usage(record), { files: 7, bytes: 700 });
    assert.deepEqual(await service.usage(store.getById(record.id)!), { files: 7, bytes: 700 });
    assert.equal(channel.usageCalls, 3);

    // Sources written at the take change what it holds: that environment's sandbox is asked.
    await until("the replacement", () => pool.readyCount === 1);
    const withSources = await (await service.plan("owner", { type: "remote", sources }))();
    const second = runtime.channels.get(withSources.sandboxId!)!;
    const before = second.usageCalls;
    await service.usage(withSources);
    assert.equal(second.usageCalls, before + 1);
    await pool.close();
  });

  it("create cold while nothing is ready", async () => {
    const { runtime, pool, service } = await setUp();
    pool.take(); // emptied (a take elsewhere)
    const record = await (await service.plan("owner", { type: "remote" }))();
    assert.equal(runtime.coldCreates.length, 1);
    assert.equal(record.sandboxId, `cold-${record.id}`);
    await pool.close();
  });
});
