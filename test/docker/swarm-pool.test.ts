// The swarm runtime's warm pool, its start-up sweep and its channel ping (server/sandbox/swarm/; docs/scale-out.md), on the
// real three-node test swarm (test/support/swarm-cluster.ts), reached through a relay container on the
// overlay as in swarm-runtime.test.ts. What it must show:
// - a pool (sandbox-pool.ts) fills with placed services; taking one creates no service and restarts no
//   task, the taken sandbox runs commands with the environment's files, list() tells pooled from taken,
//   the pool refills, and closing it removes every service it still held;
// - after a crash (a runtime dropped without removing anything, a secret whose service was never made,
//   an earlier run's CA), the next start with the same instance (the reconcile, then trustCertificate)
//   leaves no service, secret, stale CA config or channel folder of it;
// - a channel whose far end froze (a relay paused: no FIN, no answer) fails its pending call within the
//   channel's ping and its deadline (channel-heartbeat.ts), not at the call's own deadline.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import Docker from "dockerode";
import { EnvironmentStore } from "../../server/environments/environment-store.js";
import { reconcileSandboxes } from "../../server/environments/reconcile.js";
import type { SandboxHandle } from "../../server/sandbox/runtime.js";
import { SandboxPool } from "../../server/sandbox/sandbox-pool.js";
import { SwarmRuntime } from "../../server/sandbox/swarm/swarm-runtime.js";
import { SANDBOX_UID } from "../../server/sandbox/docker/tar.js";
import { openMemoryDatabase } from "../../server/store/database.js";
import { type OverlayRelay, startOverlayRelay } from "../support/overlay-relay.js";
import { type SwarmCluster, testRuntimeOptions, up, swarmUnavailable } from "../support/swarm-cluster.js";
import { run } from "../support/swarm-layout.js";

const INSTANCE = "swarmpool";
const CA_PEM = "-----BEGIN CERTIFICATE-----\nTUlJQnRlc3Q=\n-----END CERTIFICATE-----\n";
/** An earlier run's CA (the emulator makes a new one when its data folder lost the old). */
const OLD_CA_PEM = "-----BEGIN CERTIFICATE-----\nT0xEdGVzdA==\n-----END CERTIFICATE-----\n";
const LABEL_INSTANCE = `dev.interactions-emulator.instance=${INSTANCE}`;

