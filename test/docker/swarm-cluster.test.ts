// The three-node test swarm (test/support/swarm-cluster.ts, docs/testing.md#the-swarm-test-cluster) on
// this machine's kernel: a failure midway names the node and why and leaves nothing; a cluster a killed
// run left is removed by the next up(); the nodes come up Ready and Active, labelled, with the sandbox
// image and the internal overlay; a service of three replicas spread over the labelled nodes lands on
// more than one node, and a task on node 2 reaches the one on node 3 by `tasks.<service>` over the
// overlay; a node whose engine stops is marked down; down() leaves no process, namespace, interface,
// mount, cgroup or folder, twice over, and the machine's own engine stays out of any swarm throughout.
// The checks of what is left are written here, apart from the teardown's own.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { projectRoot } from "../../server/common/paths.js";
import { down, SANDBOX_NODE_LABEL, type SwarmCluster, up, swarmUnavailable } from "../support/swarm-cluster.js";
import { dockerOn, run, SWARM_BASE } from "../support/swarm-layout.js";

const NAME = "iemu-swarm";
const CLI = path.join(projectRoot, "dist", "test", "support", "swarm-cluster.js");
const SERVICE = "iemu-swarm-test-web";
const WAIT_MS = 90_000;

/** The machine's own engine's swarm state, as `docker info` shows it. */
async function mainEngineSwarm(): Promise<{ LocalNodeState: string; NodeID: string }> {
  return JSON.parse(await run(["docker", "-H", "unix:///var/run/docker.sock", "info", "--format", "{{json .Swarm}}"]));
}

