// deploy/swarm.yml on the real three-node test swarm (test/support/swarm-cluster.ts), as an operator
// deploys it: `npm run image -- --save`'s images (tools/save-images.ts) loaded into every node, then
// `docker stack deploy` on the manager. This test process reaches the emulator's API, published in host
// mode on the manager's 8080, through the cluster's host route (198.18.0.254 into the hub), and drives it
// with the official SDK: an environment, an interaction whose tool call runs in the environment's
// sandbox, a Swarm task on a labelled node; a new environment takes the warm pool's waiting service.
// Everything goes with the cluster's down().

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import Docker from "dockerode";
import { LABEL_INSTANCE } from "../../server/sandbox/docker/labels.js";
import { saveImages, stackImages, type StackImages } from "../../tools/save-images.js";
import { type SwarmCluster, swarmUnavailable, up } from "../support/swarm-cluster.js";
import { SEED_GATE_SCRIPT, SEED_HOOKS_FILES } from "../support/seed-hooks-files.js";
import { deployStack, STACK, STACK_API } from "../support/swarm-stack.js";

const KEY = "stack-key";
const INSTANCE = "stacktest";
const AGENT = "antigravity-preview-05-2026";
const API = STACK_API;
/** Three copies of each image (the emulator's is the larger) and the tasks' layers. */
const CLUSTER_MEMORY_MB = 6144;

