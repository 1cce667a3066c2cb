// The executor sizes Go's scheduler by its container's CPU quota (sandbox-image/executor-go/
// cpu_quota.go, whose parsing cpu_quota_test.go covers). Here, against the real engine: a sandbox shows
// its quota where the executor reads it, to its own user too, for EMULATOR_SANDBOX_CPUS of 1 and 1.5
// (either way the executor then runs one scheduler, not one per core of the machine).

import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { DockerRuntime } from "../../server/sandbox/docker/docker-runtime.js";
import { removeAllSandboxes, testDockerRuntime } from "../support/docker-fixture.js";

const runtimes: DockerRuntime[] = [];

after(async () => {
  for (const runtime of runtimes) await removeAllSandboxes(runtime);
});

/** The cgroup files cpu_quota.go reads (v2's cpu.max first, then v1's pair), as the sandbox shows them. */
const READ_QUOTA =
  "if [ -r /sys/fs/cgroup/cpu.max ]; then cat /sys/fs/cgroup/cpu.max; " +
  "else echo $(cat /sys/fs/cgroup/cpu/cpu.cfs_quota_us) $(cat /sys/fs/cgroup/cpu/cpu.cfs_period_us); fi";

describe("the CPU quota the executor sizes its scheduler by", () => {
  for (const [cpus, cores] of [
    ["1", 1],
    ["1.5", 1],
  ] as const) {
    it(`is where the executor reads it, in a sandbox of EMULATOR_SANDBOX_CPUS=${cpus}`, async () => {
      const runtime = await testDockerRuntime({ EMULATOR_SANDBOX_CPUS: cpus });
      runtimes.push(runtime);
      const handle = await runtime.create({ environmentId: `env_itestquota${cpus.replace(".", "")}`, owner: "owner", files: [] });
      const channel = await runtime.connect(handle);
      const result = await channel.run({ argv: ["bash", "-c", READ_QUOTA], timeoutMs: 10_000, maxOutputBytes: 4096 });
      assert.equal(result.exitCode, 0, result.stderr.toString());
      const [quota, period] = result.stdout.toString("utf8").trim().split(/\s+/).map(Number);
      assert.ok(quota !== undefined && period !== undefined && period > 0, `no quota shown: ${result.stdout.toString()}`);
      assert.equal(quota / period, Number(cpus));
      assert.equal(Math.max(1, Math.floor(quota / period)), cores);
    });
  }
});
