// A sandbox made by an older emulator carries that version's executor, baked into its image. After an
// upgrade the emulator must not lose such an environment: it puts its own executor in place and goes on,
// the sandbox's files untouched. Three older executors are played here, as root in the container: one
// that answers with an older protocol version, one that refuses this version's command line, and none
// at all at the executor's path (a sandbox of the Node.js executor's days, in /opt/emulator/executor/).

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fs from "node:fs";
import Docker from "dockerode";
import { PROTOCOL_VERSION } from "../../sandbox-image/executor/protocol.js";
import { executorBinaryPath } from "../../server/common/paths.js";
import type { DockerRuntime } from "../../server/sandbox/docker/docker-runtime.js";
import { EXECUTOR_PATH } from "../../server/sandbox/docker/image.js";
import type { SandboxChannel, SandboxHandle } from "../../server/sandbox/runtime.js";
import { execAsRoot, removeAllSandboxes, testDockerRuntime } from "../support/docker-fixture.js";
import { installOlderExecutor } from "../support/older-executors.js";

let runtime: DockerRuntime;
let handle: SandboxHandle;
let container: Docker.Container;

before(async () => {
  runtime = await testDockerRuntime();
  handle = await runtime.create({ environmentId: "env_itestupgrade", owner: "owner", files: [] });
  container = new Docker().getContainer(handle.sandboxId);
  const channel = await runtime.connect(handle);
  await channel.writeFile("/workspace/kept.txt", Buffer.from("made before the upgrade"));
  channel.close();
});

after(async () => {
  await removeAllSandboxes(runtime);
});

async function run(channel: SandboxChannel, script: string): Promise<string> {
  const result = await channel.run({ argv: ["bash", "-c", script], timeoutMs: 10_000, maxOutputBytes: 1 << 16 });
  assert.equal(result.exitCode, 0, result.stderr.toString());
  return result.stdout.toString();
}

async function asRoot(script: string): Promise<void> {
  const { exitCode, output } = await execAsRoot(container, ["sh", "-c", script]);
  assert.equal(exitCode, 0, output);
}

/** This version's executor, root's and 0755 as the image has it: its owner, mode and size. */
const THIS_VERSIONS_EXECUTOR = `root 755 ${fs.statSync(executorBinaryPath).size}\n`;

describe("a sandbox whose executor is another version's", () => {
  it("gets this version's executor when its own answers with an older protocol version", async () => {
    await installOlderExecutor(container, { answersWithVersion: PROTOCOL_VERSION - 1 });
    await asRoot(`grep -q 'version": ${PROTOCOL_VERSION - 1}' ${EXECUTOR_PATH}`);
    const channel = await runtime.connect(handle);
    try {
      assert.equal((await channel.ping()).version, PROTOCOL_VERSION);
      assert.equal(await run(channel, "cat /workspace/kept.txt"), "made before the upgrade");
      assert.equal(await run(channel, `stat -c '%U %a %s' ${EXECUTOR_PATH}`), THIS_VERSIONS_EXECUTOR, "root's, as the image has it");
    } finally {
      channel.close();
    }
  });

  it("gets this version's executor when its own refuses the command line and exits", async () => {
    await installOlderExecutor(container, "refuses the command line");
    const channel = await runtime.connect(handle);
    try {
      assert.equal(await run(channel, "cat /workspace/kept.txt"), "made before the upgrade");
    } finally {
      channel.close();
    }
  });

  it("gets this version's executor when there is none at its path (the Node.js executor's sandboxes)", async () => {
    await asRoot(`rm ${EXECUTOR_PATH} && mkdir -p /opt/emulator/executor && echo 'process.exit(78);' > /opt/emulator/executor/main.js`);
    const channel = await runtime.connect(handle);
    try {
      assert.equal(await run(channel, "cat /workspace/kept.txt"), "made before the upgrade");
      assert.equal(await run(channel, `stat -c '%U %a %s' ${EXECUTOR_PATH}`), THIS_VERSIONS_EXECUTOR);
    } finally {
      channel.close();
    }
  });
});
