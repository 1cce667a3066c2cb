// Everything on the engine that one emulator instance made, found by its instance label: sandbox
// containers, the short-lived helpers (volume fillers, probes), read-only volumes, the lease volume and
// fork images. An embedded emulator (server/embed.ts) removes all of it when it stops, so a test suite
// leaves nothing behind; the sandbox image itself is shared by every instance and is kept.

import type Docker from "dockerode";
import { isGone } from "./engine-errors.js";
import { LABEL_INSTANCE } from "./labels.js";

export interface InstanceObjects {
  containers: number;
  volumes: number;
  images: number;
}

const REMOVAL_IN_PROGRESS = /already in progress/;

function byInstance(instance: string) {
  return { label: [`${LABEL_INSTANCE}=${instance}`] };
}

export async function countInstanceObjects(docker: Docker, instance: string): Promise<InstanceObjects> {
  const filters = byInstance(instance);
  const [containers, volumes, images] = await Promise.all([
    docker.listContainers({ all: true, filters }),
    docker.listVolumes({ filters }),
    docker.listImages({ filters }),
  ]);
  return { containers: containers.length, volumes: volumes.Volumes?.length ?? 0, images: images.length };
}

/**
 * Removes every container, volume and image labelled with the instance; what is already gone is
 * skipped. Throws, after trying everything, with what could not be removed.
 */
export async function removeInstanceObjects(docker: Docker, instance: string): Promise<InstanceObjects> {
  const filters = byInstance(instance);
  const removed: InstanceObjects = { containers: 0, volumes: 0, images: 0 };
  const failures: string[] = [];
  const attempt = async (what: string, remove: () => Promise<unknown>): Promise<boolean> => {
    try {
      await remove();
      return true;
    } catch (error) {
      if (!isGone(error) && !REMOVAL_IN_PROGRESS.test(String(error))) failures.push(`${what}: ${(error as Error).message}`);
      return false;
    }
  };
  // Containers first: they hold the volumes and the images. One the engine is already removing (the
  // emulator's own delete, still running) is looked for again until it is gone.
  for (let pass = 0; pass < 20; pass++) {
    const containers = await docker.listContainers({ all: true, filters });
    if (containers.length === 0) break;
    if (pass > 0) await new Promise((resolve) => setTimeout(resolve, 250));
    for (const container of containers) {
      if (await attempt(`container ${container.Id}`, () => docker.getContainer(container.Id).remove({ force: true, v: true }))) {
        removed.containers++;
      }
    }
  }
  // A fork of a fork was committed on top of its source's image: the newest go first, and one that still
  // had a descendant is tried again once that is gone.
  let pending = (await docker.listImages({ filters })).sort((a, b) => b.Created - a.Created);
  for (let pass = 0; pass < 3 && pending.length > 0; pass++) {
    const left: typeof pending = [];
    for (const image of pending) {
      try {
        await docker.getImage(image.Id).remove({ force: true });
        removed.images++;
      } catch (error) {
        if (!isGone(error)) left.push(image);
      }
    }
    pending = left;
  }
  failures.push(...pending.map((image) => `image ${image.Id}: still in use`));
  const stuck = await docker.listContainers({ all: true, filters });
  failures.push(...stuck.map((container) => `container ${container.Id}: still there`));
  for (const volume of (await docker.listVolumes({ filters })).Volumes ?? []) {
    if (await attempt(`volume ${volume.Name}`, () => docker.getVolume(volume.Name).remove())) removed.volumes++;
  }
  if (failures.length > 0) throw new Error(`could not remove everything of emulator instance ${instance}: ${failures.join("; ")}`);
  return removed;
}