async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("the swarm runtime's warm pool and start-up sweep", { skip: swarmUnavailable() }, () => {
  let cluster: SwarmCluster;
  let manager: Docker;
  let relay: OverlayRelay;
  let dataDir: string;
  const runtimes: SwarmRuntime[] = [];

  function newRuntime(): SwarmRuntime {
    const runtime = new SwarmRuntime({
      ...testRuntimeOptions(cluster, INSTANCE, dataDir),
      taskStartMs: 60_000,
      docker: manager,
      dial: relay.dial,
    });
    runtimes.push(runtime);
    return runtime;
  }

  const services = async () => (await manager.listServices({ filters: { label: [LABEL_INSTANCE] } })).map((service) => service.ID!).sort();
  const secrets = async () => (await manager.listSecrets({ filters: { label: [LABEL_INSTANCE] } })).map((secret) => secret.Spec!.Name!);
  const configs = async () => (await manager.listConfigs({ filters: { label: [LABEL_INSTANCE] } })).map((config) => config.ID);

  before(async () => {
    cluster = await up({ progress: () => undefined });
    manager = new Docker({ socketPath: cluster.managerSocket });
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "iemu-swarm-pool-"));
    relay = await startOverlayRelay(manager, cluster.images[0]!, cluster.overlay, { "dev.interactions-emulator.test": "relay" });
  });

  after(async () => {
    for (const runtime of runtimes) {
      runtime.close();
      for (const handle of await runtime.list().catch(() => [])) await runtime.remove(handle).catch(() => undefined);
    }
    await relay?.remove();
    await cluster?.down();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    const left = (await run(["ip", "netns", "list"])).split("\n").filter((line) => line.includes("iemu-swarm"));
    assert.deepEqual(left, [], "the test swarm's namespaces outlived down()");
  });

  it("keeps a pool of placed services: a take creates none and restarts nothing, and the pool refills", async () => {
    const runtime = newRuntime();
    await runtime.prepare(() => undefined);
    await runtime.trustCertificate(CA_PEM);
    const pool = new SandboxPool(runtime, { size: 1, refillDelayMs: 0, log: () => undefined });
    try {
      pool.start();
      await until("the pool's first sandbox", () => pool.readyCount === 1);
      const before = await services();
      assert.equal(before.length, 1);
      assert.deepEqual(
        (await runtime.list()).map((handle) => handle.pooled),
        [true],
      );
      const [taskBefore] = await manager.listTasks({ filters: { service: before } });

      const taken = pool.take()!;
      assert.ok(taken, "the pool had a ready sandbox but take() gave none");
      const files = [{ path: "/workspace/hello.txt", content: Buffer.from("from the pool\n"), mode: 0o644 }];
      const handle = await runtime.claimPooled!(taken.handle, { environmentId: taken.handle.environmentId, owner: "k1", files });
      assert.equal(handle.sandboxId, before[0]);
      const result = await taken.channel.run({
        argv: ["bash", "-c", "id -u; cat /workspace/hello.txt"],
        timeoutMs: 20_000,
        maxOutputBytes: 65_536,
      });
      assert.equal(result.stdout.toString(), `${SANDBOX_UID}\nfrom the pool\n`);
      // The same task still runs: relabelling the service restarted nothing.
      const tasksAfter = await manager.listTasks({ filters: { service: before } });
      assert.deepEqual(
        tasksAfter.map((task) => task.ID),
        [taskBefore!.ID],
      );
      const claimed = (await runtime.list()).find((listed) => listed.sandboxId === handle.sandboxId)!;
      assert.equal(claimed.pooled, undefined, "a taken service still lists as pooled");
      const spec = (await manager.getService(handle.sandboxId).inspect()) as { Spec: { Labels: Record<string, string> } };
      assert.equal(spec.Spec.Labels["dev.interactions-emulator.owner"], "k1");

      await until("the pool's replacement", () => pool.readyCount === 1);
      const refilled = await services();
      assert.equal(refilled.length, 2, "the pool did not refill with a new service");
      taken.channel.close();
      await pool.close();
      assert.deepEqual(await services(), [handle.sandboxId], "closing the pool left its services");
      await runtime.remove(handle);
      assert.deepEqual(await services(), []);
      assert.deepEqual(await secrets(), []);
    } finally {
      await pool.close();
    }
  });

  it("fails the calls on a channel whose far end froze (no FIN, no answer) long before their own deadline", async () => {
    const label = { "dev.interactions-emulator.test": "relay-frozen" };
    const frozen = await startOverlayRelay(manager, cluster.images[0]!, cluster.overlay, label);
    const [container] = await manager.listContainers({ filters: { label: ["dev.interactions-emulator.test=relay-frozen"] } });
    const relayContainer = manager.getContainer(container!.Id);
    try {
      const runtime = new SwarmRuntime({
        ...testRuntimeOptions(cluster, INSTANCE, dataDir),
        taskStartMs: 60_000,
        docker: manager,
        dial: frozen.dial,
        channelPingMs: 1000,
        nodeDownWaitMs: 4000,
      });
      runtimes.push(runtime);
      await runtime.prepare(() => undefined);
      await runtime.trustCertificate(CA_PEM);
      const handle = await runtime.create({ environmentId: "env_frozen", owner: "k1", files: [] });
      const channel = await runtime.connect(handle);
      const call = channel.run({ argv: ["sleep", "600"], timeoutMs: 600_000, maxOutputBytes: 1024 });
      // The relay's process stops: its sockets stay open (no FIN, no reset) and nothing is answered, as
      // when the sandbox's machine vanished while the manager still calls it ready.
      await relayContainer.pause();
      // Without the channel's ping the call waits for its own deadline (600 s and the grace); the bound
      // here is far below that, and far above a ping's interval and deadline.
      const outcome = await Promise.race([
        call.then(
          () => "answered",
          (error: Error) => error.message,
        ),
        new Promise<string>((resolve) => setTimeout(() => resolve("still waiting after 60 s"), 60_000).unref()),
      ]);
      assert.match(outcome, /did not end ping request/);
      await runtime.remove(handle);
    } finally {
      await relayContainer.unpause().catch(() => undefined);
      await frozen.remove();
    }
  });

  it("at the next start after a crash, leaves nothing of the crashed run: services, secrets, an old CA, channel folders", async () => {
    const crashed = newRuntime();
    await crashed.prepare(() => undefined);
    await crashed.trustCertificate(OLD_CA_PEM);
    const orphan: SandboxHandle = await crashed.create({ environmentId: "env_crashed", owner: "k1", files: [] });
    // A crash between a sandbox's secret and its service: the secret, and the emulator's copy of it.
    await manager.createSecret({
      Name: "iemu-swarmpool-halfmade-channel",
      Labels: {
        "dev.interactions-emulator.managed": "true",
        "dev.interactions-emulator.instance": INSTANCE,
        "dev.interactions-emulator.environment": "env_halfmade",
      },
      Data: Buffer.from("x").toString("base64"),
    });
    fs.mkdirSync(path.join(dataDir, "channels", INSTANCE, "env_halfmade"), { recursive: true });
    crashed.close(); // dropped: nothing removed
    assert.equal((await services()).length, 1);
    assert.equal((await secrets()).length, 2);

    // The next start of the same instance, as startEmulator runs it, with a store that holds no environment.
    const next = newRuntime();
    await next.prepare(() => undefined);
    const db = openMemoryDatabase();
    try {
      await reconcileSandboxes(new EnvironmentStore(db), next, () => undefined);
    } finally {
      db.close();
    }
    await next.trustCertificate(CA_PEM);
    assert.deepEqual(await services(), [], "a crashed run's service survived the start");
    assert.deepEqual(await secrets(), [], "a crashed run's secret survived the start");
    const kept = await configs();
    assert.equal(kept.length, 2, `configs left: ${kept.length} (only the current CA's bundle and CA may stay)`);
    const folders = path.join(dataDir, "channels", INSTANCE);
    assert.deepEqual(fs.existsSync(folders) ? fs.readdirSync(folders) : [], [], "a crashed run's channel folder survived the start");
    assert.equal(await next.isAlive(orphan), false);
  });

  it("a node that comes back runs nothing of a sandbox removed while it was down, and keeps no container of it", async () => {
    // Last: it stops and restarts a node.
    const node = cluster.nodes[2]!;
    const runtime = new SwarmRuntime({
      ...testRuntimeOptions(cluster, INSTANCE, dataDir),
      constraints: [`node.hostname==${node.name}`],
      taskStartMs: 60_000,
      nodePollMs: 500,
      docker: manager,
      dial: relay.dial,
    });
    runtimes.push(runtime);
    await runtime.prepare(() => undefined);
    await runtime.trustCertificate(CA_PEM);
    const lost = new Promise<SandboxHandle>((resolve) => runtime.onSandboxLost((handle) => resolve(handle)));
    const handle = await runtime.create({ environmentId: "env_comesback", owner: "k1", files: [] });
    const engine = new Docker({ socketPath: node.socket });
    const containersOf = async () =>
      engine.listContainers({ all: true, filters: { label: [`com.docker.swarm.service.id=${handle.sandboxId}`] } });
    assert.equal((await containersOf()).length, 1);
    await cluster.stopNode(node.name);
    // The emulator removes a lost sandbox's service and secret (the environment service, on this event).
    // Bounded (the node watcher's timer keeps no test alive): the manager calls a stopped node down in 10-15 s.
    let bound: NodeJS.Timeout | undefined;
    const noLoss = new Promise<never>((_resolve, reject) => {
      bound = setTimeout(() => reject(new Error(`${node.name} was not called down within 90 s`)), 90_000);
    });
    assert.equal((await Promise.race([lost, noLoss])).sandboxId, handle.sandboxId);
    clearTimeout(bound);
    await runtime.remove(handle);
    await cluster.startNode(node.name);
    await until(
      "the returning node's engine removing the container of the removed service",
      async () => (await containersOf()).length === 0,
    );
    assert.deepEqual(await manager.listTasks({ filters: { service: [handle.sandboxId] } }).catch(() => []), []);
    assert.deepEqual(await services(), []);
  });
});
