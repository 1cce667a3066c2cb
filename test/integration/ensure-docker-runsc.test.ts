// server/bootstrap/ensure-docker.sh registers gVisor (runsc) with the engine it started, by adding a
// `runtimes` entry to the daemon's config file and sending it SIGHUP (dockerd reloads its runtimes on
// it; never a restart), and leaves any other engine alone. The machine's real dockerd is never
// involved: a fake daemon stands in for it, which writes its pid file as dockerd does and, on SIGHUP,
// re-reads its config file the way dockerd does; a fake `docker` first in PATH answers `docker info`
// with the runtimes the daemon last loaded, and a fake runsc stands in for gVisor.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { projectRoot } from "../../server/common/paths.js";

const SCRIPT = path.join(projectRoot, "server", "bootstrap", "ensure-docker.sh");

/** Like dockerd: writes its pid file, loads its config's runtimes at start and again at each SIGHUP. */
const FAKE_DAEMON = `#!${process.execPath}
const fs = require("node:fs");
const dir = process.env.FAKE_DIR;
const config = process.env.EMULATOR_DOCKERD_CONFIG;
let reloads = 0;
function load() {
  let runtimes = { runc: { path: "runc" } };
  try {
    runtimes = { ...runtimes, ...(JSON.parse(fs.readFileSync(config, "utf8")).runtimes ?? {}) };
  } catch {}
  fs.writeFileSync(dir + "/runtimes.json", JSON.stringify(runtimes));
  fs.writeFileSync(dir + "/reloads", String(reloads));
}
process.on("SIGHUP", () => {
  reloads += 1;
  load();
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(0));
fs.writeFileSync(process.env.EMULATOR_DOCKERD_PIDFILE, String(process.pid));
load();
fs.writeFileSync(dir + "/up", "");
setInterval(() => undefined, 60_000);
`;

const FAKE_DOCKER = `#!/bin/sh
[ -f "$FAKE_DIR/up" ] || exit 1
case "$1" in
  version) [ -f "$FAKE_DIR/version-unanswered" ] && exit 124; exit 0 ;;
  info) [ -f "$FAKE_DIR/info-unanswered" ] && exit 124; cat "$FAKE_DIR/runtimes.json" ;;
  *) exit 1 ;;
esac
`;

interface Run {
  code: number | null;
  output: string;
}

let dir: string;
let env: NodeJS.ProcessEnv;
const daemons: number[] = [];

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "ensure-runsc-"));
  fs.writeFileSync(path.join(dir, "fake-dockerd"), FAKE_DAEMON, { mode: 0o755 });
  fs.writeFileSync(path.join(dir, "docker"), FAKE_DOCKER, { mode: 0o755 });
  fs.writeFileSync(path.join(dir, "runsc"), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
  env = {
    ...process.env,
    PATH: `${dir}:${process.env.PATH ?? ""}`,
    FAKE_DIR: dir,
    EMULATOR_DOCKERD: path.join(dir, "fake-dockerd"),
    EMULATOR_DOCKERD_LOG: path.join(dir, "dockerd.log"),
    EMULATOR_DOCKERD_PIDFILE: path.join(dir, "docker.pid"),
    EMULATOR_DOCKERD_CONFIG: path.join(dir, "etc", "daemon.json"),
    EMULATOR_RUNSC: path.join(dir, "runsc"),
  };
  delete env.DOCKER_HOST;
  delete env.EMULATOR_SANDBOX_RUNTIME;
});

