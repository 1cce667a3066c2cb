// Repository and GCS sources fetched for real: a git repository on disk (cloned shallow, through
// EMULATOR_REPO_MAP too), a plain folder, a fake GCS emulator over HTTP on loopback, and a GCS folder;
// and what a local folder may not be (issue 9): outside the operator's folders, the data folder or a
// folder holding it, unreadable to other users, holding a FIFO or a socket, or over the limits.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import net from "node:net";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fetchGcsObjects, GcsSourceError, parseGcsUri } from "../../server/sources/gcs-source.js";
import { LocalFolderError } from "../../server/sources/local-folders.js";
import { measureTree, readMeasuredFile } from "../../server/sources/local-tree.js";
import {
  packRepository,
  parseRepoMap,
  RepositorySourceError,
  resolveRepositoryLocation,
  type RepositorySettings,
} from "../../server/sources/repository-source.js";
import { readTar } from "../support/archives.js";
import { startFakeGcs, type FakeGcs } from "../support/fake-gcs-server.js";

let work: string;
let dataDir: string;
let gcs: FakeGcs;
const LIMITS = { maxBytes: 1 << 20, maxEntries: 1000 };

/** Local folders allowed under `work`, the data folder protected, no network. */
function settings(over: Partial<RepositorySettings> = {}): RepositorySettings {
  return { map: [], roots: [work], protectedFolders: [dataDir], cloneTimeoutMs: 30_000, ...over };
}

function git(cwd: string, ...args: string[]): void {
  execFileSync("git", args, {
    cwd,
    stdio: "ignore",
    env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" },
  });
}

before(async () => {
  work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "emu-sources-")));
  dataDir = path.join(work, "data");
  fs.mkdirSync(path.join(dataDir, "egress-ca"), { recursive: true, mode: 0o755 });
  // World-readable on purpose: the data folder is refused for what it is, not for its modes.
  fs.writeFileSync(path.join(dataDir, "emulator.sqlite-wal"), "token=victim-secret", { mode: 0o644 });
  fs.writeFileSync(path.join(dataDir, "egress-ca", "ca-key.pem"), "PRIVATE KEY", { mode: 0o644 });
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
    const packed = await packRepository(path.join(work, "mirrors", "hooks-repo"), settings(), LIMITS);
    const entries = await readTar(packed.tar);
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
    assert.deepEqual(resolveRepositoryLocation("https://github.com/acme/hooks-repo", { map, roots: [] }), {
      kind: "local",
      path: path.join(work, "mirrors", "hooks-repo"),
      roots: [path.join(work, "mirrors")],
      howToAllow: 'it leaves the folder EMULATOR_REPO_MAP maps "https://github.com/acme/" to',
    });
    // Mapped folders need no EMULATOR_REPO_ROOTS.
    const packed = await packRepository("https://github.com/acme/hooks-repo", settings({ map, roots: [] }), LIMITS);
    assert.equal((await readTar(packed.tar)).get(".agents/hooks.json")?.content, '{"gate":{}}');
  });

  it("copy a plain folder that is not a repository", async () => {
    const packed = await packRepository(path.join(work, "plain"), settings(), LIMITS);
    assert.equal((await readTar(packed.tar)).get("notes.md")?.content, "# notes");
    assert.equal(packed.fileCount, 1);
  });

  it("refuse what is neither a URL nor an absolute path, a missing folder, and a repository over the size limit", async () => {
    assert.throws(() => resolveRepositoryLocation("relative/path", { map: [], roots: [work] }), RepositorySourceError);
    await assert.rejects(packRepository(path.join(work, "missing"), settings(), LIMITS), /does not exist/);
    await assert.rejects(
      packRepository(path.join(work, "mirrors", "hooks-repo"), settings(), { maxBytes: 10, maxEntries: 1000 }),
      /larger than 10 bytes \(EMULATOR_MAX_SOURCES_BYTES\)/,
    );
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
    const objects = await fetchGcsObjects("gs://bucket-b/config", { emulatorHost: gcs.host }, LIMITS);
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
    const objects = await fetchGcsObjects("gs://bucket-b/config/hooks.json", { emulatorHost: gcs.host }, LIMITS);
    assert.deepEqual(
      objects.map((object) => object.relativePath),
      [""],
    );
  });

  it("read from EMULATOR_GCS_DIR when no emulator is set, and refuse a prefix that climbs out", async () => {
    const objects = await fetchGcsObjects("gs://bucket-a/dir", { localDir: path.join(work, "gcs") }, LIMITS);
    assert.deepEqual(
      objects.map((object) => object.relativePath),
      ["one.txt", "sub/two.txt"],
    );
    await assert.rejects(fetchGcsObjects("gs://bucket-a/../../etc", { localDir: path.join(work, "gcs") }, LIMITS), /leaves the bucket/);
  });

  it("explain a missing bucket, no objects, and no GCS configured", async () => {
    await assert.rejects(fetchGcsObjects("gs://nope/x", { emulatorHost: gcs.host }, LIMITS), /not found/);
    await assert.rejects(fetchGcsObjects("gs://bucket-b/absent", { emulatorHost: gcs.host }, LIMITS), /no objects/);
    await assert.rejects(fetchGcsObjects("gs://bucket-b/config", {}, LIMITS), /STORAGE_EMULATOR_HOST/);
  });
});

