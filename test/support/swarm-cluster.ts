// A real three-node Docker Swarm on this machine, for tests of the swarm runtime: three extra dockerds,
// each in a network namespace of its own joined by a bridge in a fourth namespace, node 1 the manager,
// the emulator's sandbox image loaded into each, an internal overlay network for sandboxes. The
// machine's own engine (/var/run/docker.sock), its swarm state and its networks are never touched.
// docs/testing.md#the-swarm-test-cluster; the names and addresses are in swarm-layout.ts, the removal
// in swarm-teardown.ts.
//
//   node dist/test/support/swarm-cluster.js up [--no-images] [--sandbox-nodes=workers] [--memory-mb=N] | down | status

import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import Docker from "dockerode";
import { loadConfig } from "../../server/common/config.js";
import { ensureSandboxImage } from "../../server/sandbox/docker/image.js";
import type { SwarmRuntimeOptions } from "../../server/sandbox/swarm/swarm-runtime.js";
import {
  allNodes,
  dockerOn,
  HOST_ADDRESS,
  HOST_VETH,
  HUB_BRIDGE,
  HUB_HOST_VETH,
  HUB_NETNS,
  type NodeLayout,
  run,
  SANDBOX_OVERLAY,
  SWARM_ADDRESS_POOL,
  SWARM_BASE,
  SWARM_PREFIX,
} from "./swarm-layout.js";
import { enginePid, removeSwarmCluster, stopNodeEngine } from "./swarm-teardown.js";

/** The node label the swarm runtime places sandboxes by (issue 32). */
export const SANDBOX_NODE_LABEL = "dev.interactions-emulator.sandboxes";
const DEFAULT_READY_TIMEOUT_MS = 60_000;
/** The memory file system the nodes' data lives in: three copies of the sandbox image (~370 MB each) and the tasks' layers. */
const DEFAULT_MEMORY_MB = 3072;
const LOG_TAIL_LINES = 15;

export interface SwarmClusterOptions {
  /** Images to copy from the machine's engine into every node; default the emulator's sandbox image (built if missing); [] for none. */
  images?: string[];
  /** Which nodes carry SANDBOX_NODE_LABEL=true: all three (default), or the two workers only. */
  sandboxNodes?: "all" | "workers";
  /**
   * The size of the memory file system (tmpfs) holding the nodes' data roots, sockets and logs; 0 puts
   * them on disk instead, where copying the images and removing them take about ten times as long.
   */
  memoryMb?: number;
  /**
   * A route from the root namespace into the cluster: a veth with HOST_ADDRESS (198.18.0.254/24) on
   * the hub's bridge, so this process reaches ports the nodes publish (deploy/swarm.yml's API on
   * 198.18.0.1:8080). Off by default: nothing of the cluster is then in the root namespace. down() removes it.
   */
  hostRoute?: boolean;
  /** The bound on each wait of up(): an engine answering, the swarm's nodes Ready and Active. */
  readyTimeoutMs?: number;
  progress?: (line: string) => void;
}

export interface SwarmNode {
  /** Its hostname and swarm node name, iemu-swarm-n1 … n3; n1 is the manager. */
  name: string;
  /** Its engine's socket path (DOCKER_HOST=unix://<socket>). */
  socket: string;
  /** Its address on the cluster's bridge, inside 198.18.0.0/15. */
  address: string;
}

export interface SwarmCluster {
  /** DOCKER_HOST for the manager's engine. */
  managerSocket: string;
  nodes: SwarmNode[];
  /** The internal, attachable overlay network for sandboxes. */
  overlay: string;
  /** The images loaded into every node. */
  images: string[];
  /** How long up() took in all, and the part of it spent copying images. */
  timings: { upMs: number; imageLoadMs: number };
  /** Stops one node's engine (a machine lost): SIGTERM, then SIGKILL. */
  stopNode(name: string): Promise<void>;
  /** Starts a stopped node's engine again, on its data root (a machine back): resolves once the manager calls it ready. */
  startNode(name: string): Promise<void>;
  /** Removes the cluster and everything it made; idempotent. */
  down(): Promise<void>;
}

