// A sandbox made by an older emulator carries that version's executor, baked into its image. After an
// upgrade the emulator must not lose such an environment: it puts its own executor in place and goes on,
// the sandbox's files untouched. Two older executors are played here, as root in the container: one
// that answers with an older protocol version, and one that refuses this version's command line.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import Docker from "dockerode";
import { PROTOCOL_VERSION } from "../../sandbox-image/executor/protocol.js";
import type { DockerRuntime } from "../../server/sandbox/docker/docker-runtime.js";
import type { SandboxChannel, SandboxHandle } from "../../server/sandbox/runtime.js";
import { execAsRoot, removeAllSandboxes, testDockerRuntime } from "../support/docker-fixture.js";

const EXECUTOR = "/opt/emulator/executor";

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

describe("a sandbox whose executor is another version's", () => {
  it("gets this version's executor when its own answers with an older protocol version", async () => {
    await asRoot(
      `sed -i 's/PROTOCOL_VERSION = ${PROTOCOL_VERSION}/PROTOCOL_VERSION = ${PROTOCOL_VERSION - 1}/' ${EXECUTOR}/protocol-constants.js`,
    );
    await asRoot(`grep -q 'PROTOCOL_VERSION = ${PROTOCOL_VERSION - 1}' ${EXECUTOR}/protocol-constants.js`);
    const channel = await runtime.connect(handle);
    try {
      assert.equal(
        await run(channel, `grep -o 'PROTOCOL_VERSION = [0-9]*' ${EXECUTOR}/protocol-constants.js`),
        `PROTOCOL_VERSION = ${PROTOCOL_VERSION}\n`,
      );
      assert.equal(await run(channel, "cat /workspace/kept.txt"), "made before the upgrade");
      assert.equal(await run(channel, `stat -c '%U %a' ${EXECUTOR}/main.js`), "root 644\n", "root's, as the image has it");
    } finally {
      channel.close();
    }
  });

  it("gets this version's executor when its own refuses the command line and exits", async () => {
    await asRoot(`printf 'process.stderr.write("unknown argument\\\\n"); process.exit(78);\\n' > ${EXECUTOR}/main.js`);
    const channel = await runtime.connect(handle);
    try {
      assert.equal(await run(channel, "cat /workspace/kept.txt"), "made before the upgrade");
    } finally {
      channel.close();
    }
  });
});
