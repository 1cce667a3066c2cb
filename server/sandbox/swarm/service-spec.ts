// The Swarm service of one sandbox (EMULATOR_SANDBOX_RUNTIME=swarm; docs/scale-out.md): one task of the
// sandbox image, placed by Swarm on a node labelled for sandboxes, on the internal overlay only, its
// keep-alive serving the executor's channel over TCP to whoever brings the secret Swarm mounts for root.
// Pure: what the service is, from settings; swarm-runtime.ts makes it.

import type Docker from "dockerode";
import { CHANNEL_NETWORK_SECRET_PATH, CHANNEL_PORT_FLAG, HOLD_PORT_FLAG } from "../../../sandbox-image/executor/protocol.js";
import { SANDBOX_CA_ENV, SANDBOX_PROXY_ENV, SANDBOX_PROXY_PORT } from "../egress-settings.js";
import { EXECUTOR_PATH } from "../docker/image.js";

/** The node label that makes a node take sandboxes (`docker node update --label-add …=true`). */
export const SANDBOX_NODE_LABEL = "dev.interactions-emulator.sandboxes";
/** The port the keep-alive serves the channel on, on the task's overlay address. */
export const SWARM_CHANNEL_PORT = 7070;
/** The file name Swarm mounts the channel's secret as, under /run/secrets. */
const CHANNEL_SECRET_NAME = CHANNEL_NETWORK_SECRET_PATH.slice("/run/secrets/".length);

/**
 * The keep-alive holds the egress port for root and serves the channel on the overlay. Before it listens
 * it takes the network from every user but root (network_isolation.go): on an overlay shared by all
 * sandboxes, sandbox and hooks code reach only the container's loopback. That needs CAP_NET_ADMIN.
 */
const KEEP_ALIVE = [EXECUTOR_PATH, HOLD_PORT_FLAG, `127.0.0.1:${SANDBOX_PROXY_PORT}`, CHANNEL_PORT_FLAG, String(SWARM_CHANNEL_PORT)];
/**
 * As DockerRuntime's containers: root's processes with only what the executor needs (SETUID, SETGID),
 * NET_ADMIN for the rule above, and CHOWN and DAC_OVERRIDE for its root side of the sandbox's files
 * (exportTree, extractTree: a fork, a snapshot, repository sources; swarm-files.ts), which the Docker
 * runtime leaves to the engine's archive API; DAC_OVERRIDE also serves the disk guard. No SYS_RESOURCE: a service cannot
 * be probed for it before it is placed. Swarm's API 1.41 (engine 20.10) has no no-new-privileges for a
 * service: the keep-alive sets it on itself before anything else (network_isolation.go), and serves no
 * channel if it cannot (docs/security.md#the-swarm-runtime).
 */
const CAPABILITIES = ["SETUID", "SETGID", "NET_ADMIN", "CHOWN", "DAC_OVERRIDE"];

/** A Swarm config (the emulator's CA) and where it is mounted, root's and readable by all. */
export interface ConfigMount {
  id: string;
  name: string;
  path: string;
}

export interface SandboxServiceSettings {
  /** The service's name: opaque (iemu-<instance>-<random>), since the overlay's DNS answers any container on it. */
  name: string;
  image: string;
  labels: Record<string, string>;
  /** The overlay network's name or ID (EMULATOR_SWARM_NETWORK). */
  network: string;
  secret: { id: string; name: string };
  configs: ConfigMount[];
  memoryMb: number;
  cpus: number;
  pids: number;
  /**
   * The executor guards a disk limit (no storage quota on a service). Its CAP_DAC_OVERRIDE is in every
   * sandbox's set now (CAPABILITIES): kept so that callers say it, and the spec does not change with it.
   */
  guardsDisk: boolean;
  /** EMULATOR_SWARM_CONSTRAINTS, each like `node.labels.zone==a`. */
  constraints: readonly string[];
}

export function sandboxServiceSpec(settings: SandboxServiceSettings): Docker.CreateServiceOptions {
  const env = { ...SANDBOX_PROXY_ENV, ...(settings.configs.length > 0 ? SANDBOX_CA_ENV : {}) };
  const containerSpec: Docker.ContainerSpec = {
    Image: settings.image,
    Labels: settings.labels,
    Command: KEEP_ALIVE,
    User: "0:0",
    Dir: "/workspace",
    Env: Object.entries(env).map(([name, value]) => `${name}=${value}`),
    // tini as PID 1 reaps orphans, and the task stops in about a second.
    Init: true,
    StopGracePeriod: 1_000_000_000,
    CapabilityDrop: ["ALL"],
    CapabilityAdd: CAPABILITIES,
    Secrets: [
      {
        SecretID: settings.secret.id,
        SecretName: settings.secret.name,
        File: { Name: CHANNEL_SECRET_NAME, UID: "0", GID: "0", Mode: 0o400 },
      },
    ],
    Configs: settings.configs.map((config) => ({
      ConfigID: config.id,
      ConfigName: config.name,
      File: { Name: config.path, UID: "0", GID: "0", Mode: 0o444 },
    })),
  };
  return {
    Name: settings.name,
    Labels: settings.labels,
    TaskTemplate: {
      ContainerSpec: containerSpec,
      Resources: {
        Limits: {
          NanoCPUs: Math.round(settings.cpus * 1e9),
          MemoryBytes: settings.memoryMb * 1024 * 1024,
          Pids: settings.pids,
        },
      },
      // A task that ended (its node lost, its keep-alive killed) must not come back empty elsewhere.
      RestartPolicy: { Condition: "none", MaxAttempts: 0 },
      Placement: {
        Constraints: [`node.labels.${SANDBOX_NODE_LABEL}==true`, ...settings.constraints],
        Preferences: [{ Spread: { SpreadDescriptor: "node.id" } }],
      },
      Networks: [{ Target: settings.network }],
      // The executor channel is never the main process's output; nothing to log.
      LogDriver: { Name: "none" },
    },
    Mode: { Replicated: { Replicas: 1 } },
    // No virtual IP (no IPVS on every kernel, and nothing to balance): the task is reached by its own address.
    EndpointSpec: { Mode: "dnsrr" },
  };
}
