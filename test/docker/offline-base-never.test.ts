// EMULATOR_OFFLINE_BASE=never, as the emulator in docker-compose.yml runs (it has no debootstrap and no
// root on the host): it never builds the offline base, but uses one the host's set-up built when the
// configured base is neither present nor pullable, as on a machine without a registry; without one
// either, it refuses saying what to run. The configured base here is on a registry at a closed port of
// the engine's loopback, so the pull fails at once and nothing leaves the machine.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import Docker from "dockerode";
import { ensureSandboxImage, OFFLINE_BASE_TAG } from "../../server/sandbox/docker/image.js";

const docker = new Docker();
const offlineBasePresent = await docker
  .getImage(OFFLINE_BASE_TAG)
  .inspect()
  .then(
    () => true,
    () => false,
  );

/** A base image name no engine has or can pull, new each run (so the sandbox image's tag is too). */
function unpullableBase(): string {
  return `127.0.0.1:9/iemu-missing-base:${process.pid}-${Date.now()}`;
}

describe("EMULATOR_OFFLINE_BASE=never", () => {
  it("builds the sandbox image on the offline base already present when the configured base cannot be had", {
    skip: !offlineBasePresent && `no ${OFFLINE_BASE_TAG} on this engine (a machine with a registry)`,
  }, async () => {
    const lines: string[] = [];
    const tag = await ensureSandboxImage(docker, { baseImage: unpullableBase(), offlineBase: "never" }, (line) => lines.push(line));
    try {
      assert.ok(
        lines.some((line) => line.includes(`FROM ${OFFLINE_BASE_TAG}`)),
        lines.join("\n"),
      );
      assert.ok(!lines.some((line) => /building base image/.test(line)), "nothing was built from Debian's packages");
      const [image, base] = await Promise.all([docker.getImage(tag).inspect(), docker.getImage(OFFLINE_BASE_TAG).inspect()]);
      assert.deepEqual(
        image.RootFS.Layers?.slice(0, base.RootFS.Layers?.length),
        base.RootFS.Layers,
        "the image is built on the offline base",
      );
    } finally {
      await docker.getImage(tag).remove();
    }
  });

  it("refuses, saying what to run on the host, when no offline base is present either", async () => {
    // The engine as the emulator sees it on a machine where the set-up never ran: no image at all.
    const bare = {
      // As dockerode rejects an inspect of a missing image: with the engine's 404.
      getImage: () => ({ inspect: () => Promise.reject(Object.assign(new Error("no such image"), { statusCode: 404 })) }),
      pull: () => Promise.reject(new Error("no registry")),
    } as unknown as Docker;
    await assert.rejects(
      ensureSandboxImage(bare, { baseImage: unpullableBase(), offlineBase: "never" }, () => undefined),
      (error: Error) => {
        assert.match(error.message, /neither present nor pullable/);
        assert.match(error.message, new RegExp(`no offline base ${OFFLINE_BASE_TAG}`));
        assert.match(error.message, /npm run image/);
        return true;
      },
    );
  });
});
