// Fault: the Docker engine stops answering for a few seconds. The emulator talks to the machine's engine
// through a socket relay the test controls (DOCKER_HOST=unix://<relay>); pausing the relay cuts every
// connection, the executor channels included, and refuses new ones. Here the channels ride the engine
// (EMULATOR_CHANNEL=exec, as with a remote DOCKER_HOST or gVisor); with the socket channel a live sandbox
// does not need the engine at all (engine-outage-socket.test.ts).
// The real dockerd is never stopped. What the user must see: a 503 UNAVAILABLE (which the SDK retries)
// or an interaction failed with UNAVAILABLE, never a 4xx, and afterwards the same environment with the
// same files, working again, also across a restart of the emulator.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { startDockerRelay } from "../support/docker-relay.js";
import { startEmulatorProcess } from "../support/emulator-process.js";
import { useFaultEmulator } from "../support/fault-emulator.js";
import {
  AGENT,
  assertGoogleError,
  bash,
  type Interaction,
  resultsOf,
  rest,
  runIn,
  script,
  sdk,
  waitFor,
  writeKeepFile,
  startLongCall,
} from "../support/fault-harness.js";

/** How long the engine may take to answer a look-up here (default 10 s), to keep the hung-engine case short. */
const ENGINE_TIMEOUT_SECONDS = 3;
/** An environment holding /workspace/keep.txt, made before any outage. */
let environmentId: string;
const fault = useFaultEmulator({
  relay: startDockerRelay,
  env: { EMULATOR_ENGINE_TIMEOUT_SECONDS: String(ENGINE_TIMEOUT_SECONDS), EMULATOR_CHANNEL: "exec" },
  prepare: async ({ ai }) => {
    environmentId = (await writeKeepFile(ai, "precious\n")).environment_id!;
  },
});

/** The environment still holds the file and runs commands: the proof that nothing was lost. */
async function assertEnvironmentWorks(): Promise<void> {
  const check = await runIn(fault.ai, environmentId, "cat /workspace/keep.txt");
  assert.equal(check.status, "completed", JSON.stringify(check.errors));
  assert.deepEqual(resultsOf(check), ["precious\n"]);
  const resource = await rest(fault.emulator, "GET", `/v1beta/environments/${environmentId}`);
  assert.equal(resource.status, 200);
  assert.equal(resource.body.status, "active");
}

describe("the Docker engine unreachable for a few seconds", () => {
  it("mid-call: the interaction fails with UNAVAILABLE, its steps kept; the environment survives and works again", async () => {
    const runningId = await startLongCall(fault.ai, environmentId, "echo started; sleep 30; echo finished");

    fault.relay.pause();
    const ended = await waitFor("the interaction to end", async () => {
      const now = (await fault.ai.interactions.get(runningId)) as Interaction;
      return now.status === "in_progress" ? undefined : now;
    });
    // While the engine is away, the environment is unavailable (503, retried by the SDK), not gone.
    const during = await rest(fault.emulator, "GET", `/v1beta/environments/${environmentId}`);
    assertGoogleError(during, 503, "UNAVAILABLE", /Docker engine/);
    const callDuring = await rest(fault.emulator, "POST", "/v1beta/interactions", {
      agent: AGENT,
      input: script([bash("true")]),
      environment: environmentId,
    });
    assertGoogleError(callDuring, 503, "UNAVAILABLE", /Docker engine/);
    const fileDuring = await rest(fault.emulator, "GET", `/v1beta/environments/${environmentId}/files/workspace/keep.txt?alt=media`);
    assertGoogleError(fileDuring, 503, "UNAVAILABLE", /Docker engine/);
    // The list is read from the store: still there, still active (its counts cannot be taken now).
    const listed = await rest(fault.emulator, "GET", "/v1beta/environments");
    assert.equal(listed.status, 200);
    const entry = (listed.body.environments as Array<{ id: string; status: string }>).find((item) => item.id === environmentId);
    assert.equal(entry?.status, "active");
    await sleep(2000);
    fault.relay.resume();

    assert.equal(ended.status, "failed");
    assert.equal(ended.errors?.[0]?.code, "service_unavailable");
    assert.match(ended.errors?.[0]?.message ?? "", /sandbox|Docker engine/);
    assert.match(resultsOf(ended)[0] ?? "", /^started\n/, "the output so far is kept");
    assert.deepEqual(
      (ended.steps ?? []).map((step) => step.type),
      ["user_input", "code_execution_call", "code_execution_result", "model_output"],
    );
    await assertEnvironmentWorks();
  });

  it("when an interaction is created: a 503 UNAVAILABLE that the SDK's retries get past once the engine is back", async () => {
    fault.relay.pause();
    try {
      const refused = await rest(fault.emulator, "POST", "/v1beta/interactions", {
        agent: AGENT,
        input: script([bash("true")]),
        environment: environmentId,
      });
      assertGoogleError(refused, 503, "UNAVAILABLE", /Docker engine/);
      const newOne = await rest(fault.emulator, "POST", "/v1beta/interactions", {
        agent: AGENT,
        input: script([bash("true")]),
        environment: { type: "remote" },
      });
      assertGoogleError(newOne, 503, "UNAVAILABLE");
    } finally {
      // The SDK's first retry comes about half a second after the refusal, the next about a second later.
      setTimeout(() => fault.relay.resume(), 1500);
    }
    const retried = await runIn(fault.ai, environmentId, "cat /workspace/keep.txt");
    assert.equal(retried.status, "completed");
    assert.deepEqual(resultsOf(retried), ["precious\n"]);
    await assertEnvironmentWorks();
  });

  it("hung (connections accepted, never answered): a 503 UNAVAILABLE after EMULATOR_ENGINE_TIMEOUT_SECONDS, then works again", async () => {
    fault.relay.pause(); // cuts the open channel, so the next request must ask the engine
    fault.relay.stall();
    const started = Date.now();
    try {
      const during = await rest(fault.emulator, "GET", `/v1beta/environments/${environmentId}`);
      const waited = Date.now() - started;
      assertGoogleError(during, 503, "UNAVAILABLE", new RegExp(`did not answer within ${ENGINE_TIMEOUT_SECONDS} s`));
      assert.ok(
        waited >= ENGINE_TIMEOUT_SECONDS * 1000 - 100 && waited < ENGINE_TIMEOUT_SECONDS * 1000 + 5000,
        `answered after ${waited} ms`,
      );
    } finally {
      fault.relay.resume();
    }
    await assertEnvironmentWorks();
  });

  it("keeps the environment and its container across a restart of the emulator after an outage", async () => {
    fault.relay.pause();
    await sleep(500);
    fault.relay.resume();
    await fault.emulator.stop();
    fault.emulator = await startEmulatorProcess({}, fault.emulator);
    fault.ai = sdk(fault.emulator);
    assert.equal(await fault.emulator.sandboxCount(), 1);
    await assertEnvironmentWorks();
  });
});
