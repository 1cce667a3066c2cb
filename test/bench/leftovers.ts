// The benchmark's last step: nothing it created may outlive it. Each emulator and runtime it started
// cleans up after itself; this sweep then removes whatever still carries one of their instance labels
// (a container a failed step left, a warm-pool container of a build that keeps them) and says so.

import type Docker from "dockerode";
import { LABEL_INSTANCE } from "../../server/sandbox/docker/labels.js";

export async function removeLeftovers(docker: Docker, instances: string[]): Promise<{ containers: number; volumes: number }> {
  let containers = 0;
  let volumes = 0;
  for (const instance of instances) {
    const filters = { label: [`${LABEL_INSTANCE}=${instance}`] };
    for (const info of await docker.listContainers({ all: true, filters })) {
      await docker
        .getContainer(info.Id)
        .remove({ force: true, v: true })
        .catch(() => undefined);
      containers++;
    }
    for (const volume of (await docker.listVolumes({ filters })).Volumes ?? []) {
      await docker
        .getVolume(volume.Name)
        .remove()
        .catch(() => undefined);
      volumes++;
    }
  }
  return { containers, volumes };
}
