// The pure parts of the swarm runtime's files (server/sandbox/swarm/swarm-files.ts): which folders a fork
// copies, the tars placed as root, the bounds, and how an export's refusals read. The channel itself is
// test/integration/executor-trees.test.ts's, the whole on a real swarm test/docker/swarm-files.test.ts's.

import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { describe, it } from "node:test";
import { extract } from "tar-stream";
import { TOO_LARGE_CODE } from "../../sandbox-image/executor/protocol.js";
import { FailedPreconditionError } from "../../server/common/errors.js";
import { tarBuffer } from "../../server/common/tar.js";
import type { ExecutorClient } from "../../server/sandbox/executor-client.js";
import { SAVED_FOLDERS } from "../../server/sandbox/layout.js";
import { SandboxFileError, SandboxFilesTooLargeError } from "../../server/sandbox/runtime.js";
import {
  exportSandboxFiles,
  foldersOfLabel,
  foldersOfSandbox,
  restoreTar,
  rootTars,
  SWARM_FILES_MAX_BYTES,
} from "../../server/sandbox/swarm/swarm-files.js";

async function headersOf(tar: Buffer): Promise<Array<{ name: string; uid: number; mode: number }>> {
  const headers: Array<{ name: string; uid: number; mode: number }> = [];
  const reader = extract();
  await new Promise<void>((resolve, reject) => {
    reader.on("entry", (header, stream, next) => {
      headers.push({ name: header.name, uid: header.uid ?? -1, mode: (header.mode ?? 0) & 0o7777 });
      stream.on("end", () => next()).resume();
    });
    reader.on("finish", resolve);
    reader.on("error", reject);
    reader.end(tar);
  });
  return headers;
}

/** A channel whose exportTree answers `answer`, recording the bound it was asked for. */
function fakeChannel(answer: () => Promise<Buffer>): { channel: ExecutorClient; bounds: number[] } {
  const bounds: number[] = [];
  const channel = {
    exportTree: (_paths: string[], maxBytes: number) => {
      bounds.push(maxBytes);
      return answer();
    },
  } as unknown as ExecutorClient;
  return { channel, bounds };
}

describe("the swarm runtime's files", () => {
  it("copies in a fork the saved folders, its sources' and trees' folders, and its source's as they are", () => {
    const files = [
      { path: "/workspace/a.txt", content: Buffer.alloc(0), mode: 0o644 },
      { path: "/src/app.py", content: Buffer.alloc(0), mode: 0o644 },
      { path: "/opt/app/run.sh", content: Buffer.alloc(0), mode: 0o755 },
      { path: "/etc/ssl/certs/ca.crt", content: Buffer.alloc(0), mode: 0o644, system: true },
    ];
    assert.deepEqual(foldersOfSandbox(files, [{ path: "/repo", tar: Buffer.alloc(0) }], ["/home/sandbox", "/extra/deep"]), [
      ...SAVED_FOLDERS,
      "/src",
      "/opt/app",
      "/repo",
      "/extra/deep",
    ]);
  });

  it("reads the folders' label, dropping what is not an absolute path", () => {
    assert.deepEqual(foldersOfLabel('["/workspace","relative",3,"/repo"]'), ["/workspace", "/repo"]);
    assert.deepEqual(foldersOfLabel("not json"), []);
    assert.deepEqual(foldersOfLabel('{"a":1}'), []);
    assert.deepEqual(foldersOfLabel(undefined), []);
  });

  it("places read-only trees at their paths and system files, root's, in that order", async () => {
    const tree = await tarBuffer([
      { header: { name: "./", type: "directory", mode: 0o555, uid: 0, gid: 0 } },
      { header: { name: "code.py", mode: 0o444, uid: 0, gid: 0 }, content: Buffer.from("x") },
    ]);
    const tars = await rootTars(
      [
        { path: "/workspace/user.txt", content: Buffer.from("u"), mode: 0o644 },
        { path: "/etc/emulator.conf", content: Buffer.from("s"), mode: 0o644, system: true },
      ],
      [{ path: "/srv/repo", tar: tree }],
    );
    assert.equal(tars.length, 2);
    assert.deepEqual(await headersOf(tars[0]!), [
      { name: "srv/repo/", uid: 0, mode: 0o555 },
      { name: "srv/repo/code.py", uid: 0, mode: 0o444 },
    ]);
    assert.deepEqual(await headersOf(tars[1]!), [{ name: "etc/emulator.conf", uid: 0, mode: 0o644 }]);
    assert.deepEqual(await rootTars([{ path: "/workspace/user.txt", content: Buffer.from("u"), mode: 0o644 }], []), []);
  });

  it("exports with the Docker runtime's refusal past maxBytes, and names its own bound past one frame", async () => {
    const tooLarge = () => Promise.reject(new SandboxFileError(TOO_LARGE_CODE, "exportTree: the files pass …"));
    const small = fakeChannel(tooLarge);
    await assert.rejects(exportSandboxFiles(small.channel, ["/workspace"], 1000), (error: unknown) => {
      assert.ok(error instanceof SandboxFilesTooLargeError);
      assert.equal(error.message, "the sandbox's files pass 1000 bytes");
      return true;
    });
    assert.deepEqual(small.bounds, [1000]);
    const large = fakeChannel(tooLarge);
    await assert.rejects(exportSandboxFiles(large.channel, ["/workspace"], 2 * SWARM_FILES_MAX_BYTES), (error: unknown) => {
      assert.ok(error instanceof FailedPreconditionError);
      assert.match(error.message, /the most EMULATOR_SANDBOX_RUNTIME=swarm moves at once/);
      return true;
    });
    assert.deepEqual(large.bounds, [SWARM_FILES_MAX_BYTES]);
  });

  it("leaves the executor's folders out of an export, whatever the channel sent", async () => {
    const sent = await tarBuffer([
      { header: { name: "workspace/a.txt", mode: 0o644, uid: 1000, gid: 1000 }, content: Buffer.from("a") },
      { header: { name: "opt/emulator/sandbox-executor", mode: 0o755, uid: 0, gid: 0 }, content: Buffer.from("b") },
    ]);
    const { channel } = fakeChannel(async () => sent);
    const tar = await exportSandboxFiles(channel, ["/workspace"], 1024 * 1024);
    assert.deepEqual(await headersOf(tar), [{ name: "workspace/a.txt", uid: 1000, mode: 0o644 }]);
  });

  it("refuses a restore past one frame before anything is made", async () => {
    const chunk = Buffer.alloc(1024 * 1024);
    const chunks = Array.from({ length: SWARM_FILES_MAX_BYTES / chunk.length + 1 }, () => chunk);
    await assert.rejects(
      restoreTar(() => Readable.from(chunks)),
      FailedPreconditionError,
    );
    assert.equal((await restoreTar(() => Readable.from([chunk]))).length, chunk.length);
  });
});
