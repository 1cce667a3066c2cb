// Removes the test swarm (test/support/swarm-cluster.ts) and everything it made, from what is on the
// machine rather than from what a process remembers: it works on a whole cluster, a half-made one, one a
// killed run left, and on nothing at all. In order: the node engines (SIGTERM, then SIGKILL), whatever
// they left running (containerd, shims, and container processes found through the cluster's cgroups),
// the mounts under its folder (overlay layers, shm, network namespace files), its network namespaces
// (their veths and bridge go with them), any interface of its name in the root namespace, its cgroups,
// and its folder.

import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { allNodes, type NodeLayout, run, SWARM_BASE, SWARM_PREFIX } from "./swarm-layout.js";

/** What a node engine started: it, its containerd, the shims and a port proxy (comm is cut to 15 bytes). */
const ENGINE_COMMANDS = new Set(["dockerd", "containerd", "containerd-shim", "docker-proxy", "runc"]);
/** How long a node engine has to stop its containers and exit after SIGTERM before SIGKILL. */
const ENGINE_STOP_GRACE_MS = 20_000;
const LEFTOVER_GRACE_MS = 3_000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Whether pid runs (a zombie has ended). */
export function isRunning(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return !"ZX".includes(stat[stat.lastIndexOf(")") + 2] ?? "X");
  } catch {
    return false;
  }
}

/** Sends signal to every pid, waits up to graceMs for all to end; the ones still running. */
async function signalAndWait(pids: number[], signal: NodeJS.Signals, graceMs: number): Promise<number[]> {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
  const deadline = Date.now() + graceMs;
  let running = pids.filter(isRunning);
  while (running.length > 0 && Date.now() < deadline) {
    await sleep(100);
    running = running.filter(isRunning);
  }
  return running;
}

/** SIGTERM, then SIGKILL after graceMs. */
export async function stopProcesses(pids: number[], graceMs: number): Promise<void> {
  const left = await signalAndWait(pids, "SIGTERM", graceMs);
  if (left.length > 0) await signalAndWait(left, "SIGKILL", LEFTOVER_GRACE_MS);
}

/** Processes of the node engines: an engine command whose command line names the cluster's folder. */
export function engineProcesses(under = SWARM_BASE): Array<{ pid: number; command: string; cmdline: string }> {
  const found: Array<{ pid: number; command: string; cmdline: string }> = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const command = fs.readFileSync(`/proc/${entry}/comm`, "utf8").trim();
      if (!ENGINE_COMMANDS.has(command)) continue;
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ");
      if (cmdline.includes(`${under}/`) && isRunning(Number(entry))) found.push({ pid: Number(entry), command, cmdline });
    } catch {
      // ended while read
    }
  }
  return found;
}

/** The pid the node's engine wrote, if it runs and is that node's dockerd. */
export function enginePid(node: NodeLayout): number | undefined {
  return engineProcesses(node.dir).find((process) => process.command === "dockerd")?.pid;
}

/** The cluster's cgroup folders, deepest first, in every hierarchy (cgroup v1 and v2). */
export function clusterCgroups(): string[] {
  const roots = ["/sys/fs/cgroup"];
  for (const entry of fs.existsSync("/sys/fs/cgroup") ? fs.readdirSync("/sys/fs/cgroup") : []) {
    roots.push(path.join("/sys/fs/cgroup", entry));
  }
  const found: string[] = [];
  const walk = (dir: string) => {
    found.push(dir);
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) if (entry.isDirectory()) walk(path.join(dir, entry.name));
  };
  for (const root of roots) {
    try {
      for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
        if (entry.isDirectory() && entry.name.startsWith(SWARM_PREFIX)) walk(path.join(root, entry.name));
      }
    } catch {
      // not a folder (a file of the v2 root), or gone
    }
  }
  return found.sort((a, b) => b.length - a.length);
}

