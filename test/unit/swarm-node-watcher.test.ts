// The swarm runtime's node watcher (server/sandbox/swarm/node-watcher.ts) against a manager that answers
// as told: a node that leaves ready is reported once (with its hostname and state), again only after it
// was ready in between; a node down at the first look is reported; a report whose handling failed is
// made again at the next look; a look that fails concludes nothing; never two looks at once.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type Docker from "dockerode";
import { type DownNode, NodeWatcher } from "../../server/sandbox/swarm/node-watcher.js";

type State = "ready" | "down" | "disconnected";

function manager(states: Record<string, State>) {
  let looks = 0;
  let inFlight = 0;
  let mostInFlight = 0;
  let failNext = false;
  const docker = {
    listNodes: async () => {
      looks += 1;
      inFlight += 1;
      mostInFlight = Math.max(mostInFlight, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight -= 1;
      if (failNext) {
        failNext = false;
        throw new Error("connect ECONNREFUSED");
      }
      return Object.entries(states).map(([name, state]) => ({
        ID: `id-${name}`,
        Description: { Hostname: name },
        Status: { State: state },
      }));
    },
  } as unknown as Docker;
  return {
    docker,
    looks: () => looks,
    mostInFlight: () => mostInFlight,
    failNextLook: () => (failNext = true),
  };
}

async function untilLooks(count: () => number, atLeast: number): Promise<void> {
  const deadline = Date.now() + 5000;
  while (count() < atLeast && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(count() >= atLeast, `only ${count()} looks`);
}

describe("the swarm node watcher", { timeout: 20_000 }, () => {
  it("reports a node leaving ready once, and again only after it was ready in between", async () => {
    const states: Record<string, State> = { n1: "ready", n2: "ready", n3: "down" };
    const engine = manager(states);
    const reported: DownNode[] = [];
    const errors: unknown[] = [];
    const watcher = new NodeWatcher({
      docker: engine.docker,
      pollMs: 10,
      engineTimeoutMs: 1000,
      onDown: (node) => void reported.push(node),
      onError: (error) => errors.push(error),
    });
    watcher.start();
    await untilLooks(engine.looks, 3);
    assert.deepEqual(reported, [{ id: "id-n3", name: "n3", state: "down" }], "a node down at the first look is reported, once");
    states.n2 = "disconnected";
    await untilLooks(engine.looks, engine.looks() + 3);
    assert.deepEqual(
      reported.map((node) => `${node.name} ${node.state}`),
      ["n3 down", "n2 disconnected"],
    );
    states.n3 = "ready";
    await untilLooks(engine.looks, engine.looks() + 2);
    states.n3 = "down";
    await untilLooks(engine.looks, engine.looks() + 2);
    assert.deepEqual(
      reported.map((node) => node.name),
      ["n3", "n2", "n3"],
    );
    engine.failNextLook();
    await untilLooks(engine.looks, engine.looks() + 2);
    assert.match(String(errors[0]), /ECONNREFUSED/);
    assert.equal(reported.length, 3, "a failed look concludes nothing");
    watcher.stop();
    assert.equal(engine.mostInFlight(), 1, "two looks were in flight at once");
  });

  it("reports a node again at the next look when handling its loss failed", async () => {
    const engine = manager({ n1: "ready", n2: "down" });
    let attempts = 0;
    const errors: unknown[] = [];
    const watcher = new NodeWatcher({
      docker: engine.docker,
      pollMs: 10,
      engineTimeoutMs: 1000,
      onDown: async () => {
        attempts += 1;
        if (attempts === 1) throw new Error("listing the lost node's tasks timed out");
      },
      onError: (error) => errors.push(error),
    });
    watcher.start();
    await untilLooks(engine.looks, 4);
    watcher.stop();
    assert.equal(attempts, 2, "handled once more after the failure, then no more");
    assert.match(String(errors[0]), /timed out/);
  });
});
