// Fault: the emulator is killed with SIGKILL in the middle of a run (no shutdown at all), then started
// again on the same data folder. What the user must see: the interaction that was running ends failed
// (ABORTED, saying the emulator stopped) with its steps so far; everything else stored is as it was;
// the environment is found again with its files and works, and the command the crash cut off is not
// left running in it.

import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";
import { type Interaction, resultsOf, rest, runIn, sdk, startLongCall, writeKeepFile } from "../support/fault-harness.js";

let emulator: EmulatorProcess | undefined;

after(async () => {
  await emulator?.destroy();
});

describe("the emulator killed with SIGKILL mid-run", () => {
  it("fails the running interaction with its steps kept; after a restart the environment works with its files", {
    timeout: 120_000,
  }, async () => {
    emulator = await startEmulatorProcess();
    let ai = sdk(emulator);
    const writer = await writeKeepFile(ai, "kept across a crash\n");
    const environmentId = writer.environment_id!;
    const runningId = await startLongCall(ai, environmentId, "echo started; sleep 3600");

    await emulator.crash();
    emulator = await startEmulatorProcess({}, emulator);
    ai = sdk(emulator);

    const ended = (await ai.interactions.get(runningId)) as Interaction;
    assert.equal(ended.status, "failed");
    assert.equal(ended.errors?.[0]?.code, "aborted");
    assert.match(ended.errors?.[0]?.message ?? "", /emulator stopped/);
    assert.deepEqual(
      (ended.steps ?? []).map((step) => step.type),
      ["user_input", "code_execution_call", "code_execution_result"],
    );
    assert.match(resultsOf(ended)[0] ?? "", /^started\n/);

    const stored = (await ai.interactions.get(writer.id!)) as Interaction;
    assert.equal(stored.status, "completed");
    // The create answer held the run's steps; GET has the input's user_input step before them.
    assert.deepEqual(stored.steps?.slice(1), writer.steps);

    const resource = await rest(emulator, "GET", `/v1beta/environments/${environmentId}`);
    assert.equal(resource.status, 200);
    assert.equal(resource.body.status, "active");
    assert.equal(resource.body.file_count, "1");
    assert.equal(await emulator.sandboxCount(), 1);

    const check = await runIn(ai, environmentId, "cat /workspace/keep.txt; pgrep -f '[s]leep 3600' || echo no-victim");
    assert.equal(check.status, "completed", JSON.stringify(check.errors));
    assert.deepEqual(resultsOf(check), ["kept across a crash\nno-victim\n"]);
  });
});
