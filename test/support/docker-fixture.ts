// A Docker runtime for integration tests: its own instance name, so the containers it makes are
// found and removed at the end whatever the tests did.

import { randomBytes } from "node:crypto";
import Docker from "dockerode";
import { loadConfig } from "../../server/common/config.js";
import { dockerRuntimeFor } from "../../server/emulator.js";
import type { DockerRuntime } from "../../server/sandbox/docker/docker-runtime.js";
import { LABEL_INSTANCE } from "../../server/sandbox/docker/labels.js";

/** settings: configuration variables over the defaults (e.g. a smaller EMULATOR_SANDBOX_MEMORY_MB). */
export async function testDockerRuntime(settings: Record<string, string> = {}): Promise<DockerRuntime> {
  const runtime = dockerRuntimeFor(
    loadConfig({
      ...process.env,
      EMULATOR_INSTANCE: `itest-${randomBytes(4).toString("hex")}`,
      EMULATOR_SANDBOX_PIDS: "256",
      ...settings,
    }),
  );
  await runtime.prepare(() => undefined);
  return runtime;
}

export async function removeAllSandboxes(runtime: DockerRuntime): Promise<void> {
  for (const handle of await runtime.list()) await runtime.remove(handle);
}

/** How many containers, volumes and images on the engine are labelled with the emulator instance. */
export async function objectsOfInstance(instance: string): Promise<{ containers: number; volumes: number; images: number }> {
  const docker = new Docker();
  const filters = { label: [`${LABEL_INSTANCE}=${instance}`] };
  const [containers, volumes, images] = await Promise.all([
    docker.listContainers({ all: true, filters }),
    docker.listVolumes({ filters }),
    docker.listImages({ filters }),
  ]);
  return { containers: containers.length, volumes: volumes.Volumes?.length ?? 0, images: images.length };
}