const script = (calls: unknown[]): string => `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``;

/** The warm sandboxes the stack's emulator holds, once it holds one or 120 s have passed (its /health). */
async function warmSandboxes(): Promise<number> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const health = (await (await fetch(`${API}/health`)).json()) as { pool?: { ready: number } };
    const ready = health.pool?.ready ?? 0;
    if (ready >= 1 || Date.now() >= deadline) return ready;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

describe("deploy/swarm.yml on a three-node swarm", { skip: swarmUnavailable() }, () => {
  let images: StackImages;
  let cluster: SwarmCluster;
  let manager: Docker;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "iemu-stack-"));

  before(async () => {
    images = await stackImages(new Docker(), () => undefined);
    cluster = await up({ images: [images.EMULATOR_IMAGE, images.SANDBOX_IMAGE], hostRoute: true, memoryMb: CLUSTER_MEMORY_MB });
    manager = new Docker({ socketPath: cluster.managerSocket });
  });

  after(async () => {
    fs.rmSync(scratch, { recursive: true, force: true });
    await cluster?.down();
  });

  it("`npm run image -- --save` writes both images the stack names into one tar", async () => {
    const file = path.join(scratch, "stack-images.tar");
    await saveImages([images.EMULATOR_IMAGE, images.SANDBOX_IMAGE], file, () => undefined);
    const listed = spawnSync("tar", ["-xOf", file, "manifest.json"], { encoding: "utf8", maxBuffer: 1 << 20 });
    assert.equal(listed.status, 0, listed.stderr);
    const tags = (JSON.parse(listed.stdout) as Array<{ RepoTags: string[] }>).flatMap((entry) => entry.RepoTags).sort();
    assert.deepEqual(tags, [images.EMULATOR_IMAGE, images.SANDBOX_IMAGE].sort());
    assert.deepEqual(
      fs.readdirSync(scratch).filter((name) => name.includes(".partial")),
      [],
    );
    fs.rmSync(file);
  });

  it("deploys the emulator on the manager, its API on port 8080 of that node", async () => {
    await deployStack(cluster, { images, apiKeys: KEY, instance: INSTANCE });
    const [task] = (await manager.listTasks({ filters: { service: [`${STACK}_emulator`], "desired-state": ["running"] } })) as Array<{
      NodeID: string;
    }>;
    const node = (await manager.getNode(task!.NodeID).inspect()) as { Description: { Hostname: string }; Spec: { Role: string } };
    assert.equal(node.Spec.Role, "manager");
  });

  it("takes a new environment from the warm pool: the pool's waiting service becomes the environment's", async () => {
    assert.equal(await warmSandboxes(), 1, "the stack's emulator kept no warm sandbox (EMULATOR_POOL_SIZE 1) within 120 s");
    const pooled = (await manager.listServices({
      filters: { label: [`${LABEL_INSTANCE}=${INSTANCE}`, "dev.interactions-emulator.pooled=true"] },
    })) as Array<{ ID: string }>;
    assert.equal(pooled.length, 1);
    const ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: API } });
    const environment = (await ai.environments.create({} as Parameters<GoogleGenAI["environments"]["create"]>[0])) as { id: string };
    const services = (await manager.listServices({
      filters: { label: [`dev.interactions-emulator.environment=${environment.id}`] },
    })) as Array<{ ID: string; Spec: { Labels: Record<string, string> } }>;
    assert.deepEqual(
      services.map((service) => service.ID),
      [pooled[0]!.ID],
      "the environment's service is not the one the pool held",
    );
    assert.equal(services[0]!.Spec.Labels["dev.interactions-emulator.pooled"], "false");
    await ai.environments.delete(environment.id);
  });

  it("runs an interaction's tool call, through the SDK, in a sandbox task on a labelled node", async () => {
    const ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: API } });
    const environment = (await ai.environments.create({} as Parameters<GoogleGenAI["environments"]["create"]>[0])) as { id: string };
    const interaction = (await ai.interactions.create({
      agent: AGENT,
      input: script([{ name: "code_execution", args: { code: "echo ran-in-$(hostname)", language: "bash" } }]),
      environment: environment.id,
    })) as { status?: string; steps?: Array<{ type: string; result?: string }> };
    const result = interaction.steps?.find((step) => step.type === "code_execution_result");
    assert.ok(result, `no code_execution_result step: ${JSON.stringify(interaction)}`);
    const services = (await manager.listServices({
      filters: { label: [`dev.interactions-emulator.environment=${environment.id}`] },
    })) as Array<{
      ID: string;
    }>;
    assert.equal(services.length, 1, "one Swarm service holds the environment");
    const tasks = (await manager.listTasks({ filters: { service: [services[0]!.ID], "desired-state": ["running"] } })) as Array<{
      NodeID: string;
      Status: { ContainerStatus?: { ContainerID?: string } };
    }>;
    assert.equal(tasks.length, 1, "one Swarm task holds the environment");
    const node = (await manager.getNode(tasks[0]!.NodeID).inspect()) as { Spec: { Labels: Record<string, string> } };
    assert.equal(node.Spec.Labels["dev.interactions-emulator.sandboxes"], "true");
    assert.equal(result.result?.trim(), `ran-in-${tasks[0]!.Status.ContainerStatus!.ContainerID!.slice(0, 12)}`);
  });

  it("runs the seed's security gate in a sandbox task: rm -rf denied with its reason, another command allowed", async () => {
    const ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: API } });
    const sources = [
      { type: "inline", target: ".agents/hooks.json", content: SEED_HOOKS_FILES["security-gate"]! },
      { type: "inline", target: ".agents/hooks-scripts/gate.py", content: SEED_GATE_SCRIPT },
    ];
    const environment = (await ai.environments.create({ sources } as Parameters<GoogleGenAI["environments"]["create"]>[0])) as {
      id: string;
    };
    const run = async (code: string) => {
      const interaction = (await ai.interactions.create({
        agent: AGENT,
        input: script([{ name: "code_execution", args: { code, language: "bash" } }]),
        environment: environment.id,
      })) as { steps?: Array<{ type: string; result?: string; is_error?: boolean }> };
      const result = interaction.steps?.find((step) => step.type === "code_execution_result");
      assert.ok(result, `no code_execution_result step: ${JSON.stringify(interaction)}`);
      return result;
    };
    const denied = await run("rm -rf /tmp/forbidden");
    assert.equal(denied.is_error, true);
    assert.equal(denied.result, 'Tool call denied by hook "security-gate": Destructive command blocked by security gate.');
    const allowed = await run("echo allowed-by-the-gate");
    assert.equal(allowed.result?.trim(), "allowed-by-the-gate");
  });

  it("spreads the stack's sandboxes (its environments and the pool's waiting one) over more than one node", async () => {
    // A taken pool service is relabelled pooled=false; the one waiting is pooled=true.
    const environments = (await manager.listServices({
      filters: { label: [`${LABEL_INSTANCE}=${INSTANCE}`, "dev.interactions-emulator.pooled=false"] },
    })) as Array<{ ID: string }>;
    assert.equal(environments.length, 2, "the two environments above, each a service of this instance");
    // The pool's refill after the last take: its waiting sandbox is the third (or more: a take that found
    // the pool empty doubled its target, up to EMULATOR_POOL_MAX_SIZE).
    assert.ok((await warmSandboxes()) >= 1, "the stack's emulator refilled no warm sandbox within 120 s");
    const sandboxes = (await manager.listServices({
      filters: { label: [`${LABEL_INSTANCE}=${INSTANCE}`, "dev.interactions-emulator.pooled"] },
    })) as Array<{ ID: string }>;
    const tasks = (await manager.listTasks({
      filters: { service: sandboxes.map((service) => service.ID), "desired-state": ["running"] },
    })) as Array<{ NodeID: string }>;
    // Swarm places each new service's task on the labelled node running the fewest tasks (the manager's
    // count the emulator's): the two environments alone may share a node (the second made while another
    // held the pool's refill, a tie), but three sandboxes placed one after another, each on a least busy
    // node, never all share one.
    assert.ok(tasks.length >= 3, `${tasks.length} sandbox tasks running`);
    const nodes = new Set(tasks.map((task) => task.NodeID));
    assert.ok(nodes.size >= 2, `${tasks.length} sandbox tasks on ${nodes.size} node`);
  });
});