function logTail(node: NodeLayout): string {
  try {
    const lines = fs.readFileSync(node.log, "utf8").trimEnd().split("\n");
    return `last lines of ${node.log}:\n${lines.slice(-LOG_TAIL_LINES).join("\n")}`;
  } catch {
    return `no log at ${node.log}`;
  }
}

function nodeError(node: NodeLayout, why: string): Error {
  return new Error(`test swarm node ${node.name} (${node.address}): ${why}; ${logTail(node)}`);
}

/** The bridge's namespace and one namespace per node, each with eth0 on the bridge and no route out. */
async function makeNetwork(nodes: NodeLayout[]): Promise<void> {
  await run(["ip", "netns", "add", HUB_NETNS]);
  await run(["ip", "-n", HUB_NETNS, "link", "set", "lo", "up"]);
  await run(["ip", "-n", HUB_NETNS, "link", "add", HUB_BRIDGE, "type", "bridge"]);
  await run(["ip", "-n", HUB_NETNS, "link", "set", HUB_BRIDGE, "up"]);
  for (const node of nodes) {
    await run(["ip", "netns", "add", node.name]);
    await run(["ip", "-n", HUB_NETNS, "link", "add", node.hubVeth, "type", "veth", "peer", "name", "eth0", "netns", node.name]);
    await run(["ip", "-n", HUB_NETNS, "link", "set", node.hubVeth, "master", HUB_BRIDGE, "up"]);
    await run(["ip", "-n", node.name, "addr", "add", `${node.address}/24`, "dev", "eth0"]);
    await run(["ip", "-n", node.name, "link", "set", "eth0", "up"]);
    await run(["ip", "-n", node.name, "link", "set", "lo", "up"]);
  }
}

/** The root namespace's veth into the hub (SwarmClusterOptions.hostRoute); deleting the hub namespace deletes it too. */
async function addHostRoute(): Promise<void> {
  await run(["ip", "link", "add", HOST_VETH, "type", "veth", "peer", "name", HUB_HOST_VETH, "netns", HUB_NETNS]);
  await run(["ip", "-n", HUB_NETNS, "link", "set", HUB_HOST_VETH, "master", HUB_BRIDGE, "up"]);
  await run(["ip", "addr", "add", `${HOST_ADDRESS}/24`, "dev", HOST_VETH]);
  await run(["ip", "link", "set", HOST_VETH, "up"]);
}

/**
 * Starts the node's dockerd in its network namespace with `nsenter --net` (`ip netns exec` remounts
 * /sys and hides the cgroup mounts) and a UTS namespace for its hostname, everything of its own under
 * its folder, its containers under the cgroup /<name>. It outlives this process (the CLI's `up`).
 */
function startEngine(node: NodeLayout): void {
  fs.mkdirSync(node.dir, { recursive: true });
  // Its own identity key: the default is the machine engine's /etc/docker/key.json.
  fs.writeFileSync(`${node.dir}/daemon.json`, JSON.stringify({ "deprecated-key-path": `${node.dir}/key.json` }));
  const log = fs.openSync(node.log, "a");
  const args = [
    `--config-file=${node.dir}/daemon.json`,
    `--data-root=${node.dir}/data`,
    `--exec-root=${node.dir}/exec`,
    `--pidfile=${node.pidFile}`,
    `--host=unix://${node.socket}`,
    `--bip=${node.bip}`,
    `--default-address-pool=${node.addressPool}`,
    `--cgroup-parent=/${node.name}`,
    `--swarm-default-advertise-addr=${node.address}`,
    "--storage-driver=overlay2",
    // Its own firewall, in its own namespace: overlay networks need it (the feasibility run).
    "--iptables=true",
    "--userland-proxy=false",
    // Containers stop within 3 s of a SIGTERM to the engine (a node stopped, down()).
    "--shutdown-timeout=3",
  ];
  const child = spawn(
    "nsenter",
    [
      `--net=/run/netns/${node.name}`,
      "unshare",
      "--uts",
      "--",
      "sh",
      "-c",
      `hostname ${node.name} && exec dockerd "$@"`,
      "dockerd",
      ...args,
    ],
    { detached: true, stdio: ["ignore", log, log], env: { ...process.env, DOCKER_SERVICE_PREFER_OFFLINE_IMAGE: "1" } },
  );
  child.unref();
  fs.closeSync(log);
}

