// The Swarm service of one sandbox (server/sandbox/swarm/service-spec.ts) and how a service's task is
// read (task-state.ts): what the swarm runtime asks the manager for, without a manager.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CHANNEL_PORT_FLAG, HOLD_PORT_FLAG } from "../../sandbox-image/executor/protocol.js";
import { SANDBOX_CA_ENV } from "../../server/sandbox/egress-settings.js";
import { SANDBOX_NODE_LABEL, sandboxServiceSpec, SWARM_CHANNEL_PORT } from "../../server/sandbox/swarm/service-spec.js";
import { taskState } from "../../server/sandbox/swarm/task-state.js";
import { loadConfig } from "../../server/common/config.js";

const settings = {
  name: "iemu-test-0123456789ab",
  image: "sandbox:tag",
  labels: { "dev.interactions-emulator.environment": "env_1" },
  network: "iemu-swarm-sandboxes",
  secret: { id: "secret-id", name: "iemu-test-0123456789ab-channel" },
  configs: [],
  memoryMb: 512,
  cpus: 1.5,
  pids: 256,
  guardsDisk: false,
  constraints: ["node.labels.zone==a"],
};

describe("the sandbox's Swarm service", () => {
  it("is one task that never restarts, placed on sandbox nodes with the extra constraints, spread by node", () => {
    const spec = sandboxServiceSpec(settings);
    assert.deepEqual(spec.Mode, { Replicated: { Replicas: 1 } });
    const task = spec.TaskTemplate as NonNullable<typeof spec.TaskTemplate> & { ContainerSpec: Record<string, unknown> };
    assert.equal(task.RestartPolicy?.Condition, "none");
    assert.deepEqual(task.Placement?.Constraints, [`node.labels.${SANDBOX_NODE_LABEL}==true`, "node.labels.zone==a"]);
    assert.deepEqual(task.Placement?.Preferences, [{ Spread: { SpreadDescriptor: "node.id" } }]);
    assert.deepEqual(task.Networks, [{ Target: "iemu-swarm-sandboxes" }]);
    assert.deepEqual(spec.EndpointSpec, { Mode: "dnsrr" });
    assert.deepEqual(task.Resources?.Limits, { NanoCPUs: 1_500_000_000, MemoryBytes: 512 * 1024 * 1024, Pids: 256 });
  });

  it("runs the keep-alive as root with the channel on its port, all capabilities dropped but the executor's and NET_ADMIN", () => {
    const container = sandboxServiceSpec(settings).TaskTemplate as { ContainerSpec: import("dockerode").ContainerSpec };
    const spec = container.ContainerSpec;
    assert.equal(spec.User, "0:0");
    assert.equal(spec.Init, true);
    assert.deepEqual(spec.Command?.slice(1), [HOLD_PORT_FLAG, "127.0.0.1:3128", CHANNEL_PORT_FLAG, String(SWARM_CHANNEL_PORT)]);
    assert.deepEqual(spec.CapabilityDrop, ["ALL"]);
    // CHOWN and DAC_OVERRIDE: the executor's root side of the sandbox's files (swarm-files.ts), and the disk guard.
    assert.deepEqual(spec.CapabilityAdd, ["SETUID", "SETGID", "NET_ADMIN", "CHOWN", "DAC_OVERRIDE"]);
    assert.deepEqual(sandboxServiceSpec({ ...settings, guardsDisk: true }).TaskTemplate, container);
    // The secret where the keep-alive reads it, root's alone.
    assert.deepEqual(spec.Secrets, [
      { SecretID: "secret-id", SecretName: settings.secret.name, File: { Name: "iemu-channel", UID: "0", GID: "0", Mode: 0o400 } },
    ]);
    assert.ok(!spec.Env?.some((line) => line.startsWith("NODE_EXTRA_CA_CERTS=")), "CA variables without a CA");
  });

  it("mounts the CA's configs root-owned and read-only for all, and points the CA variables at them", () => {
    const configs = [{ id: "c1", name: "iemu-test-ca-1", path: "/usr/local/share/ca-certificates/interactions-emulator.crt" }];
    const spec = (sandboxServiceSpec({ ...settings, configs }).TaskTemplate as { ContainerSpec: import("dockerode").ContainerSpec })
      .ContainerSpec;
    assert.deepEqual(spec.Configs, [
      { ConfigID: "c1", ConfigName: "iemu-test-ca-1", File: { Name: configs[0]!.path, UID: "0", GID: "0", Mode: 0o444 } },
    ]);
    for (const [name, value] of Object.entries(SANDBOX_CA_ENV)) assert.ok(spec.Env?.includes(`${name}=${value}`), name);
  });
});

describe("a sandbox service's task", () => {
  const attachment = { Network: { ID: "n1", Spec: { Name: "iemu-swarm-sandboxes" } }, Addresses: ["198.19.128.7/24"] };
  it("runs at its overlay address", () => {
    const state = taskState(
      [{ NodeID: "node", DesiredState: "running", Status: { State: "running" }, NetworksAttachments: [attachment] }],
      "iemu-swarm-sandboxes",
    );
    assert.deepEqual(state, { kind: "running", address: "198.19.128.7", nodeId: "node" });
  });

  it("is on its way while pending, and gone once it failed, was shut down or orphaned, or when there is none", () => {
    assert.equal(taskState([{ DesiredState: "running", Status: { State: "pending" } }], "x").kind, "starting");
    for (const state of ["failed", "shutdown", "orphaned", "rejected", "complete"])
      assert.equal(taskState([{ DesiredState: "shutdown", Status: { State: state, Err: "No such image" } }], "x").kind, "gone", state);
    assert.match(JSON.stringify(taskState([{ Status: { State: "rejected", Err: "No such image: x" } }], "x")), /No such image/);
    assert.deepEqual(taskState([], "x"), { kind: "gone", why: "the service has no task", noTask: true });
  });
});

describe("the swarm settings", () => {
  it("takes placement constraints and refuses what is not one", () => {
    const config = loadConfig({
      EMULATOR_SANDBOX_RUNTIME: "swarm",
      EMULATOR_SWARM_CONSTRAINTS: " node.labels.zone==a, node.role!=manager ",
    });
    assert.equal(config.EMULATOR_SANDBOX_RUNTIME, "swarm");
    assert.deepEqual(config.EMULATOR_SWARM_CONSTRAINTS, ["node.labels.zone==a", "node.role!=manager"]);
    assert.equal(config.EMULATOR_SWARM_NETWORK, "iemu-swarm-sandboxes");
    assert.throws(() => loadConfig({ EMULATOR_SWARM_CONSTRAINTS: "zone=a" }), /placement constraint/);
  });
});
