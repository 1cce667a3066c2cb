// Root's side of a sandbox's files (exportTree, extractTree; sandbox-image/executor-go/tree_archive.go),
// on the executor as a local process: a tar of named folders with modes, symlinks and hard links, put
// back as it was; refused past maxBytes; and neither side goes through a symlink, whoever made it.
// Owners are the swarm runtime's test's (test/docker/swarm-files.test.ts): here everything is this user's.

import assert from "node:assert/strict";
import fs from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { extract } from "tar-stream";
import { TOO_LARGE_CODE } from "../../sandbox-image/executor/protocol.js";
import { tarBuffer } from "../../server/common/tar.js";
import { executorBinaryPath } from "../../server/common/paths.js";
import { spawnLocalExecutor, type LocalExecutor } from "../support/local-executor.js";
import { SandboxFileError } from "../../server/sandbox/runtime.js";

interface Entry {
  name: string;
  type: string;
  mode: number;
  uid: number;
  linkname: string | null;
  content: string;
}

async function entriesOf(tar: Buffer): Promise<Entry[]> {
  const entries: Entry[] = [];
  const reader = extract();
  await new Promise<void>((resolve, reject) => {
    reader.on("entry", (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: unknown) => chunks.push(chunk as Buffer));
      stream.on("end", () => {
        entries.push({
          name: header.name,
          type: header.type ?? "file",
          mode: (header.mode ?? 0) & 0o7777,
          uid: header.uid ?? -1,
          linkname: header.linkname ?? null,
          content: Buffer.concat(chunks).toString(),
        });
        next();
      });
    });
    reader.on("finish", resolve);
    reader.on("error", reject);
    reader.end(tar);
  });
  return entries;
}

const code = (expected: string) => (error: unknown) => {
  assert.ok(error instanceof SandboxFileError, String(error));
  assert.equal(error.code, expected, error.message);
  return true;
};

