// `npx interactions-emulator start --port 0`, from a project that has the package as a dependency
// (node_modules links to this repository, and node_modules/.bin to its bin, as npm links them): it
// prints the URL when ready, the URL answers /health, and Ctrl-C (SIGINT to the process group, as a
// terminal sends it) stops it cleanly: exit status 0, the port closed, its lease on the engine ended.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import Docker from "dockerode";
import { loadConfig } from "../../server/common/config.js";
import { projectRoot } from "../../server/common/paths.js";
import { removeInstanceObjects } from "../../server/sandbox/docker/instance-objects.js";
import { startCli } from "../support/cli-runs.js";
import { objectsOfInstance } from "../support/docker-fixture.js";

let scratch: string;
let dataDir: string;

before(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "emulator-npx-"));
  dataDir = path.join(scratch, "data");
  fs.writeFileSync(
    path.join(scratch, "package.json"),
    JSON.stringify({
      name: "uses-the-emulator",
      private: true,
      devDependencies: { "interactions-sandbox-emulator": `file:${projectRoot}` },
    }),
  );
  fs.mkdirSync(path.join(scratch, "node_modules", ".bin"), { recursive: true });
  fs.symlinkSync(projectRoot, path.join(scratch, "node_modules", "interactions-sandbox-emulator"), "dir");
  fs.symlinkSync(
    path.join("..", "interactions-sandbox-emulator", "bin", "interactions-emulator.mjs"),
    path.join(scratch, "node_modules", ".bin", "interactions-emulator"),
  );
});
after(async () => {
  const instance = loadConfig({ EMULATOR_DATA_DIR: dataDir }).EMULATOR_INSTANCE;
  await removeInstanceObjects(new Docker(), instance);
  fs.rmSync(scratch, { recursive: true, force: true });
});

/** Starts the command, waits for its URL, checks /health, sends Ctrl-C; what it printed and how it ended. */
async function startAndInterrupt(command: string[], argv: string[]) {
  const run = startCli(argv, { cwd: scratch, command });
  let url: string;
  try {
    url = (await run.waitFor(/Interactions emulator listening on (http:\/\/127\.0\.0\.1:\d+) \(data: /))[1]!;
  } catch (error) {
    run.interrupt();
    throw error;
  }
  // The link to the dashboard, on the emulator's own address, and the page behind it.
  await run.waitFor(new RegExp(`Dashboard: ${url.replace(/[.]/g, "\\.")}/ui `));
  assert.equal((await fetch(`${url}/ui`)).status, 200);
  const health = await fetch(`${url}/health`);
  assert.equal(health.status, 200);
  assert.equal(((await health.json()) as { status: string }).status, "ok");
  run.interrupt();
  // Resolves once every process of the group that holds its output has exited, the emulator included.
  const ended = await run.exited;
  assert.match(run.stdout(), /^SIGINT: shutting down; sandboxes keep running and are found again at the next start$/m);
  await assert.rejects(fetch(`${url}/health`), "the port is closed");
  // The lease volume is dropped at the very end of the shutdown: gone means the shutdown completed.
  const instance = loadConfig({ EMULATOR_DATA_DIR: dataDir }).EMULATOR_INSTANCE;
  assert.deepEqual(await objectsOfInstance(instance), { containers: 0, volumes: 0, images: 0 });
  assert.ok(fs.existsSync(dataDir), "the data folder is kept, as with npm start");
  return { ...ended, output: `${run.stdout()}\n${run.stderr()}` };
}

describe("npx interactions-emulator start", () => {
  it("prints a URL that answers /health, and stops cleanly on Ctrl-C", async () => {
    // --no-install: npx runs the project's linked bin and never asks a registry.
    const ended = await startAndInterrupt(
      ["npx"],
      ["--no-install", "interactions-emulator", "start", "--port", "0", "--data-dir", dataDir],
    );
    // npm itself ends by the same Ctrl-C (it re-raises it) once the emulator has exited.
    assert.ok(ended.status === 0 || ended.signal === "SIGINT", ended.output);
  });

  it("exits 0 after a clean shutdown (the linked bin, as npx runs it)", async () => {
    const bin = path.join(scratch, "node_modules", ".bin", "interactions-emulator");
    const ended = await startAndInterrupt([bin], ["start", "--port", "0", "--data-dir", dataDir]);
    assert.equal(ended.status, 0, ended.output);
  });
});
