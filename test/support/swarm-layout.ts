// Where the three-node test swarm lives (test/support/swarm-cluster.ts): every object it makes on this
// machine is named with one prefix, in one folder, so that a later run finds and removes what a killed
// one left. All addresses are inside 198.18.0.0/15 (RFC 2544's benchmarking block), and only inside
// network namespaces of its own: the root namespace, its routes and its firewall are never touched, but
// for the veth that up()'s hostRoute adds (HOST_VETH, 198.18.0.254/24 onto the hub's bridge).

import { execFile } from "node:child_process";
import os from "node:os";
import path from "node:path";

/** The prefix of every namespace, interface, cgroup, hostname and folder the cluster makes. */
export const SWARM_PREFIX = "iemu-swarm-";
/** Nodes 1..NODE_COUNT; node 1 is the manager. */
export const NODE_COUNT = 3;
/** Sockets, data roots, logs: one folder for the whole cluster (a unix socket path must stay short). */
export const SWARM_BASE = path.join(os.tmpdir(), `${SWARM_PREFIX}cluster`);
/** The namespace holding the bridge that joins the nodes (the root namespace's FORWARD policy drops bridged traffic). */
export const HUB_NETNS = `${SWARM_PREFIX}hub`;
/** Interface names are at most 15 bytes: iemu-swarm-br, iemu-swarm-v1. */
export const HUB_BRIDGE = `${SWARM_PREFIX}br`;
/**
 * The root namespace's way into the hub (up()'s hostRoute): a veth whose root end holds HOST_ADDRESS/24,
 * the other end on the bridge, so a test reaches a port a node publishes (deploy/swarm.yml's 8080).
 */
export const HOST_VETH = `${SWARM_PREFIX}h0`;
export const HUB_HOST_VETH = `${SWARM_PREFIX}hh`;
export const HOST_ADDRESS = "198.18.0.254";
/** The overlay network for sandboxes, made on the manager. */
export const SANDBOX_OVERLAY = `${SWARM_PREFIX}sandboxes`;

export interface NodeLayout {
  index: number;
  /** The node's hostname, network namespace and cgroup parent: iemu-swarm-n1. */
  name: string;
  /** Its address on the bridge (198.18.0.<index>/24); no default route, so nothing leaves the machine. */
  address: string;
  /** The veth end in the hub namespace (the node's end is eth0 in its own namespace). */
  hubVeth: string;
  dir: string;
  socket: string;
  pidFile: string;
  log: string;
  /** Its docker0: 198.19.<16i+15>.1/24. */
  bip: string;
  /** Local networks' pool: 198.19.<16i>.0/20 in /24s (overlays use the swarm's pool, 198.19.128.0/17). */
  addressPool: string;
}

/** The swarm's pool for overlay networks, apart from every node's local pool. */
export const SWARM_ADDRESS_POOL = "198.19.128.0/17";

export function nodeLayout(index: number): NodeLayout {
  const name = `${SWARM_PREFIX}n${index}`;
  const dir = path.join(SWARM_BASE, `n${index}`);
  return {
    index,
    name,
    address: `198.18.0.${index}`,
    hubVeth: `${SWARM_PREFIX}v${index}`,
    dir,
    socket: path.join(dir, "docker.sock"),
    pidFile: path.join(dir, "dockerd.pid"),
    log: path.join(dir, "dockerd.log"),
    bip: `198.19.${index * 16 + 15}.1/24`,
    addressPool: `base=198.19.${index * 16}.0/20,size=24`,
  };
}

export function allNodes(): NodeLayout[] {
  return Array.from({ length: NODE_COUNT }, (_, i) => nodeLayout(i + 1));
}

/** Runs argv; its stdout, or an error with its stderr. Never a shell. */
export function run(argv: string[], options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      argv[0]!,
      argv.slice(1),
      { encoding: "utf8", timeout: options.timeoutMs ?? 60_000, maxBuffer: 16 * 1024 * 1024, env: options.env ?? process.env },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${argv.join(" ")} failed: ${(stderr || error.message).trim()}`));
        else resolve(stdout);
      },
    );
  });
}

/** The docker CLI against one node's engine, never the machine's own. */
export function dockerOn(socket: string, args: string[], timeoutMs = 60_000, extraEnv: NodeJS.ProcessEnv = {}): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extraEnv, DOCKER_HOST: `unix://${socket}`, DOCKER_SERVICE_PREFER_OFFLINE_IMAGE: "1" };
  delete env.DOCKER_CONTEXT;
  return run(["docker", "-H", `unix://${socket}`, ...args], { timeoutMs, env });
}
