// How the executor's disk guard measures (sandbox-image/executor/disk-measure.ts), on real files in a
// temporary folder. What the guard then does in a sandbox is shown in test/e2e/limits.test.ts.

import assert from "node:assert/strict";
import { linkSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { chargedBytes, MIN_ENTRY_BYTES, measureTrees, writableBy } from "../../sandbox-image/executor/disk-measure.js";
import type { Identity } from "../../sandbox-image/executor/identities.js";

const folder = mkdtempSync(path.join(tmpdir(), "disk-measure-"));
after(() => rmSync(folder, { recursive: true, force: true }));

const sandbox: Identity = { name: "sandbox", uid: 1000, gid: 1000, home: "/home/sandbox" };
const hooks: Identity = { name: "hooks", uid: 1001, gid: 1001, home: "/home/hooks" };

describe("the disk guard's measurement", () => {
  it("charges every entry its allocated blocks, and never less than one 4 KiB block", () => {
    assert.equal(chargedBytes({ blocks: 0 }), MIN_ENTRY_BYTES);
    assert.equal(chargedBytes({ blocks: 8 }), 4096);
    assert.equal(chargedBytes({ blocks: 2048 }), 1 << 20);
  });

  it("counts a tree's entries, a hard-linked file once, and a sparse file by what it holds", async () => {
    const tree = path.join(folder, "tree");
    mkdirSync(path.join(tree, "sub"), { recursive: true });
    writeFileSync(path.join(tree, "sub", "data"), Buffer.alloc(1 << 20, 1));
    linkSync(path.join(tree, "sub", "data"), path.join(tree, "again"));
    symlinkSync("sub/data", path.join(tree, "link"));
    writeFileSync(path.join(tree, "empty"), "");
    const usage = await measureTrees([tree]);
    // tree, sub, data (once), link, empty.
    assert.equal(usage.entries, 5);
    const data = statSync(path.join(tree, "sub", "data"));
    assert.ok(usage.bytes >= chargedBytes(data) + 4 * MIN_ENTRY_BYTES, `${usage.bytes} holds the data once and four small entries`);
    assert.ok(usage.bytes < 2 * chargedBytes(data), `${usage.bytes}: the hard link was not counted twice`);
    assert.equal(usage.unreadable, 0);
  });

  it("many empty files cost what their inodes and blocks cost, not nothing", async () => {
    const many = path.join(folder, "many");
    mkdirSync(many);
    for (let index = 0; index < 3000; index++) writeFileSync(path.join(many, `f${index}`), "");
    const usage = await measureTrees([many]);
    assert.ok(usage.bytes >= 3000 * MIN_ENTRY_BYTES);
  });

  it("knows which folders the sandbox's users may write in", () => {
    const dir = (uid: number, gid: number, mode: number) => ({ uid, gid, mode: 0o040000 | mode });
    assert.equal(writableBy(dir(0, 0, 0o1777), [sandbox, hooks]), true, "/tmp: everyone's");
    assert.equal(writableBy(dir(0, 1000, 0o775), [sandbox, hooks]), true, "/workspace: root's, the sandbox group's to write");
    assert.equal(writableBy(dir(1001, 1001, 0o700), [sandbox, hooks]), true, "/home/hooks");
    assert.equal(
      writableBy(dir(1000, 1000, 0o555), [sandbox]),
      true,
      "the sandbox user's own, read-only for now: a chmod makes it writable",
    );
    assert.equal(writableBy(dir(0, 0, 0o755), [sandbox, hooks]), false, "/usr");
    assert.equal(writableBy(dir(0, 1001, 0o775), [sandbox]), false, "another group's");
  });
});
