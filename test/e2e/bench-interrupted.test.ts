// `npm run bench` ended by a signal to its own process alone, as `timeout`, a CI runner or `kill` sends
// it (Ctrl-C reaches the whole process group; a SIGTERM does not): it stops what it started and removes
// what that made before it exits with the signal's status. Once while an emulator of the goals part runs
// with its pool, once while the warm start's `npm start` (a process group of its own) is starting, once
// while the swarm part's test cluster (engines in network namespaces) is up. Every
// data folder of the run lives in a TMPDIR of the test's own, so what the run made is found from it and
// from the instance labels that appeared on the engine meanwhile.

import assert from "node:assert/strict";
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import Docker from "dockerode";
import { loadConfig } from "../../server/common/config.js";
import { projectRoot } from "../../server/common/paths.js";
import { LABEL_INSTANCE } from "../../server/sandbox/docker/labels.js";
import { removeInstanceObjects } from "../../server/sandbox/docker/instance-objects.js";
import { objectsOfInstance } from "../support/docker-fixture.js";
import { swarmUnavailable } from "../support/swarm-cluster.js";
import { SWARM_PREFIX } from "../support/swarm-layout.js";
import { engineProcesses } from "../support/swarm-teardown.js";

const BENCH = path.join(projectRoot, "dist", "test", "bench", "main.js");
const DEADLINE_MS = 300_000;
const docker = new Docker();
const everyInstance = new Set<string>();
const scratches: string[] = [];

after(async () => {
  for (const instance of everyInstance) await removeInstanceObjects(docker, instance).catch(() => undefined);
  for (const scratch of scratches) fs.rmSync(scratch, { recursive: true, force: true });
});

async function instancesOnEngine(): Promise<Set<string>> {
  const containers = await docker.listContainers({ all: true, filters: { label: [LABEL_INSTANCE] } });
  const volumes = (await docker.listVolumes({ filters: { label: [LABEL_INSTANCE] } })).Volumes ?? [];
  return new Set([...containers.map((info) => info.Labels[LABEL_INSTANCE]!), ...volumes.map((volume) => volume.Labels[LABEL_INSTANCE]!)]);
}

/** Pids of the processes whose environment names a folder under `folder` as their data folder. */
function processesWithDataIn(folder: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = fs.readFileSync(`/proc/${entry}/environ`, "latin1").split("\0");
      if (environ.some((variable) => variable.startsWith(`EMULATOR_DATA_DIR=${folder}/`))) pids.push(Number(entry));
    } catch {}
  }
  return pids;
}

async function until(what: string, check: () => boolean | Promise<boolean>, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  while (!(await check())) {
    if (child.exitCode !== null) assert.fail(`the bench exited ${child.exitCode} before ${what}:\n${output().slice(-3000)}`);
    if (Date.now() > deadline) assert.fail(`no ${what} within ${DEADLINE_MS / 1000} s:\n${output().slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface InterruptedRun {
  /** The parts to run (`--only`). */
  parts: string;
  /** Whether the moment to interrupt has come: `scratch` is the run's TMPDIR, `output` what it printed. */
  ready: (scratch: string, output: string) => boolean;
  /** What of the run's own is running, checked just before the signal (not empty) and after the exit (empty). */
  running: (scratch: string) => string[];
}

/**
 * Runs the bench with a TMPDIR of its own until `ready` holds, sends the bench alone a SIGTERM, and checks
 * that nothing the run made is left: its processes, their containers and volumes, its data folders.
 */
async function interruptedRun({ parts, ready, running }: InterruptedRun): Promise<void> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "emu-bench-interrupted-"));
  scratches.push(scratch);
  const before = await instancesOnEngine();
  const child = spawn(process.execPath, [BENCH, "--only", parts, "--no-save", "--no-charts"], {
    cwd: projectRoot,
    env: { ...process.env, TMPDIR: scratch },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const instances = new Set<string>();
  try {
    await until(
      "the moment to interrupt",
      () => ready(scratch, output),
      child,
      () => output,
    );
    // What the run has made so far: the instances that appeared on the engine, and those of its data folders.
    for (const instance of await instancesOnEngine()) if (!before.has(instance)) instances.add(instance);
    for (const folder of fs.readdirSync(scratch))
      instances.add(loadConfig({ EMULATOR_DATA_DIR: path.join(scratch, folder) }).EMULATOR_INSTANCE);
    for (const instance of instances) everyInstance.add(instance);
    assert.notDeepEqual(running(scratch), [], "something of the run's is running when it is interrupted");
    child.kill("SIGTERM");
    const code = await exited;
    assert.equal(code, 128 + os.constants.signals.SIGTERM, output.slice(-3000));
    assert.match(output, /terminated: stopping the emulators and removing what this run created/);
    assert.deepEqual(running(scratch), [], "nothing of the run's is left running");
    // Nothing left, and nothing made afterwards (an emulator left running would refill its pool).
    await new Promise((resolve) => setTimeout(resolve, 2000));
    for (const instance of instances) {
      const left = await objectsOfInstance(instance);
      assert.deepEqual(
        { containers: left.containers, volumes: left.volumes },
        { containers: 0, volumes: 0 },
        `${instance}: ${output.slice(-2000)}`,
      );
    }
    assert.deepEqual(
      fs.readdirSync(scratch).filter((folder) => folder.startsWith("emu-bench-")),
      [],
      "the run's data folders are removed",
    );
  } finally {
    if (child.exitCode === null) child.kill("SIGKILL");
  }
}

/** The emulators of a run whose data folders are in `scratch`, as pids. */
const emulatorsOf = (scratch: string) => processesWithDataIn(scratch).map(String);

/** The swarm part's test cluster of a run with TMPDIR `scratch`: its engines' processes, namespaces and folder. */
function swarmOf(scratch: string): string[] {
  const base = path.join(scratch, `${SWARM_PREFIX}cluster`);
  const left = engineProcesses(base).map((engine) => `${engine.command} ${engine.pid}`);
  const namespaces = execFileSync("ip", ["netns", "list"], { encoding: "utf8" });
  left.push(...namespaces.split("\n").filter((line) => line.startsWith(SWARM_PREFIX)));
  if (fs.existsSync(base)) left.push(base);
  return left;
}

describe("npm run bench ended by a SIGTERM to its process alone", { timeout: 2 * DEADLINE_MS }, () => {
  it("while an emulator of the goals part runs with its pool: it is stopped and what it made is removed", async () => {
    await interruptedRun({
      parts: "goals",
      ready: (_scratch, output) => output.includes("A new environment, whole interaction, from the warm pool"),
      running: emulatorsOf,
    });
  });

  it("while the warm start's npm start is starting: that process group is stopped, its pool and data removed", async () => {
    await interruptedRun({
      parts: "goals",
      ready: (scratch, output) =>
        output.includes("▸ warm npm start vs a bare express server") &&
        fs.readdirSync(scratch).some((folder) => folder.startsWith("emu-bench-warm-")) &&
        processesWithDataIn(scratch).length > 0,
      running: emulatorsOf,
    });
  });

  it("while the swarm part's test cluster is up: its engines, namespaces and folder are removed", {
    skip: swarmUnavailable(),
  }, async () => {
    await interruptedRun({
      parts: "swarm",
      ready: (_scratch, output) => output.includes("swarm: swarm up in"),
      running: swarmOf,
    });
  });
});
