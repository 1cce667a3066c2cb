// Behaviour every SandboxChannel must show, whatever carries it (a local executor process, a Docker
// exec). Commands stick to bash, coreutils and python3, and files to paths under scratchDir, so the
// same suite runs inside the sandbox image (scratchDir /workspace).

import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { once } from "node:events";
import { posix } from "node:path";
import type { Duplex } from "node:stream";
import { finished } from "node:stream/promises";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { EGRESS_MAX_STREAMS, EGRESS_WINDOW_BYTES, PROTOCOL_VERSION } from "../../sandbox-image/executor/protocol.js";
import { EgressStream } from "../../server/sandbox/egress-stream.js";
import {
  SandboxEgressError,
  SandboxFileError,
  SandboxUnavailableError,
  type CommandRequest,
  type CommandResult,
  type SandboxChannel,
} from "../../server/sandbox/runtime.js";
import * as programs from "./egress-programs.js";
import { PRINT_LIVE_PIDS } from "./process-probes.js";

export interface ChannelUnderTest {
  channel: SandboxChannel;
  /** An existing, writable, empty-enough folder inside the sandbox. */
  scratchDir: string;
  /** Where the channel's egress listener goes: 3128 in a sandbox; 0 (any free port) on a shared host. */
  egressPort: number;
  /** Another channel to the same sandbox (a second executor); tests close the ones they open. */
  openAnotherChannel: () => Promise<SandboxChannel>;
  teardown: () => Promise<void>;
}

const MiB = 1024 * 1024;


