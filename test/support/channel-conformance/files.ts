// SandboxChannel conformance, part: readFile, writeFile, listFiles, deleteFile, stat, walk, usage, readFileChunk, appendFile, moveFile.

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { posix } from "node:path";
import { describe, it } from "node:test";
import { type FileOperationReads, type FreshRead, SandboxFileError, SandboxFilesChangedError } from "../../../server/sandbox/runtime.js";
import { MiB, type ChannelSuite } from "./context.js";

export function fileBehaviours(t: ChannelSuite): void {
  const { channel, freshFolder, run, bash, readText, fileError } = t;
  /** The token each path reads with now. */
  const tokensOf = async (paths: string[]): Promise<string[]> =>
    (await channel().readFiles(paths, 100)).map((read) => {
      assert.ok(read.token !== null, "no token");
      return read.token;
    });
  /** Writes `{"b": 2}` over the file at `path` (same inode), then sets its modification time back. */
  const rewriteKeepingTime = (path: string) =>
    run(["bash", "-c", `t=$(stat -c %y "$1"); printf '{"b": 2}' > "$1"; touch -d "$t" "$1"`, "rewrite", path]);
  describe("readFile", () => {
    it("reads a whole file with its size", async () => {
      const folder = await freshFolder("read");
      const path = posix.join(folder, "hello.txt");
      await channel().writeFile(path, Buffer.from("hello world"));
      const result = await channel().readFile(path, 100);
      assert.equal(result.content.toString(), "hello world");
      assert.equal(result.size, 11);
      assert.equal(result.truncated, false);
      assert.equal(result.realPath, (await run(["realpath", path])).stdout.toString().trim());
    });

    it("reports the real path of a file read through a symlink", async () => {
      const folder = await freshFolder("read-realpath");
      const target = posix.join(folder, "real", "target.txt");
      await channel().writeFile(target, Buffer.from("via link"));
      assert.equal((await run(["ln", "-s", "real", posix.join(folder, "link")])).exitCode, 0);
      const result = await channel().readFile(posix.join(folder, "link", "target.txt"), 100);
      assert.equal(result.content.toString(), "via link");
      assert.equal(result.realPath, (await run(["realpath", target])).stdout.toString().trim());
    });

    it("truncates at maxBytes and reports the full size", async () => {
      const folder = await freshFolder("read-truncated");
      const path = posix.join(folder, "hello.txt");
      await channel().writeFile(path, Buffer.from("hello world"));
      const result = await channel().readFile(path, 5);
      assert.equal(result.content.toString(), "hello");
      assert.equal(result.size, 11);
      assert.equal(result.truncated, true);
    });

    it("fails with ENOENT naming the path", async () => {
      const folder = await freshFolder("read-missing");
      const path = posix.join(folder, "absent.txt");
      await assert.rejects(channel().readFile(path, 100), fileError("ENOENT", path));
    });

    it("fails with EISDIR on a directory", async () => {
      const folder = await freshFolder("read-directory");
      await assert.rejects(channel().readFile(folder, 100), fileError("EISDIR", folder));
    });
  });

  describe("readFiles", () => {
    /** The one file of a readFiles of `path`. */
    const readOne = async (path: string, maxBytes = 100) => {
      const [read] = await channel().readFiles([path], maxBytes);
      assert.ok(read, "no entry");
      return read;
    };
    const contentOf = (read: Awaited<ReturnType<typeof readOne>>): string => {
      assert.ok(read.ok, `expected the file, got ${read.ok ? "" : read.message}`);
      return read.file.content.toString();
    };
    const statLine = async (path: string): Promise<string> => (await run(["stat", "-c", "%i %s %Y.%y %Z.%z", path])).stdout.toString();

    it("answers each path as readFile does, in order", async () => {
      const folder = await freshFolder("read-files");
      const file = posix.join(folder, "a.txt");
      const big = posix.join(folder, "big.txt");
      await channel().writeFile(file, Buffer.from("hello"));
      await channel().writeFile(big, Buffer.from("0123456789"));
      const absent = posix.join(folder, "absent.txt");
      const paths = [file, absent, folder, big];
      const reads = await channel().readFiles(paths, 5);
      assert.equal(reads.length, 4);
      const [hello, missing, directory, truncated] = reads;
      const single = await channel().readFile(file, 5);
      assert.ok(hello?.ok);
      assert.deepEqual({ ...hello.file, content: hello.file.content.toString() }, { ...single, content: "hello" });
      for (const [index, failed] of [missing, directory].entries()) {
        assert.ok(failed && !failed.ok, `entry ${index + 1} did not fail`);
        const path = paths[index + 1]!;
        await assert.rejects(channel().readFile(path, 5), (error: unknown) => {
          assert.ok(error instanceof SandboxFileError);
          assert.deepEqual([failed.code, failed.message], [error.code, error.message]);
          return true;
        });
      }
      // A file past maxBytes is reported, not sent.
      assert.ok(truncated?.ok);
      assert.deepEqual([truncated.file.truncated, truncated.file.size, truncated.file.content.length], [true, 10, 0]);
    });

    it("gives a file read the same the same token, and a file changed in place a new one", async () => {
      const folder = await freshFolder("read-files-token");
      const path = posix.join(folder, "hooks.json");
      await channel().writeFile(path, Buffer.from('{"a": 1}'));
      const first = await readOne(path);
      const second = await readOne(path);
      assert.equal(contentOf(second), '{"a": 1}');
      assert.ok(first.token !== null && first.token === second.token, "an unchanged file got a new token");
      // Same inode, same size, and the modification time set back: only the content tells.
      const before = await statLine(path);
      const rewrite = await rewriteKeepingTime(path);
      assert.equal(rewrite.exitCode, 0, rewrite.stderr.toString());
      const after = await statLine(path);
      assert.deepEqual(after.split(" ").slice(0, 3), before.split(" ").slice(0, 3), "inode, size or mtime differ: the test proves nothing");
      const third = await readOne(path);
      assert.equal(contentOf(third), '{"b": 2}');
      assert.notEqual(third.token, second.token);
    });

    it("sees a change made through a shared mapping, which usually leaves the file's times as they were", async (context) => {
      const folder = await freshFolder("read-files-mmap");
      const path = posix.join(folder, "hooks.json");
      const go = posix.join(folder, "go");
      const done = posix.join(folder, "done");
      await channel().writeFile(path, Buffer.from("AAAA"));
      // The first write through the mapping marks the times; a second one to the same (still dirty) page
      // does not, unless the kernel wrote the page back meanwhile (its own flush comes tens of seconds
      // later, but a sync elsewhere on the machine may do it at any time). The content must be seen
      // either way; whether the times stayed put (the case metadata would miss) is only reported.
      const writer = [
        "import mmap, os, sys, time",
        "path, go, done = sys.argv[1:4]",
        "f = open(path, 'r+b'); m = mmap.mmap(f.fileno(), 4)",
        "m[0:4] = b'BBBB'",
        "deadline = time.time() + 20",
        "while not os.path.exists(go) and time.time() < deadline: time.sleep(0.01)",
        "m[0:4] = b'CCCC'",
        "open(done, 'w').close()",
        "time.sleep(1)",
      ].join("\n");
      const started = run(["python3", "-c", writer, path, go, done]);
      const waitFor = async (check: () => Promise<boolean>, what: string): Promise<void> => {
        for (const startedAt = Date.now(); !(await check()); ) {
          assert.ok(Date.now() - startedAt < 15_000, `timed out waiting for ${what}`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      };
      await waitFor(async () => contentOf(await readOne(path)) === "BBBB", "the first write");
      const seen = await readOne(path);
      const before = await statLine(path);
      await channel().writeFile(go, Buffer.alloc(0));
      await waitFor(async () => (await run(["test", "-e", done])).exitCode === 0, "the second write");
      const after = await readOne(path);
      assert.equal(contentOf(after), "CCCC");
      assert.notEqual(after.token, seen.token);
      const timesKept = (await statLine(path)) === before;
      context.diagnostic(timesKept ? "the times stayed as they were" : "the page was written back meanwhile: the times changed too");
      assert.equal((await started).exitCode, 0);
    });
  });

  describe("an exec's reads (readBefore, readAfter)", () => {
    it("starts a command whose files still read as their tokens say, and says so before its output", async () => {
      const folder = await freshFolder("exec-unless-changed");
      const paths = [posix.join(folder, "hooks.json"), posix.join(folder, "absent.json")];
      await channel().writeFile(paths[0]!, Buffer.from("{}"));
      const seen: string[] = [];
      const result = await bash("echo out", {
        unlessChanged: { paths, maxBytes: 100, tokens: await tokensOf(paths) },
        onStarted: () => seen.push("started"),
        onOutput: (_, chunk) => seen.push(chunk.toString().trim()),
      });
      assert.equal(result.exitCode, 0);
      assert.deepEqual(seen, ["started", "out"]);
    });

    it("starts nothing when a file changed, however alike it looks", async () => {
      const folder = await freshFolder("exec-changed");
      const path = posix.join(folder, "hooks.json");
      const marker = posix.join(folder, "ran");
      await channel().writeFile(path, Buffer.from('{"a": 1}'));
      const tokens = await tokensOf([path]);
      await rewriteKeepingTime(path);
      let started = false;
      await assert.rejects(
        bash(`touch ${marker}`, { unlessChanged: { paths: [path], maxBytes: 100, tokens }, onStarted: () => (started = true) }),
        SandboxFilesChangedError,
      );
      assert.equal(started, false);
      assert.equal((await run(["test", "-e", marker])).exitCode, 1, "the command ran");
    });

    it("ends a command cancelled while its files are read as cancelled, without starting it", async () => {
      const folder = await freshFolder("exec-cancelled-early");
      const path = posix.join(folder, "hooks.json");
      const marker = posix.join(folder, "ran");
      await channel().writeFile(path, Buffer.from("{}"));
      const tokens = await tokensOf([path]);
      // Several times: the executor reads the files in microseconds, so a cancel it handled after
      // starting the reads would lose the race now and then (it did, once in a few full runs).
      for (let attempt = 0; attempt < 20; attempt++) {
        const controller = new AbortController();
        controller.abort();
        const result = await bash(`touch ${marker}`, {
          unlessChanged: { paths: [path], maxBytes: 100, tokens },
          signal: controller.signal,
        });
        assert.deepEqual([result.cancelled, result.exitCode, result.signal], [true, null, "SIGKILL"], `attempt ${attempt}`);
        assert.equal((await run(["test", "-e", marker])).exitCode, 1, `the command ran (attempt ${attempt})`);
      }
    });

    it("reads the files again once the command ended", async () => {
      const folder = await freshFolder("exec-read-after");
      const paths = [posix.join(folder, "hooks.json"), posix.join(folder, "absent.json")];
      await channel().writeFile(paths[0]!, Buffer.from("before"));
      await tokensOf(paths);
      const result = await bash(`printf after > ${paths[0]}`, { readAfter: { paths, maxBytes: 100 } });
      assert.equal(result.exitCode, 0);
      const [written, absent] = result.readsAfter ?? [];
      assert.ok(written?.ok);
      assert.equal(written.file.content.toString(), "after");
      assert.ok(absent && !absent.ok);
      assert.equal(absent.code, "ENOENT");
      // Read the same again: the content comes back whole, though it was not sent again.
      const again = await bash("true", { readAfter: { paths, maxBytes: 100 } });
      assert.ok(again.readsAfter?.[0]?.ok);
      assert.equal(again.readsAfter[0].file.content.toString(), "after");
      assert.equal(again.readsAfter[0].token, written.token);
    });
  });

  describe("a file operation's reads (readBefore, readAfter)", () => {
    /** What the operation told, in order, with its reads after. */
    const listen = (unlessChanged?: FileOperationReads["unlessChanged"], readAfter?: FileOperationReads["readAfter"]) => {
      const told: string[] = [];
      const after: FreshRead[][] = [];
      const reads: FileOperationReads = {
        ...(unlessChanged ? { unlessChanged } : {}),
        ...(readAfter ? { readAfter } : {}),
        onStarted: () => told.push("started"),
        onReadsAfter: (files) => {
          told.push("read after");
          after.push(files);
        },
      };
      return { reads, told, after };
    };

    it("does each of the four when its files still read as their tokens say, and reads them after it", async () => {
      const folder = await freshFolder("file-op-reads");
      const hooks = posix.join(folder, "hooks.json");
      const paths = [hooks, posix.join(folder, "absent.json")];
      const target = posix.join(folder, "target.txt");
      await channel().writeFile(hooks, Buffer.from("{}"));
      const around = async () => listen({ paths, maxBytes: 100, tokens: await tokensOf(paths) }, { paths, maxBytes: 100 });
      const operations: Array<[string, (reads: FileOperationReads) => Promise<unknown>]> = [
        ["writeFile", (reads) => channel().writeFile(target, Buffer.from("written"), undefined, reads)],
        ["readFile", async (reads) => assert.equal((await channel().readFile(target, 100, reads)).content.toString(), "written")],
        [
          "listFiles",
          async (reads) =>
            assert.deepEqual(
              (await channel().listFiles(folder, reads)).map((entry) => entry.name),
              ["hooks.json", "target.txt"],
            ),
        ],
        ["deleteFile", (reads) => channel().deleteFile(target, false, reads)],
      ];
      for (const [op, operation] of operations) {
        const { reads, told, after } = await around();
        await operation(reads);
        assert.deepEqual(told, ["started", "read after"], op);
        const [read, absent] = after[0] ?? [];
        assert.ok(read?.ok, op);
        assert.equal(read.file.content.toString(), "{}", op);
        assert.ok(absent && !absent.ok && absent.code === "ENOENT", op);
      }
      assert.equal((await run(["test", "-e", target])).exitCode, 1, "deleteFile left the file");
    });

    it("does nothing when a file changed, however alike it looks", async () => {
      const folder = await freshFolder("file-op-changed");
      const hooks = posix.join(folder, "hooks.json");
      const target = posix.join(folder, "target.txt");
      await channel().writeFile(hooks, Buffer.from('{"a": 1}'));
      await channel().writeFile(target, Buffer.from("kept"));
      const tokens = await tokensOf([hooks]);
      await rewriteKeepingTime(hooks);
      const unlessChanged = { paths: [hooks], maxBytes: 100, tokens };
      for (const [op, operation] of [
        ["writeFile", (reads: FileOperationReads) => channel().writeFile(target, Buffer.from("overwritten"), undefined, reads)],
        ["deleteFile", (reads: FileOperationReads) => channel().deleteFile(target, false, reads)],
        ["readFile", (reads: FileOperationReads) => channel().readFile(target, 100, reads)],
      ] as const) {
        const { reads, told } = listen(unlessChanged, { paths: [hooks], maxBytes: 100 });
        await assert.rejects(operation(reads), SandboxFilesChangedError, op);
        assert.deepEqual(told, [], op);
      }
      assert.equal(await readText(target), "kept");
    });

    it("reads the files after an operation that failed, and after one that rewrote them", async () => {
      const folder = await freshFolder("file-op-read-after");
      const hooks = posix.join(folder, "hooks.json");
      await channel().writeFile(hooks, Buffer.from("before"));
      const failing = listen(undefined, { paths: [hooks], maxBytes: 100 });
      await assert.rejects(
        channel().readFile(posix.join(folder, "missing"), 100, failing.reads),
        fileError("ENOENT", posix.join(folder, "missing")),
      );
      assert.deepEqual(failing.told, ["started", "read after"]);
      assert.ok(failing.after[0]?.[0]?.ok);
      assert.equal(failing.after[0][0].file.content.toString(), "before");
      const rewriting = listen(undefined, { paths: [hooks], maxBytes: 100 });
      await channel().writeFile(hooks, Buffer.from("after"), undefined, rewriting.reads);
      assert.ok(rewriting.after[0]?.[0]?.ok);
      assert.equal(rewriting.after[0][0].file.content.toString(), "after");
    });
  });

  describe("writeFile", () => {
    it("creates missing parent folders", async () => {
      const folder = await freshFolder("write-parents");
      const path = posix.join(folder, "a", "b", "c", "deep.txt");
      await channel().writeFile(path, Buffer.from("deep"));
      assert.equal(await readText(path), "deep");
    });

    it("replaces an existing file's whole content", async () => {
      const folder = await freshFolder("write-replace");
      const path = posix.join(folder, "file.txt");
      await channel().writeFile(path, Buffer.from("a long first version"));
      await channel().writeFile(path, Buffer.from("short"));
      assert.equal(await readText(path), "short");
    });

    it("applies the requested mode", async () => {
      const folder = await freshFolder("write-mode");
      const path = posix.join(folder, "script.sh");
      await channel().writeFile(path, Buffer.from("#!/bin/sh\necho ran\n"), 0o755);
      assert.equal((await run(["stat", "-c", "%a", path])).stdout.toString().trim(), "755");
      assert.equal((await run([path])).stdout.toString(), "ran\n");
    });

    it("round-trips binary content byte for byte", async () => {
      const folder = await freshFolder("binary");
      const pattern = Buffer.from(Array.from({ length: 256 }, (_, byte) => byte));
      const content = Buffer.concat([...Array.from({ length: 400 }, () => pattern), Buffer.from([0, 0xff, 0x0d, 0x0a])]);
      const path = posix.join(folder, "bytes.bin");
      await channel().writeFile(path, content);
      const read = await channel().readFile(path, 4 * MiB);
      assert.ok(read.content.equals(content), "readFile changed the bytes");
      assert.equal(read.size, content.length);
      const catted = await run(["cat", path], { maxOutputBytes: 4 * MiB });
      assert.ok(catted.stdout.equals(content), "exec stdout changed the bytes");
      const piped = await run(["cat"], { stdin: content, maxOutputBytes: 4 * MiB });
      assert.ok(piped.stdout.equals(content), "exec stdin changed the bytes");
    });
  });

  describe("listFiles", () => {
    it("lists files, folders and symlinks sorted by name with sizes and times", async () => {
      const folder = await freshFolder("list");
      await channel().writeFile(posix.join(folder, "b.txt"), Buffer.from("bbb"));
      await channel().writeFile(posix.join(folder, "a.txt"), Buffer.from("a"));
      await channel().writeFile(posix.join(folder, "c", "inner.txt"), Buffer.from("inner"));
      assert.equal((await run(["ln", "-s", "c", posix.join(folder, "d")])).exitCode, 0);
      const entries = await channel().listFiles(folder);
      assert.deepEqual(
        entries.map(({ name, type }) => [name, type]),
        [
          ["a.txt", "file"],
          ["b.txt", "file"],
          ["c", "directory"],
          ["d", "symlink"],
        ],
      );
      assert.equal(entries[0]!.size, 1);
      assert.equal(entries[1]!.size, 3);
      for (const entry of entries) assert.ok(Math.abs(entry.mtimeMs - Date.now()) < 3_600_000, `${entry.name} mtime`);
    });

    it("fails with ENOTDIR on a file", async () => {
      const folder = await freshFolder("list-file");
      const path = posix.join(folder, "plain.txt");
      await channel().writeFile(path, Buffer.from("x"));
      await assert.rejects(channel().listFiles(path), fileError("ENOTDIR", path));
    });

    it("fails with ENOENT on a missing folder", async () => {
      const folder = await freshFolder("list-missing");
      const path = posix.join(folder, "nowhere");
      await assert.rejects(channel().listFiles(path), fileError("ENOENT", path));
    });
  });

  describe("deleteFile", () => {
    it("deletes a file", async () => {
      const folder = await freshFolder("delete-file");
      const path = posix.join(folder, "doomed.txt");
      await channel().writeFile(path, Buffer.from("x"));
      await channel().deleteFile(path, false);
      await assert.rejects(channel().readFile(path, 10), fileError("ENOENT"));
    });

    it("refuses a directory without recursive, saying to pass it", async () => {
      const folder = await freshFolder("delete-dir");
      const target = posix.join(folder, "keep");
      await channel().writeFile(posix.join(target, "inside.txt"), Buffer.from("x"));
      await assert.rejects(channel().deleteFile(target, false), (error: unknown) => {
        fileError("EISDIR", target)(error);
        assert.match((error as Error).message, /recursive/);
        return true;
      });
      assert.equal(await readText(posix.join(target, "inside.txt")), "x");
    });

    it("deletes a directory tree with recursive", async () => {
      const folder = await freshFolder("delete-tree");
      const target = posix.join(folder, "tree");
      await channel().writeFile(posix.join(target, "x", "y", "z.txt"), Buffer.from("z"));
      await channel().deleteFile(target, true);
      assert.deepEqual(await channel().listFiles(folder), []);
    });

    it("deletes a symlink to a folder, not the folder", async () => {
      const folder = await freshFolder("delete-link");
      await channel().writeFile(posix.join(folder, "real", "kept.txt"), Buffer.from("kept"));
      assert.equal((await run(["ln", "-s", "real", posix.join(folder, "link")])).exitCode, 0);
      await channel().deleteFile(posix.join(folder, "link"), false);
      assert.deepEqual(
        (await channel().listFiles(folder)).map((entry) => entry.name),
        ["real"],
      );
      assert.equal(await readText(posix.join(folder, "real", "kept.txt")), "kept");
    });

    it("fails with ENOENT on a missing path", async () => {
      const folder = await freshFolder("delete-missing");
      const path = posix.join(folder, "ghost");
      await assert.rejects(channel().deleteFile(path, true), fileError("ENOENT", path));
    });
  });

  describe("stat", () => {
    const realOf = async (path: string): Promise<string> => (await run(["realpath", "-m", path])).stdout.toString().trim();

    it("describes a file and a folder, with the real path", async () => {
      const folder = await freshFolder("stat");
      const path = posix.join(folder, "f.txt");
      await channel().writeFile(path, Buffer.from("12345"));
      const file = await channel().stat(path);
      assert.equal(file.info?.type, "file");
      assert.equal(file.info?.size, 5);
      assert.ok(Math.abs(file.info!.mtimeMs - Date.now()) < 3_600_000);
      assert.ok(file.info!.birthtimeMs > 0);
      assert.equal(file.realPath, await realOf(path));
      const dir = await channel().stat(folder);
      assert.equal(dir.info?.type, "directory");
      assert.equal(dir.info?.size, 0);
    });

    it("follows symlinks, and says where a missing path would be created", async () => {
      const folder = await freshFolder("stat-links");
      await channel().writeFile(posix.join(folder, "real", "target.txt"), Buffer.from("abc"));
      assert.equal(
        (await bash("ln -s real linkdir && ln -s real/target.txt linkfile && ln -s nowhere dangling", { cwd: folder })).exitCode,
        0,
      );
      const viaLink = await channel().stat(posix.join(folder, "linkfile"));
      assert.equal(viaLink.info?.type, "file");
      assert.equal(viaLink.realPath, await realOf(posix.join(folder, "real", "target.txt")));
      const missing = await channel().stat(posix.join(folder, "linkdir", "new", "file.txt"));
      assert.equal(missing.info, null);
      assert.equal(missing.realPath, posix.join(await realOf(posix.join(folder, "real")), "new", "file.txt"));
      const dangling = await channel().stat(posix.join(folder, "dangling"));
      assert.equal(dangling.info, null);
      assert.equal(dangling.realPath, posix.join(await realOf(folder), "dangling"));
    });
  });

  describe("walk", () => {
    /** a.txt, b/c.txt, b/d/e.txt, b.txt, link -> b: names chosen so that "b" < "b.txt" matters. */
    const makeTree = async (label: string): Promise<string> => {
      const folder = await freshFolder(label);
      for (const [name, content] of [
        ["a.txt", "a"],
        ["b/c.txt", "cc"],
        ["b/d/e.txt", "eee"],
        ["b.txt", "bbbb"],
      ] as const) {
        await channel().writeFile(posix.join(folder, name), Buffer.from(content));
      }
      assert.equal((await run(["ln", "-s", "b", posix.join(folder, "link")])).exitCode, 0);
      return folder;
    };
    const FULL = ["", "a.txt", "b", "b/c.txt", "b/d", "b/d/e.txt", "b.txt", "link"];

    it("lists the start, then everything below it depth first by name, without following symlinks", async () => {
      const folder = await makeTree("walk");
      const { entries, more } = await channel().walk(folder, { recursive: true, limit: 100 });
      assert.equal(more, false);
      assert.deepEqual(
        entries.map((entry) => entry.path),
        FULL,
      );
      const byPath = new Map(entries.map((entry) => [entry.path, entry]));
      assert.equal(byPath.get("")?.type, "directory");
      assert.equal(byPath.get("b/d/e.txt")?.size, 3);
      assert.equal(byPath.get("b")?.type, "directory");
      assert.equal(byPath.get("link")?.type, "symlink");
    });

    it("lists only the children without recursive", async () => {
      const folder = await makeTree("walk-flat");
      const { entries } = await channel().walk(folder, { recursive: false, limit: 100 });
      assert.deepEqual(
        entries.map((entry) => entry.path),
        ["", "a.txt", "b", "b.txt", "link"],
      );
    });

    it("pages with limit and after, in the same order", async () => {
      const folder = await makeTree("walk-pages");
      const seen: string[] = [];
      let after: string | undefined;
      for (let page = 0; page < 10; page += 1) {
        const { entries, more } = await channel().walk(folder, { recursive: true, limit: 3, ...(after !== undefined ? { after } : {}) });
        assert.ok(entries.length <= 3);
        seen.push(...entries.map((entry) => entry.path));
        if (!more) break;
        after = entries.at(-1)!.path;
      }
      assert.deepEqual(seen, FULL);
    });

    it("does not enter excluded folders, but lists them", async () => {
      const folder = await makeTree("walk-exclude");
      const real = (await run(["realpath", posix.join(folder, "b")])).stdout.toString().trim();
      const { entries } = await channel().walk(folder, { recursive: true, limit: 100, exclude: [real] });
      assert.deepEqual(
        entries.map((entry) => entry.path),
        ["", "a.txt", "b", "b.txt", "link"],
      );
    });

    it("starts through a symlink, and lists a file start as itself", async () => {
      const folder = await makeTree("walk-start");
      const viaLink = await channel().walk(posix.join(folder, "link"), { recursive: true, limit: 100 });
      assert.deepEqual(
        viaLink.entries.map((entry) => entry.path),
        ["", "c.txt", "d", "d/e.txt"],
      );
      const file = await channel().walk(posix.join(folder, "a.txt"), { recursive: true, limit: 100 });
      assert.deepEqual(
        file.entries.map((entry) => [entry.path, entry.type, entry.size]),
        [["", "file", 1]],
      );
    });

    it("fails with ENOENT naming a missing start", async () => {
      const folder = await freshFolder("walk-missing");
      const path = posix.join(folder, "nowhere");
      await assert.rejects(channel().walk(path, { recursive: true, limit: 10 }), fileError("ENOENT", path));
    });
  });

  describe("usage", () => {
    it("counts regular files and bytes once each, skipping symlinks, missing paths and excluded folders", async () => {
      const folder = await freshFolder("usage");
      await channel().writeFile(posix.join(folder, "one.txt"), Buffer.alloc(1000));
      await channel().writeFile(posix.join(folder, "sub", "two.txt"), Buffer.alloc(24));
      await channel().writeFile(posix.join(folder, "skip", "big.bin"), Buffer.alloc(5000));
      assert.equal((await bash("ln -s sub link && ln sub/two.txt hardlink", { cwd: folder })).exitCode, 0);
      const all = await channel().usage([
        folder,
        posix.join(folder, "sub"),
        posix.join(folder, "sub", "two.txt"),
        posix.join(folder, "missing"),
      ]);
      assert.deepEqual(all, { files: 3, bytes: 6024 });
      const real = (await run(["realpath", posix.join(folder, "skip")])).stdout.toString().trim();
      assert.deepEqual(await channel().usage([folder], [real]), { files: 2, bytes: 1024 });
    });
  });

  describe("readFileChunk", () => {
    it("reads a large binary file back in chunks, byte for byte", async () => {
      const folder = await freshFolder("chunks");
      const path = posix.join(folder, "big.bin");
      const content = randomBytes(3 * MiB + 123);
      await channel().writeFile(path, content);
      const parts: Buffer[] = [];
      for (let offset = 0; ; ) {
        const chunk = await channel().readFileChunk(path, offset, MiB);
        assert.equal(chunk.size, content.length);
        if (chunk.content.length === 0) break;
        parts.push(chunk.content);
        offset += chunk.content.length;
      }
      assert.equal(parts.length, 4);
      assert.ok(Buffer.concat(parts).equals(content));
    });

    it("returns nothing past the end, and refuses a folder", async () => {
      const folder = await freshFolder("chunk-edges");
      const path = posix.join(folder, "small.txt");
      await channel().writeFile(path, Buffer.from("hello"));
      assert.equal((await channel().readFileChunk(path, 3, 100)).content.toString(), "lo");
      const past = await channel().readFileChunk(path, 50, 100);
      assert.deepEqual([past.content.length, past.size], [0, 5]);
      await assert.rejects(channel().readFileChunk(folder, 0, 10), fileError("EISDIR", folder));
    });
  });

  describe("appendFile", () => {
    it("creates a file with its parents, then appends at the expected offsets", async () => {
      const folder = await freshFolder("append");
      const path = posix.join(folder, "deep", "er", "out.bin");
      assert.equal(await channel().appendFile(path, 0, Buffer.from("abc"), { create: true }), 3);
      assert.equal(await channel().appendFile(path, 3, Buffer.from("defg")), 7);
      assert.equal(await channel().appendFile(path, 7, Buffer.alloc(0)), 7);
      assert.equal(await readText(path), "abcdefg");
    });

    it("refuses a wrong offset, naming the size, and leaves the file alone", async () => {
      const folder = await freshFolder("append-offset");
      const path = posix.join(folder, "out.txt");
      await channel().appendFile(path, 0, Buffer.from("12345"), { create: true });
      await assert.rejects(channel().appendFile(path, 3, Buffer.from("x")), (error: unknown) => {
        fileError("EOFFSET", path)(error);
        assert.match((error as Error).message, /5 bytes/);
        return true;
      });
      assert.equal(await readText(path), "12345");
    });

    it("refuses to create over an existing file or symlink, and to append through a symlink", async () => {
      const folder = await freshFolder("append-links");
      const target = posix.join(folder, "target.txt");
      await channel().writeFile(target, Buffer.from("keep"));
      assert.equal((await bash("ln -s target.txt link && ln -s nowhere dangling", { cwd: folder })).exitCode, 0);
      await assert.rejects(channel().appendFile(target, 0, Buffer.from("x"), { create: true }), fileError("EEXIST"));
      await assert.rejects(
        channel().appendFile(posix.join(folder, "dangling"), 0, Buffer.from("x"), { create: true }),
        fileError("EEXIST"),
      );
      await assert.rejects(channel().appendFile(posix.join(folder, "link"), 4, Buffer.from("x")), fileError("ELOOP"));
      assert.equal(await readText(target), "keep");
      assert.equal((await run(["test", "-e", posix.join(folder, "nowhere")])).exitCode, 1);
    });
  });

  describe("moveFile", () => {
    it("moves a file into a new folder", async () => {
      const folder = await freshFolder("move");
      const from = posix.join(folder, "staged");
      await channel().writeFile(from, Buffer.from("moved"));
      const to = posix.join(folder, "a", "b", "final.txt");
      await channel().moveFile(from, to, false);
      assert.equal(await readText(to), "moved");
      await assert.rejects(channel().readFile(from, 10), fileError("ENOENT"));
    });

    it("without overwrite refuses anything already there, keeping both", async () => {
      const folder = await freshFolder("move-keep");
      const from = posix.join(folder, "staged");
      const to = posix.join(folder, "existing.txt");
      await channel().writeFile(from, Buffer.from("new"));
      await channel().writeFile(to, Buffer.from("old"));
      assert.equal((await run(["ln", "-s", "nowhere", posix.join(folder, "dangling")])).exitCode, 0);
      await assert.rejects(channel().moveFile(from, to, false), fileError("EEXIST", to));
      await assert.rejects(channel().moveFile(from, posix.join(folder, "dangling"), false), fileError("EEXIST"));
      assert.equal(await readText(to), "old");
      assert.equal(await readText(from), "new");
    });

    it("with overwrite replaces a file, and a symlink itself rather than what it points to", async () => {
      const folder = await freshFolder("move-replace");
      const to = posix.join(folder, "existing.txt");
      await channel().writeFile(to, Buffer.from("old"));
      await channel().writeFile(posix.join(folder, "s1"), Buffer.from("new"));
      await channel().moveFile(posix.join(folder, "s1"), to, true);
      assert.equal(await readText(to), "new");
      await channel().writeFile(posix.join(folder, "victim.txt"), Buffer.from("untouched"));
      assert.equal((await run(["ln", "-s", "victim.txt", posix.join(folder, "link")])).exitCode, 0);
      await channel().writeFile(posix.join(folder, "s2"), Buffer.from("replaced the link"));
      await channel().moveFile(posix.join(folder, "s2"), posix.join(folder, "link"), true);
      assert.equal(await readText(posix.join(folder, "victim.txt")), "untouched");
      assert.equal((await run(["test", "-L", posix.join(folder, "link")])).exitCode, 1);
      assert.equal(await readText(posix.join(folder, "link")), "replaced the link");
    });

    it("refuses to replace a folder", async () => {
      const folder = await freshFolder("move-folder");
      await channel().writeFile(posix.join(folder, "dir", "inside.txt"), Buffer.from("x"));
      await channel().writeFile(posix.join(folder, "staged"), Buffer.from("y"));
      await assert.rejects(channel().moveFile(posix.join(folder, "staged"), posix.join(folder, "dir"), true), fileError("EISDIR"));
      assert.equal(await readText(posix.join(folder, "dir", "inside.txt")), "x");
    });
  });
}
