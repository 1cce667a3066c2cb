// The rule by which an emulator removes what another one left on the engine, against a real engine,
// one sweep at a time: only objects tied to a data folder on this machine, only once their emulator's
// lease expired, only when that folder no longer holds its store; then all of them (containers, the
// read-only volumes, fork images, the lease), and a second sweep finds nothing. The timing (renewals
// and sweeps of running emulators) is in test/fault/abandoned-sandboxes.test.ts.

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import Docker from "dockerode";
import { loadConfig } from "../../server/common/config.js";
import { tarBuffer } from "../../server/common/tar.js";
import { dockerRuntimeFor } from "../../server/emulator.js";
import { DockerRuntime } from "../../server/sandbox/docker/docker-runtime.js";
import { STORE_FILE_NAME } from "../../server/store/database.js";
import { objectsOfInstance, removeAllSandboxes, testDockerRuntime } from "../support/docker-fixture.js";

const docker = new Docker();
const folders: string[] = [];
const runtimes: DockerRuntime[] = [];

/** A runtime as the emulator makes it (lease: true), over a data folder holding a store file. */
function leasedRuntime(name: string): { runtime: DockerRuntime; dataDir: string; instance: string } {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `abandoned-${name}-`));
  folders.push(dataDir);
  fs.writeFileSync(path.join(dataDir, STORE_FILE_NAME), "");
  const instance = `itest-${name}-${randomBytes(3).toString("hex")}`;
  const config = loadConfig({
    ...process.env,
    EMULATOR_DATA_DIR: dataDir,
    EMULATOR_INSTANCE: instance,
    EMULATOR_SANDBOX_LEASE_SECONDS: "1",
    EMULATOR_SANDBOX_PIDS: "64",
  });
  const runtime = dockerRuntimeFor(config, { lease: true });
  runtimes.push(runtime);
  return { runtime, dataDir, instance };
}

let gone: ReturnType<typeof leasedRuntime>;
let sweeper: ReturnType<typeof leasedRuntime>;
let unleased: DockerRuntime;

before(async () => {
  gone = leasedRuntime("gone");
  sweeper = leasedRuntime("sweeper");
  await gone.runtime.prepare(() => undefined);
  await sweeper.runtime.prepare(() => undefined);
  await gone.runtime.renewLease();
  await sweeper.runtime.renewLease();
  const tree = await tarBuffer([{ header: { name: "README.md", mode: 0o444 }, content: Buffer.from("read-only\n") }]);
  const source = await gone.runtime.create({
    environmentId: "env_itestgone",
    owner: "owner",
    files: [],
    readOnlyTrees: [{ path: "/workspace/repo", tar: tree }],
  });
  await gone.runtime.fork(source, { environmentId: "env_itestgonefork", owner: "owner", files: [] });

  // What must never be touched: a runtime that keeps no lease (its objects carry no data folder).
  unleased = await testDockerRuntime();
  await unleased.create({ environmentId: "env_itestunleased", owner: "owner", files: [] });
});

after(async () => {
  for (const runtime of [...runtimes, unleased]) {
    if (!runtime) continue;
    await removeAllSandboxes(runtime).catch(() => undefined);
    await runtime.dropLease().catch(() => undefined);
  }
  for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
});

describe("removing what a stopped emulator left behind", () => {
  it("starts with the other emulator's containers, read-only volumes, fork image and lease on the engine", async () => {
    assert.deepEqual(await objectsOfInstance(gone.instance), { containers: 2, volumes: 3, images: 1 });
  });

  it("keeps them while its lease runs, even with its data folder gone", async () => {
    // The emulator renews its lease every third of it; the lease here is 1 s.
    await gone.runtime.renewLease();
    fs.rmSync(path.join(gone.dataDir, STORE_FILE_NAME));
    const sweep = await sweeper.runtime.removeAbandoned();
    assert.deepEqual(sweep?.instances, []);
    assert.deepEqual(await objectsOfInstance(gone.instance), { containers: 2, volumes: 3, images: 1 });
  });

  it("keeps them once its lease expired while its data folder still holds its store", async () => {
    fs.writeFileSync(path.join(gone.dataDir, STORE_FILE_NAME), "");
    await sleep(1200);
    const sweep = await sweeper.runtime.removeAbandoned();
    assert.ok(!sweep?.instances.includes(gone.instance));
    assert.deepEqual(await objectsOfInstance(gone.instance), { containers: 2, volumes: 3, images: 1 });
  });

  it("removes all of them once the lease expired and the data folder is gone, and only them", async () => {
    fs.rmSync(gone.dataDir, { recursive: true, force: true });
    const sweep = await sweeper.runtime.removeAbandoned();
    assert.ok(sweep?.instances.includes(gone.instance));
    assert.deepEqual(sweep?.failures, []);
    assert.deepEqual(await objectsOfInstance(gone.instance), { containers: 0, volumes: 0, images: 0 });
    // The sweeper's own lease, the runtime without a lease and the other machine's emulator are untouched.
    assert.equal((await objectsOfInstance(sweeper.instance)).volumes, 1);
    assert.equal((await unleased.list()).length, 1);
  });

  it("finds nothing more to do the second time", async () => {
    const sweep = await sweeper.runtime.removeAbandoned();
    assert.ok(!sweep?.instances.includes(gone.instance));
  });

  it("never touches the sandboxes of an emulator whose data folder is on another machine", async () => {
    // No lease and a data folder that does not exist, but on another machine: nothing can be known here.
    const [sample] = await unleased.list();
    const image = (await docker.getContainer(sample!.sandboxId).inspect()).Config.Image;
    const instance = `itest-elsewhere-${randomBytes(3).toString("hex")}`;
    const other = new DockerRuntime({
      instance,
      image: { fixedImage: image, baseImage: "unused", offlineBase: "never" },
      memoryMb: 256,
      cpus: 1,
      pids: 64,
      lease: { dataDir: "/nonexistent/emulator-data", hostId: "another-machine", leaseMs: 1000, storeExists: () => false },
    });
    runtimes.push(other);
    await other.prepare(() => undefined);
    await other.create({ environmentId: "env_itestelsewhere", owner: "owner", files: [] });
    const sweep = await sweeper.runtime.removeAbandoned();
    assert.ok(!sweep?.instances.includes(instance));
    assert.equal((await objectsOfInstance(instance)).containers, 1);
  });
});
