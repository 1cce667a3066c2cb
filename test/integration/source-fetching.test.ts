// Repository and GCS sources fetched for real: a git repository on disk (cloned shallow, through
// EMULATOR_REPO_MAP too), a plain folder, a fake GCS emulator over HTTP on loopback, and a GCS folder.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { extract } from "tar-stream";
import { Readable } from "node:stream";
import { fetchGcsObjects, GcsSourceError, parseGcsUri } from "../../server/sources/gcs-source.js";
import { packRepository, parseRepoMap, RepositorySourceError, resolveRepositoryLocation } from "../../server/sources/repository-source.js";
import { startFakeGcs, type FakeGcs } from "../support/fake-gcs-server.js";

let work: string;
let gcs: FakeGcs;

function git(cwd: string, ...args: string[]): void {
  execFileSync("git", args, {
    cwd,
    stdio: "ignore",
    env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" },
  });
}

async function entriesOf(tar: Buffer): Promise<Map<string, { mode: number; uid: number; content: string }>> {
  const out = new Map<string, { mode: number; uid: number; content: string }>();
  await new Promise<void>((resolve, reject) => {
    const reader = extract();
    reader.on("entry", (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: unknown) => chunks.push(chunk as Buffer));
      stream.on("end", () => {
        out.set(header.name, { mode: header.mode ?? 0, uid: header.uid ?? -1, content: Buffer.concat(chunks).toString("utf8") });
        next();
      });
    });
    reader.on("finish", resolve);
    reader.on("error", reject);
    Readable.from([tar]).pipe(reader);
  });
  return out;
}

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "emu-sources-"));
  const repo = path.join(work, "mirrors", "hooks-repo");
  fs.mkdirSync(path.join(repo, ".agents"), { recursive: true });
  fs.writeFileSync(path.join(repo, ".agents", "hooks.json"), '{"gate":{}}');
  fs.writeFileSync(path.join(repo, "run.sh"), "#!/bin/sh\necho hi\n", { mode: 0o755 });
  git(repo, "init", "-q");
  git(repo, "add", ".");
  git(repo, "commit", "-q", "-m", "first");
  fs.writeFileSync(path.join(repo, "run.sh"), "#!/bin/sh\necho second\n", { mode: 0o755 });
  git(repo, "commit", "-q", "-am", "second");
  fs.mkdirSync(path.join(work, "plain"), { recursive: true });
  fs.writeFileSync(path.join(work, "plain", "notes.md"), "# notes");
  fs.mkdirSync(path.join(work, "gcs", "bucket-a", "dir", "sub"), { recursive: true });
  fs.writeFileSync(path.join(work, "gcs", "bucket-a", "dir", "one.txt"), "1");
  fs.writeFileSync(path.join(work, "gcs", "bucket-a", "dir", "sub", "two.txt"), "2");
  gcs = await startFakeGcs({
    "bucket-b": { "config/hooks.json": "{}", "config/scripts/gate.py": "print(1)", "other/x": "x", configuration: "no" },
  });
});