function pidsInCgroup(dir: string): number[] {
  try {
    return fs
      .readFileSync(path.join(dir, "cgroup.procs"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map(Number)
      .filter((pid) => pid !== process.pid);
  } catch {
    return [];
  }
}

/** Mount points at or under the cluster's folder in this mount namespace (the engines share it), deepest first. */
export function clusterMounts(): string[] {
  const decodeOctal = (field: string) =>
    field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
  return fs
    .readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map((line) => decodeOctal(line.split(" ")[4] ?? ""))
    .filter((mountPoint) => mountPoint === SWARM_BASE || mountPoint.startsWith(`${SWARM_BASE}/`))
    .sort((a, b) => b.length - a.length);
}

export async function clusterNetns(): Promise<string[]> {
  const listed = await run(["ip", "netns", "list"]);
  return listed
    .split("\n")
    .map((line) => line.split(" ")[0] ?? "")
    .filter((name) => name.startsWith(SWARM_PREFIX));
}

/** Interfaces of the cluster's name in the root namespace (only up()'s hostRoute veth, which goes with the hub's namespace). */
export async function rootInterfaces(): Promise<string[]> {
  const listed = await run(["ip", "-o", "link", "show"]);
  return listed
    .split("\n")
    .map((line) => (line.split(": ")[1] ?? "").split("@")[0] ?? "")
    .filter((name) => name.startsWith(SWARM_PREFIX));
}

/** Where containerd's shims put their sockets: outside the cluster's folder, named by a hash. */
const SHIM_SOCKET_DIR = "/run/containerd/s";

/**
 * The sockets of the cluster's shims (a task's state folder names it): a shim removes its own when it
 * ends cleanly, not when SIGKILLed. containerd names one sha256(<containerd address>/<namespace>/<task id>).
 */
export function shimSockets(): string[] {
  const found: string[] = [];
  for (const node of allNodes()) {
    const address = path.join(node.dir, "exec", "containerd", "containerd.sock");
    const tasks = path.join(node.dir, "exec", "containerd", "daemon", "io.containerd.runtime.v2.task");
    for (const namespace of fs.existsSync(tasks) ? fs.readdirSync(tasks) : []) {
      for (const id of fs.readdirSync(path.join(tasks, namespace))) {
        const hash = createHash("sha256")
          .update(path.join(address, namespace, id))
          .digest("hex");
        found.push(path.join(SHIM_SOCKET_DIR, hash));
      }
    }
  }
  return found;
}

/** Stops one node's engine: SIGTERM (it stops its containers), SIGKILL after the grace. */
export async function stopNodeEngine(node: NodeLayout, graceMs = ENGINE_STOP_GRACE_MS): Promise<void> {
  const pid = enginePid(node);
  if (pid !== undefined) await stopProcesses([pid], graceMs);
}

/** Removes the cluster and everything it made; a no-op when there is none. Throws naming what it could not remove. */
export async function removeSwarmCluster(progress: (line: string) => void = () => undefined): Promise<void> {
  const sockets = shimSockets();
  // 1. The engines, all at once: each stops its own containers on SIGTERM.
  const engines = engineProcesses().filter((process) => process.command === "dockerd");
  if (engines.length > 0) progress(`stopping ${engines.length} node engine(s)`);
  await stopProcesses(
    engines.map((engine) => engine.pid),
    ENGINE_STOP_GRACE_MS,
  );
  // 2. What a killed engine leaves running: its containerd and shims, then the containers' processes.
  const leftovers = engineProcesses().map((process) => process.pid);
  if (leftovers.length > 0) await stopProcesses(leftovers, LEFTOVER_GRACE_MS);
  for (let attempt = 0; attempt < 20; attempt++) {
    const pids = [...new Set(clusterCgroups().flatMap(pidsInCgroup))];
    if (pids.length === 0) break;
    await signalAndWait(pids, "SIGKILL", 500);
  }
  for (const socket of sockets) fs.rmSync(socket, { force: true });
  // 3. Mounts under the folder (overlay layers, shm, the network namespaces of containers and overlays).
  for (const mountPoint of clusterMounts()) await run(["umount", "-l", mountPoint]).catch(() => undefined);
  // 4. Network namespaces: deleting one deletes its interfaces, and a veth's peer with it.
  for (const name of await clusterNetns()) await run(["ip", "netns", "delete", name]).catch(() => undefined);
  for (const name of await rootInterfaces()) await run(["ip", "link", "delete", name]).catch(() => undefined);
  // 5. Cgroups, deepest first (a cgroup folder goes with rmdir, once it holds no process).
  for (const dir of clusterCgroups()) {
    try {
      fs.rmdirSync(dir);
    } catch {
      // reported below
    }
  }
  const mounts = clusterMounts();
  // 6. The folder, only once nothing is mounted under it.
  if (mounts.length === 0) fs.rmSync(SWARM_BASE, { recursive: true, force: true });
  const left = [
    ...engineProcesses().map((process) => `process ${process.pid} (${process.command})`),
    ...mounts.map((mountPoint) => `mount ${mountPoint}`),
    ...(await clusterNetns()).map((name) => `network namespace ${name}`),
    ...(await rootInterfaces()).map((name) => `interface ${name}`),
    ...clusterCgroups().map((dir) => `cgroup ${dir}`),
    ...(fs.existsSync(SWARM_BASE) ? [`folder ${SWARM_BASE}`] : []),
    ...sockets.filter((socket) => fs.existsSync(socket)).map((socket) => `shim socket ${socket}`),
  ];
  if (left.length > 0) throw new Error(`the test swarm could not be removed entirely; left: ${left.join(", ")}`);
}
