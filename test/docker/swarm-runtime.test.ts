// The swarm runtime (server/sandbox/swarm/, EMULATOR_SANDBOX_RUNTIME=swarm) on the real three-node test
// swarm (test/support/swarm-cluster.ts). The emulator, deployed, runs on the sandboxes' overlay; this test
// process does not, so it reaches the tasks through a relay container on the manager that is attached to
// the overlay (test/support/overlay-relay.ts, passed as the runtime's `dial`): the runtime's own code
// (secret, service, task address, channel preamble, executor) is what runs, only the last hop differs.
// What it must show: environments land on at least two nodes; each runs commands as the sandbox user and
// holds its files, the sandbox user's own, and the emulator's CA as root's read-only files; sandbox code
// cannot reach another sandbox (ENETUNREACH); it has no warm pool yet; remove()
// leaves no service, secret or channel folder; and the cluster's down() leaves nothing.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import Docker from "dockerode";
import { EMULATOR_CA_PATH } from "../../server/sandbox/egress-settings.js";
import type { SandboxChannel, SandboxHandle } from "../../server/sandbox/runtime.js";
import { SWARM_CHANNEL_PORT } from "../../server/sandbox/swarm/service-spec.js";
import { SwarmRuntime } from "../../server/sandbox/swarm/swarm-runtime.js";
import { SANDBOX_UID } from "../../server/sandbox/docker/tar.js";
import { type OverlayRelay, startOverlayRelay } from "../support/overlay-relay.js";
import { type SwarmCluster, testRuntimeOptions, up, swarmUnavailable } from "../support/swarm-cluster.js";
import { run } from "../support/swarm-layout.js";

const INSTANCE = "swarmtest";
const SANDBOXES = 3;
/** A certificate's shape is all the configs carry; nothing in this test verifies a chain. */
const CA_PEM = "-----BEGIN CERTIFICATE-----\nTUlJQnRlc3Q=\n-----END CERTIFICATE-----\n";
/** Connects from a sandbox user's process to host:port; prints "connected" or the error's name. */
const connectScript = (host: string, port: number) =>
  `import socket,errno\ns=socket.socket()\ns.settimeout(3)\ntry:\n  s.connect((${JSON.stringify(host)},${port})); print("connected")\nexcept OSError as e:\n  print(errno.errorcode.get(e.errno, type(e).__name__))`;

async function sandboxRuns(channel: SandboxChannel, command: string): Promise<string> {
  const result = await channel.run({ argv: ["bash", "-c", command], timeoutMs: 20_000, maxOutputBytes: 65_536 });
  assert.equal(result.exitCode, 0, result.stderr.toString());
  return result.stdout.toString().trim();
}

