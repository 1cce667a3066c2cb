// What an earlier run of this emulator instance left on the swarm besides services (docs/scale-out.md#after-a-crash).
// The start-up's reconcile (server/environments/reconcile.ts) removes every service of the instance that
// no stored environment owns, with its secret. What it cannot see, since it goes by services, is removed
// here, once that reconcile has run (SwarmRuntime.trustCertificate, before any new sandbox):
// - channel secrets whose environment has no service (a crash between the secret and its service, or a
//   removal cut short before the secret went),
// - the emulator's CA configs no service uses and this run did not make (an earlier run's CA),
// - channel folders (the emulator's copies of the secrets) whose environment has no service.
// Only what is older than this run is touched: nothing this run is making can be taken for a leftover.

import fs from "node:fs";
import type Docker from "dockerode";
import { isGone, withEngineTimeout } from "../docker/engine-errors.js";
import { LABEL_ENVIRONMENT, LABEL_INSTANCE, LABEL_MANAGED } from "../docker/labels.js";
import type { ChannelFolders } from "../docker/socket-channel.js";

export interface Leftovers {
  secrets: number;
  configs: number;
  folders: number;
  /** What could not be removed this time (tried again at the next start), with why. */
  failures: string[];
}

interface Listed {
  ID: string;
  CreatedAt?: string;
  Spec?: { Name?: string; Labels?: Record<string, string> };
}

interface ListedService {
  Spec?: { Labels?: Record<string, string>; TaskTemplate?: { ContainerSpec?: { Configs?: Array<{ ConfigID?: string }> } } };
}

export async function removeLeftovers(
  docker: Docker,
  settings: {
    instance: string;
    channels: ChannelFolders;
    /** The configs this run made (the current CA): kept even while no service uses them yet. */
    keepConfigs: readonly string[];
    /** When this run started (ms): only what is older is a leftover. */
    since: number;
    engineTimeoutMs: number;
  },
): Promise<Leftovers> {
  const ofInstance = { label: [`${LABEL_MANAGED}=true`, `${LABEL_INSTANCE}=${settings.instance}`] };
  const bounded = <T>(promise: Promise<T>, what: string) => withEngineTimeout(promise, settings.engineTimeoutMs, what);
  const [services, secrets, configs] = await Promise.all([
    bounded(docker.listServices({ filters: ofInstance }) as Promise<ListedService[]>, "listing the instance's services"),
    bounded(docker.listSecrets({ filters: ofInstance }) as Promise<Listed[]>, "listing the instance's secrets"),
    bounded(docker.listConfigs({ filters: ofInstance }) as Promise<Listed[]>, "listing the instance's configs"),
  ]);
  const environments = new Set(services.map((service) => service.Spec?.Labels?.[LABEL_ENVIRONMENT] ?? ""));
  const usedConfigs = new Set(
    services.flatMap((service) => (service.Spec?.TaskTemplate?.ContainerSpec?.Configs ?? []).map((config) => config.ConfigID ?? "")),
  );
  const older = (item: Listed) => Date.parse(item.CreatedAt ?? "") < settings.since;
  const swept: Leftovers = { secrets: 0, configs: 0, folders: 0, failures: [] };
  const attempt = async (what: string, remove: () => Promise<unknown>): Promise<boolean> => {
    try {
      await bounded(remove(), `removing ${what}`);
      return true;
    } catch (error) {
      if (!isGone(error)) swept.failures.push(`${what}: ${(error as Error).message}`);
      return false;
    }
  };

  for (const secret of secrets) {
    if (environments.has(secret.Spec?.Labels?.[LABEL_ENVIRONMENT] ?? "") || !older(secret)) continue;
    if (await attempt(`secret ${secret.Spec?.Name ?? secret.ID}`, () => docker.getSecret(secret.ID).remove())) swept.secrets += 1;
  }
  for (const config of configs) {
    if (usedConfigs.has(config.ID) || settings.keepConfigs.includes(config.ID) || !older(config)) continue;
    if (await attempt(`config ${config.Spec?.Name ?? config.ID}`, () => docker.getConfig(config.ID).remove())) swept.configs += 1;
  }
  for (const environmentId of settings.channels.environments()) {
    const folder = settings.channels.folderOf(environmentId);
    if (!folder || environments.has(environmentId)) continue;
    const made = fs.statSync(folder, { throwIfNoEntry: false })?.mtimeMs ?? Number.POSITIVE_INFINITY;
    if (made >= settings.since) continue;
    settings.channels.remove(environmentId);
    swept.folders += 1;
  }
  return swept;
}
