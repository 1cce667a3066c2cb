// End to end: an archive upload with extract=true is all or nothing (issue 17, case 5), against the
// emulator started as `npm start` starts it, with a real Docker sandbox. A refused archive leaves the
// target folder exactly as it was, nothing outside it, and no staging folder anywhere; a symlink that
// leads out is refused itself, however the archive chains it; a valid archive with symlinks inside the
// target still unpacks, merging into what is there.

import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { type ArchiveEntry, tar, tarGz, zip } from "../support/archives.js";
import {
  bashIn,
  createEnvironment,
  download,
  type Environment,
  rejectsWith,
  upload,
  useEnvironmentsEmulator,
} from "../support/environments-harness.js";

useEnvironmentsEmulator();

/**
 * Everything on the sandbox's root file system that a test's uploads could have touched: the whole of
 * /workspace and /tmp (path, type, link target), what the uploads' staging folder holds (it stays, empty),
 * and every staging folder of an extraction wherever it is.
 */
const SNAPSHOT = [
  "find /workspace /tmp -path /tmp/.emulator-uploads -prune -o -printf '%p %y %l\\n' | sort",
  "echo uploads: $(ls -A /tmp/.emulator-uploads 2>/dev/null | wc -l)",
  "echo staging:; find / -xdev -name '.emulator-extract-*' 2>/dev/null || true",
].join("; ");

