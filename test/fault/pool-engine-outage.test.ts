// Fault: the Docker engine goes away while the warm pool holds a ready sandbox (issue 11, part 1). The
// emulator reaches the machine's engine through a socket relay the test controls; pausing it cuts the
// pooled sandbox's channel (here on the engine's exec stream, EMULATOR_CHANNEL=exec: a channel on its own
// socket is not cut, engine-outage-socket.test.ts) and refuses new connections. The real dockerd is never stopped. What must hold:
// the pool empties (its sandbox is not handed out), a new environment meanwhile gets exactly what a
// cold create gets in an outage (a 503 UNAVAILABLE, retried by the SDK), and once the engine answers
// the pool fills again on its own, the broken sandbox is removed, and new environments come from it.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import Docker from "dockerode";
import { LABEL_POOLED } from "../../server/sandbox/docker/labels.js";
import { startDockerRelay } from "../support/docker-relay.js";
import { useFaultEmulator } from "../support/fault-emulator.js";
import { AGENT, assertGoogleError, bash, type Interaction, resultsOf, rest, script, sdk, waitFor } from "../support/fault-harness.js";

const fault = useFaultEmulator({
  relay: startDockerRelay,
  env: { EMULATOR_ENGINE_TIMEOUT_SECONDS: "3", EMULATOR_POOL_SIZE: "1", EMULATOR_CHANNEL: "exec" },
});

const readyCount = async (): Promise<number | undefined> => (await fault.emulator.pool())?.ready;

describe("the warm pool while the Docker engine is unreachable", () => {
  it("empties, leaves new environments to cold creates (503 as ever), and fills again once the engine is back", {
    timeout: 120_000,
  }, async () => {
    await waitFor("a ready pool sandbox", async () => ((await readyCount()) === 1 ? true : undefined), 60_000);
    const [broken] = await fault.emulator.pooledSandboxes();

    fault.relay.pause();
    try {
      await waitFor("the pool to give up its cut sandbox", async () => ((await readyCount()) === 0 ? true : undefined));
      const during = await rest(fault.emulator, "POST", "/v1beta/interactions", {
        agent: AGENT,
        input: script([bash("true")]),
        environment: { type: "remote" },
      });
      assertGoogleError(during, 503, "UNAVAILABLE", /Could not create the sandbox container/);
      // A fill or two fail meanwhile, and are retried with a growing pause.
      await sleep(1500);
    } finally {
      fault.relay.resume();
    }

    await waitFor("the pool to fill again", async () => ((await readyCount()) === 1 ? true : undefined), 60_000);
    await waitFor("the cut sandbox to be removed", async () => {
      const pooled = await fault.emulator.pooledSandboxes();
      return pooled.length === 1 && !pooled.includes(broken!) ? true : undefined;
    });
    const made = (await sdk(fault.emulator).interactions.create({
      agent: AGENT,
      input: script([bash("echo back")]),
      environment: { type: "remote" },
    })) as Interaction;
    assert.equal(made.status, "completed", JSON.stringify(made.errors));
    assert.deepEqual(resultsOf(made), ["back\n"]);
    await fault.emulator.namesSettled();
    const [container] = await new Docker().listContainers({
      all: true,
      filters: { name: [`^/iemu-${fault.emulator.instance}-${made.environment_id}$`] },
    });
    assert.equal(container?.Labels[LABEL_POOLED], "true", "taken from the refilled pool");
  });
});
