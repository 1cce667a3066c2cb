// EMULATOR_SANDBOX_RUNTIME (docs/security.md#gvisor): a runtime the engine lacks stops the runtime at
// prepare(), naming the setting; under runsc a sandbox really runs under gVisor's kernel, its tools
// work, and its process limit holds inside it without bringing its kernel down. The gVisor tests run
// wherever the engine has runsc registered (the set-up registers it when runsc is installed; .ci/run
// installs it), and in CI they fail rather than skip when it is not.

import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, describe, it } from "node:test";
import Docker from "dockerode";
import { ConfigError } from "../../server/common/config.js";
import type { DockerRuntime } from "../../server/sandbox/docker/docker-runtime.js";
import type { SandboxChannel, SandboxHandle } from "../../server/sandbox/runtime.js";
import { runTool } from "../../server/tools/tool-runner.js";
import { removeAllSandboxes, testDockerRuntime } from "../support/docker-fixture.js";

const docker = new Docker();
const PIDS = 64;

async function engineRuntimes(): Promise<string[]> {
  const info = (await docker.info()) as { Runtimes?: Record<string, unknown> };
  return Object.keys(info.Runtimes ?? {});
}

describe("EMULATOR_SANDBOX_RUNTIME naming a runtime the engine lacks", () => {
  it("stops prepare() with an error naming the setting, the engine's runtimes and what to do", { timeout: 60_000 }, async () => {
    await assert.rejects(testDockerRuntime({ EMULATOR_SANDBOX_RUNTIME: "no-such-runtime" }), (error: Error) => {
      assert.ok(error instanceof ConfigError, `${error.name}: ${error.message}`);
      assert.match(
        error.message,
        /^EMULATOR_SANDBOX_RUNTIME=no-such-runtime, but the Docker engine has no runtime named "no-such-runtime" \(its runtimes: .*runc/,
      );
      assert.match(error.message, /daemon\.json/);
      assert.match(error.message, /unset EMULATOR_SANDBOX_RUNTIME/);
      return true;
    });
  });
});

const runscRegistered = (await engineRuntimes()).includes("runsc");
const whyNot =
  "the Docker engine has no runtime runsc (install runsc and run server/bootstrap/ensure-docker.sh as root: docs/setup.md#gvisor)";
if (!runscRegistered) {
  if (process.env.CI === "true") throw new Error(`CI must cover gVisor, but ${whyNot}`);
  console.log(`# skipping the gVisor sandbox tests: ${whyNot}`);
}

describe("a sandbox under gVisor (EMULATOR_SANDBOX_RUNTIME=runsc)", { skip: runscRegistered ? false : whyNot, timeout: 300_000 }, () => {
  let runtime: DockerRuntime;
  let handle: SandboxHandle;
  let channel: SandboxChannel;

  async function sh(script: string, timeoutMs = 20_000) {
    return channel.run({ argv: ["bash", "-c", script], timeoutMs, maxOutputBytes: 1 << 20 });
  }

  before(async () => {
    runtime = await testDockerRuntime({ EMULATOR_SANDBOX_RUNTIME: "runsc", EMULATOR_SANDBOX_PIDS: String(PIDS) });
    handle = await runtime.create({ environmentId: "env_itestgvisor", owner: "owner", files: [] });
    channel = await runtime.connect(handle);
    // Every test below is about a sandbox under gVisor: none passes for one under another runtime.
    assert.equal((await docker.getContainer(handle.sandboxId).inspect()).HostConfig.Runtime, "runsc");
  });

  after(async () => {
    channel?.close();
    if (runtime) await removeAllSandboxes(runtime);
  });

  it("runs its container under runsc, with the process limit inside it and the host's tasks bounded", async () => {
    const info = await docker.getContainer(handle.sandboxId).inspect();
    assert.equal(info.HostConfig.Runtime, "runsc");
    assert.ok(runtime.underGvisor);
    assert.equal(info.HostConfig.PidsLimit, PIDS * 16 + 512);
    assert.deepEqual(
      (info.HostConfig.Ulimits ?? []).find((limit) => limit.Name === "nproc"),
      { Name: "nproc", Soft: PIDS, Hard: PIDS },
    );
  });

  it("has gVisor's kernel between its code and the host's: its dmesg and /proc/version are gVisor's", async () => {
    const result = await sh("dmesg | head -n 1; cat /proc/version; ulimit -u");
    assert.equal(result.exitCode, 0, result.stderr.toString());
    const [banner, version, nproc] = result.stdout.toString().trim().split("\n");
    assert.match(banner ?? "", /Starting gVisor/);
    assert.notEqual(version, fs.readFileSync("/proc/version", "utf8").trim(), "the sandbox sees the host's kernel");
    assert.equal(nproc, String(PIDS));
  });

  it("runs coreutils' ls and stat, which bookworm's runsc alone refuses (statx with AT_NO_AUTOMOUNT)", async () => {
    const result = await sh("cd /tmp && echo x > f && ls f && ls -l f | cut -c1-10 && stat -c '%n %U %a' f /");
    assert.equal(result.exitCode, 0, result.stderr.toString());
    assert.equal(result.stdout.toString(), "f\n-rw-r--r--\nf sandbox 644\n/ root 755\n");
  });

  it("runs a tool call", async () => {
    const result = await runTool(
      channel,
      { name: "code_execution", args: { code: "print(sum(range(10)))", language: "python" } },
      { timeoutMs: 20_000, maxOutputBytes: 64 * 1024 },
    );
    assert.deepEqual([result.result, result.isError], ["45\n", false]);
  });

  it("stops a fork bomb at its process limit, and keeps running for the next call", async () => {
    // Killed at its deadline with everything it started (the executor's process-tree kill).
    const bomb = await sh("b() { b | b & }; b; sleep 60", 8_000);
    assert.notEqual(bomb.exitCode, 0);
    assert.equal((await docker.getContainer(handle.sandboxId).inspect()).State.Running, true, "the sandbox's kernel went down");
    const next = await sh("echo ok; ps -e --no-headers | wc -l");
    assert.equal(next.exitCode, 0, next.stderr.toString());
    const [ok, processes] = next.stdout.toString().trim().split("\n");
    assert.equal(ok, "ok");
    assert.ok(Number(processes) < 20, `${processes} processes are left`);
  });
});