describe("archive uploads: all or nothing", () => {
  let env: Environment;

  before(async () => {
    env = await createEnvironment({
      sources: [
        { type: "inline", target: "workspace/target/existing.txt", content: "original" },
        { type: "inline", target: "workspace/target/sub/kept.txt", content: "kept" },
        { type: "inline", target: "workspace/outside/secret.txt", content: "secret" },
      ],
    });
    // The folder's own symlinks: one leading out of the target, one inside it.
    await bashIn(env.id, "ln -s ../outside /workspace/target/out-link && ln -s sub /workspace/target/in-link");
  });

  /**
   * Uploads `archive` into workspace/target (with overwrite=true unless `options` says otherwise) and
   * asserts a refusal matching `message` that changed nothing: a 400, or the 409 of an existing entry without overwrite.
   */
  async function refusedWithoutATrace(archive: Buffer, message: RegExp, options: { overwrite?: boolean } = {}): Promise<void> {
    const before = await bashIn(env.id, SNAPSHOT);
    const status = options.overwrite === false ? 409 : 400;
    await assert.rejects(
      upload(env.id, "workspace/target", archive, { extract: true, overwrite: true, ...options }),
      rejectsWith(status, message),
    );
    assert.equal(await bashIn(env.id, SNAPSHOT), before);
  }

  it("refuses the issue's tar (c -> ., a -> c/.., a/escape1.txt) and leaves neither c nor a", async () => {
    const archive = await tar([
      { name: "c", type: "symlink", linkname: "." },
      { name: "a", type: "symlink", linkname: "c/.." },
      { name: "a/escape1.txt", content: "escaped" },
    ]);
    await refusedWithoutATrace(archive, /a\/escape1\.txt.*outside the target folder|symlink "a" points outside/);
    assert.equal((await bashIn(env.id, "ls -A /workspace/target | sort | tr '\\n' ' '")).trim(), "existing.txt in-link out-link sub");
    assert.equal((await bashIn(env.id, "test -e /workspace/escape1.txt && echo present || echo absent")).trim(), "absent");
  });

  it("refuses every shape of escaping symlink and link, in tar, tar.gz and zip, touching nothing", async (t) => {
    const shapes: Array<[string, ArchiveEntry[], RegExp]> = [
      [
        "the issue's links in the other order",
        [
          { name: "a", type: "symlink", linkname: "c/.." },
          { name: "c", type: "symlink", linkname: "." },
        ],
        /symlink "a" points outside/,
      ],
      ["a symlink to /", [{ name: "root", type: "symlink", linkname: "/" }], /absolute path/],
      ["a symlink to ..", [{ name: "up", type: "symlink", linkname: ".." }], /symlink "up" points outside/],
      [
        "chained symlinks",
        [
          { name: "x", type: "symlink", linkname: "y" },
          { name: "y", type: "symlink", linkname: "z/.." },
          { name: "z", type: "symlink", linkname: "sub/../.." },
          { name: "ok.txt", content: "ok" },
        ],
        /points outside/,
      ],
      [
        "a symlink through the folder's own symlink out",
        [{ name: "via", type: "symlink", linkname: "out-link/secret.txt" }],
        /symlink "via" points outside/,
      ],
      [
        "a symlink, then a file through it",
        [
          { name: "fresh.txt", content: "fresh" },
          { name: "l", type: "symlink", linkname: "sub/../.." },
          { name: "l/escaped.txt", content: "x" },
        ],
        /entry "l\/escaped\.txt" would be written through a symlink that leads outside/,
      ],
      ["a file through the folder's own symlink out", [{ name: "out-link/planted.txt", content: "x" }], /leads outside the target folder/],
    ];
    for (const [label, entries, message] of shapes) {
      for (const [format, archive] of [
        ["tar", await tar(entries)],
        ["tar.gz", await tarGz(entries)],
        ["zip", zip(entries)],
      ] as const) {
        await t.test(`${label} (${format})`, () => refusedWithoutATrace(archive, message));
      }
    }
    // Hard links exist in tar only: one to a file outside, one to a file reached through a symlink.
    await refusedWithoutATrace(await tar([{ name: "h", type: "link", linkname: "../outside/secret.txt" }]), /contains "\.\."/);
    await refusedWithoutATrace(
      await tar([
        { name: "l", type: "symlink", linkname: "out-link" },
        { name: "h", type: "link", linkname: "l/secret.txt" },
      ]),
      /hard link "h" must point to a regular file earlier in the archive/,
    );
    assert.equal((await download(env.id, "workspace/outside/secret.txt")).toString(), "secret");
  });

  it("replaces the folder's own symlink with the archive's entry, never writing through it", async () => {
    await upload(env.id, "workspace/target", await tar([{ name: "out-link", content: "a file now" }]), { extract: true, overwrite: true });
    assert.equal(
      (await bashIn(env.id, "stat -c %F /workspace/target/out-link; cat /workspace/target/out-link")).trim(),
      "regular file\na file now",
    );
    assert.equal((await bashIn(env.id, "ls -A /workspace/outside")).trim(), "secret.txt");
    assert.equal((await download(env.id, "workspace/outside/secret.txt")).toString(), "secret");
    await bashIn(env.id, "rm /workspace/target/out-link && ln -s ../outside /workspace/target/out-link");
    // Without overwrite the symlink is an existing entry like any other.
    await refusedWithoutATrace(await tar([{ name: "out-link", content: "x" }]), /"out-link" already exists/, { overwrite: false });
  });

  it("unpacks a valid archive with symlinks inside the target, merging into what is there", async () => {
    const archive = await tarGz([
      { name: "pkg/", type: "directory" },
      { name: "pkg/main.py", content: "print('main')\n" },
      { name: "pkg/link", type: "symlink", linkname: "main.py" },
      { name: "up-and-back", type: "symlink", linkname: "pkg/../sub/kept.txt" },
      { name: "in-link/added.txt", content: "through the folder's own symlink" },
      { name: "dangling", type: "symlink", linkname: "not-yet/there" },
      { name: "hard", type: "link", linkname: "pkg/main.py" },
      { name: "existing.txt", content: "replaced" },
    ]);
    const result = await upload(env.id, "workspace/target", archive, { extract: true, overwrite: true });
    assert.deepEqual(
      // A link is listed as a "file" whose emulator_type says what it is (the document's types are file and directory).
      result.files.map((file) => [file.path, (file as { emulator_type?: string }).emulator_type ?? file.type]),
      [
        ["workspace/target/pkg", "directory"],
        ["workspace/target/pkg/main.py", "file"],
        ["workspace/target/pkg/link", "symlink"],
        ["workspace/target/up-and-back", "symlink"],
        // Named as in the archive; written where the folder's symlink leads, never through it.
        ["workspace/target/in-link/added.txt", "file"],
        ["workspace/target/dangling", "symlink"],
        ["workspace/target/hard", "file"],
        ["workspace/target/existing.txt", "file"],
      ],
    );
    assert.equal((await download(env.id, "workspace/target/pkg/link")).toString(), "print('main')\n");
    assert.equal((await download(env.id, "workspace/target/up-and-back")).toString(), "kept");
    assert.equal((await download(env.id, "workspace/target/sub/added.txt")).toString(), "through the folder's own symlink");
    assert.equal((await download(env.id, "workspace/target/existing.txt")).toString(), "replaced");
    assert.equal((await download(env.id, "workspace/target/sub/kept.txt")).toString(), "kept");
    assert.equal(
      (
        await bashIn(
          env.id,
          "stat -c %h /workspace/target/hard; stat -c %U /workspace/target/pkg/main.py; find / -xdev -name '.emulator-extract-*' 2>/dev/null | wc -l",
        )
      ).trim(),
      "2\nsandbox\n0",
    );
  });

  it("creates a missing target folder from the staged tree, and leaves no folder when refused", async () => {
    const result = await upload(env.id, "workspace/new/deeper", zip([{ name: "a/b.txt", content: "b" }]), { extract: true });
    assert.deepEqual(
      result.files.map((file) => file.path),
      ["workspace/new/deeper/a/b.txt"],
    );
    const before = await bashIn(env.id, SNAPSHOT);
    await assert.rejects(
      upload(env.id, "workspace/never", await tar([{ name: "up", type: "symlink", linkname: ".." }]), { extract: true }),
      rejectsWith(400, /points outside/),
    );
    assert.equal(await bashIn(env.id, SNAPSHOT), before);
  });
});
