// Whether every node that may take sandboxes holds the sandbox image (docs/scale-out.md): without a
// registry, a node lacking it fails each sandbox task placed there. Asked once at start with a global
// service of the image running `true` on every such node, removed after; a task that fails names its node.

import { randomBytes } from "node:crypto";
import type Docker from "dockerode";
import { withEngineTimeout } from "../docker/engine-errors.js";
import { SANDBOX_NODE_LABEL } from "./service-spec.js";
import type { SwarmTask } from "./task-state.js";

/** States a task ends in. */
const ENDED = new Set(["complete", "failed", "rejected", "shutdown", "orphaned", "remove"]);
const POLL_MS = 250;

export interface ImageCheckSettings {
  image: string;
  constraints: readonly string[];
  labels: Record<string, string>;
  /** The bound on the whole check (EMULATOR_SWARM_TASK_START_SECONDS). */
  timeoutMs: number;
  engineTimeoutMs: number;
}

/** The nodes (hostnames) whose task of the image failed, with why; empty when every eligible node ran it. */
export async function nodesLackingImage(docker: Docker, settings: ImageCheckSettings): Promise<Array<{ node: string; why: string }>> {
  const lookup = <T>(call: Promise<T>, doing: string) => withEngineTimeout(call, settings.engineTimeoutMs, doing);
  const service = await lookup(
    docker.createService({
      Name: `iemu-image-check-${randomBytes(4).toString("hex")}`,
      Labels: settings.labels,
      TaskTemplate: {
        ContainerSpec: { Image: settings.image, Command: ["true"], User: "0:0" },
        RestartPolicy: { Condition: "none", MaxAttempts: 0 },
        Placement: { Constraints: [`node.labels.${SANDBOX_NODE_LABEL}==true`, ...settings.constraints] },
        LogDriver: { Name: "none" },
      },
      Mode: { Global: {} },
    }),
    "creating the image check's service",
  );
  try {
    const deadline = Date.now() + settings.timeoutMs;
    let tasks: SwarmTask[] = [];
    for (;;) {
      tasks = (await lookup(docker.listTasks({ filters: { service: [service.id] } }), "looking up the image check's tasks")) as SwarmTask[];
      if (tasks.length > 0 && tasks.every((task) => ENDED.has(task.Status?.State ?? ""))) break;
      if (Date.now() > deadline) {
        if (tasks.length === 0)
          throw new Error(
            `no node takes sandboxes: label at least one with \`docker node update --label-add ${SANDBOX_NODE_LABEL}=true <node>\`${settings.constraints.length > 0 ? ` (and check EMULATOR_SWARM_CONSTRAINTS=${settings.constraints.join(",")})` : ""}`,
          );
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    const failed = tasks.filter((task) => task.Status?.State !== "complete");
    if (failed.length === 0) return [];
    const nodes = (await lookup(docker.listNodes(), "listing the swarm's nodes")) as Array<{
      ID: string;
      Description?: { Hostname?: string };
    }>;
    const nameOf = (id: string | undefined) => nodes.find((node) => node.ID === id)?.Description?.Hostname ?? id ?? "an unknown node";
    return failed.map((task) => ({
      node: nameOf(task.NodeID),
      why: task.Status?.Err || `its task was still ${task.Status?.State ?? "unknown"} after ${Math.round(settings.timeoutMs / 1000)} s`,
    }));
  } finally {
    await docker
      .getService(service.id)
      .remove()
      .catch(() => undefined);
  }
}