describe("exportTree and extractTree on a local executor", () => {
  let folder: string;
  let executor: LocalExecutor;

  before(async () => {
    folder = await mkdtemp(path.join(tmpdir(), "executor-trees-"));
    executor = spawnLocalExecutor(executorBinaryPath, { cwd: folder });
  });
  after(async () => {
    await executor.stop();
    await rm(folder, { recursive: true, force: true });
  });

  function makeTree(root: string): void {
    fs.mkdirSync(path.join(root, "sub"), { recursive: true });
    fs.writeFileSync(path.join(root, "a.txt"), "alpha\n", { mode: 0o640 });
    fs.chmodSync(path.join(root, "a.txt"), 0o640);
    fs.writeFileSync(path.join(root, "sub", "run.sh"), "#!/bin/sh\necho hi\n");
    fs.chmodSync(path.join(root, "sub", "run.sh"), 0o751);
    fs.chmodSync(path.join(root, "sub"), 0o710);
    fs.symlinkSync("a.txt", path.join(root, "link"));
    fs.linkSync(path.join(root, "a.txt"), path.join(root, "sub", "hard"));
  }

  it("exports folders with modes, owners, symlinks and hard links, names from /, missing ones skipped", async () => {
    const root = path.join(folder, "export");
    makeTree(root);
    const tar = await executor.channel.exportTree([root, path.join(folder, "absent")], 1024 * 1024);
    const entries = await entriesOf(tar);
    const name = (relative: string) => path.join(root, relative).slice(1);
    const byName = new Map(entries.map((entry) => [entry.name.replace(/\/$/, ""), entry]));
    assert.deepEqual(
      [...byName.keys()].sort(),
      [name(""), name("a.txt"), name("link"), name("sub"), name("sub/hard"), name("sub/run.sh")]
        .map((each) => each.replace(/\/$/, ""))
        .sort(),
    );
    assert.equal(byName.get(name("a.txt"))!.mode, 0o640);
    assert.equal(byName.get(name("a.txt"))!.content, "alpha\n");
    assert.equal(byName.get(name("a.txt"))!.uid, process.getuid!());
    assert.equal(byName.get(name("sub"))!.mode, 0o710);
    assert.equal(byName.get(name("sub/run.sh"))!.mode, 0o751);
    assert.deepEqual([byName.get(name("link"))!.type, byName.get(name("link"))!.linkname], ["symlink", "a.txt"]);
    assert.deepEqual([byName.get(name("sub/hard"))!.type, byName.get(name("sub/hard"))!.linkname], ["link", name("a.txt")]);
  });

  it("puts an exported tree back as it was", async () => {
    const root = path.join(folder, "round");
    makeTree(root);
    const tar = await executor.channel.exportTree([root], 1024 * 1024);
    fs.rmSync(root, { recursive: true, force: true });
    assert.equal(await executor.channel.extractTree(tar), 6);
    assert.equal(fs.readFileSync(path.join(root, "a.txt"), "utf8"), "alpha\n");
    assert.equal(fs.statSync(path.join(root, "a.txt")).mode & 0o7777, 0o640);
    assert.equal(fs.statSync(path.join(root, "sub")).mode & 0o7777, 0o710);
    assert.equal(fs.statSync(path.join(root, "sub", "run.sh")).mode & 0o7777, 0o751);
    assert.equal(fs.readlinkSync(path.join(root, "link")), "a.txt");
    assert.equal(fs.statSync(path.join(root, "sub", "hard")).ino, fs.statSync(path.join(root, "a.txt")).ino);
  });

  it("refuses a tar past maxBytes with TOO_LARGE_CODE", async () => {
    const root = path.join(folder, "large");
    fs.mkdirSync(root);
    fs.writeFileSync(path.join(root, "big"), Buffer.alloc(64 * 1024, 1));
    await assert.rejects(executor.channel.exportTree([root], 32 * 1024), code(TOO_LARGE_CODE));
    assert.ok((await executor.channel.exportTree([root], 128 * 1024)).length > 64 * 1024);
  });

  it("never goes through a symlink: neither exporting below one nor extracting through one", async () => {
    const outside = path.join(folder, "outside");
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, "secret"), "root's\n");
    const root = path.join(folder, "links");
    fs.mkdirSync(root);
    fs.symlinkSync(outside, path.join(root, "door"));
    // A folder named through a symlink is refused, not followed.
    await assert.rejects(executor.channel.exportTree([path.join(root, "door", "secret")], 1024 * 1024), code("ELOOP"));
    // The symlink itself is exported as one, and its target is not.
    const entries = await entriesOf(await executor.channel.exportTree([root], 1024 * 1024));
    assert.ok(!entries.some((entry) => entry.content.includes("root's")));
    // A tar entry whose parent is a symlink (already there, or placed by the tar itself) is refused.
    const through = await tarBuffer([
      { header: { name: `${path.join(root, "door", "planted").slice(1)}`, mode: 0o644 }, content: Buffer.from("x") },
    ]);
    await assert.rejects(executor.channel.extractTree(through), code("ELOOP"));
    const own = await tarBuffer([
      { header: { name: `${path.join(root, "own").slice(1)}`, type: "symlink", linkname: outside } },
      { header: { name: `${path.join(root, "own", "planted").slice(1)}`, mode: 0o644 }, content: Buffer.from("x") },
    ]);
    await assert.rejects(executor.channel.extractTree(own), code("ELOOP"));
    assert.deepEqual(fs.readdirSync(outside), ["secret"]);
  });

  it("refuses entries that leave / and hard links to files the tar did not place", async () => {
    const up = await tarBuffer([{ header: { name: "../escape", mode: 0o644 }, content: Buffer.from("x") }]);
    await assert.rejects(executor.channel.extractTree(up), code("EINVAL"));
    const target = path.join(folder, "target");
    fs.writeFileSync(target, "image's\n");
    const link = await tarBuffer([
      { header: { name: path.join(folder, "second-name").slice(1), type: "link", linkname: target.slice(1) } },
    ]);
    await assert.rejects(executor.channel.extractTree(link), code("EINVAL"));
    assert.equal(fs.existsSync(path.join(folder, "second-name")), false);
  });
});
