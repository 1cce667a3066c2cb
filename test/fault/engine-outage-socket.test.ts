// Fault: the Docker engine stops answering, with the executor's channel on its own socket (the default,
// EMULATOR_CHANNEL=auto, docs/architecture.md "The channel's transport"). The emulator talks to the
// machine's engine through a socket relay the test controls (DOCKER_HOST=unix://<relay>); pausing the
// relay cuts every connection to the engine and refuses new ones. The real dockerd is never stopped.
// What the user must see: a live sandbox goes on working without the engine (a running call finishes,
// a new interaction in it runs, its files download), and so does a warm pool sandbox, which a new
// environment takes without an engine call; what needs the engine (a new sandbox once the pool is
// empty) is a 503 UNAVAILABLE that the SDK retries; afterwards everything works as before, and the
// container taken during the outage gets its environment's name.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { startDockerRelay } from "../support/docker-relay.js";
import { useFaultEmulator } from "../support/fault-emulator.js";
import {
  AGENT,
  assertGoogleError,
  bash,
  type Interaction,
  KEY,
  resultsOf,
  rest,
  runIn,
  script,
  startLongCall,
  waitFor,
  writeKeepFile,
} from "../support/fault-harness.js";

/** An environment holding /workspace/keep.txt, made before the outage. */
let environmentId: string;
const fault = useFaultEmulator({
  relay: startDockerRelay,
  // A pool of one that does not grow: the prepare step's take could otherwise double its target, and a
  // second sandbox made before the outage would answer the request that must find the pool empty.
  env: { EMULATOR_ENGINE_TIMEOUT_SECONDS: "3", EMULATOR_POOL_SIZE: "1", EMULATOR_POOL_MAX_SIZE: "1" },
  prepare: async ({ ai }) => {
    environmentId = (await writeKeepFile(ai, "precious\n")).environment_id!;
  },
});

describe("the Docker engine unreachable, with the channel on its own socket", () => {
  it("lets live sandboxes go on: a running call finishes, a new interaction, a download and a pooled environment work; a new sandbox is a 503", async () => {
    await waitFor(
      "a ready pool sandbox and no other being made",
      async () => {
        const pool = await fault.emulator.pool();
        return pool?.ready === 1 && pool.filling === 0 && pool.target === 1 ? true : undefined;
      },
      60_000,
    );
    const [waiting] = await fault.emulator.pooledSandboxes();
    const runningId = await startLongCall(fault.ai, environmentId, "echo started; sleep 3; echo finished");
    fault.relay.pause();
    let pooledId: string;
    try {
      const ended = await waitFor("the running call to end", async () => {
        const now = (await fault.ai.interactions.get(runningId)) as Interaction;
        return now.status === "in_progress" ? undefined : now;
      });
      assert.equal(ended.status, "completed", JSON.stringify(ended.errors));
      assert.deepEqual(resultsOf(ended), ["started\nfinished\n"]);

      const during = await rest(fault.emulator, "POST", "/v1beta/interactions", {
        agent: AGENT,
        input: script([bash("cat /workspace/keep.txt")]),
        environment: environmentId,
      });
      assert.equal(during.status, 200, JSON.stringify(during.body));
      assert.deepEqual(resultsOf(during.body as Interaction), ["precious\n"]);

      const file = await fetch(`${fault.emulator.url}/v1beta/environments/${environmentId}/files/workspace/keep.txt?alt=media`, {
        headers: { "x-goog-api-key": KEY },
      });
      assert.equal(file.status, 200);
      assert.equal(await file.text(), "precious\n");

      const pooled = await rest(fault.emulator, "POST", "/v1beta/interactions", {
        agent: AGENT,
        input: script([bash("echo pooled")]),
        environment: { type: "remote" },
      });
      assert.equal(pooled.status, 200, JSON.stringify(pooled.body));
      assert.deepEqual(resultsOf(pooled.body as Interaction), ["pooled\n"]);
      pooledId = (pooled.body as Interaction).environment_id!;

      const newOne = await rest(fault.emulator, "POST", "/v1beta/interactions", {
        agent: AGENT,
        input: script([bash("true")]),
        environment: { type: "remote" },
      });
      assertGoogleError(newOne, 503, "UNAVAILABLE");
    } finally {
      fault.relay.resume();
    }
    const later = await runIn(fault.ai, environmentId, "cat /workspace/keep.txt");
    assert.equal(later.status, "completed");
    assert.deepEqual(resultsOf(later), ["precious\n"]);
    // The rename the outage held back is tried again, and the engine then lists it as taken.
    await waitFor(
      "the taken pool container renamed",
      async () => ((await fault.emulator.pooledSandboxes()).includes(waiting!) ? undefined : true),
      30_000,
    );
    const again = await runIn(fault.ai, pooledId!, "echo again");
    assert.deepEqual(resultsOf(again), ["again\n"]);
  });
});
