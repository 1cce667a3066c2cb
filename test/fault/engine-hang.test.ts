// Fault: the Docker engine takes connections but stops answering some calls, the shape of Debian's
// Docker 20.10 deadlock in libnetwork (seen on this project's machine: `docker version` and `docker ps`
// answered, every create, inspect and remove hung for 13 minutes). The emulator reaches the machine's
// engine through a relay that reads each request and holds the chosen ones unanswered; the real dockerd
// is never touched. What must hold: /health says "not answering" (not fooled by /version and /_ping
// answering), new work fails at once with a 503 UNAVAILABLE naming the engine, the engine is never
// asked more than the bounds at once however many requests come, and once it answers again the
// emulator recovers by itself.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import Docker from "dockerode";
import { LABEL_INSTANCE } from "../../server/sandbox/docker/labels.js";
import { DEADLOCK_SHAPE, startDockerHttpRelay } from "../support/docker-http-relay.js";
import { useFaultEmulator } from "../support/fault-emulator.js";
import { AGENT, assertGoogleError, bash, type Interaction, resultsOf, rest, runIn, script, waitFor } from "../support/fault-harness.js";

/** Kept small so that the hang is noticed in seconds. */
const ENGINE_TIMEOUT_SECONDS = 3;
const MAX_CALLS = 4;
const MAX_CHANGES = 2;
/** More creates at once than the bounds let through. */
const BURST = 12;
const [CREATE] = DEADLOCK_SHAPE;

/** An environment made before the hang: its container is one the engine answered for. */
let environmentId: string;
const fault = useFaultEmulator({
  relay: startDockerHttpRelay,
  env: {
    EMULATOR_ENGINE_TIMEOUT_SECONDS: String(ENGINE_TIMEOUT_SECONDS),
    EMULATOR_ENGINE_MAX_CALLS: String(MAX_CALLS),
    EMULATOR_ENGINE_MAX_CONTAINER_CHANGES: String(MAX_CHANGES),
    EMULATOR_POOL_SIZE: "0",
  },
  prepare: async ({ emulator }) => {
    const made = await rest(emulator, "POST", "/v1beta/environments", {});
    assert.equal(made.status, 200, JSON.stringify(made.body));
    environmentId = made.body.id as string;
  },
});

interface Health {
  status: string;
  docker: { ok: boolean; state?: string; since?: string; detail: string; checked_ms_ago?: number };
}

const health = async (): Promise<{ status: number; body: Health }> => {
  const response = await fetch(`${fault.emulator.url}/health`);
  return { status: response.status, body: (await response.json()) as Health };
};