describe("the swarm runtime on a three-node swarm", { skip: swarmUnavailable() }, () => {
  let cluster: SwarmCluster;
  let manager: Docker;
  let relay: OverlayRelay;
  let runtime: SwarmRuntime;
  let dataDir: string;
  const handles: SandboxHandle[] = [];
  const channels: SandboxChannel[] = [];

  before(async () => {
    cluster = await up({ progress: () => undefined });
    manager = new Docker({ socketPath: cluster.managerSocket });
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "iemu-swarm-runtime-"));
    relay = await startOverlayRelay(manager, cluster.images[0]!, cluster.overlay, { "dev.interactions-emulator.test": "relay" });
    runtime = new SwarmRuntime({
      ...testRuntimeOptions(cluster, INSTANCE, dataDir),
      taskStartMs: 60_000,
      docker: manager,
      dial: relay.dial,
    });
    await runtime.prepare(() => undefined);
    await runtime.trustCertificate(CA_PEM);
    for (let index = 0; index < SANDBOXES; index++) {
      const files = [{ path: "/workspace/hello.txt", content: Buffer.from(`sandbox ${index}\n`), mode: 0o644 }];
      handles.push(await runtime.create({ environmentId: `env_swarm${index}`, owner: "test", files }));
    }
  });

  after(async () => {
    for (const channel of channels) channel.close();
    for (const handle of handles) await runtime?.remove(handle).catch(() => undefined);
    await relay?.remove();
    await cluster?.down();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    const left = (await run(["ip", "netns", "list"])).split("\n").filter((line) => line.includes("iemu-swarm"));
    assert.deepEqual(left, [], "the test swarm's namespaces outlived down()");
  });

  async function connect(handle: SandboxHandle): Promise<SandboxChannel> {
    const channel = await runtime.connect(handle);
    channels.push(channel);
    return channel;
  }

  /** The node each sandbox's task runs on, and its address on the overlay. */
  async function placement(handle: SandboxHandle): Promise<{ node: string; address: string }> {
    const [task] = (await manager.listTasks({ filters: { service: [handle.sandboxId], "desired-state": ["running"] } })) as Array<{
      NodeID: string;
      NetworksAttachments: Array<{ Network: { Spec: { Name: string } }; Addresses: string[] }>;
    }>;
    const node = (await manager.getNode(task!.NodeID).inspect()) as { Description: { Hostname: string } };
    const attachment = task!.NetworksAttachments.find((candidate) => candidate.Network.Spec.Name === cluster.overlay)!;
    return { node: node.Description.Hostname, address: attachment.Addresses[0]!.split("/")[0]! };
  }

  it("answers for the manager's engine, and refuses at start a worker's", async () => {
    assert.equal((await runtime.health()).ok, true);
    const worker = new SwarmRuntime({
      ...testRuntimeOptions(cluster, INSTANCE, dataDir),
      taskStartMs: 1000,
      docker: new Docker({ socketPath: cluster.nodes[1]!.socket }),
    });
    await assert.rejects(
      worker.prepare(() => undefined),
      /needs a Swarm manager's engine, and this one is a worker: point DOCKER_HOST at a manager/,
    );
  });

  it("places environments on more than one node, each a running service of this instance", async () => {
    const nodes = new Set<string>();
    for (const handle of handles) {
      nodes.add((await placement(handle)).node);
      assert.equal(await runtime.isAlive(handle), true);
    }
    assert.ok(nodes.size >= 2, `every sandbox landed on ${[...nodes].join(", ")}`);
    const listed = (await runtime.list()).map((handle) => handle.environmentId).sort();
    assert.deepEqual(listed, handles.map((handle) => handle.environmentId).sort());
  });

  it("runs commands as the sandbox user, with the environment's files its own and the CA root's, read-only", async () => {
    for (const [index, handle] of handles.entries()) {
      const channel = await connect(handle);
      assert.equal(await sandboxRuns(channel, "id -u"), String(SANDBOX_UID));
      assert.equal(
        await sandboxRuns(channel, "cat /workspace/hello.txt; stat -c %u /workspace/hello.txt"),
        `sandbox ${index}\n${SANDBOX_UID}`,
      );
      assert.equal(await sandboxRuns(channel, `stat -c '%u %a' ${EMULATOR_CA_PATH}; cat ${EMULATOR_CA_PATH}`), `0 444\n${CA_PEM.trim()}`);
      // A service cannot ask for no-new-privileges on engine 20.10: the keep-alive sets it, so that the
      // image's setuid programs cannot give sandbox code the capabilities to undo its network rule.
      assert.equal(await sandboxRuns(channel, "grep NoNewPrivs /proc/self/status"), "NoNewPrivs:\t1");
      // The channel's secret is where the keep-alive reads it, and root's alone.
      assert.match(await sandboxRuns(channel, "cat /run/secrets/iemu-channel 2>&1 || true"), /Permission denied/);
    }
  });

  it("leaves sandbox code no route to another sandbox's channel on the overlay", async () => {
    const channel = await connect(handles[0]!);
    const other = await placement(handles[1]!);
    const outcome = await sandboxRuns(channel, `python3 -c '${connectScript(other.address, SWARM_CHANNEL_PORT)}'`);
    assert.equal(outcome, "ENETUNREACH");
  });

  it("counts a sandbox whose task ended as gone, and never starts it again empty elsewhere", async () => {
    const handle = handles[1]!;
    const { node } = await placement(handle);
    const engine = new Docker({ socketPath: cluster.nodes.find((candidate) => candidate.name === node)!.socket });
    const [container] = await engine.listContainers({ filters: { label: [`com.docker.swarm.service.id=${handle.sandboxId}`] } });
    await engine.getContainer(container!.Id).remove({ force: true });
    const deadline = Date.now() + 30_000;
    while ((await runtime.isAlive(handle)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250));
    assert.equal(await runtime.isAlive(handle), false, "the task still counts as running 30 s after its container was removed");
    // Swarm would start a replacement within seconds under any restart policy but none.
    await new Promise((resolve) => setTimeout(resolve, 8_000));
    assert.equal(await runtime.ensureRunning(handle), false);
    const tasks = await manager.listTasks({ filters: { service: [handle.sandboxId] } });
    assert.equal(tasks.length, 1, "the service got another task");
    await assert.rejects(runtime.connect(handle), /does not run: its task is/);
  });

  it("removes a sandbox's service, secret and channel folder", async () => {
    const handle = handles.pop()!;
    await runtime.remove(handle);
    const label = `dev.interactions-emulator.environment=${handle.environmentId}`;
    assert.deepEqual(await manager.listServices({ filters: { label: [label] } }), []);
    assert.deepEqual(await manager.listSecrets({ filters: { label: [label] } }), []);
    assert.equal(fs.existsSync(path.join(dataDir, "channels", INSTANCE, handle.environmentId)), false);
    assert.equal(await runtime.isAlive(handle), false);
    assert.equal(await runtime.ensureRunning(handle), false);
  });
  it("places by EMULATOR_SWARM_CONSTRAINTS, and counts a sandbox whose node is lost as gone", async () => {
    const lostNode = cluster.nodes[1]!.name;
    const pinned = new SwarmRuntime({
      ...testRuntimeOptions(cluster, INSTANCE, dataDir),
      constraints: [`node.hostname==${lostNode}`],
      taskStartMs: 60_000,
      docker: manager,
      dial: relay.dial,
    });
    await pinned.prepare(() => undefined);
    const handle = await pinned.create({ environmentId: "env_swarmlost", owner: "test", files: [] });
    handles.push(handle);
    assert.equal((await placement(handle)).node, lostNode);
    assert.equal(await sandboxRuns(await connect(handle), "id -u"), String(SANDBOX_UID));
    await cluster.stopNode(lostNode);
    // The manager marks the node down after about 12-14 s here; bounded, not timed.
    const deadline = Date.now() + 90_000;
    while ((await runtime.isAlive(handle)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(await runtime.isAlive(handle), false, `the sandbox on ${lostNode} still counts as running 90 s after its engine stopped`);
    assert.equal(await runtime.ensureRunning(handle), false);
    assert.equal((await manager.listTasks({ filters: { service: [handle.sandboxId] } })).length, 1, "the service got another task");
  });

  it("refuses at start when a node that takes sandboxes lacks the image, naming the node", async () => {
    // Last: the image is removed from a node, so nothing of this suite may run there any more.
    for (const handle of handles.splice(0)) await runtime.remove(handle);
    const node = cluster.nodes[2]!;
    await run(["docker", "-H", `unix://${node.socket}`, "rmi", "--force", cluster.images[0]!]);
    const again = new SwarmRuntime({
      ...testRuntimeOptions(cluster, INSTANCE, dataDir),
      taskStartMs: 30_000,
      docker: manager,
    });
    await assert.rejects(
      again.prepare(() => undefined),
      (error: Error) => {
        assert.match(error.message, new RegExp(`cannot run on every node that takes sandboxes: ${node.name} \\(`));
        assert.doesNotMatch(error.message, /iemu-swarm-n1 \(|iemu-swarm-n2 \(/);
        return true;
      },
    );
    assert.deepEqual(await manager.listServices(), [], "the image check's service outlived it");
  });
});
