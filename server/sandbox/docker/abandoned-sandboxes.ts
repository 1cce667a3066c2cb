// Sandboxes of an emulator that is gone: any emulator on the engine removes the containers, volumes and
// fork images of another instance when all of these hold:
// - they carry this machine's host identity (so the data folder's path means the same here),
// - that instance holds no unexpired lease (it is not running: a running emulator renews its lease),
// - its data folder no longer holds its store (nobody can ever use those sandboxes again).
// Objects without the ownership labels (made by an older emulator, or by a runtime that keeps no lease)
// are never touched. Removing is idempotent: what is already gone is skipped, what fails is retried by
// the next sweep.

import fs from "node:fs";
import path from "node:path";
import type Docker from "dockerode";
import { isGone } from "./engine-errors.js";
import { LABEL_DATA_DIR, LABEL_HOST, LABEL_INSTANCE, LABEL_LEASE_EXPIRES, LABEL_MANAGED } from "./labels.js";
import type { LeaseSettings } from "./lease.js";

export interface AbandonedSweep {
  /** Instances whose leftovers were removed (or attempted). */
  instances: string[];
  containers: number;
  volumes: number;
  images: number;
  /** What could not be removed this time, with why. */
  failures: string[];
}

/** An instance name as EMULATOR_INSTANCE allows it: never a path of its own. */
const SAFE_INSTANCE = /^[a-z0-9][a-z0-9_.-]*$/i;

export async function removeAbandoned(
  docker: Docker,
  ownInstance: string,
  settings: Pick<LeaseSettings, "hostId" | "storeExists">,
  now = Date.now(),
): Promise<AbandonedSweep> {
  const onThisHost = { label: [`${LABEL_MANAGED}=true`, `${LABEL_HOST}=${settings.hostId}`] };
  const [containers, volumeList, images] = await Promise.all([
    docker.listContainers({ all: true, filters: onThisHost }),
    docker.listVolumes({ filters: onThisHost }),
    docker.listImages({ filters: onThisHost }),
  ]);
  const volumes = volumeList.Volumes ?? [];

  const running = new Set<string>();
  for (const volume of volumes) {
    const expires = Number(volume.Labels?.[LABEL_LEASE_EXPIRES]);
    if (expires > now) running.add(volume.Labels?.[LABEL_INSTANCE] ?? "");
  }
  const verdicts = new Map<string, boolean>();
  const sweep: AbandonedSweep = { instances: [], containers: 0, volumes: 0, images: 0, failures: [] };
  const abandoned = (labels: Record<string, string> | undefined | null): boolean => {
    const instance = labels?.[LABEL_INSTANCE];
    const dataDir = labels?.[LABEL_DATA_DIR];
    if (!instance || !dataDir || instance === ownInstance || running.has(instance)) return false;
    const key = `${instance}\n${dataDir}`;
    let verdict = verdicts.get(key);
    if (verdict === undefined) {
      verdict = !settings.storeExists(dataDir);
      verdicts.set(key, verdict);
      if (verdict && !sweep.instances.includes(instance)) sweep.instances.push(instance);
    }
    return verdict;
  };
  const attempt = async (what: string, remove: () => Promise<unknown>): Promise<boolean> => {
    try {
      await remove();
      return true;
    } catch (error) {
      if (isGone(error)) return false;
      sweep.failures.push(`${what}: ${(error as Error).message}`);
      return false;
    }
  };

  // Containers first: they hold the volumes and images.
  for (const container of containers) {
    if (!abandoned(container.Labels)) continue;
    if (await attempt(`container ${container.Id}`, () => docker.getContainer(container.Id).remove({ force: true, v: true })))
      sweep.containers += 1;
  }
  // Their socket folders (socket-channel.ts), in the data folder that no longer holds its store.
  for (const [key, verdict] of verdicts) {
    const [instance, dataDir] = key.split("\n") as [string, string];
    if (verdict && path.isAbsolute(dataDir) && SAFE_INSTANCE.test(instance))
      fs.rmSync(path.join(dataDir, "channels", instance), { recursive: true, force: true });
  }
  // A fork of a fork was committed on top of its source's image: the newest go first, and one that still
  // had a descendant is tried again once that is gone.
  let pending = images.filter((image) => abandoned(image.Labels)).sort((a, b) => b.Created - a.Created);
  let refusals: string[] = [];
  for (let pass = 0; pass < 3 && pending.length > 0; pass++) {
    const left: typeof pending = [];
    refusals = [];
    for (const image of pending) {
      try {
        await docker.getImage(image.Id).remove({ force: true });
        sweep.images += 1;
      } catch (error) {
        if (isGone(error)) continue;
        left.push(image);
        refusals.push(`image ${image.Id}: ${(error as Error).message}`);
      }
    }
    pending = left;
  }
  sweep.failures.push(...refusals);
  // The lease last, so a sweep cut short is picked up again by the next one.
  const leaseLast = volumes.filter((volume) => abandoned(volume.Labels)).sort((a, b) => leaseRank(a) - leaseRank(b));
  for (const volume of leaseLast) {
    if (await attempt(`volume ${volume.Name}`, () => docker.getVolume(volume.Name).remove())) sweep.volumes += 1;
  }
  return sweep;
}

const leaseRank = (volume: Docker.VolumeInspectInfo): number => (volume.Labels?.[LABEL_LEASE_EXPIRES] ? 1 : 0);
