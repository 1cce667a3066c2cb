// Fault: the Docker engine stops answering, with the executor's channel on its own socket (the default,
// EMULATOR_CHANNEL=auto, docs/architecture.md "The channel's transport"). The emulator talks to the
// machine's engine through a socket relay the test controls (DOCKER_HOST=unix://<relay>); pausing the
// relay cuts every connection to the engine and refuses new ones. The real dockerd is never stopped.
// What the user must see: a live sandbox goes on working without the engine (a running call finishes,
// a new interaction in it runs, its files download), while what needs the engine (a new sandbox) is a
// 503 UNAVAILABLE that the SDK retries; afterwards everything works as before.

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
  env: { EMULATOR_ENGINE_TIMEOUT_SECONDS: "3" },
  prepare: async ({ ai }) => {
    environmentId = (await writeKeepFile(ai, "precious\n")).environment_id!;
  },
});

describe("the Docker engine unreachable, with the channel on its own socket", () => {
  it("lets a live sandbox go on: a running call finishes, a new interaction and a download work; a new sandbox is a 503", async () => {
    const runningId = await startLongCall(fault.ai, environmentId, "echo started; sleep 3; echo finished");
    fault.relay.pause();
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
  });
});