describe("local folders as repository sources (issue 9)", () => {
  const refused = (source: string, over: Partial<RepositorySettings>, message: RegExp) =>
    assert.rejects(packRepository(source, settings(over), LIMITS), (error: unknown) => {
      assert.ok(error instanceof Error && error.constructor.name !== "Error", `a typed refusal, got ${String(error)}`);
      assert.match((error as Error).message, message);
      return true;
    });

  it("are refused outside the operator's folders, as paths and as file:// URLs, with the setting that allows them", async () => {
    for (const source of ["/etc", "file:///etc", path.join(work, "plain"), `file://${path.join(work, "plain")}`]) {
      await refused(source, { roots: [] }, /not in a folder the operator allows; .*EMULATOR_REPO_ROOTS/);
    }
    await refused("/etc", {}, /not in a folder the operator allows/);
    await refused(`file://${work}/../../etc`, {}, /not in a folder the operator allows/);
    await refused("file://other-host/srv/x", {}, /not a local file:\/\/ URL/);
  });

  it("never serve the data folder, inside it, or a folder holding it, even inside an allowed root or through a link", async () => {
    await refused(dataDir, {}, /is inside the emulator's data folder/);
    await refused(path.join(dataDir, "egress-ca"), {}, /is inside the emulator's data folder/);
    await refused(`file://${dataDir}`, {}, /is inside the emulator's data folder/);
    await refused(work, {}, /holds the emulator's data folder/);
    const link = path.join(work, "innocent-link");
    fs.symlinkSync(dataDir, link);
    try {
      await refused(link, {}, /is inside the emulator's data folder/);
    } finally {
      fs.unlinkSync(link);
    }
  });

  it("refuse a mapped URL or a link that leads out of the operator's folder", async () => {
    const map = parseRepoMap(`https://github.com/acme/=${path.join(work, "mirrors")}/`);
    await refused("https://github.com/acme/../../../etc", { map, roots: [] }, /leaves the folder EMULATOR_REPO_MAP maps/);
    await refused("https://github.com/acme/../data", { map, roots: [] }, /leaves the folder EMULATOR_REPO_MAP maps/);
    const outward = path.join(work, "mirrors", "escape");
    fs.symlinkSync("/etc", outward);
    try {
      await refused("https://github.com/acme/escape", { map, roots: [] }, /leads outside the folder the operator allows/);
    } finally {
      fs.unlinkSync(outward);
    }
  });

  it("copy only what every user of the host may read: a private file or folder is refused by name", async () => {
    // The emulator runs as root here, so only the rule (not the file system) keeps these out.
    const folder = path.join(work, "half-private");
    fs.mkdirSync(path.join(folder, "sub"), { recursive: true, mode: 0o755 });
    fs.writeFileSync(path.join(folder, "public.txt"), "for everyone", { mode: 0o644 });
    fs.writeFileSync(path.join(folder, "sub", "id_rsa"), "PRIVATE", { mode: 0o600 });
    fs.chmodSync(path.join(folder, "sub", "id_rsa"), 0o600);
    await refused(folder, {}, /"sub\/id_rsa" is not readable by other users of the host \(mode 0600\)/);
    fs.chmodSync(path.join(folder, "sub", "id_rsa"), 0o644);
    fs.chmodSync(path.join(folder, "sub"), 0o750);
    await refused(folder, {}, /"sub\/" is not readable by other users of the host \(mode 0750\)/);
    await refused(path.join(folder, "sub"), {}, /half-private\/sub is not readable by other users/);
    fs.chmodSync(path.join(folder, "sub"), 0o755);
    const packed = await packRepository(folder, settings(), LIMITS);
    assert.equal((await readTar(packed.tar)).get("sub/id_rsa")?.content, "PRIVATE");
  });

  it("refuse a folder holding a FIFO or a UNIX socket with the file's name, at once", async () => {
    const withFifo = path.join(work, "with-fifo");
    fs.mkdirSync(withFifo, { mode: 0o755 });
    fs.writeFileSync(path.join(withFifo, "a.txt"), "a");
    execFileSync("mkfifo", ["-m", "644", path.join(withFifo, "pipe")]);
    const started = Date.now();
    await refused(withFifo, {}, /"pipe" is a FIFO \(named pipe\); only files, folders and symbolic links/);
    assert.ok(Date.now() - started < 5000, "a FIFO is never opened, so nothing waits for a writer");

    const withSocket = path.join(work, "with-socket");
    fs.mkdirSync(withSocket, { mode: 0o755 });
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(path.join(withSocket, "agent.sock"), resolve));
    try {
      fs.chmodSync(path.join(withSocket, "agent.sock"), 0o777);
      await refused(withSocket, {}, /"agent.sock" is a socket/);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("measure before reading: a folder over the size or count limit is refused without being read", async () => {
    const huge = path.join(work, "huge");
    fs.mkdirSync(huge, { mode: 0o755 });
    // A sparse 64 GiB file: measuring it is free, reading (or copying) it would fill the disk.
    const sparse = path.join(huge, "disk.img");
    fs.writeFileSync(sparse, "");
    fs.truncateSync(sparse, 64 * 1024 ** 3);
    const started = Date.now();
    await assert.rejects(
      packRepository(huge, settings(), { maxBytes: 1 << 20, maxEntries: 1000 }),
      /larger than 1048576 bytes \(EMULATOR_MAX_SOURCES_BYTES\)/,
    );
    assert.ok(Date.now() - started < 5000, `refused in ${Date.now() - started} ms`);

    const many = path.join(work, "many");
    fs.mkdirSync(many, { mode: 0o755 });
    for (let index = 0; index < 30; index += 1) fs.writeFileSync(path.join(many, `f${index}`), "x");
    await assert.rejects(
      packRepository(many, settings(), { maxBytes: 1 << 20, maxEntries: 20 }),
      /more than 20 files, folders and links \(EMULATOR_MAX_SOURCES_FILES\)/,
    );
    assert.equal((await packRepository(many, settings(), { maxBytes: 1 << 20, maxEntries: 30 })).fileCount, 30);
  });

  it("refuse a file that was swapped for a FIFO between measuring and reading, instead of hanging on it", async () => {
    const folder = path.join(work, "swapped");
    fs.mkdirSync(folder, { mode: 0o755 });
    fs.writeFileSync(path.join(folder, "data"), "12345");
    const measured = await measureTree(folder, LIMITS, {
      onlyShared: true,
      protectedIdentities: [],
      bytesSetting: "B",
      entriesSetting: "E",
    });
    const entry = measured.entries[0]!;
    assert.equal(entry.kind, "file");
    fs.unlinkSync(path.join(folder, "data"));
    execFileSync("mkfifo", [path.join(folder, "data")]);
    await assert.rejects(readMeasuredFile(folder, entry as Extract<typeof entry, { kind: "file" }>), LocalFolderError);
    fs.unlinkSync(path.join(folder, "data"));
    fs.symlinkSync("/etc/shadow", path.join(folder, "data"));
    await assert.rejects(readMeasuredFile(folder, entry as Extract<typeof entry, { kind: "file" }>), /could not be read \(ELOOP\)/);
  });
});

describe("EMULATOR_GCS_DIR under the same rules (issue 9)", () => {
  const gcsDir = () => path.join(work, "gcs");

  it("refuses a link out of the folder, the data folder inside it, private files and FIFOs", async () => {
    const bucket = path.join(gcsDir(), "bucket-c");
    fs.mkdirSync(bucket, { recursive: true, mode: 0o755 });
    fs.symlinkSync("/etc", path.join(bucket, "etc-link"));
    await assert.rejects(
      fetchGcsObjects("gs://bucket-c/etc-link", { localDir: gcsDir() }, LIMITS),
      /leads outside the folder the operator allows/,
    );
    fs.symlinkSync(dataDir, path.join(bucket, "data-link"));
    await assert.rejects(
      fetchGcsObjects("gs://bucket-c/data-link", { localDir: gcsDir(), protectedFolders: [dataDir] }, LIMITS),
      /leads outside the folder the operator allows/,
    );
    await assert.rejects(
      fetchGcsObjects("gs://data/egress-ca", { localDir: work, protectedFolders: [dataDir] }, LIMITS),
      /is inside the emulator's data folder/,
    );
    fs.mkdirSync(path.join(bucket, "private"), { mode: 0o755 });
    fs.writeFileSync(path.join(bucket, "private", "key"), "k", { mode: 0o600 });
    fs.chmodSync(path.join(bucket, "private", "key"), 0o600);
    await assert.rejects(fetchGcsObjects("gs://bucket-c/private", { localDir: gcsDir() }, LIMITS), /"key" is not readable by other users/);
    await assert.rejects(
      fetchGcsObjects("gs://bucket-c/private/key", { localDir: gcsDir() }, LIMITS),
      /private\/key is not readable by other users/,
    );
    fs.mkdirSync(path.join(bucket, "piped"), { mode: 0o755 });
    execFileSync("mkfifo", ["-m", "644", path.join(bucket, "piped", "fifo")]);
    await assert.rejects(fetchGcsObjects("gs://bucket-c/piped", { localDir: gcsDir() }, LIMITS), /"fifo" is a FIFO/);
  });
});
