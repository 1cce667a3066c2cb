// The archive extraction program (server/files/extract-script.ts) run by this machine's python3 on a
// temporary folder, the way the sandbox runs it, over archives fast-check builds from a few names,
// symlinks that chain through each other and through the target folder's own symlinks, files written
// through them, and hard links: whatever the archive, either it is refused and nothing changed (the
// target folder, the folder around it, no staging folder left), or it unpacked and everything in the
// target folder, followed through every symlink, stays inside it. And the staging folder of a run that
// was killed is removed by extractArchive (a fake channel: no python needed).

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import fc from "fast-check";
import { extractArchive } from "../../server/files/extract-archive.js";
import { EXTRACT_REFUSED, EXTRACT_SCRIPT } from "../../server/files/extract-script.js";
import type { SandboxChannel } from "../../server/sandbox/runtime.js";
import { type ArchiveEntry, tar } from "../support/archives.js";
import { runs } from "../support/property-runs.js";

const hasPython = spawnSync("python3", ["--version"]).status === 0;

const NAMES = ["a", "b", "c", "a/x", "b/y", "a/b", "in", "out"];
const LINK_TARGETS = [".", "..", "a", "b", "c/..", "a/..", "../..", "b/../..", "in", "out", "out/..", "in/..", "a/x", "/"];

const entry: fc.Arbitrary<ArchiveEntry> = fc.oneof(
  fc.record({ name: fc.constantFrom(...NAMES, "a/escape.txt", "c/escape.txt", "out/planted.txt"), content: fc.constant("x") }),
  fc.record({ name: fc.constantFrom(...NAMES), type: fc.constant("symlink" as const), linkname: fc.constantFrom(...LINK_TARGETS) }),
  fc.record({ name: fc.constantFrom(...NAMES), type: fc.constant("directory" as const) }),
  fc.record({ name: fc.constantFrom("h", "a/h"), type: fc.constant("link" as const), linkname: fc.constantFrom(...NAMES) }),
);

/** Every entry below `root`: relative path, type and link target. */
function snapshot(root: string): string[] {
  const out: string[] = [];
  const walk = (folder: string) => {
    for (const name of fs.readdirSync(folder).sort()) {
      const full = path.join(folder, name);
      const info = fs.lstatSync(full);
      out.push(
        `${path.relative(root, full)} ${info.isSymbolicLink() ? `-> ${fs.readlinkSync(full)}` : info.isDirectory() ? "dir" : "file"}`,
      );
      if (info.isDirectory()) walk(full);
    }
  };
  walk(root);
  return out;
}

/** Every path below `target` with its symlinks followed, where that leads (null when it leads nowhere). */
function physicalPlaces(target: string): Array<[string, string | null]> {
  const out: Array<[string, string | null]> = [];
  const walk = (folder: string) => {
    for (const name of fs.readdirSync(folder)) {
      const full = path.join(folder, name);
      let real: string | null = null;
      try {
        real = fs.realpathSync(full);
      } catch {
        // dangling, or a loop: leads nowhere
      }
      out.push([path.relative(target, full), real]);
      const info = fs.lstatSync(full);
      if (info.isDirectory()) walk(full);
    }
  };
  walk(target);
  return out;
}

describe("archive extraction: all or nothing, whatever the archive", { skip: hasPython ? false : "no python3 on this machine" }, () => {
  it("either refuses and changes nothing, or everything it made stays inside the target folder", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { minLength: 1, maxLength: 6 }), fc.boolean(), async (entries, overwrite) => {
        const box = fs.mkdtempSync(path.join(os.tmpdir(), "extract-prop-"));
        try {
          const target = path.join(box, "target");
          fs.mkdirSync(path.join(box, "outside"), { recursive: true });
          fs.mkdirSync(path.join(target, "sub"), { recursive: true });
          fs.writeFileSync(path.join(box, "outside", "secret.txt"), "secret");
          fs.symlinkSync("../outside", path.join(target, "out"));
          fs.symlinkSync("sub", path.join(target, "in"));
          const archive = path.join(box, "upload.tar");
          fs.writeFileSync(archive, await tar(entries));
          const before = snapshot(box).filter((line) => !line.startsWith("upload.tar"));
          const run = spawnSync("python3", ["-c", EXTRACT_SCRIPT, archive, target, overwrite ? "1" : "0", "[]", "100"], {
            encoding: "utf8",
          });
          const after = snapshot(box).filter((line) => !line.startsWith("upload.tar"));
          assert.ok(
            after.every((line) => !line.includes(".emulator-extract-")),
            `a staging folder was left: ${after.join("\n")}`,
          );
          assert.deepEqual(snapshot(path.join(box, "outside")), ["secret.txt file"], "something was written outside the target folder");
          if (run.status === EXTRACT_REFUSED) {
            assert.deepEqual(after, before, `a refused archive changed the tree: ${run.stdout}`);
            return;
          }
          assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
          const realTarget = fs.realpathSync(target);
          // The folder's own "out" symlink leads out by design (the user's), unless the archive replaced it.
          const leaving = physicalPlaces(target).filter(
            ([relative, real]) =>
              real !== null && !(real === realTarget || real.startsWith(`${realTarget}/`)) && !relative.startsWith("out"),
          );
          assert.deepEqual(leaving, [], `unpacked ${JSON.stringify(entries)}: ${run.stdout}`);
        } finally {
          fs.rmSync(box, { recursive: true, force: true });
        }
      }),
      runs(40),
    );
  });
});

describe("extractArchive: a run killed before it could clean up", () => {
  const killed = (stdout: string) =>
    ({
      run: async () => ({
        exitCode: null,
        signal: "SIGKILL",
        timedOut: true,
        cancelled: false,
        overDiskLimit: false,
        stdout: Buffer.from(stdout),
        stderr: Buffer.alloc(0),
      }),
      deleteFile: async (where: string, recursive: boolean) => deleted.push([where, recursive]),
    }) as unknown as SandboxChannel;
  let deleted: Array<[string, boolean]> = [];
  const options = { overwrite: true, forbidden: [], reportLimit: 10, timeoutMs: 1000 };

  it("has its staging folder removed, and only a staging folder", async () => {
    deleted = [];
    await assert.rejects(
      extractArchive(killed('{"staging": "/workspace/pkg/.emulator-extract-ab12"}\n'), "/tmp/a.tar", "/workspace/pkg", options),
      /took longer than 1000 ms/,
    );
    assert.deepEqual(deleted, [["/workspace/pkg/.emulator-extract-ab12", true]]);
    deleted = [];
    await assert.rejects(extractArchive(killed('{"staging": "/workspace"}\n'), "/tmp/a.tar", "/workspace/pkg", options));
    assert.deepEqual(deleted, []);
  });
});