/**
 * The probe's first answer given within `timeoutMs`, or undefined. An answer that came after the bound
 * does not count: on a loaded machine one probe (a `docker` CLI run) can take longer than a short bound,
 * and the engine may come up meanwhile; a wait of 1 ms must still end as one that was not answered.
 */
async function waitFor<T>(timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await probe().catch(() => undefined);
    if (Date.now() > deadline) return undefined;
    if (result !== undefined) return result;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function waitForEngine(node: NodeLayout, timeoutMs: number): Promise<void> {
  const answered = await waitFor(timeoutMs, async () => {
    const version = await dockerOn(node.socket, ["version", "--format", "{{.Server.Version}}"], 5_000).catch(() => undefined);
    if (version !== undefined) return true;
    // Exited (a bad flag, a port or folder taken): no use waiting out the bound.
    if (
      enginePid(node) === undefined &&
      fs.existsSync(node.log) &&
      /level=fatal|failed to start daemon/i.test(fs.readFileSync(node.log, "utf8"))
    ) {
      return false;
    }
    return undefined;
  });
  if (answered === false) throw nodeError(node, "its dockerd exited at start");
  if (answered === undefined) throw nodeError(node, `its dockerd did not answer on ${node.socket} within ${timeoutMs} ms`);
}

async function formSwarm(manager: NodeLayout, workers: NodeLayout[]): Promise<void> {
  await dockerOn(manager.socket, [
    "swarm",
    "init",
    `--advertise-addr=${manager.address}`,
    `--listen-addr=${manager.address}:2377`,
    `--default-addr-pool=${SWARM_ADDRESS_POOL}`,
    "--default-addr-pool-mask-length=24",
  ]).catch((error: Error) => {
    throw nodeError(manager, `swarm init failed: ${error.message}`);
  });
  const token = (await dockerOn(manager.socket, ["swarm", "join-token", "-q", "worker"])).trim();
  await Promise.all(
    workers.map((worker) =>
      dockerOn(worker.socket, [
        "swarm",
        "join",
        `--token=${token}`,
        `--advertise-addr=${worker.address}`,
        `--listen-addr=${worker.address}:2377`,
        `${manager.address}:2377`,
      ]).catch((error: Error) => {
        throw nodeError(worker, `swarm join failed: ${error.message}`);
      }),
    ),
  );
}

/** Node name → "<Status> <Availability>" as the manager sees them. */
async function nodeStates(manager: NodeLayout): Promise<Map<string, string>> {
  const listed = await dockerOn(manager.socket, ["node", "ls", "--format", "{{.Hostname}} {{.Status}} {{.Availability}}"], 10_000);
  return new Map(
    listed
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((line) => {
        const [name, ...state] = line.split(" ");
        return [name ?? "", state.join(" ")];
      }),
  );
}

async function waitForNodesReady(manager: NodeLayout, nodes: NodeLayout[], timeoutMs: number): Promise<void> {
  let states = new Map<string, string>();
  const ready = await waitFor(timeoutMs, async () => {
    states = await nodeStates(manager);
    return nodes.every((node) => states.get(node.name) === "Ready Active") ? true : undefined;
  });
  if (ready) return;
  const late = nodes.find((node) => states.get(node.name) !== "Ready Active")!;
  const message = await dockerOn(manager.socket, ["node", "inspect", late.name, "--format", "{{.Status.Message}}"], 10_000).catch(
    () => "not in the swarm",
  );
  throw nodeError(late, `not Ready and Active within ${timeoutMs} ms (${states.get(late.name) ?? "absent"}: ${message.trim()})`);
}

/** The emulator's sandbox image as `npm start` builds it (present after a start; built here otherwise). */
async function emulatorSandboxImage(progress: (line: string) => void): Promise<string> {
  const config = loadConfig(process.env);
  return ensureSandboxImage(
    new Docker(),
    { fixedImage: config.EMULATOR_SANDBOX_IMAGE, baseImage: config.EMULATOR_BASE_IMAGE, offlineBase: config.EMULATOR_OFFLINE_BASE },
    progress,
  );
}

/** One `docker save` from the machine's engine, streamed into a `docker load` on every node at once (no file). */
async function loadImages(images: string[], nodes: NodeLayout[]): Promise<void> {
  const save = spawn("docker", ["save", ...images], { stdio: ["ignore", "pipe", "pipe"] });
  const results = [
    save,
    ...nodes.map((node) => spawn("docker", ["-H", `unix://${node.socket}`, "load", "--quiet"], { stdio: ["pipe", "pipe", "pipe"] })),
  ];
  const loads = results.slice(1);
  for (const load of loads) {
    load.stdin!.on("error", () => undefined);
    save.stdout!.pipe(load.stdin!);
  }
  const outcomes = await Promise.all(
    results.map(
      (child) =>
        new Promise<{ status: number | null; stderr: string }>((resolve) => {
          let stderr = "";
          child.stderr!.on("data", (chunk: Buffer) => {
            stderr = (stderr + chunk.toString("utf8")).slice(-2000);
          });
          child.once("error", (error) => resolve({ status: -1, stderr: error.message }));
          child.once("close", (status) => resolve({ status, stderr }));
        }),
    ),
  );
  const [saved, ...loaded] = outcomes;
  if (saved!.status !== 0) throw new Error(`docker save ${images.join(" ")} on this machine's engine failed: ${saved!.stderr.trim()}`);
  loaded.forEach((outcome, i) => {
    if (outcome.status !== 0) throw nodeError(nodes[i]!, `docker load failed: ${outcome.stderr.trim()}`);
  });
}

/**
 * Brings the cluster up, first removing whatever a previous run left (one cluster per machine). On any
 * failure it removes what it made and rethrows, naming the node and why (with its dockerd log's tail).
 */
/**
 * Why the test swarm cannot come up on this machine (a test's `skip`, the bench's "not measured"), or
 * false when it can: it needs root and these tools.
 */
export function swarmUnavailable(): string | false {
  if (process.getuid?.() !== 0) return "the test swarm needs root (network namespaces, mounts, extra dockerds)";
  for (const tool of ["dockerd", "ip", "nsenter", "unshare"]) {
    if (spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0) return `no ${tool} on this machine`;
  }
  return false;
}

/**
 * A SwarmRuntime's options for a test on the cluster: the cluster's first image as is, small sandboxes,
 * the cluster's overlay, secrets kept under `dataDir`. Tests add their own bounds, client and dialer.
 */
export function testRuntimeOptions(
  cluster: Pick<SwarmCluster, "images" | "overlay">,
  instance: string,
  dataDir: string,
): Pick<SwarmRuntimeOptions, "instance" | "image" | "memoryMb" | "cpus" | "pids" | "network" | "channelsFolder"> {
  return {
    instance,
    image: { fixedImage: cluster.images[0]!, baseImage: "unused", offlineBase: "never" },
    memoryMb: 256,
    cpus: 0.5,
    pids: 256,
    network: cluster.overlay,
    channelsFolder: path.join(dataDir, "channels"),
  };
}

export async function up(options: SwarmClusterOptions = {}): Promise<SwarmCluster> {
  const progress = options.progress ?? (() => undefined);
  const timeoutMs = options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
  const started = Date.now();
  const nodes = allNodes();
  const [manager, ...workers] = nodes as [NodeLayout, ...NodeLayout[]];
  await removeSwarmCluster(progress);
  let imageLoadMs = 0;
  let images: string[] = [];
  try {
    images = options.images ?? [await emulatorSandboxImage(progress)];
    fs.mkdirSync(SWARM_BASE, { recursive: true, mode: 0o700 });
    const memoryMb = options.memoryMb ?? DEFAULT_MEMORY_MB;
    if (memoryMb > 0) await run(["mount", "-t", "tmpfs", "-o", `size=${memoryMb}m,mode=0700`, `${SWARM_PREFIX}data`, SWARM_BASE]);
    progress("network namespaces");
    await makeNetwork(nodes);
    if (options.hostRoute) await addHostRoute();
    for (const node of nodes) startEngine(node);
    await Promise.all(nodes.map((node) => waitForEngine(node, timeoutMs)));
    progress("engines answer; forming the swarm");
    await formSwarm(manager, workers);
    await waitForNodesReady(manager, nodes, timeoutMs);
    const labelled = options.sandboxNodes === "workers" ? workers : nodes;
    for (const node of labelled) await dockerOn(manager.socket, ["node", "update", "--label-add", `${SANDBOX_NODE_LABEL}=true`, node.name]);
    await dockerOn(manager.socket, ["network", "create", "--driver=overlay", "--internal", "--attachable", SANDBOX_OVERLAY]);
    if (images.length > 0) {
      progress(`loading ${images.join(", ")} into ${nodes.length} nodes`);
      const loadStarted = Date.now();
      await loadImages(images, nodes);
      imageLoadMs = Date.now() - loadStarted;
    }
  } catch (error) {
    await removeSwarmCluster(progress).catch((cleanup: Error) => {
      (error as Error).message += `; and then: ${cleanup.message}`;
    });
    throw error;
  }
  const upMs = Date.now() - started;
  progress(`swarm up in ${upMs} ms (images ${imageLoadMs} ms)`);
  return {
    managerSocket: manager.socket,
    nodes: nodes.map((node) => ({ name: node.name, socket: node.socket, address: node.address })),
    overlay: SANDBOX_OVERLAY,
    images,
    timings: { upMs, imageLoadMs },
    stopNode: async (name) => {
      await stopNodeEngine(nodeNamed(nodes, name));
    },
    startNode: async (name) => {
      const node = nodeNamed(nodes, name);
      startEngine(node);
      await waitForEngine(node, timeoutMs);
      await waitForNodesReady(manager, [node], timeoutMs);
    },
    down: () => removeSwarmCluster(progress),
  };
}

function nodeNamed(nodes: NodeLayout[], name: string): NodeLayout {
  const node = nodes.find((candidate) => candidate.name === name);
  if (!node) throw new Error(`no node ${name} in the test swarm (${nodes.map((candidate) => candidate.name).join(", ")})`);
  return node;
}

/** Removes the cluster, whoever made it; a no-op when there is none. */
export function down(progress?: (line: string) => void): Promise<void> {
  return removeSwarmCluster(progress);
}

/** One line per node: its engine's pid and, from the manager, its swarm state. */
export async function status(): Promise<string> {
  const nodes = allNodes();
  const states = await nodeStates(nodes[0]!).catch(() => new Map<string, string>());
  return nodes
    .map((node) => {
      const pid = enginePid(node);
      return `${node.name} ${node.address} ${pid === undefined ? "engine stopped" : `engine pid ${pid}`} ${states.get(node.name) ?? "-"} DOCKER_HOST=unix://${node.socket}`;
    })
    .join("\n");
}

async function main(argv: string[]): Promise<void> {
  const progress = (line: string) => process.stderr.write(`${line}\n`);
  const [command, ...flags] = argv;
  if (command === "up") {
    const memoryFlag = flags.find((flag) => flag.startsWith("--memory-mb="));
    const cluster = await up({
      progress,
      ...(flags.includes("--no-images") ? { images: [] } : {}),
      sandboxNodes: flags.includes("--sandbox-nodes=workers") ? "workers" : "all",
      ...(memoryFlag ? { memoryMb: Number(memoryFlag.slice("--memory-mb=".length)) } : {}),
    });
    const { down: _down, stopNode: _stop, startNode: _start, ...shown } = cluster;
    process.stdout.write(`${JSON.stringify(shown, null, 2)}\n`);
  } else if (command === "down") {
    await down(progress);
  } else if (command === "status") {
    process.stdout.write(`${await status()}\n`);
  } else {
    throw new Error("usage: swarm-cluster.js up [--no-images] [--sandbox-nodes=workers] [--memory-mb=N] | down | status");
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((error: Error) => {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  });
}