/** Everything of the cluster's name on this machine, found without the teardown's code. */
async function leftovers(): Promise<string[]> {
  const left: string[] = [];
  for (const line of (await run(["ip", "netns", "list"])).split("\n")) if (line.includes(NAME)) left.push(`netns ${line}`);
  for (const line of (await run(["ip", "-o", "link", "show"])).split("\n")) if (line.includes(NAME)) left.push(`link ${line.slice(0, 80)}`);
  for (const line of fs.readFileSync("/proc/self/mountinfo", "utf8").split("\n")) if (line.includes(NAME)) left.push(`mount ${line}`);
  for (const pid of fs.readdirSync("/proc").filter((entry) => /^\d+$/.test(entry))) {
    try {
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
      const state = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0];
      // A lock file named after the cluster (/tmp/iemu-swarm-cluster.lock, taken to run swarm tests side by
      // side) is on the command line of whoever waits for it, but is not the cluster's.
      if (cmdline.replaceAll(`${NAME}-cluster.lock`, "").includes(NAME) && state !== "Z")
        left.push(`process ${pid} ${cmdline.slice(0, 120)}`);
    } catch {
      // ended meanwhile
    }
  }
  for (const hierarchy of fs.readdirSync("/sys/fs/cgroup")) {
    const dir = path.join("/sys/fs/cgroup", hierarchy);
    try {
      for (const entry of fs.readdirSync(dir)) if (entry.includes(NAME)) left.push(`cgroup ${path.join(dir, entry)}`);
    } catch {
      // a file
    }
  }
  if (fs.existsSync(SWARM_BASE)) left.push(`folder ${SWARM_BASE}`);
  return left;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${WAIT_MS} ms${last ? ` (${(last as Error).message})` : ""}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe("the three-node test swarm", { skip: swarmUnavailable(), timeout: 600_000 }, () => {
  let cluster: SwarmCluster | undefined;
  let mainSwarmBefore: { LocalNodeState: string; NodeID: string };
  const progress = (line: string) => process.stderr.write(`  [swarm] ${line}\n`);

  before(async () => {
    mainSwarmBefore = await mainEngineSwarm();
  });

  after(async () => {
    await down(progress);
  });

  it("a node that fails to start is named with why and its log's tail, and nothing is left", async () => {
    await assert.rejects(
      up({ images: [], readyTimeoutMs: 1, progress }),
      /test swarm node iemu-swarm-n\d \(198\.18\.0\.\d\): its dockerd did not answer on .* within 1 ms; (last lines of|no log at) /,
    );
    assert.deepEqual(await leftovers(), []);
  });

  it("a failure midway (an image the machine's engine lacks) says so and leaves nothing", async () => {
    await assert.rejects(up({ images: ["iemu-swarm-test-missing:none"], progress }), /docker save iemu-swarm-test-missing:none .*failed/);
    assert.deepEqual(await leftovers(), []);
  });

  it("removes what a killed run left, then brings up three Ready, Active, labelled nodes with the image and the overlay", async (t) => {
    // A CLI `up` killed once its engines answer: engines, namespaces, a tmpfs and a half-formed swarm stay.
    const killed = spawn(process.execPath, [CLI, "up", "--no-images"], { stdio: ["ignore", "ignore", "pipe"] });
    await new Promise<void>((resolve, reject) => {
      let said = "";
      killed.stderr.on("data", (chunk: Buffer) => {
        said += chunk.toString("utf8");
        if (said.includes("forming the swarm")) resolve();
      });
      killed.once("close", () => reject(new Error(`the CLI ended before its engines answered: ${said}`)));
    });
    killed.kill("SIGKILL");
    const stale = (await leftovers()).filter((line) => line.startsWith("process"));
    assert.ok(stale.length >= 3, `the killed run left its engines: ${stale.join("\n")}`);

    cluster = await up({ progress });
    t.diagnostic(`up() ${cluster.timings.upMs} ms, of which image load ${cluster.timings.imageLoadMs} ms (${cluster.images.join(", ")})`);
    const running = (await leftovers()).filter((line) => line.startsWith("process"));
    for (const line of stale) assert.ok(!running.includes(line), `still running from the killed run: ${line}`);

    assert.deepEqual(
      cluster.nodes.map((node) => [node.name, node.address]),
      [
        ["iemu-swarm-n1", "198.18.0.1"],
        ["iemu-swarm-n2", "198.18.0.2"],
        ["iemu-swarm-n3", "198.18.0.3"],
      ],
    );
    const listed = await dockerOn(cluster.managerSocket, [
      "node",
      "ls",
      "--format",
      `{{.Hostname}} {{.Status}} {{.Availability}} {{.ManagerStatus}}`,
    ]);
    assert.deepEqual(
      listed
        .trim()
        .split("\n")
        .map((line) => line.trimEnd())
        .sort(),
      ["iemu-swarm-n1 Ready Active Leader", "iemu-swarm-n2 Ready Active", "iemu-swarm-n3 Ready Active"],
    );
    for (const node of cluster.nodes) {
      const labels = await dockerOn(cluster.managerSocket, ["node", "inspect", node.name, "--format", "{{json .Spec.Labels}}"]);
      assert.equal(JSON.parse(labels)[SANDBOX_NODE_LABEL], "true", node.name);
      for (const image of cluster.images) await dockerOn(node.socket, ["image", "inspect", image, "--format", "{{.Id}}"]);
    }
    const overlay = JSON.parse(await dockerOn(cluster.managerSocket, ["network", "inspect", cluster.overlay, "--format", "{{json .}}"]));
    assert.deepEqual([overlay.Driver, overlay.Internal, overlay.Attachable, overlay.Scope], ["overlay", true, true, "swarm"]);
  });

  it("spreads three replicas over the labelled nodes, and a task on node 2 reaches the one on node 3 by tasks.<service>", async (t) => {
    assert.ok(cluster, "the cluster is up");
    const started = Date.now();
    await dockerOn(cluster.managerSocket, [
      "service",
      "create",
      "--detach",
      "--quiet",
      "--no-resolve-image",
      "--init",
      `--name=${SERVICE}`,
      `--network=${cluster.overlay}`,
      "--endpoint-mode=dnsrr",
      "--replicas=3",
      `--constraint=node.labels.${SANDBOX_NODE_LABEL}==true`,
      "--placement-pref=spread=node.id",
      // Each task answers with its node's name.
      "--hostname={{.Node.Hostname}}",
      cluster.images[0]!,
      "sh",
      "-c",
      "mkdir -p /tmp/www && hostname > /tmp/www/index.html && cd /tmp/www && exec python3 -m http.server 8080",
    ]);
    const nodes = await until("three tasks running", async () => {
      const tasks = await dockerOn(cluster!.managerSocket, [
        "service",
        "ps",
        SERVICE,
        "--filter=desired-state=running",
        "--format",
        "{{.Node}} {{.CurrentState}}",
      ]);
      const running = tasks.split("\n").filter((line) => line.includes(" Running"));
      return running.length === 3 ? running.map((line) => line.split(" ")[0]!) : undefined;
    });
    t.diagnostic(`3 tasks running after ${Date.now() - started} ms on ${nodes.join(", ")}`);
    assert.ok(new Set(nodes).size >= 2, `tasks on more than one node: ${nodes.join(", ")}`);
    assert.ok(nodes.includes("iemu-swarm-n2") && nodes.includes("iemu-swarm-n3"), `a task on node 2 and on node 3: ${nodes.join(", ")}`);

    const node2 = cluster.nodes[1]!;
    const container = (await dockerOn(node2.socket, ["ps", "-q", "--filter", `label=com.docker.swarm.service.name=${SERVICE}`])).trim();
    assert.match(container, /^[0-9a-f]+$/, "the task's container on node 2");
    const fetchEach = `
import socket, urllib.request
addresses = sorted({info[4][0] for info in socket.getaddrinfo("tasks.${SERVICE}", 8080, proto=socket.IPPROTO_TCP)})
for address in addresses:
    print(address, urllib.request.urlopen("http://%s:8080/" % address, timeout=5).read().decode().strip())
`;
    // The tasks' DNS entries appear as each task joins: wait for all three.
    const answers = await until("three tasks answering by tasks.<service>", async () => {
      const output = await dockerOn(node2.socket, ["exec", container, "python3", "-c", fetchEach], 30_000);
      const lines = output.trim().split("\n");
      return lines.length === 3 ? lines : undefined;
    });
    for (const line of answers)
      assert.match(line, /^198\.19\.(12[89]|1[3-9]\d|2[0-4]\d|25[0-5])\.\d+ iemu-swarm-n[123]$/, "an overlay address in the swarm's pool");
    assert.deepEqual(answers.map((line) => line.split(" ")[1]).sort(), ["iemu-swarm-n1", "iemu-swarm-n2", "iemu-swarm-n3"]);
  });

  it("marks a node whose engine stopped as down", async (t) => {
    assert.ok(cluster, "the cluster is up");
    const started = Date.now();
    await cluster.stopNode("iemu-swarm-n3");
    await until("node 3 marked down", async () => {
      const state = await dockerOn(cluster!.managerSocket, ["node", "inspect", "iemu-swarm-n3", "--format", "{{.Status.State}}"]);
      return state.trim() === "down" ? true : undefined;
    });
    t.diagnostic(`node 3 down ${Date.now() - started} ms after its engine was told to stop`);
  });

  it("down() leaves nothing, twice over, and the machine's engine is in no swarm", async (t) => {
    assert.ok(cluster, "the cluster is up");
    const started = Date.now();
    await cluster.down();
    t.diagnostic(`down() ${Date.now() - started} ms`);
    assert.deepEqual(await leftovers(), []);
    await cluster.down();
    assert.deepEqual(await leftovers(), []);
    const mainSwarm = await mainEngineSwarm();
    assert.deepEqual(mainSwarm, mainSwarmBefore);
    assert.equal(mainSwarm.LocalNodeState, "inactive");
  });
});