after(async () => {
  await gcs?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

describe("repository sources", () => {
  it("clone a local git repository shallow, as root-owned read-only files with the newest content", async () => {
    const packed = await packRepository(path.join(work, "mirrors", "hooks-repo"), [], 1 << 20);
    const entries = await entriesOf(packed.tar);
    assert.equal(entries.get("run.sh")?.content, "#!/bin/sh\necho second\n");
    assert.equal(entries.get("run.sh")?.mode, 0o555);
    assert.equal(entries.get(".agents/hooks.json")?.mode, 0o444);
    assert.equal(entries.get(".agents/hooks.json")?.uid, 0);
    assert.ok(entries.has(".git/HEAD"), "the clone keeps its .git so git works in the sandbox");
    const shallow = [...entries.keys()].filter((name) => name === ".git/shallow");
    assert.equal(shallow.length, 1, "the clone is shallow");
  });

  it("map a URL to a local mirror through EMULATOR_REPO_MAP", async () => {
    const map = parseRepoMap(`https://github.com/acme/=${path.join(work, "mirrors")}/`);
    assert.deepEqual(resolveRepositoryLocation("https://github.com/acme/hooks-repo", map), {
      kind: "local",
      path: path.join(work, "mirrors", "hooks-repo"),
    });
    const packed = await packRepository("https://github.com/acme/hooks-repo", map, 1 << 20);
    assert.equal((await entriesOf(packed.tar)).get(".agents/hooks.json")?.content, '{"gate":{}}');
  });

  it("copy a plain folder that is not a repository", async () => {
    const packed = await packRepository(path.join(work, "plain"), [], 1 << 20);
    assert.equal((await entriesOf(packed.tar)).get("notes.md")?.content, "# notes");
    assert.equal(packed.fileCount, 1);
  });

  it("refuse what is neither a URL nor an absolute path, a missing folder, and a repository over the size limit", async () => {
    assert.throws(() => resolveRepositoryLocation("relative/path", []), RepositorySourceError);
    await assert.rejects(packRepository(path.join(work, "missing"), [], 1 << 20), /does not exist/);
    await assert.rejects(packRepository(path.join(work, "mirrors", "hooks-repo"), [], 10), /larger than 10 bytes/);
  });

  it("refuse a malformed EMULATOR_REPO_MAP", () => {
    assert.throws(() => parseRepoMap("no-equals-sign"), /url-prefix=local-path/);
  });
});

describe("gcs sources", () => {
  it("parse gs:// URIs and refuse others", () => {
    assert.deepEqual(parseGcsUri("gs://bucket-a/dir/sub"), { bucket: "bucket-a", prefix: "dir/sub" });
    assert.deepEqual(parseGcsUri("gs://bucket-a"), { bucket: "bucket-a", prefix: "" });
    assert.throws(() => parseGcsUri("s3://x/y"), GcsSourceError);
  });

  it("list (across pages) and download the objects under a prefix from a GCS emulator, a whole segment at a time", async () => {
    const objects = await fetchGcsObjects("gs://bucket-b/config", { emulatorHost: gcs.host }, 1 << 20);
    assert.deepEqual(
      objects.map((object) => [object.relativePath, object.content.toString()]),
      [
        ["hooks.json", "{}"],
        ["scripts/gate.py", "print(1)"],
      ],
    );
    assert.ok(
      gcs.requests.some((request) => request.includes("pageToken=")),
      "paged listing was followed",
    );
  });

  it("copy one object when the prefix names it exactly", async () => {
    const objects = await fetchGcsObjects("gs://bucket-b/config/hooks.json", { emulatorHost: gcs.host }, 1 << 20);
    assert.deepEqual(
      objects.map((object) => object.relativePath),
      [""],
    );
  });

  it("read from EMULATOR_GCS_DIR when no emulator is set, and refuse a prefix that climbs out", async () => {
    const objects = await fetchGcsObjects("gs://bucket-a/dir", { localDir: path.join(work, "gcs") }, 1 << 20);
    assert.deepEqual(
      objects.map((object) => object.relativePath),
      ["one.txt", "sub/two.txt"],
    );
    await assert.rejects(fetchGcsObjects("gs://bucket-a/../../etc", { localDir: path.join(work, "gcs") }, 1 << 20), /leaves the bucket/);
  });

  it("explain a missing bucket, no objects, and no GCS configured", async () => {
    await assert.rejects(fetchGcsObjects("gs://nope/x", { emulatorHost: gcs.host }, 1 << 20), /not found/);
    await assert.rejects(fetchGcsObjects("gs://bucket-b/absent", { emulatorHost: gcs.host }, 1 << 20), /no objects/);
    await assert.rejects(fetchGcsObjects("gs://bucket-b/config", {}, 1 << 20), /STORAGE_EMULATOR_HOST/);
  });
});
