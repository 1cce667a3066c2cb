// deploy/swarm.yml deployed on the three-node test swarm (test/support/swarm-cluster.ts) as an operator
// deploys it, for the tests that drive the deployed emulator through its published API
// (test/docker/swarm-stack.test.ts, test/docker/swarm-egress.test.ts): `docker stack deploy` on the
// manager, then a wait for the API on the manager's 8080, reached through the cluster's host route.

import path from "node:path";
import Docker from "dockerode";
import { projectRoot } from "../../server/common/paths.js";
import type { StackImages } from "../../tools/save-images.js";
import type { SwarmCluster } from "./swarm-cluster.js";
import { dockerOn } from "./swarm-layout.js";

/** The stack's name; its emulator service is `${STACK}_emulator`. */
export const STACK = "interactions";
/** The emulator's API: published in host mode on the manager (198.18.0.1), port 8080. */
export const STACK_API = "http://198.18.0.1:8080";
/** The emulator's start on the manager: its image check runs a task on every labelled node. */
const START_TIMEOUT_MS = 180_000;

/** Why the test swarm cannot run here, or false. */
export interface StackSettings {
  images: StackImages;
  apiKeys: string;
  instance: string;
  /** More compose files merged over deploy/swarm.yml (`docker stack deploy -c … -c …`): a test's own settings. */
  overrides?: string[];
}

async function waitForHealth(deadlineMs: number, why: () => Promise<string>, failedTwice: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const ok = await fetch(`${STACK_API}/health`, { signal: AbortSignal.timeout(3000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return;
    // A task that exits at start is restarted for ever: two failures are enough to say why.
    if (await failedTwice()) throw new Error(`the stack's emulator exits at start:\n${await why()}`);
    if (Date.now() >= deadline)
      throw new Error(`the stack's emulator did not answer on ${STACK_API} within ${deadlineMs} ms:\n${await why()}`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** `docker stack deploy` of deploy/swarm.yml on the cluster's manager; resolves once the API answers /health. */
export async function deployStack(cluster: SwarmCluster, settings: StackSettings): Promise<void> {
  const manager = new Docker({ socketPath: cluster.managerSocket });
  const files = [path.join(projectRoot, "deploy", "swarm.yml"), ...(settings.overrides ?? [])].flatMap((file) => ["-c", file]);
  await dockerOn(cluster.managerSocket, ["stack", "deploy", "--resolve-image=never", ...files, STACK], 60_000, {
    EMULATOR_IMAGE: settings.images.EMULATOR_IMAGE,
    SANDBOX_IMAGE: settings.images.SANDBOX_IMAGE,
    EMULATOR_API_KEYS: settings.apiKeys,
    EMULATOR_INSTANCE: settings.instance,
    EMULATOR_SWARM_NETWORK: cluster.overlay,
    // The node's engine listens in the cluster's folder; /var/run/docker.sock is this machine's own.
    DOCKER_SOCKET: cluster.managerSocket,
  });
  await waitForHealth(
    START_TIMEOUT_MS,
    async () => {
      const tasks = await dockerOn(cluster.managerSocket, ["service", "ps", "--no-trunc", `${STACK}_emulator`], 10_000).catch(String);
      // The last container's own output (`service logs` shows nothing of a task that exited at start).
      const [last] = await manager.listContainers({ all: true, filters: { label: [`com.docker.swarm.service.name=${STACK}_emulator`] } });
      const logs = last
        ? (await manager.getContainer(last.Id).logs({ stdout: true, stderr: true, tail: 30 })).toString("utf8")
        : "no container";
      return `${tasks}\n${logs}`;
    },
    async () => {
      const tasks = (await manager.listTasks({ filters: { service: [`${STACK}_emulator`] } })) as Array<{ Status: { State: string } }>;
      return tasks.filter((task) => task.Status.State === "failed").length >= 2;
    },
  );
}
