// server/bootstrap/ensure-docker.sh starts the Docker engine in a session of its own, so signals meant
// for whoever ran `npm start` (Ctrl-C, the end of a CI job, `timeout npm start`: each signals the
// caller's whole process group) never reach it. The machine's real dockerd is never involved: the
// script's start_engine runs a fake daemon (EMULATOR_DOCKERD) that records its pid, session and process
// group and, like dockerd, shuts down on SIGINT, SIGTERM or SIGHUP; a fake `docker` first in PATH
// answers only once that daemon is up.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { projectRoot } from "../../server/common/paths.js";

const SCRIPT = path.join(projectRoot, "server", "bootstrap", "ensure-docker.sh");

interface DaemonFacts {
  pid: number;
  sid: number;
  pgid: number;
}

/** A stand-in for dockerd: it takes a moment to come up, like the real one, and writes what it is. */
const FAKE_DAEMON = `#!${process.execPath}
const fs = require("node:fs");
const dir = process.env.FAKE_DIR;
// /proc/self/stat: pid (comm) state ppid pgrp session …
const stat = fs.readFileSync("/proc/self/stat", "utf8");
const [, , pgid, sid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ").map(Number);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    fs.writeFileSync(dir + "/daemon-stopped", signal);
    process.exit(0);
  });
}
setTimeout(() => fs.writeFileSync(dir + "/daemon.json", JSON.stringify({ pid: process.pid, sid, pgid })), 1500);
setInterval(() => undefined, 60_000);
`;

const FAKE_DOCKER = `#!/bin/sh
# Answers like \`docker version\` against an engine only once the fake daemon is up.
[ -f "$FAKE_DIR/daemon.json" ]
`;

const startedDaemons: number[] = [];

after(() => {
  for (const pid of startedDaemons) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return !"ZX".includes(stat.slice(stat.lastIndexOf(")") + 2)[0] ?? "X");
  } catch {
    return false;
  }
}

describe("ensure-docker.sh starting the engine", () => {
  for (const signals of [["SIGINT"], ["SIGTERM"], ["SIGHUP", "SIGINT", "SIGTERM"]] as const) {
    it(`leaves it running when the caller's process group gets ${signals.join(", ")}`, { timeout: 30_000 }, async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ensure-docker-"));
      try {
        const daemon = path.join(dir, "fake-dockerd");
        fs.writeFileSync(daemon, FAKE_DAEMON, { mode: 0o755 });
        fs.writeFileSync(path.join(dir, "docker"), FAKE_DOCKER, { mode: 0o755 });
        // Belt and braces: even a script that ignored EMULATOR_DOCKERD would find this one first.
        fs.copyFileSync(daemon, path.join(dir, "dockerd"));
        fs.chmodSync(path.join(dir, "dockerd"), 0o755);

        // The caller (as `npm start` would be) leads a process group of its own, so signalling that
        // group reaches everything it started in it, and nothing of this test runner.
        const caller = spawn("bash", ["-c", `source "${SCRIPT}"; start_engine && echo start_engine-returned; sleep 60`], {
          env: {
            ...process.env,
            PATH: `${dir}:${process.env.PATH ?? ""}`,
            FAKE_DIR: dir,
            EMULATOR_DOCKERD: daemon,
            EMULATOR_DOCKERD_LOG: path.join(dir, "dockerd.log"),
          },
          detached: true,
          stdio: ["ignore", "pipe", "pipe"],
        });
        let output = "";
        caller.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
        caller.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
        const exited = new Promise<void>((resolve) => caller.once("exit", () => resolve()));

        const deadline = Date.now() + 15_000;
        while (!output.includes("start_engine-returned") && Date.now() < deadline) await sleep(50);
        assert.match(output, /Docker engine is up\nstart_engine-returned/, output);
        // start_engine returned only once the engine answered: the daemon had written its facts.
        const facts = JSON.parse(fs.readFileSync(path.join(dir, "daemon.json"), "utf8")) as DaemonFacts;
        startedDaemons.push(facts.pid);

        for (const signal of signals) {
          try {
            process.kill(-caller.pid!, signal);
          } catch {
            // the group's leader may be gone after the first signal
          }
          await sleep(100);
        }
        await exited;
        await sleep(300);

        assert.equal(fs.existsSync(path.join(dir, "daemon-stopped")), false, "the daemon got the signal and stopped");
        assert.ok(isRunning(facts.pid), "the daemon is not running");
        assert.equal(facts.sid, facts.pid, "the daemon leads a session of its own");
        assert.equal(facts.pgid, facts.pid, "the daemon leads a process group of its own");
        assert.notEqual(facts.pgid, caller.pid, "the daemon is in the caller's process group");
      } finally {
        for (const pid of startedDaemons.splice(0)) {
          try {
            process.kill(pid, "SIGKILL");
          } catch {
            // already gone
          }
        }
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  it("reports a daemon that never answers, with its log", { timeout: 90_000 }, async () => {
    // Not run for the full 60 s: the script's loop is shortened through `seq` on PATH.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ensure-docker-"));
    try {
      const daemon = path.join(dir, "silent-dockerd");
      fs.writeFileSync(daemon, "#!/bin/sh\necho 'failed to start daemon: pretend'\nexit 1\n", { mode: 0o755 });
      fs.writeFileSync(path.join(dir, "docker"), "#!/bin/sh\nexit 1\n", { mode: 0o755 });
      fs.writeFileSync(path.join(dir, "seq"), "#!/bin/sh\necho 1; echo 2\n", { mode: 0o755 });
      const result = await new Promise<{ code: number | null; output: string }>((resolve) => {
        const child = spawn("bash", ["-c", `source "${SCRIPT}"; start_engine`], {
          env: {
            ...process.env,
            PATH: `${dir}:${process.env.PATH ?? ""}`,
            EMULATOR_DOCKERD: daemon,
            EMULATOR_DOCKERD_LOG: path.join(dir, "dockerd.log"),
          },
          stdio: ["ignore", "pipe", "pipe"],
        });
        let output = "";
        child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
        child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
        child.on("exit", (code) => resolve({ code, output }));
      });
      assert.equal(result.code, 1);
      assert.match(result.output, /did not answer within 60 s; see .*dockerd\.log:\nfailed to start daemon: pretend/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
