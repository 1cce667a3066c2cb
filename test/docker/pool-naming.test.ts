// A warm pool container taken by an environment (docker-runtime.ts claimPooled): the take does not wait
// for the engine to rename it; the name follows, counted by claimsUnderway() meanwhile, and the engine's
// listing marks it pooled until then. Removing it, or shutting down, waits for the rename.

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import Docker from "dockerode";
import { newEnvironmentId } from "../../server/common/ids.js";
import type { DockerRuntime } from "../../server/sandbox/docker/docker-runtime.js";
import { removeAllSandboxes, testDockerRuntime } from "../support/docker-fixture.js";

const INSTANCE = `itest-naming-${randomBytes(4).toString("hex")}`;

const docker = new Docker();
let runtime: DockerRuntime;

before(async () => {
  runtime = await testDockerRuntime({ EMULATOR_INSTANCE: INSTANCE });
});

after(async () => {
  await runtime.backgroundSettled();
  await removeAllSandboxes(runtime);
});

async function namesOf(sandboxId: string): Promise<string[]> {
  return [(await docker.getContainer(sandboxId).inspect()).Name];
}

describe("a pooled container taken by an environment", () => {
  it("is answered before the engine renames it; the listing marks it pooled until the name follows", { timeout: 60_000 }, async () => {
    const environmentId = newEnvironmentId();
    const pooled = await runtime.createPooled(environmentId);
    assert.deepEqual(await namesOf(pooled.sandboxId), [`/iemu-${INSTANCE}-pool-${environmentId}`]);
    assert.equal((await runtime.list()).find((handle) => handle.sandboxId === pooled.sandboxId)?.pooled, true);

    const taken = await runtime.claimPooled(pooled, { environmentId, owner: "k1", files: [] });
    assert.deepEqual(taken, { sandboxId: pooled.sandboxId, environmentId });
    assert.equal(runtime.claimsUnderway(), 1, "the rename is under way, not waited for");

    await runtime.backgroundSettled();
    assert.equal(runtime.claimsUnderway(), 0);
    assert.deepEqual(await namesOf(pooled.sandboxId), [`/iemu-${INSTANCE}-${environmentId}`]);
    const listed = (await runtime.list()).find((handle) => handle.sandboxId === pooled.sandboxId);
    assert.deepEqual(listed, { sandboxId: pooled.sandboxId, environmentId });
  });

  it("writes the sources before answering; removing it right after the take waits for the rename", { timeout: 60_000 }, async () => {
    const environmentId = newEnvironmentId();
    const pooled = await runtime.createPooled(environmentId);
    const files = [{ path: "/workspace/source.txt", content: Buffer.from("from the take\n"), mode: 0o644 }];
    const taken = await runtime.claimPooled(pooled, { environmentId, owner: "k1", files });
    const channel = await runtime.connect(taken);
    try {
      assert.equal((await channel.readFile("/workspace/source.txt", 4096)).content.toString(), "from the take\n");
    } finally {
      channel.close();
    }

    const next = newEnvironmentId();
    const second = await runtime.claimPooled(await runtime.createPooled(next), { environmentId: next, owner: "k1", files: [] });
    assert.equal(runtime.claimsUnderway(), 1);
    await runtime.remove(second);
    assert.equal(runtime.claimsUnderway(), 0, "the removal came after the rename");
    await assert.rejects(docker.getContainer(second.sandboxId).inspect(), (error: { statusCode?: number }) => error.statusCode === 404);
  });
});
