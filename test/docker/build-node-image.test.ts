// server/bootstrap/build-node-image.sh, the set-up step that gives docker-compose.yml a Node.js image
// without a registry: this machine's node, npm and headers on the sandbox's base. It builds once and
// then finds the image present; the image runs its Node.js and npm, with node-gyp pointed at the
// headers; and a node that cannot run on the base (here: one whose interpreter exists only on this
// machine) is refused before anything is built, saying what to use instead, with nothing left behind.

import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import Docker from "dockerode";
import { projectRoot } from "../../server/common/paths.js";

const SCRIPT = path.join(projectRoot, "server", "bootstrap", "build-node-image.sh");
const docker = new Docker();
const tags: string[] = [];
const folders: string[] = [];

function testTag(): string {
  const tag = `iemu-test-node-image:${randomBytes(4).toString("hex")}`;
  tags.push(tag);
  return tag;
}

function build(tag: string, env: Record<string, string> = {}) {
  return spawnSync("bash", [SCRIPT, tag], { encoding: "utf8", env: { ...process.env, NODE_BINARY: process.execPath, ...env } });
}

after(async () => {
  for (const tag of tags)
    await docker
      .getImage(tag)
      .remove()
      .catch(() => undefined);
  for (const folder of folders) fs.rmSync(folder, { recursive: true, force: true });
});

describe("build-node-image.sh", () => {
  it("puts this Node.js and its npm into an image once, then finds it present", () => {
    const tag = testTag();
    const first = build(tag);
    assert.equal(first.status, 0, first.stderr + first.stdout);
    assert.match(first.stdout, new RegExp(`node ${process.version}, npm [\\d.]+ run in the image`));
    const second = build(tag);
    assert.equal(second.status, 0, second.stderr);
    assert.match(second.stdout, /already present/);
    const inImage = execFileSync(
      "docker",
      [
        "run",
        "--rm",
        "--network",
        "none",
        tag,
        "sh",
        "-c",
        "node -p process.version && npm config get nodedir && ls /usr/local/include/node/node_version.h",
      ],
      { encoding: "utf8" },
    );
    assert.deepEqual(inImage.trim().split("\n"), [process.version, "/usr/local", "/usr/local/include/node/node_version.h"]);
  });

  it("refuses a node that does not run in the image, saying what to use instead, and leaves nothing behind", async () => {
    // A Node.js distribution's layout whose `node` runs here only: its interpreter is a file of this machine.
    const prefix = fs.mkdtempSync(path.join(os.tmpdir(), "fake-node-"));
    folders.push(prefix);
    const interpreter = path.join(prefix, "host-only-bash");
    fs.symlinkSync("/bin/bash", interpreter);
    fs.mkdirSync(path.join(prefix, "bin"));
    fs.mkdirSync(path.join(prefix, "include", "node"), { recursive: true });
    fs.mkdirSync(path.join(prefix, "lib", "node_modules"), { recursive: true });
    fs.writeFileSync(path.join(prefix, "include", "node", "node_version.h"), "");
    fs.symlinkSync(
      path.join(path.dirname(path.dirname(process.execPath)), "lib", "node_modules", "npm"),
      path.join(prefix, "lib", "node_modules", "npm"),
    );
    const fakeNode = path.join(prefix, "bin", "node");
    // Answers as this machine's node does, except that it is its own execPath.
    fs.writeFileSync(
      fakeNode,
      `#!${interpreter}\nif [ "$1" = -p ] && [ "$2" = process.execPath ]; then echo "$0"; exit 0; fi\nexec ${JSON.stringify(process.execPath)} "$@"\n`,
      { mode: 0o755 },
    );
    const tag = testTag();
    const refused = build(tag, { NODE_BINARY: fakeNode });
    assert.equal(refused.status, 1, refused.stdout);
    assert.match(refused.stderr, new RegExp(`error: this Node.js \\(${fakeNode}\\) does not run on \\S+: .*no such file`));
    assert.match(refused.stderr, /NODE_IMAGE=node:20-bookworm-slim docker compose up --build/);
    await assert.rejects(docker.getImage(tag).inspect(), "no image was tagged");
    const checks = (await docker.listContainers({ all: true })).filter((container) => container.Command.includes("emulator-node-check"));
    assert.deepEqual(checks, [], "the container that tried the node was removed");
  });
});
