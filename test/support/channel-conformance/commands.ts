// SandboxChannel conformance, part: ping, exec, deadlines and cancellation, output caps.

import assert from "node:assert/strict";
import { posix } from "node:path";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { PROTOCOL_VERSION } from "../../../sandbox-image/executor/protocol.js";
import { MiB, type ChannelSuite } from "./context.js";

export function commandBehaviours(t: ChannelSuite): void {
  const { channel, freshFolder, run, bash, livePids, readText } = t;
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
      const endedAt = Date.now();
      assert.equal(result.stdout.toString(), "first\nsecond\n");
      assert.ok(firstChunkAt !== null, "onOutput was never called");
      // Measured from the end rather than the start, so that a slow spawn (a loaded machine, gVisor)
      // cannot make it fail: "first" came a good part of the 1.5 s sleep before the command ended.
      assert.ok(
        endedAt - firstChunkAt > 1_000,
        `first chunk after ${firstChunkAt - started} ms, only ${endedAt - firstChunkAt} ms before the end`,
      );
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
      // Against one such command's own time, spawn included (slower on a loaded machine or under gVisor):
      // six one after another would take six times as long.
      const alone = Date.now();
      await bash("sleep 1; echo alone");
      const single = Date.now() - alone;
      const started = Date.now();
      const results = await Promise.all(Array.from({ length: 6 }, (_, index) => bash(`sleep 1; echo ${index}`)));
      const elapsed = Date.now() - started;
      for (const [index, result] of results.entries()) assert.equal(result.stdout.toString(), `${index}\n`);
      assert.ok(elapsed < 4.5 * single, `6 one-second commands took ${elapsed} ms, one alone ${single} ms: not concurrent`);
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
}
