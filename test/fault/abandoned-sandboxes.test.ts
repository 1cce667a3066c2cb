// Fault: an emulator is killed and its data folder deleted, so no emulator will ever come back to its
// sandboxes. Its containers, read-only volumes, fork images and lease must then disappear without
// anyone doing anything, within a bounded time set by EMULATOR_SANDBOX_LEASE_SECONDS (its lease runs
// out, then the next sweep of any emulator on the engine removes them), while nothing of the other
// emulators is touched: one running, one killed whose data folder is kept (it comes back to its
// sandboxes), and one running whose data folder was deleted under it (it still renews its lease).

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { GoogleGenAI } from "@google/genai";
import { objectsOfInstance } from "../support/docker-fixture.js";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";
import { AGENT, KEY, type Interaction, resultsOf, runIn, script, sdk, waitFor, writeFile } from "../support/fault-harness.js";

const LEASE_SECONDS = 3;
const lease = { EMULATOR_SANDBOX_LEASE_SECONDS: String(LEASE_SECONDS) };
let work: string;
const emulators: EmulatorProcess[] = [];

async function start(extra: Record<string, string> = {}, reuse?: EmulatorProcess): Promise<EmulatorProcess> {
  const emulator = await startEmulatorProcess({ ...lease, ...extra }, reuse);
  emulators.push(emulator);
  return emulator;
}

type CreateRequest = Parameters<GoogleGenAI["interactions"]["create"]>[0];

async function environmentWithFile(
  emulator: EmulatorProcess,
  content: string,
  sources: Array<Record<string, string>> = [],
): Promise<string> {
  const request = { agent: AGENT, input: script([writeFile("/workspace/keep.txt", content)]), environment: { type: "remote", sources } };
  const made = (await sdk(emulator).interactions.create(request as CreateRequest)) as Interaction;
  assert.equal(made.status, "completed", JSON.stringify(made.errors));
  return made.environment_id!;
}

before(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "fault-abandoned-"));
  const repo = path.join(work, "mirrors", "data-repo");
  fs.mkdirSync(repo, { recursive: true });
  fs.writeFileSync(path.join(repo, "data.txt"), "repository\n");
  const git = (...args: string[]) =>
    execFileSync("git", args, {
      cwd: repo,
      stdio: "ignore",
      env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" },
    });
  git("init", "-q");
  git("add", ".");
  git("commit", "-q", "-m", "data");
});

after(async () => {
  for (const emulator of emulators) await emulator.destroy().catch(() => undefined);
  fs.rmSync(work, { recursive: true, force: true });
});

describe("sandboxes of an emulator that is gone for good", () => {
  it("are removed within a lease and a sweep, and nothing of any other emulator is", { timeout: 120_000 }, async () => {
    const running = await start();
    const runningEnvironment = await environmentWithFile(running, "running\n");

    const killedKept = await start();
    const killedKeptEnvironment = await environmentWithFile(killedKept, "killed, folder kept\n");
    await killedKept.crash();

    const folderDeleted = await start();
    const folderDeletedEnvironment = await environmentWithFile(folderDeleted, "folder deleted under it\n");
    fs.rmSync(folderDeleted.dataDir, { recursive: true, force: true });

    // The one that goes: a repository source (a read-only volume) and a fork of it (a fork image and a
    // copied volume).
    const goner = await start({ EMULATOR_REPO_MAP: `https://github.com/acme/=${path.join(work, "mirrors")}/` });
    const gonerEnvironment = await environmentWithFile(goner, "lost\n", [
      { type: "repository", source: "https://github.com/acme/data-repo", target: "workspace/repo" },
    ]);
    const fork = await fetch(`${goner.url}/v1beta/environments`, {
      method: "POST",
      headers: { "x-goog-api-key": KEY, "content-type": "application/json" },
      body: JSON.stringify({ from_environment: `environments/${gonerEnvironment}` }),
    });
    assert.equal(fork.status, 200, await fork.clone().text());
    // Besides its warm pool's sandbox (pool: false leaves it out, as it comes and goes), which goes too.
    assert.deepEqual(await objectsOfInstance(goner.instance, { pool: false }), { containers: 2, volumes: 3, images: 1 });

    await goner.crash();
    fs.rmSync(goner.dataDir, { recursive: true, force: true });
    const crashed = Date.now();
    await waitFor(
      "the gone emulator's containers, volumes and images to be removed",
      async () => {
        const left = await objectsOfInstance(goner.instance);
        return left.containers + left.volumes + left.images === 0 ? true : undefined;
      },
      60_000,
    );
    const elapsed = Date.now() - crashed;
    console.log(`# leftovers of a killed emulator with a ${LEASE_SECONDS} s lease removed ${elapsed} ms after it died`);
    // Its last renewal was at most a third of a lease before it died; the lease then ran out, and the
    // next sweep (every third of a lease) removed everything. A few seconds more for a loaded machine.
    assert.ok(elapsed <= LEASE_SECONDS * 1000 + (LEASE_SECONDS * 1000) / 3 + 5000, `took ${elapsed} ms`);

    // Nothing of the others: the killed one's lease has long run out, but its data folder is there.
    // Its volumes are its lease only: one, or two when it died between a renewal's new lease volume and
    // the removal of the one before (both expired; what matters is that its sandbox and data are kept).
    const kept = await objectsOfInstance(killedKept.instance, { pool: false, leases: false });
    assert.deepEqual(kept, { containers: 1, volumes: 0, images: 0 });
    assert.equal((await objectsOfInstance(folderDeleted.instance, { pool: false })).containers, 1);
    for (const [emulator, environment, content] of [
      [running, runningEnvironment, "running\n"],
      [folderDeleted, folderDeletedEnvironment, "folder deleted under it\n"],
    ] as const) {
      const check = await runIn(sdk(emulator), environment, "cat /workspace/keep.txt");
      assert.deepEqual(resultsOf(check), [content]);
    }
    const back = await start({}, killedKept);
    const check = await runIn(sdk(back), killedKeptEnvironment, "cat /workspace/keep.txt");
    assert.deepEqual(resultsOf(check), ["killed, folder kept\n"]);
  });
});
