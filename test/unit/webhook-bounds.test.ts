// Where webhook deliveries may go on loopback (EMULATOR_WEBHOOK_LOOPBACK_PORTS and its auto default from
// HOST), and the slots of delivery attempts: bounded in total and per key, keys served in turn, lines
// bounded with a sentence naming the setting, everyone let go at close.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DeliverySlots } from "../../server/webhooks/delivery-slots.js";
import { loopbackGuard, loopbackPortsFor, whyNotDeliverable } from "../../server/webhooks/webhook-hosts.js";

describe("EMULATOR_WEBHOOK_LOOPBACK_PORTS", () => {
  it("auto is any port while HOST is loopback, none when it binds another address", () => {
    for (const host of ["127.0.0.1", "127.0.0.2", "localhost", "::1", "[::1]"]) assert.equal(loopbackPortsFor("auto", host), "any", host);
    for (const host of ["0.0.0.0", "::", "192.168.1.10", "emulator"]) assert.deepEqual(loopbackPortsFor("auto", host), [], host);
    assert.deepEqual(loopbackPortsFor("9000, 9100-9199", "0.0.0.0"), [
      [9000, 9000],
      [9100, 9199],
    ]);
    assert.equal(loopbackPortsFor("any", "0.0.0.0"), "any");
    assert.deepEqual(loopbackPortsFor("none", "127.0.0.1"), []);
    assert.throws(() => loopbackPortsFor("9200-9100", "127.0.0.1"), /not a port/);
  });

  it("gates every way of writing loopback by port; EMULATOR_WEBHOOK_HOSTS '*' does not open it", () => {
    const reach = { allowedHosts: ["*"], loopbackPorts: [[9000, 9000]] as const };
    assert.equal(whyNotDeliverable("http://127.0.0.1:9000/hook", reach), null);
    assert.equal(whyNotDeliverable("http://receiver.example:8080/hook", reach), null);
    for (const uri of [
      "http://127.0.0.1:9001/",
      "http://127.1:9001/",
      "http://localhost:9001/",
      "http://localhost.:9001/",
      "http://api.localhost:9001/",
      "http://[::1]:9001/",
      "http://[::ffff:127.0.0.1]:9001/",
      "http://0.0.0.0:9001/",
      "http://[::]:9001/",
      "http://127.0.0.1/",
    ]) {
      assert.match(whyNotDeliverable(uri, reach) ?? "", /EMULATOR_WEBHOOK_LOOPBACK_PORTS/, uri);
    }
    const none = { allowedHosts: [], loopbackPorts: [] };
    assert.match(
      whyNotDeliverable("http://127.0.0.1:9000/", none) ?? "",
      /no webhooks to loopback .*EMULATOR_WEBHOOK_LOOPBACK_PORTS.*port 9000/,
    );
  });
});

describe("the look-up of a delivery's host name", () => {
  const lookUp = (lookup: NonNullable<ReturnType<typeof loopbackGuard>>, all: boolean) =>
    new Promise<{ error: Error | null; address: unknown }>((resolve) =>
      (lookup as unknown as (host: string, options: object, callback: (error: Error | null, address?: unknown) => void) => void)(
        "localhost",
        { all },
        (error, address) => resolve({ error, address }),
      ),
    );

  it("fails for a name that resolves to loopback on a port not allowed (a name EMULATOR_WEBHOOK_HOSTS lets through)", async () => {
    assert.equal(loopbackGuard("any", 9001), undefined);
    assert.equal(loopbackGuard([[9000, 9001]], 9001), undefined);
    const guard = loopbackGuard([[9000, 9000]], 9001);
    assert.ok(guard);
    for (const all of [true, false]) {
      const { error } = await lookUp(guard, all);
      assert.match(
        error?.message ?? "",
        /localhost resolves to .*loopback address, and port 9001 is not in EMULATOR_WEBHOOK_LOOPBACK_PORTS/,
      );
    }
  });
});

/** Work that runs until released, recording the order it started in. */
function gate(started: string[], name: string) {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  return {
    work: async () => {
      started.push(name);
      await done;
    },
    release: () => release(),
  };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("delivery slots", () => {
  it("run at most total and perKey at once, and serve the keys waiting in turn", async () => {
    const slots = new DeliverySlots({ total: 3, perKey: 2, queue: 100, queuePerKey: 100 });
    const started: string[] = [];
    const gates = [
      ...Array.from({ length: 5 }, (_, index) => ["a", gate(started, `a${index}`)] as const),
      ...Array.from({ length: 2 }, (_, index) => ["b", gate(started, `b${index}`)] as const),
      ["c", gate(started, "c0")] as const,
    ];
    const runs = gates.map(([key, { work }]) => slots.run(key, work));
    await tick();
    assert.deepEqual(started, ["a0", "a1", "b0"], "a at its own bound, b takes the third slot");
    assert.equal(slots.inFlight(), 3);
    gates[0]![1].release(); // a0 ends
    await tick();
    // The keys waiting are a, b, c in the order they first waited; a is served, goes to the back.
    assert.deepEqual(started.slice(3), ["a2"]);
    gates[5]![1].release(); // b0 ends
    await tick();
    assert.deepEqual(started.slice(4), ["b1"]);
    gates[1]![1].release(); // a1 ends
    await tick();
    assert.deepEqual(started.slice(5), ["c0"], "c before a's third waiting attempt");
    for (const [, { release }] of gates) release();
    assert.deepEqual(await Promise.all(runs), Array(8).fill(null));
    assert.equal(slots.inFlight(), 0);
  });

  it("past the lines' bounds, answers which setting was reached and does not run the work", async () => {
    const slots = new DeliverySlots({ total: 1, perKey: 1, queue: 2, queuePerKey: 1 });
    const started: string[] = [];
    const first = gate(started, "a0");
    const running = slots.run("a", first.work);
    const waiting = slots.run("a", gate(started, "a1").work);
    assert.match((await slots.run("a", gate(started, "a2").work)) ?? "", /EMULATOR_WEBHOOK_QUEUE_PER_KEY/);
    const waitingB = slots.run("b", gate(started, "b0").work);
    assert.match((await slots.run("c", gate(started, "c0").work)) ?? "", /\(EMULATOR_WEBHOOK_QUEUE\)/);
    assert.deepEqual(started, ["a0"]);
    slots.close();
    first.release();
    await tick();
    assert.deepEqual(started.sort(), ["a0", "a1", "b0"], "close lets everyone waiting go");
    void running;
    void waiting;
    void waitingB;
  });
});
