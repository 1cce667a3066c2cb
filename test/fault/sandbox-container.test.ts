// Fault: an environment's container is killed (`docker kill`) or removed (`docker rm -f`) from outside,
// between calls or during one. What the user must see:
// - killed: the container still exists with its files, so the environment is started again at its next
//   use and works; a call it cut fails with UNAVAILABLE, its output so far kept.
// - removed: the engine positively reports the container gone, so its files are gone and retrying
//   cannot help: the environment is expired, and using it is a 400 FAILED_PRECONDITION that says so
//   and what to do (not a 5xx the SDK would retry four times). A call it cut fails with UNAVAILABLE.
// Either way nothing stored is lost: the interactions made in it stay readable, and other environments
// are untouched.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import Docker from "dockerode";
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
  waitFor,
  writeKeepFile,
  startLongCall,
} from "../support/fault-harness.js";

const docker = new Docker();
/** An environment no fault touches: it must stay as it is. */
let bystander: string;
const fault = useFaultEmulator({
  prepare: async () => {
    bystander = (await newEnvironment("bystander\n")).environmentId;
  },
});

/** A new environment holding /workspace/keep.txt, and the interaction that wrote it. */
async function newEnvironment(content: string): Promise<{ environmentId: string; writer: Interaction }> {
  const writer = await writeKeepFile(fault.ai, content);
  return { environmentId: writer.environment_id!, writer };
}

async function containerOf(environmentId: string): Promise<Docker.Container> {
  const [info] = await docker.listContainers({
    all: true,
    filters: {
      label: [`dev.interactions-emulator.instance=${fault.emulator.instance}`, `dev.interactions-emulator.environment=${environmentId}`],
    },
  });
  assert.ok(info, `no container for ${environmentId}`);
  return docker.getContainer(info.Id);
}

async function endOf(interactionId: string): Promise<Interaction> {
  return waitFor("the interaction to end", async () => {
    const now = (await fault.ai.interactions.get(interactionId)) as Interaction;
    return now.status === "in_progress" ? undefined : now;
  });
}

/** A call cut by its sandbox: failed with UNAVAILABLE, the output so far and the steps kept. */
function assertCutOff(ended: Interaction): void {
  assert.equal(ended.status, "failed");
  assert.equal(ended.errors?.[0]?.code, "service_unavailable");
  assert.match(ended.errors?.[0]?.message ?? "", /stopped answering during the run .*steps so far are kept/);
  assert.match(resultsOf(ended)[0] ?? "", /^started\n/);
  assert.equal(ended.steps?.at(-1)?.type, "model_output");
}

async function assertWorksWithFile(environmentId: string, content: string): Promise<void> {
  const check = await runIn(fault.ai, environmentId, "cat /workspace/keep.txt");
  assert.equal(check.status, "completed", JSON.stringify(check.errors));
  assert.deepEqual(resultsOf(check), [content]);
}

async function assertExpiredWhenUsed(environmentId: string): Promise<void> {
  const refused = await rest(fault.emulator, "POST", "/v1beta/interactions", {
    agent: AGENT,
    input: script([bash("true")]),
    environment: environmentId,
  });
  assertGoogleError(refused, 400, "FAILED_PRECONDITION", /has expired: its sandbox container is gone.*Create a new environment/);
  const resource = await rest(fault.emulator, "GET", `/v1beta/environments/${environmentId}`);
  assert.equal(resource.status, 200);
  assert.equal(resource.body.status, "expired");
  // Refused again the same way, not something else, on every later use.
  const again = await rest(fault.emulator, "POST", "/v1beta/interactions", {
    agent: AGENT,
    input: script([bash("true")]),
    environment: environmentId,
  });
  assertGoogleError(again, 400, "FAILED_PRECONDITION", /expired/);
}

/** What the fault must not touch: stored interactions, and the other environment. */
async function assertNothingElseLost(writer: Interaction): Promise<void> {
  const stored = (await fault.ai.interactions.get(writer.id!)) as Interaction;
  assert.equal(stored.status, "completed");
  // The create answer held the run's steps; GET has the input's user_input step before them.
  assert.deepEqual(stored.steps?.slice(1), writer.steps);
  await assertWorksWithFile(bystander, "bystander\n");
}

describe("the sandbox container killed", () => {
  it("between calls: the next call starts it again, with its files", async () => {
    const { environmentId, writer } = await newEnvironment("survives a kill\n");
    await (await containerOf(environmentId)).kill();
    await assertWorksWithFile(environmentId, "survives a kill\n");
    // The files API reaches it as well.
    await (await containerOf(environmentId)).kill();
    const download = await fetch(`${fault.emulator.url}/v1beta/environments/${environmentId}/files/workspace/keep.txt?alt=media`, {
      headers: { "x-goog-api-key": "fault-suite-key" },
    });
    assert.equal(download.status, 200);
    assert.equal(await download.text(), "survives a kill\n");
    await assertNothingElseLost(writer);
  });

  it("during a call: that call fails with UNAVAILABLE, and the environment works again with its files", async () => {
    const { environmentId, writer } = await newEnvironment("survives a kill mid-call\n");
    const running = await startLongCall(fault.ai, environmentId, "echo started; sleep 60; echo finished");
    await (await containerOf(environmentId)).kill();
    assertCutOff(await endOf(running));
    await assertWorksWithFile(environmentId, "survives a kill mid-call\n");
    const resource = await rest(fault.emulator, "GET", `/v1beta/environments/${environmentId}`);
    assert.equal(resource.body.status, "active");
    await assertNothingElseLost(writer);
  });
});

describe("the sandbox container removed", () => {
  it("between calls: the environment is expired, and every use says so with a 400", async () => {
    const { environmentId, writer } = await newEnvironment("gone\n");
    await (await containerOf(environmentId)).remove({ force: true });
    await assertExpiredWhenUsed(environmentId);
    await assertNothingElseLost(writer);
  });

  it("during a call: that call fails with UNAVAILABLE, then the environment is expired", async () => {
    const { environmentId, writer } = await newEnvironment("gone mid-call\n");
    const running = await startLongCall(fault.ai, environmentId, "echo started; sleep 60; echo finished");
    await (await containerOf(environmentId)).remove({ force: true });
    assertCutOff(await endOf(running));
    await assertExpiredWhenUsed(environmentId);
    await assertNothingElseLost(writer);
    const cut = (await fault.ai.interactions.get(running)) as Interaction;
    assert.equal(cut.status, "failed", "the cut interaction stays as it ended");
  });
});