afterEach(() => {
  for (const pid of daemons.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

function bash(script: string, extra: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", `source "${SCRIPT}"; ${script}`], { env: { ...env, ...extra }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
    child.on("exit", (code) => resolve({ code, output }));
  });
}

/** The fake daemon as start_engine starts it (the set-up's own engine), or on its own (someone else's). */
async function startDaemon(how: "by the set-up" | "elsewhere"): Promise<number> {
  if (how === "by the set-up") {
    const started = await bash("start_engine");
    assert.equal(started.code, 0, started.output);
  } else {
    const child = spawn(path.join(dir, "fake-dockerd"), [], { env, stdio: "ignore", detached: true });
    child.unref();
    const deadline = Date.now() + 10_000;
    while (!fs.existsSync(path.join(dir, "up")) && Date.now() < deadline) await sleep(50);
  }
  const pid = Number(fs.readFileSync(path.join(dir, "docker.pid"), "utf8"));
  daemons.push(pid);
  return pid;
}

const reloads = () => Number(fs.readFileSync(path.join(dir, "reloads"), "utf8"));
const configFile = () => path.join(dir, "etc", "daemon.json");

describe("ensure-docker.sh and an engine of its own that runs but does not answer", () => {
  it("waits for it, and once the wait is over calls it hung: never starts a second one beside it", { timeout: 30_000 }, async () => {
    const pid = await startDaemon("by the set-up");
    fs.writeFileSync(path.join(dir, "version-unanswered"), "");
    const run = await bash("ensure_engine", { EMULATOR_ENGINE_WAIT_SECONDS: "2" });
    assert.equal(run.code, 1, run.output);
    assert.match(run.output, new RegExp(`\\(dockerd, pid ${pid}\\) runs but has not answered its version\\s+for 2 s: it is hung`));
    assert.doesNotMatch(run.output, /starting /, "no second engine started");
    assert.equal(Number(fs.readFileSync(path.join(dir, "docker.pid"), "utf8")), pid);
  });

  it("goes on once it answers within the wait (another `npm start` started it a moment ago)", { timeout: 30_000 }, async () => {
    const pid = await startDaemon("by the set-up");
    fs.writeFileSync(path.join(dir, "version-unanswered"), "");
    setTimeout(() => fs.rmSync(path.join(dir, "version-unanswered")), 1500);
    const run = await bash("ensure_engine", { EMULATOR_ENGINE_WAIT_SECONDS: "20" });
    assert.equal(run.code, 0, run.output);
    assert.match(run.output, /runs but does not answer; waiting up to 20 s/);
    assert.equal(Number(fs.readFileSync(path.join(dir, "docker.pid"), "utf8")), pid);
  });
});

describe("ensure-docker.sh registering gVisor (runsc)", () => {
  it("adds runsc to the config of the engine it started, keeps the rest, and has it reloaded, not restarted", {
    timeout: 30_000,
  }, async () => {
    fs.mkdirSync(path.join(dir, "etc"));
    fs.writeFileSync(configFile(), JSON.stringify({ "log-level": "warn", runtimes: { other: { path: "/bin/other" } } }));
    const pid = await startDaemon("by the set-up");

    const run = await bash("ensure_runsc");

    assert.equal(run.code, 0, run.output);
    assert.match(run.output, /Docker engine has runtime runsc/);
    const config = JSON.parse(fs.readFileSync(configFile(), "utf8"));
    assert.deepEqual(config, {
      "log-level": "warn",
      runtimes: {
        other: { path: "/bin/other" },
        runsc: { path: path.join(dir, "runsc"), runtimeArgs: ["--platform=ptrace", "--network=none", "--file-access=shared"] },
      },
    });
    assert.equal(reloads(), 1);
    process.kill(pid, 0); // still the same daemon: a reload, not a restart
    assert.ok("runsc" in JSON.parse(fs.readFileSync(path.join(dir, "runtimes.json"), "utf8")));

    // Once registered, nothing more is done.
    const again = await bash("ensure_runsc");
    assert.equal(again.code, 0, again.output);
    assert.equal(reloads(), 1);
  });

  it("writes the config file when there is none", { timeout: 30_000 }, async () => {
    await startDaemon("by the set-up");
    const run = await bash("ensure_runsc", { EMULATOR_SANDBOX_RUNTIME: "runsc" });
    assert.equal(run.code, 0, run.output);
    assert.deepEqual(JSON.parse(fs.readFileSync(configFile(), "utf8")).runtimes.runsc.runtimeArgs, [
      "--platform=ptrace",
      "--network=none",
      "--file-access=shared",
    ]);
    assert.equal(reloads(), 1);
  });

  it("gives an older runsc entry of its own engine today's arguments", { timeout: 30_000 }, async () => {
    fs.mkdirSync(path.join(dir, "etc"));
    fs.writeFileSync(configFile(), JSON.stringify({ runtimes: { runsc: { path: "/usr/bin/runsc", runtimeArgs: ["--platform=ptrace"] } } }));
    await startDaemon("by the set-up");
    const run = await bash("ensure_runsc");
    assert.equal(run.code, 0, run.output);
    assert.deepEqual(JSON.parse(fs.readFileSync(configFile(), "utf8")).runtimes.runsc.runtimeArgs, [
      "--platform=ptrace",
      "--network=none",
      "--file-access=shared",
    ]);
    assert.equal(reloads(), 1);
  });

  it("neither rewrites the config nor signals its own engine when `docker info` does not answer", { timeout: 30_000 }, async () => {
    fs.mkdirSync(path.join(dir, "etc"));
    fs.writeFileSync(configFile(), JSON.stringify({ "log-level": "warn" }));
    await startDaemon("by the set-up");
    // As timeout(1) ends a `docker info` that got no answer (an engine hung in libnetwork answers its version only).
    fs.writeFileSync(path.join(dir, "info-unanswered"), "");
    const run = await bash("ensure_runsc", { EMULATOR_SANDBOX_RUNTIME: "runsc" });
    assert.equal(run.code, 1, run.output);
    assert.match(run.output, /not `docker info` within 10 s.*nothing was changed/s);
    assert.deepEqual(JSON.parse(fs.readFileSync(configFile(), "utf8")), { "log-level": "warn" });
    assert.equal(reloads(), 0);
  });

  it("refuses to rewrite a config file that is not JSON", { timeout: 30_000 }, async () => {
    fs.mkdirSync(path.join(dir, "etc"));
    fs.writeFileSync(configFile(), "{ not json");
    await startDaemon("by the set-up");
    const run = await bash("ensure_runsc");
    assert.equal(run.code, 1, run.output);
    assert.match(run.output, /daemon\.json is not valid JSON .*fix it/);
    assert.equal(fs.readFileSync(configFile(), "utf8"), "{ not json");
    assert.equal(reloads(), 0);

    // The whole set-up stops for it only when gVisor is asked for; merely installed, it warns.
    const setUp = await bash("main");
    assert.equal(setUp.code, 0, setUp.output);
    assert.match(setUp.output, /warning: runsc is installed but could not be registered/);
    const asked = await bash("main", { EMULATOR_SANDBOX_RUNTIME: "runsc" });
    assert.equal(asked.code, 1, asked.output);
  });

  it("leaves an engine it did not start alone, and fails saying how to register runsc when asked for it", { timeout: 30_000 }, async () => {
    await startDaemon("elsewhere");

    const asked = await bash("ensure_runsc", { EMULATOR_SANDBOX_RUNTIME: "runsc" });
    assert.equal(asked.code, 1, asked.output);
    assert.match(asked.output, /EMULATOR_SANDBOX_RUNTIME=runsc, but the Docker engine has no runtime named runsc/);
    assert.match(
      asked.output,
      /"runtimes": \{"runsc": \{"path": "\/usr\/bin\/runsc", "runtimeArgs": \["--platform=ptrace","--network=none","--file-access=shared"\]\}\}/,
    );
    assert.match(asked.output, /systemctl reload docker/);

    // Installed but not asked for: nothing to say, nothing done.
    const notAsked = await bash("ensure_runsc");
    assert.equal(notAsked.code, 0, notAsked.output);
    assert.equal(notAsked.output, "");

    assert.equal(fs.existsSync(configFile()), false);
    assert.equal(reloads(), 0);
  });

  it("does nothing when runsc is neither installed nor asked for", { timeout: 30_000 }, async () => {
    await startDaemon("by the set-up");
    const run = await bash("ensure_runsc", { EMULATOR_RUNSC: path.join(dir, "no-such-runsc") });
    assert.equal(run.code, 0, run.output);
    assert.equal(run.output, "");
    assert.equal(fs.existsSync(configFile()), false);
    assert.equal(reloads(), 0);
  });
});
