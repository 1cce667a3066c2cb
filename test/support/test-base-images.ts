// Base images without Node.js, built offline, for the tests that prove any Linux image with a shell can
// be a sandbox (EMULATOR_BASE_IMAGE): Debian without its nodejs package, and a root filesystem of
// nothing but Debian's busybox-static (/bin/busybox and its applet links). Both carry TEST_BASE_LABEL,
// so that a test removes them, and the sandbox images built FROM them, when it ends.

import fs from "node:fs";
import { execFileSync } from "node:child_process";
import { Readable } from "node:stream";
import type Docker from "dockerode";
import { tarBuffer, type TarEntry } from "../../server/common/tar.js";
import { imageExists, OFFLINE_BASE_TAG, sandboxImageTag } from "../../server/sandbox/docker/image.js";

export const TEST_BASE_LABEL = "dev.interactions-emulator.test-base";
const REPOSITORY = "iemu-test-base";
/** Debian's busybox-static: one static binary that is every applet named by its links. */
const HOST_BUSYBOX = "/bin/busybox";
const DEBIAN_SLIM = "debian:bookworm-slim";

/** Waits for an engine build or import stream to end, failing with the engine's own error. */
function followToEnd(docker: Docker, stream: NodeJS.ReadableStream, doing: string): Promise<void> {
  return new Promise((resolve, reject) =>
    docker.modem.followProgress(stream, (error: Error | null, events: Array<{ error?: string }>) => {
      const failed = error?.message ?? events.find((event) => event.error)?.error;
      if (failed) reject(new Error(`${doing} failed: ${failed}`));
      else resolve();
    }),
  );
}

/** Builds `lines` on top of `from` as the test base `name`. */
async function derivedBase(docker: Docker, from: string, name: string, lines: string[]): Promise<string> {
  const tag = `${REPOSITORY}:${name}`;
  const dockerfile = [`FROM ${from}`, ...lines, ""].join("\n");
  const context = await tarBuffer([{ header: { name: "Dockerfile", mode: 0o644 }, content: Buffer.from(dockerfile) }]);
  const stream = await docker.buildImage(Readable.from([context]), {
    t: tag,
    labels: { [TEST_BASE_LABEL]: "true" },
    rm: true,
    forcerm: true,
  });
  await followToEnd(docker, stream, `building ${tag}`);
  return tag;
}

/**
 * Debian bookworm without Node.js: the offline base (build-base.sh) with nodejs purged, or
 * debian:bookworm-slim where only that is present (it has none). Offline: dpkg removes, nothing is fetched.
 */
export async function debianWithoutNode(docker: Docker): Promise<string> {
  const from = (await imageExists(docker, OFFLINE_BASE_TAG)) ? OFFLINE_BASE_TAG : DEBIAN_SLIM;
  return derivedBase(docker, from, "debian-without-node", [
    "RUN set -eu; if dpkg -s nodejs >/dev/null 2>&1; then DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq --auto-remove nodejs libnode108; fi; ! command -v node",
  ]);
}

/** `from` with a user of its own at uid and gid 1000, as ubuntu:24.04 (`ubuntu`) and node:* (`node`) have. */
export function withUserAt1000(docker: Docker, from: string): Promise<string> {
  return derivedBase(docker, from, "user-at-1000", ["RUN groupadd --gid 1000 someone && useradd --uid 1000 --gid 1000 someone"]);
}

/** `from` as application images often leave it: another user, an entrypoint that would wrap any command, a health check. */
export function withEntrypointUserAndHealthCheck(docker: Docker, from: string): Promise<string> {
  return derivedBase(docker, from, "entrypoint", ["USER 65534:65534", 'ENTRYPOINT ["/bin/false"]', "HEALTHCHECK CMD true"]);
}

/** A root filesystem of BusyBox alone: no package manager, no bash, no python3, no useradd, no CA bundle. */
export async function busyboxRootfs(docker: Docker): Promise<string> {
  const tag = `${REPOSITORY}:busybox`;
  if (!fs.existsSync(HOST_BUSYBOX))
    throw new Error(
      `${HOST_BUSYBOX} is missing: this base is built from Debian's busybox-static (apt-get install busybox-static; npm test installs it when run as root, server/bootstrap/ensure-busybox.sh)`,
    );
  const applets = execFileSync(HOST_BUSYBOX, ["--list"], { encoding: "utf8" })
    .split("\n")
    .filter((name) => name && name !== "busybox");
  const folder = (name: string, mode = 0o755): TarEntry => ({ header: { name, type: "directory", mode, uid: 0, gid: 0 } });
  const file = (name: string, content: string | Buffer, mode = 0o644): TarEntry => ({
    header: { name, mode, uid: 0, gid: 0 },
    content: Buffer.from(content),
  });
  const link = (name: string, target: string): TarEntry => ({ header: { name, type: "symlink", linkname: target, mode: 0o777 } });
  const rootfs = await tarBuffer([
    ...["bin", "etc", "home", "proc", "sys", "dev", "usr", "usr/bin", "var"].map((name) => folder(name)),
    folder("root", 0o700),
    folder("tmp", 0o1777),
    file("bin/busybox", fs.readFileSync(HOST_BUSYBOX), 0o755),
    ...applets.map((applet) => link(`bin/${applet}`, "busybox")),
    // For `#!/usr/bin/env sh` scripts.
    link("usr/bin/env", "/bin/busybox"),
    file("etc/passwd", "root:x:0:0:root:/root:/bin/sh\n"),
    file("etc/group", "root:x:0:\n"),
  ]);
  const stream = await docker.importImage(Readable.from([rootfs]), {
    repo: REPOSITORY,
    tag: "busybox",
    changes: ["ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", `LABEL ${TEST_BASE_LABEL}=true`, 'CMD ["sh"]'],
  });
  await followToEnd(docker, stream, `importing ${tag}`);
  return tag;
}

/** Removes the sandbox image built FROM each base, then every test base (a base in use by another image is kept). */
export async function removeTestBases(docker: Docker, bases: string[]): Promise<void> {
  for (const base of bases) {
    await docker
      .getImage(sandboxImageTag(base))
      .remove({ force: true })
      .catch(() => undefined);
  }
  for (const image of await docker.listImages({ filters: { label: [`${TEST_BASE_LABEL}=true`] } })) {
    await docker
      .getImage(image.Id)
      .remove({ force: true })
      .catch(() => undefined);
  }
}