export function channelConformanceSuite(name: string, setup: () => Promise<ChannelUnderTest>): void {
  describe(`SandboxChannel conformance: ${name}`, { timeout: 300_000 }, () => {
    let subject: ChannelUnderTest | undefined;
    let folderCount = 0;

    before(async () => {
      subject = await setup();
    });
    after(async () => {
      await subject?.teardown();
    });

    const channel = (): SandboxChannel => {
      assert.ok(subject, "setup did not complete");
      return subject.channel;
    };

    /** A fresh folder per test, so tests never see each other's files. */
    const freshFolder = async (label: string): Promise<string> => {
      assert.ok(subject, "setup did not complete");
      const folder = posix.join(subject.scratchDir, `${++folderCount}-${label}`);
      const made = await run(["mkdir", "-p", folder]);
      assert.equal(made.exitCode, 0, made.stderr.toString());
      return folder;
    };

    const run = (argv: string[], options: Partial<CommandRequest> = {}): Promise<CommandResult> =>
      channel().run({ argv, timeoutMs: 15_000, maxOutputBytes: MiB, ...options });

    const bash = (script: string, options: Partial<CommandRequest> = {}): Promise<CommandResult> =>
      run(["bash", "-c", script], options);

    const livePids = async (pids: string[]): Promise<string> =>
      (await run(["python3", "-c", PRINT_LIVE_PIDS, ...pids])).stdout.toString().trim();

    const readText = async (path: string): Promise<string> => (await channel().readFile(path, MiB)).content.toString();

    const fileError = (code: string, pathInMessage?: string) => (error: unknown) => {
      assert.ok(error instanceof SandboxFileError, `expected SandboxFileError, got ${String(error)}`);
      assert.equal(error.code, code);
      if (pathInMessage !== undefined) assert.ok(error.message.includes(pathInMessage), error.message);
      return true;
    };

    describe("ping", () => {
      it("reports the protocol version and the executor's pid and uid", async () => {
        const pong = await channel().ping();
        assert.equal(pong.version, PROTOCOL_VERSION);
        assert.ok(Number.isInteger(pong.pid) && pong.pid > 0);
        assert.ok(Number.isInteger(pong.uid) && pong.uid >= 0);
      });
    });

    describe("exec", () => {
      it("returns stdout, stderr and the exit code separately", async () => {
        const result = await bash("echo out; echo err >&2; exit 3");
        assert.equal(result.stdout.toString(), "out\n");
        assert.equal(result.stderr.toString(), "err\n");
        assert.equal(result.exitCode, 3);
        assert.equal(result.signal, null);
        assert.equal(result.timedOut, false);
        assert.equal(result.cancelled, false);
        assert.equal(result.stdoutBytes, 4);
        assert.equal(result.stderrBytes, 4);
        assert.ok(result.durationMs >= 0);
      });

      it("runs argv without a shell", async () => {
        const result = await run(["printf", "%s|", "a b", "$HOME", "*"]);
        assert.equal(result.stdout.toString(), "a b|$HOME|*|");
      });

      it("delivers stdin and then closes it", async () => {
        const result = await run(["cat"], { stdin: Buffer.from("line one\nline two\n") });
        assert.equal(result.stdout.toString(), "line one\nline two\n");
        assert.equal(result.exitCode, 0);
      });

      it("closes stdin at once when none is given", async () => {
        const result = await run(["cat"], { timeoutMs: 5_000 });
        assert.equal(result.timedOut, false);
        assert.equal(result.stdout.length, 0);
      });

      it("does not fail when the program ignores a large stdin", async () => {
        const result = await run(["true"], { stdin: Buffer.alloc(2 * MiB, 0x61) });
        assert.equal(result.exitCode, 0);
      });

      it("merges env over the sandbox's environment and honours cwd", async () => {
        const folder = await freshFolder("cwd");
        const result = await bash('printf "%s\\n" "$GREETING" "$(pwd)"; test -n "$PATH" && echo has-path', {
          env: { GREETING: "hello there" },
          cwd: folder,
        });
        assert.equal(result.stdout.toString(), `hello there\n${folder}\nhas-path\n`);
      });

      it("streams output as it is produced, before the command ends", async () => {
        const started = Date.now();
        let firstChunkAt: number | null = null;
        const result = await bash("echo first; sleep 1.5; echo second", {
          onOutput: (stream, chunk) => {
            if (stream === "stdout" && chunk.length > 0 && firstChunkAt === null) firstChunkAt = Date.now();
          },
        });
        assert.equal(result.stdout.toString(), "first\nsecond\n");
        assert.ok(firstChunkAt !== null, "onOutput was never called");
        assert.ok(firstChunkAt - started < 1_000, `first chunk after ${firstChunkAt - started} ms`);
      });

      it("reports a missing program as exit code 127 with the reason on stderr", async () => {
        const result = await run(["no-such-program-7f3a"]);
        assert.equal(result.exitCode, 127);
        assert.match(result.stderr.toString(), /no-such-program-7f3a/);
      });

      it("reports a missing working directory as a failed start naming the folder", async () => {
        const folder = await freshFolder("bad-cwd");
        const missing = posix.join(folder, "missing");
        const result = await run(["pwd"], { cwd: missing });
        assert.notEqual(result.exitCode, 0);
        assert.match(result.stderr.toString(), /missing/);
      });

      it("runs several commands at once", async () => {
        const started = Date.now();
        const results = await Promise.all(
          Array.from({ length: 6 }, (_, index) => bash(`sleep 1; echo ${index}`)),
        );
        const elapsed = Date.now() - started;
        results.forEach((result, index) => assert.equal(result.stdout.toString(), `${index}\n`));
        assert.ok(elapsed < 4_000, `6 one-second commands took ${elapsed} ms: not concurrent`);
      });

      it("keeps serving file requests while commands run", async () => {
        const folder = await freshFolder("concurrent-files");
        const slow = bash("sleep 1; echo done");
        const path = posix.join(folder, "during.txt");
        await channel().writeFile(path, Buffer.from("written meanwhile"));
        assert.equal(await readText(path), "written meanwhile");
        assert.equal((await slow).stdout.toString(), "done\n");
      });
    });

    describe("deadlines and cancellation", () => {
      it("kills a command that outlives its deadline together with its background and new-session children", async () => {
        const folder = await freshFolder("deadline");
        const started = Date.now();
        const result = await bash(
          [
            "(sleep 2; echo survived > background-survived) &",
            "echo $! > background.pid",
            "python3 -c 'import os, time",
            "os.setsid()",
            'open("session.pid", "w").write(str(os.getpid()))',
            "time.sleep(2)",
            'open("session-survived", "w").write("survived")\' &',
            "sleep 30",
          ].join("\n"),
          { cwd: folder, timeoutMs: 1_500 },
        );
        const elapsed = Date.now() - started;
        assert.equal(result.timedOut, true);
        assert.equal(result.cancelled, false);
        assert.equal(result.exitCode, null);
        assert.equal(result.signal, "SIGKILL");
        assert.ok(elapsed < 4_000, `the exit came ${elapsed} ms after the start`);

        const pids = [await readText(posix.join(folder, "background.pid")), await readText(posix.join(folder, "session.pid"))];
        assert.equal(await livePids(pids.map((pid) => pid.trim())), "", "children still running after the deadline");
        // Past the moment the children would have written their files.
        await sleep(Math.max(0, started + 3_500 - Date.now()));
        const names = (await channel().listFiles(folder)).map((entry) => entry.name);
        assert.deepEqual(names, ["background.pid", "session.pid"]);
      });

      it("keeps draining a chatty command past the cap until its deadline", async () => {
        const started = Date.now();
        const result = await run(["yes"], { timeoutMs: 1_000, maxOutputBytes: 64 * 1024 });
        assert.equal(result.timedOut, true);
        assert.equal(result.stdout.length, 64 * 1024);
        assert.ok(result.stdoutBytes > 1 * MiB, `only ${result.stdoutBytes} bytes drained: the child was blocked`);
        assert.ok(Date.now() - started < 4_000);
      });

      it("cancels a running command, with its children, when the signal aborts", async () => {
        const folder = await freshFolder("cancel");
        const controller = new AbortController();
        const started = Date.now();
        setTimeout(() => controller.abort(), 700);
        const result = await bash("sleep 30 & echo $! > child.pid; wait", { cwd: folder, signal: controller.signal });
        assert.equal(result.cancelled, true);
        assert.equal(result.timedOut, false);
        assert.equal(result.exitCode, null);
        assert.ok(Date.now() - started < 3_000);
        const childPid = (await readText(posix.join(folder, "child.pid"))).trim();
        assert.equal(await livePids([childPid]), "");
      });

      it("cancels at once when the signal is already aborted", async () => {
        const started = Date.now();
        const result = await run(["sleep", "30"], { signal: AbortSignal.abort() });
        assert.equal(result.cancelled, true);
        assert.ok(Date.now() - started < 3_000);
      });

      it("finishes promptly when a background child keeps the output pipe open", async () => {
        const started = Date.now();
        const result = await bash("sleep 5 & echo $!");
        assert.equal(result.exitCode, 0);
        assert.ok(Date.now() - started < 2_500, `took ${Date.now() - started} ms`);
        await run(["kill", result.stdout.toString().trim()]);
      });
    });

    describe("output caps", () => {
      it("keeps maxOutputBytes per stream, counts the rest, and finishes promptly", async () => {
        const started = Date.now();
        const seen = { stdout: 0, stderr: 0 };
        const result = await bash("head -c 5242880 /dev/zero; head -c 3000000 /dev/zero >&2", {
          maxOutputBytes: MiB,
          onOutput: (stream, chunk) => (seen[stream] += chunk.length),
        });
        assert.equal(result.exitCode, 0);
        assert.equal(result.stdout.length, MiB);
        assert.equal(result.stderr.length, MiB);
        assert.equal(result.stdoutBytes, 5 * MiB);
        assert.equal(result.stderrBytes, 3_000_000);
        assert.deepEqual(seen, { stdout: MiB, stderr: MiB });
        assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
      });

      it("keeps nothing with a zero cap but still counts", async () => {
        const result = await bash("echo hidden", { maxOutputBytes: 0 });
        assert.equal(result.stdout.length, 0);
        assert.equal(result.stdoutBytes, 7);
      });
    });

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
        assert.deepEqual((await channel().listFiles(folder)).map((entry) => entry.name), ["real"]);
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
        assert.equal((await bash("ln -s real linkdir && ln -s real/target.txt linkfile && ln -s nowhere dangling", { cwd: folder })).exitCode, 0);
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
        for (const [name, content] of [["a.txt", "a"], ["b/c.txt", "cc"], ["b/d/e.txt", "eee"], ["b.txt", "bbbb"]] as const) {
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
        assert.deepEqual(entries.map((entry) => entry.path), FULL);
        const byPath = new Map(entries.map((entry) => [entry.path, entry]));
        assert.equal(byPath.get("")?.type, "directory");
        assert.equal(byPath.get("b/d/e.txt")?.size, 3);
        assert.equal(byPath.get("b")?.type, "directory");
        assert.equal(byPath.get("link")?.type, "symlink");
      });

      it("lists only the children without recursive", async () => {
        const folder = await makeTree("walk-flat");
        const { entries } = await channel().walk(folder, { recursive: false, limit: 100 });
        assert.deepEqual(entries.map((entry) => entry.path), ["", "a.txt", "b", "b.txt", "link"]);
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
        assert.deepEqual(entries.map((entry) => entry.path), ["", "a.txt", "b", "b.txt", "link"]);
      });

      it("starts through a symlink, and lists a file start as itself", async () => {
        const folder = await makeTree("walk-start");
        const viaLink = await channel().walk(posix.join(folder, "link"), { recursive: true, limit: 100 });
        assert.deepEqual(viaLink.entries.map((entry) => entry.path), ["", "c.txt", "d", "d/e.txt"]);
        const file = await channel().walk(posix.join(folder, "a.txt"), { recursive: true, limit: 100 });
        assert.deepEqual(file.entries.map((entry) => [entry.path, entry.type, entry.size]), [["", "file", 1]]);
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
        const all = await channel().usage([folder, posix.join(folder, "sub"), posix.join(folder, "sub", "two.txt"), posix.join(folder, "missing")]);
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
        await assert.rejects(channel().appendFile(posix.join(folder, "dangling"), 0, Buffer.from("x"), { create: true }), fileError("EEXIST"));
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

    describe("egress streams", () => {
      let egressPort = 0;
      const KiB = 1024;

      before(async () => {
        assert.ok(subject, "setup did not complete");
        egressPort = await channel().listenEgress(subject.egressPort);
        if (subject.egressPort !== 0) assert.equal(egressPort, subject.egressPort);
      });

      const openAnotherChannel = (): Promise<SandboxChannel> => {
        assert.ok(subject, "setup did not complete");
        return subject.openAnotherChannel();
      };

      /** Runs one of the egress programs in the sandbox against a listener port (the channel's by default). */
      const runProgram = (program: string, args: Array<string | number> = [], port = egressPort): Promise<CommandResult> =>
        run(["python3", "-c", program, String(port), ...args.map(String)], { timeoutMs: 60_000 });

      const reportOf = <T>(result: CommandResult): T => {
        assert.equal(result.exitCode, 0, `program failed: ${result.stderr.toString()}`);
        const lines = result.stdout.toString().trim().split("\n");
        return JSON.parse(lines.at(-1) ?? "null") as T;
      };

      /**
       * Serves the streams of the next connections with `serve`. Each stream gets an 'error' listener
       * first, so a failure lands in the test (through `served`) rather than crashing the runner.
       */
      const serveEgress = (target: SandboxChannel, serve: (stream: Duplex) => Promise<void>) => {
        const served: Array<Promise<void>> = [];
        target.onEgressStream((stream) => {
          stream.on("error", () => undefined);
          const serving = serve(stream);
          serving.catch(() => undefined);
          served.push(serving);
        });
        return { count: () => served.length, served: () => Promise.all(served) };
      };

      const readToEnd = (stream: Duplex): Promise<Buffer> =>
        new Promise((resolve, reject) => {
          const chunks: Buffer[] = [];
          stream.on("data", (chunk: Buffer) => chunks.push(chunk));
          stream.once("end", () => resolve(Buffer.concat(chunks)));
          stream.once("error", reject);
          // A 'data' listener alone does not restart a stream that was explicitly paused.
          stream.resume();
        });

      /** The first line (newline included); the stream is left paused after it. */
      const readLine = (stream: Duplex): Promise<string> =>
        new Promise((resolve, reject) => {
          let text = "";
          const onData = (chunk: Buffer): void => {
            text += chunk.toString();
            if (!text.includes("\n")) return;
            stream.off("data", onData);
            stream.pause();
            resolve(text);
          };
          stream.on("data", onData);
          stream.once("end", () => resolve(text));
          stream.once("error", reject);
        });

      /** Resolves with the stream's error, or null if it closed without one. */
      const outcome = (stream: Duplex): Promise<Error | null> =>
        new Promise((resolve) => {
          stream.once("error", resolve);
          stream.once("close", () => resolve(null));
        });

      const upperCaseEcho = async (stream: Duplex): Promise<void> => {
        const line = await readLine(stream);
        stream.write(line.toUpperCase());
        await readToEnd(stream);
        stream.end();
        await finished(stream);
      };

      it("carries a sandbox program's connection to the server's handler and back", async () => {
        const server = serveEgress(channel(), upperCaseEcho);
        const report = reportOf<string>(await runProgram(programs.ROUND_TRIP, ["hello from the sandbox"]));
        assert.equal(report, "HELLO FROM THE SANDBOX\n");
        await server.served();
        assert.equal(server.count(), 1);
      });

      it("ends the server's readable side when the program half-closes, and still carries the answer back", async () => {
        const server = serveEgress(channel(), async (stream) => {
          const question = await readToEnd(stream);
          stream.end(`answer to: ${question.toString()}`);
          await finished(stream);
        });
        const report = reportOf<string>(await runProgram(programs.HALF_CLOSE_FIRST));
        assert.equal(report, "answer to: question from the sandbox");
        await server.served();
      });

      it("ends the program's reading side when the server half-closes, and still carries the program's data", async () => {
        let received = "";
        const server = serveEgress(channel(), async (stream) => {
          stream.end("greeting from the server");
          received = (await readToEnd(stream)).toString();
          await finished(stream);
        });
        const report = reportOf<string>(await runProgram(programs.SEND_AFTER_SERVER_END));
        assert.equal(report, "greeting from the server");
        await server.served();
        assert.equal(received, "sent after the server's end");
      });

      it("carries 20 MiB from the program to a slow server reader, holding the program back meanwhile", async (t) => {
        const total = 20 * MiB;
        let heldAfterStall = -1;
        let maxHeld = 0;
        let maxReadableLength = 0;
        let readingStartedAt = 0;
        const server = serveEgress(channel(), async (stream) => {
          assert.ok(stream instanceof EgressStream);
          // Not reading at all for a while: the program must stall, not the memory grow.
          await sleep(2_000);
          heldAfterStall = stream.unacknowledgedBytesReceived;
          readingStartedAt = Date.now();
          const digest = createHash("sha256");
          let received = 0;
          let chunks = 0;
          for await (const chunk of stream.iterator({ destroyOnReturn: false })) {
            maxHeld = Math.max(maxHeld, stream.unacknowledgedBytesReceived);
            maxReadableLength = Math.max(maxReadableLength, stream.readableLength);
            digest.update(chunk as Buffer);
            received += (chunk as Buffer).length;
            if (++chunks % 4 === 0) await sleep(1);
          }
          stream.end(`${received} ${digest.digest("hex")}`);
          await finished(stream);
        });
        const report = reportOf<{ sentDuringStall: number; sha256: string; reply: string }>(
          await runProgram(programs.UPLOAD, [total, 1.5]),
        );
        await server.served();
        const seconds = (Date.now() - readingStartedAt) / 1000;
        t.diagnostic(`sent while the reader stalled: ${report.sentDuringStall} bytes; slow read of the rest: ${(total / MiB / seconds).toFixed(1)} MiB/s`);
        assert.equal(report.reply, `${total} ${report.sha256}`, "the bytes arrived changed");
        // Window + executor socket buffers + a small kernel send buffer; far from the 20 MiB it would reach unheld.
        assert.ok(report.sentDuringStall < 4 * MiB, `the program sent ${report.sentDuringStall} bytes while nobody read`);
        assert.ok(heldAfterStall > 0 && heldAfterStall <= EGRESS_WINDOW_BYTES, `held ${heldAfterStall} bytes after the stall`);
        assert.ok(maxHeld <= EGRESS_WINDOW_BYTES, `held ${maxHeld} bytes while reading`);
        assert.ok(maxReadableLength <= 128 * KiB, `readable buffer reached ${maxReadableLength} bytes`);
      });

      it("carries 20 MiB from the server to a slow program reader, holding the server's writes back meanwhile", async (t) => {
        const total = 20 * MiB;
        // The executor's socket send buffer is the kernel's to size (Node cannot cap it) and autotunes up
        // to tcp_wmem's maximum; beyond that, one window and the stream buffers is all we may hold.
        const wmem = await run(["cat", "/proc/sys/net/ipv4/tcp_wmem"]);
        const kernelSendBufferMax = Number(wmem.stdout.toString().trim().split(/\s+/)[2]);
        const allowedDuringStall = kernelSendBufferMax + EGRESS_WINDOW_BYTES + 512 * KiB;
        assert.ok(allowedDuringStall < total / 2, `tcp_wmem allows ${kernelSendBufferMax} bytes: too much for this test to mean anything`);
        const payload = randomBytes(total);
        let writtenDuringStall = -1;
        let maxInFlight = 0;
        let maxWritableLength = 0;
        let falseWrites = 0;
        let startedAt = 0;
        const server = serveEgress(channel(), async (stream) => {
          assert.ok(stream instanceof EgressStream);
          stream.resume();
          startedAt = Date.now();
          let offset = 0;
          const probe = setTimeout(() => (writtenDuringStall = offset), 1_000);
          try {
            while (offset < total) {
              const chunk = payload.subarray(offset, offset + 64 * KiB);
              offset += chunk.length;
              const more = stream.write(chunk);
              maxInFlight = Math.max(maxInFlight, stream.unacknowledgedBytesSent);
              maxWritableLength = Math.max(maxWritableLength, stream.writableLength);
              if (!more) {
                falseWrites++;
                await once(stream, "drain");
              }
            }
          } finally {
            clearTimeout(probe);
          }
          stream.end();
          await finished(stream);
        });
        const report = reportOf<{ received: number; sha256: string }>(await runProgram(programs.SLOW_DOWNLOAD, [2.0]));
        await server.served();
        const seconds = (Date.now() - startedAt) / 1000 - 2;
        t.diagnostic(`written while the reader stalled: ${writtenDuringStall} bytes; slow read of the rest: ${(total / MiB / seconds).toFixed(1)} MiB/s`);
        assert.equal(report.received, total);
        assert.equal(report.sha256, createHash("sha256").update(payload).digest("hex"), "the bytes arrived changed");
        assert.ok(
          writtenDuringStall >= 0 && writtenDuringStall < allowedDuringStall,
          `write() took ${writtenDuringStall} bytes while nobody read (allowed: ${allowedDuringStall})`,
        );
        assert.ok(falseWrites > 0, "write() never asked the writer to wait");
        assert.ok(maxInFlight <= EGRESS_WINDOW_BYTES, `${maxInFlight} bytes in flight`);
        assert.ok(maxWritableLength <= 128 * KiB, `the writable buffer reached ${maxWritableLength} bytes`);
      });

      it("serves 50 connections open at the same time", async () => {
        const count = 50;
        let open = 0;
        let maxOpen = 0;
        let complete = 0;
        let allArrived!: () => void;
        const arrived = new Promise<void>((resolve) => (allArrived = resolve));
        const server = serveEgress(channel(), async (stream) => {
          maxOpen = Math.max(maxOpen, ++open);
          stream.once("close", () => open--);
          const text = (await readToEnd(stream)).toString();
          if (++complete === count) allArrived();
          // Nobody is answered before every connection is open at once.
          await arrived;
          stream.end(text.toUpperCase());
          await finished(stream);
        });
        const replies = reportOf<string[]>(await runProgram(programs.MANY_CONNECTIONS, [count]));
        await server.served();
        assert.deepEqual(replies, Array.from({ length: count }, (_, index) => `CONNECTION ${index}`));
        assert.equal(maxOpen, count);
      });

      it("resets the program's socket when the server destroys the stream", async () => {
        let streamOutcome: Promise<Error | null> | undefined;
        serveEgress(channel(), async (stream) => {
          streamOutcome = outcome(stream);
          await once(stream, "data");
          stream.destroy();
        });
        assert.equal(reportOf<string>(await runProgram(programs.AWAIT_VERDICT)), "reset");
        assert.equal(await streamOutcome, null);
      });

      it("still delivers what was sent, then closes normally, when the server destroys the stream after ending it", async () => {
        const payload = randomBytes(MiB);
        serveEgress(channel(), async (stream) => {
          stream.resume();
          stream.end(payload);
          // Everything has left for the sandbox, the program has not read the last window yet.
          await new Promise((resolve) => stream.once("finish", resolve));
          stream.destroy();
        });
        const report = reportOf<{ received: number; sha256: string }>(await runProgram(programs.SLOW_DOWNLOAD, [1.0]));
        assert.equal(report.received, payload.length);
        assert.equal(report.sha256, createHash("sha256").update(payload).digest("hex"));
      });

      it("fails the server stream with ECONNRESET when the program resets its connection", async () => {
        let failure: Error | null = null;
        const server = serveEgress(channel(), async (stream) => {
          const ended = outcome(stream);
          stream.write("ready\n");
          await readLine(stream);
          stream.write("got it\n");
          stream.resume();
          failure = await ended;
        });
        assert.equal(reportOf<string>(await runProgram(programs.RESET_CONNECTION)), "reset sent");
        await server.served();
        assert.ok(failure !== null, "the stream closed without an error");
        assert.equal((failure as NodeJS.ErrnoException).code, "ECONNRESET");
      });

      it("ends the server stream when the program exits, and fails the server's writes after", async () => {
        let received = "";
        let failure: Error | null = null;
        const server = serveEgress(channel(), async (stream) => {
          const ended = outcome(stream);
          received = (await readToEnd(stream)).toString();
          // The program is gone: writing on must fail (its kernel answers with a reset), not pile up.
          const writer = setInterval(() => stream.write("anyone there?\n"), 50);
          failure = await ended;
          clearInterval(writer);
        });
        assert.equal(reportOf<string>(await runProgram(programs.EXIT_MID_CONNECTION)), "exiting");
        await server.served();
        assert.equal(received, "last words");
        assert.ok(failure !== null, "the stream closed without an error");
        assert.ok(["EPIPE", "ECONNRESET"].includes((failure as NodeJS.ErrnoException).code ?? ""), String(failure));
      });

      it(`refuses connections beyond ${EGRESS_MAX_STREAMS} at once, and takes new ones once they close`, async () => {
        const extra = 20;
        const server = serveEgress(channel(), async (stream) => {
          stream.resume();
          await once(stream, "end");
          stream.end();
          await finished(stream);
        });
        const flood = reportOf<{ open: number; closed: number }>(await runProgram(programs.FLOOD, [EGRESS_MAX_STREAMS + extra]));
        await server.served();
        assert.deepEqual(flood, { open: EGRESS_MAX_STREAMS, closed: extra });
        assert.equal(server.count(), EGRESS_MAX_STREAMS);
        serveEgress(channel(), upperCaseEcho);
        assert.equal(reportOf<string>(await runProgram(programs.ROUND_TRIP, ["after the flood"])), "AFTER THE FLOOD\n");
      });

      it("destroys every stream when the channel closes, and the program sees its connections reset", async () => {
        const other = await openAnotherChannel();
        const port = await other.listenEgress(0);
        const count = 3;
        const outcomes: Array<Promise<Error | null>> = [];
        let allOpen!: () => void;
        const opened = new Promise<void>((resolve) => (allOpen = resolve));
        other.onEgressStream((stream) => {
          outcomes.push(outcome(stream));
          stream.resume();
          if (outcomes.length === count) allOpen();
        });
        const program = runProgram(programs.WATCH_CONNECTIONS_END, [count], port);
        await opened;
        other.close();
        await other.closed;
        for (const failure of await Promise.all(outcomes)) assert.ok(failure instanceof SandboxUnavailableError, String(failure));
        const report = reportOf<{ outcomes: string[]; later: string }>(await program);
        assert.deepEqual(report, { outcomes: ["reset", "reset", "reset"], later: "refused" });
      });

      it("listens on the same port again once the previous executor has exited", async () => {
        const first = await openAnotherChannel();
        const port = await first.listenEgress(0);
        const second = await openAnotherChannel();
        try {
          const started = Date.now();
          // Asked while the first executor still holds the port: it retries until the port is free.
          const listening = second.listenEgress(port);
          await sleep(800);
          first.close();
          assert.equal(await listening, port);
          assert.ok(Date.now() - started >= 800, "the port was never busy");
          serveEgress(second, upperCaseEcho);
          assert.equal(reportOf<string>(await runProgram(programs.ROUND_TRIP, ["second life"], port)), "SECOND LIFE\n");
        } finally {
          first.close();
          second.close();
        }
      });

      it("fails with EADDRINUSE when the port stays taken for the whole retry period", async () => {
        const other = await openAnotherChannel();
        try {
          const started = Date.now();
          await assert.rejects(other.listenEgress(egressPort), (error: unknown) => {
            assert.ok(error instanceof SandboxEgressError, String(error));
            assert.equal(error.code, "EADDRINUSE");
            return true;
          });
          assert.ok(Date.now() - started >= 4_000, `gave up after ${Date.now() - started} ms`);
        } finally {
          other.close();
        }
      });

      it("refuses a second listener on the same channel with EALREADY", async () => {
        await assert.rejects(channel().listenEgress(0), (error: unknown) => {
          assert.ok(error instanceof SandboxEgressError, String(error));
          assert.equal(error.code, "EALREADY");
          return true;
        });
      });
    });

    describe("endurance", () => {
      it("survives a thousand sequential calls, every answer correct", { timeout: 180_000 }, async () => {
        const folder = await freshFolder("thousand");
        const pathFor = (slot: number): string => posix.join(folder, `slot-${slot}.txt`);
        for (let call = 0; call < 1_000; call++) {
          const slot = call % 5;
          switch (call % 4) {
            case 0: {
              const result = await run(["printf", "%s", `call ${call}`]);
              assert.equal(result.stdout.toString(), `call ${call}`);
              break;
            }
            case 1:
              await channel().writeFile(pathFor(slot), Buffer.from(`value ${call}`));
              break;
            case 2: {
              const result = await run(["cat", pathFor((call - 1) % 5)]);
              assert.equal(result.stdout.toString(), `value ${call - 1}`);
              break;
            }
            default: {
              const kind = (call >> 2) % 3;
              if (kind === 0) assert.equal(await readText(pathFor((call - 2) % 5)), `value ${call - 2}`);
              else if (kind === 1) assert.equal((await channel().ping()).version, PROTOCOL_VERSION);
              else assert.ok((await channel().listFiles(folder)).length <= 5);
            }
          }
        }
        assert.equal((await channel().ping()).version, PROTOCOL_VERSION);
      });
    });
  });
}