describe("a Docker engine that takes connections but does not answer creates, inspects and removals", () => {
  it("has /health answer from the engine's last answer while its probe is held, then report the engine", { timeout: 60_000 }, async () => {
    const first = await health();
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(typeof first.body.docker.checked_ms_ago, "number");

    fault.relay.hang([{ method: "GET", path: /^\/version$/ }]);
    try {
      // Once its answer is a second old, /health probes again in the background; the relay holds that probe.
      const seen: number[] = [];
      await waitFor("/health's probe to be held at the engine", async () => {
        seen.push((await health()).status);
        return fault.relay.pending > 0 ? true : undefined;
      });
      const during = await health();
      assert.ok(fault.relay.pending > 0, "the probe is still held");
      assert.equal(during.status, 200, JSON.stringify(during.body));
      assert.equal(during.body.docker.state, "answering");
      assert.ok(during.body.docker.checked_ms_ago! >= 1000, `the answer /health repeats is ${during.body.docker.checked_ms_ago} ms old`);
      assert.deepEqual(
        seen.filter((status) => status !== 200),
        [],
        "/health answered 200 throughout",
      );

      // The outage is not hidden: the probe unanswered for /health's wait (3 s here) shows as a 503.
      const noticed = await waitFor(
        "/health to say the engine is not answering",
        async () => {
          const now = await health();
          return now.status === 503 ? now : undefined;
        },
        4 * ENGINE_TIMEOUT_SECONDS * 1000,
      );
      assert.equal(noticed.body.docker.state, "not answering");
    } finally {
      fault.relay.answer();
    }
    await waitFor("/health to say the engine answers again", async () => ((await health()).status === 200 ? true : undefined));
  });

  it("is reported by /health, refused at once, never asked past the bounds, and recovered from by itself", {
    timeout: 180_000,
  }, async () => {
    const before = await health();
    assert.equal(before.status, 200, JSON.stringify(before.body));

    const hangStarted = Date.now();
    fault.relay.hang(DEADLOCK_SHAPE);
    let burst: Array<Promise<{ status: number; body: Record<string, unknown> }>> = [];
    try {
      // A burst of new environments while the engine hangs: each would hold a call at the engine.
      burst = Array.from({ length: BURST }, () => rest(fault.emulator, "POST", "/v1beta/environments", {}));

      // /version and /_ping still answer; /health must not be fooled by them.
      const noticed = await waitFor(
        "/health to say the Docker engine is not answering",
        async () => {
          const now = await health();
          return now.body.docker.state === "not answering" ? now : undefined;
        },
        4 * ENGINE_TIMEOUT_SECONDS * 1000,
      );
      assert.equal(noticed.status, 503);
      assert.equal(noticed.body.status, "unavailable");
      const since = Date.parse(noticed.body.docker.since ?? "");
      assert.ok(since >= hangStarted - 1000 && since <= Date.now(), `since ${noticed.body.docker.since}`);
      assert.match(noticed.body.docker.detail, /Docker engine has not answered since/);
      assert.ok((fault.relay.relayed.get("GET /version") ?? 0) > 0, "the engine's version was asked, and answered, meanwhile");

      for (const answer of await Promise.all(burst)) assertGoogleError(answer, 503, "UNAVAILABLE", /Docker engine/);
      assert.ok(
        fault.relay.maxPending <= MAX_CALLS + 1,
        `${fault.relay.maxPending} calls held at the engine at once (bound ${MAX_CALLS}, and the probe)`,
      );
      assert.ok(
        fault.relay.maxPendingOf(CREATE!) <= MAX_CHANGES,
        `${fault.relay.maxPendingOf(CREATE!)} creates held at once (bound ${MAX_CHANGES})`,
      );

      // New work now fails without asking the engine: nothing more is held there.
      const heldBefore = fault.relay.held;
      const refused = await rest(fault.emulator, "POST", "/v1beta/environments", {});
      assertGoogleError(refused, 503, "UNAVAILABLE", /Docker engine has not answered since/);
      const interaction = await rest(fault.emulator, "POST", "/v1beta/interactions", {
        agent: AGENT,
        input: script([bash("true")]),
        environment: { type: "remote" },
      });
      assertGoogleError(interaction, 503, "UNAVAILABLE", /Docker engine has not answered since/);
      assert.equal(fault.relay.held, heldBefore, "refused without a call to the engine");
      // What needs no engine call goes on: the environment made before talks to its executor over its open channel.
      const meanwhile = await rest(fault.emulator, "POST", "/v1beta/interactions", {
        agent: AGENT,
        input: script([bash("echo meanwhile")]),
        environment: environmentId,
      });
      assert.equal(meanwhile.status, 200, JSON.stringify(meanwhile.body));
      assert.deepEqual(resultsOf(meanwhile.body as unknown as Interaction), ["meanwhile\n"]);
      assert.ok(fault.relay.pending <= MAX_CALLS + 1, `${fault.relay.pending} calls still held`);
    } finally {
      fault.relay.answer();
      await Promise.allSettled(burst);
    }

    // Nobody asks: the emulator finds out by itself that the engine answers again.
    const recovered = await waitFor(
      "/health to say the engine answers again",
      async () => {
        const now = await health();
        return now.status === 200 ? now : undefined;
      },
      30_000,
    );
    assert.equal(recovered.body.docker.state, "answering");
    const fresh = (await fault.ai.interactions.create({
      agent: AGENT,
      input: script([bash("echo back")]),
      environment: { type: "remote" },
    })) as Interaction;
    assert.equal(fresh.status, "completed", JSON.stringify(fresh.errors));
    assert.deepEqual(resultsOf(fresh), ["back\n"]);
    const old = await runIn(fault.ai, environmentId, "echo still here");
    assert.equal(old.status, "completed", JSON.stringify(old.errors));
    assert.deepEqual(resultsOf(old), ["still here\n"]);

    for (const id of [environmentId, fresh.environment_id!])
      assert.equal((await rest(fault.emulator, "DELETE", `/v1beta/environments/${id}`)).status, 200);
    await fault.emulator.destroy();
    const left = await new Docker().listContainers({ all: true, filters: { label: [`${LABEL_INSTANCE}=${fault.emulator.instance}`] } });
    assert.deepEqual(
      left.map((container) => container.Names),
      [],
    );
  });
});
