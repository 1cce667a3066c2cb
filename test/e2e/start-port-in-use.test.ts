// An emulator that cannot listen (its port is taken, as when `npm start` runs twice) exits 1 saying so,
// and leaves nothing on the engine: its start-up had already set its probe containers and its warm pool
// going, and an exit on the spot left the probes' containers behind (seen after four such starts). Nor
// does one whose data folder stops it earlier, after it took its lease on the engine (an egress CA it
// cannot read): that lease's volume was left behind.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import Docker from "dockerode";
import { projectRoot } from "../../server/common/paths.js";
import { removeInstanceObjects } from "../../server/sandbox/docker/instance-objects.js";
import { objectsOfInstance } from "../support/docker-fixture.js";

let taken: net.Server;
let port: number;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "port-in-use-"));
const instance = `itest-port-${randomBytes(4).toString("hex")}`;

before(async () => {
  taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
  port = (taken.address() as net.AddressInfo).port;
});

after(async () => {
  await new Promise<void>((resolve) => taken.close(() => resolve()));
  // What a failing run found left behind is not left for the next one.
  await removeInstanceObjects(new Docker(), instance);
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Runs the emulator until it exits (2 minutes at most); its exit code and what it wrote to stderr. */
async function startUntilExit(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [path.join(projectRoot, "dist", "server", "main.js")], {
    env: { ...process.env, HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.resume();
  const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
  const code = await new Promise<number | null>((resolve) => child.once("exit", (exitCode) => resolve(exitCode)));
  clearTimeout(timer);
  return { code, stderr };
}

describe("an emulator whose port is in use", () => {
  it("exits 1 naming the port and the setting, and leaves no container, volume or image of its own", async () => {
    const { code, stderr } = await startUntilExit({ PORT: String(port), EMULATOR_DATA_DIR: dataDir, EMULATOR_INSTANCE: instance });
    assert.equal(code, 1, stderr);
    assert.match(stderr, new RegExp(`127\\.0\\.0\\.1:${port} is already in use; set PORT to another port`));
    assert.deepEqual(await objectsOfInstance(instance), { containers: 0, volumes: 0, images: 0 }, stderr);
  });
});

describe("an emulator whose egress CA cannot be read", () => {
  const caDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "unreadable-ca-"));
  const caInstance = `itest-ca-${randomBytes(4).toString("hex")}`;
  after(async () => {
    await removeInstanceObjects(new Docker(), caInstance);
    fs.rmSync(caDataDir, { recursive: true, force: true });
  });

  it("exits 1 saying which folder to remove, and gives its lease on the engine back", async () => {
    // A certificate without its key: found after the emulator took its lease.
    fs.mkdirSync(path.join(caDataDir, "egress-ca"), { mode: 0o700 });
    fs.writeFileSync(path.join(caDataDir, "egress-ca", "ca.pem"), "not a certificate\n", { mode: 0o600 });
    const { code, stderr } = await startUntilExit({ PORT: "0", EMULATOR_DATA_DIR: caDataDir, EMULATOR_INSTANCE: caInstance });
    assert.equal(code, 1, stderr);
    assert.match(stderr, /egress-ca holds only one of ca\.pem and ca-key\.pem; remove the folder to create a new CA/);
    assert.deepEqual(await objectsOfInstance(caInstance), { containers: 0, volumes: 0, images: 0 }, stderr);
  });
});
