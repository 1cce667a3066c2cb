// EMULATOR_SANDBOX_RUNTIME (docs/security.md#gvisor): how the setting is read, the error for a runtime
// the engine lacks, and how a sandbox's process limit maps under gVisor.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadConfig } from "../../server/common/config.js";
import { missingRuntimeMessage, processLimitHostConfig, RUNSC_DAEMON_ENTRY } from "../../server/sandbox/docker/container-runtime.js";

describe("EMULATOR_SANDBOX_RUNTIME", () => {
  it("is unset by default (the engine's default runtime), and empty counts as unset", () => {
    assert.equal(loadConfig({ HOME: "/home/u" }).EMULATOR_SANDBOX_RUNTIME, undefined);
    assert.equal(loadConfig({ HOME: "/home/u", EMULATOR_SANDBOX_RUNTIME: " " }).EMULATOR_SANDBOX_RUNTIME, undefined);
    assert.equal(loadConfig({ HOME: "/home/u", EMULATOR_SANDBOX_RUNTIME: "runsc" }).EMULATOR_SANDBOX_RUNTIME, "runsc");
    assert.equal(
      loadConfig({ HOME: "/home/u", EMULATOR_SANDBOX_RUNTIME: "io.containerd.runc.v2" }).EMULATOR_SANDBOX_RUNTIME,
      "io.containerd.runc.v2",
    );
  });

  it("refuses what cannot be a runtime's name, naming the setting", () => {
    assert.throws(() => loadConfig({ EMULATOR_SANDBOX_RUNTIME: "runsc --debug" }), /EMULATOR_SANDBOX_RUNTIME: a runtime name/);
  });

  it("says, for a runtime the engine lacks, which it has and how to register runsc", () => {
    const message = missingRuntimeMessage("runsc", ["runc", "io.containerd.runc.v2"]);
    assert.match(
      message,
      /^EMULATOR_SANDBOX_RUNTIME=runsc, but the Docker engine has no runtime named "runsc" \(its runtimes: runc, io\.containerd\.runc\.v2\)/,
    );
    assert.ok(message.includes(RUNSC_DAEMON_ENTRY));
    assert.match(message, /ensure-docker\.sh/);
    assert.match(message, /reload/);
    assert.doesNotMatch(missingRuntimeMessage("kata", []), /runsc/);
  });

  it("bounds a sandbox's processes with the cgroup under runc, inside it under gVisor", () => {
    assert.deepEqual(processLimitHostConfig(512, false), { PidsLimit: 512, Ulimits: [] });
    assert.deepEqual(processLimitHostConfig(512, true), {
      PidsLimit: 512 * 16 + 512,
      Ulimits: [{ Name: "nproc", Soft: 512, Hard: 512 }],
    });
  });
});
