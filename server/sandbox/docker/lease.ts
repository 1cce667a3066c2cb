// An emulator's lease on the engine: a volume per renewal, labelled with the instance, its data folder,
// the machine that folder is on, and until when the emulator counts as running. A volume is the
// smallest thing every engine (a remote one included) stores with labels and lists by label, and
// labels cannot change, so a renewal makes a new volume and then removes the older ones: there is
// always at least one while the emulator runs.

import type Docker from "dockerode";
import { LABEL_DATA_DIR, LABEL_HOST, LABEL_INSTANCE, LABEL_LEASE_EXPIRES, LABEL_MANAGED } from "./labels.js";
import { isGone } from "./engine-errors.js";

export interface LeaseSettings {
  /** The emulator's data folder, absolute. */
  dataDir: string;
  /** hostIdentity() of the machine the emulator runs on. */
  hostId: string;
  /** How long a renewal keeps the emulator counted as running. */
  leaseMs: number;
  /**
   * Whether a data folder still holds an emulator's store: another emulator's sandboxes are removed only
   * when its lease expired and this is false.
   */
  storeExists(dataDir: string): boolean;
}

/** The labels that tie an object to its emulator's data folder, on this machine. */
export function ownershipLabels(settings: LeaseSettings): Record<string, string> {
  return { [LABEL_DATA_DIR]: settings.dataDir, [LABEL_HOST]: settings.hostId };
}

export class InstanceLease {
  constructor(
    private readonly docker: Docker,
    private readonly instance: string,
    private readonly settings: LeaseSettings,
  ) {}

  /** Extends the lease to now + leaseMs. */
  async renew(now = Date.now()): Promise<void> {
    const expires = now + this.settings.leaseMs;
    await this.docker.createVolume({
      Name: `iemu-lease-${this.instance}-${expires}`,
      Labels: {
        [LABEL_MANAGED]: "true",
        [LABEL_INSTANCE]: this.instance,
        ...ownershipLabels(this.settings),
        [LABEL_LEASE_EXPIRES]: String(expires),
      },
    });
    for (const volume of await this.volumes()) {
      if (Number(volume.Labels?.[LABEL_LEASE_EXPIRES]) < expires) await this.removeVolume(volume.Name);
    }
  }

  /** Ends the lease (a clean shutdown): the emulator no longer counts as running. */
  async drop(): Promise<void> {
    for (const volume of await this.volumes()) await this.removeVolume(volume.Name);
  }

  private async volumes(): Promise<Docker.VolumeInspectInfo[]> {
    const { Volumes } = await this.docker.listVolumes({
      filters: { label: [LABEL_LEASE_EXPIRES, `${LABEL_INSTANCE}=${this.instance}`] },
    });
    return Volumes ?? [];
  }

  private async removeVolume(name: string): Promise<void> {
    try {
      await this.docker.getVolume(name).remove();
    } catch (error) {
      if (!isGone(error)) throw error;
    }
  }
}
