// The bounds on webhook deliveries (issue 29), against the emulator with fake sandboxes and real
// loopback receivers this test makes:
// - a receiver that never answers, and one that sends its headers and then trickles its body, end at
//   EMULATOR_WEBHOOK_TIMEOUT_SECONDS with the garbage collector running (Node 20 dropped the timer of
//   AbortSignal.timeout() inside AbortSignal.any(), and the attempt waited 300 s, or for ever), and the
//   connection is closed;
// - many webhooks × interactions to a silent receiver keep the connections the receiver sees within
//   EMULATOR_WEBHOOK_CONCURRENCY and _PER_KEY, /health answers meanwhile, another key's ping is not held
//   behind the flood, and attempts past EMULATOR_WEBHOOK_QUEUE_PER_KEY are listed as not sent and stay pending;
// - webhooks per key (EMULATOR_MAX_WEBHOOKS_PER_KEY), user_metadata (EMULATOR_WEBHOOK_METADATA_BYTES) and
//   the deliveries kept (EMULATOR_WEBHOOK_DELIVERIES_KEPT) are bounded, and the deliveries list pages by bytes;
// - loopback ports outside EMULATOR_WEBHOOK_LOOPBACK_PORTS are refused and never connected to.

import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import v8 from "node:v8";
import vm from "node:vm";
import { GoogleGenAI } from "@google/genai";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";
import { HOSTILE_INPUT_BOUNDS, watchForStalls } from "../support/stall-detector.js";

const AGENT = "antigravity-preview-05-2026";

v8.setFlagsFromString("--expose-gc");
const collectGarbage = vm.runInNewContext("gc") as () => void;

/** A loopback receiver that counts the connections open at once, overall and per first path segment. */
class CountingReceiver {
  open = 0;
  mostOpen = 0;
  connections = 0;
  readonly openBy = new Map<string, number>();
  readonly mostOpenBy = new Map<string, number>();
  private readonly sockets = new Set<Socket>();
  readonly server: http.Server;

  constructor(handler: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
    this.server = http.createServer((req, res) => {
      const group = (req.url ?? "/").split("/")[1] ?? "";
      const now = (this.openBy.get(group) ?? 0) + 1;
      this.openBy.set(group, now);
      this.mostOpenBy.set(group, Math.max(this.mostOpenBy.get(group) ?? 0, now));
      req.socket.once("close", () => this.openBy.set(group, (this.openBy.get(group) ?? 1) - 1));
      handler(req, res);
    });
    this.server.on("connection", (socket: Socket) => {
      this.connections += 1;
      this.open += 1;
      this.mostOpen = Math.max(this.mostOpen, this.open);
      this.sockets.add(socket);
      socket.once("close", () => {
        this.open -= 1;
        this.sockets.delete(socket);
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return this;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  url(pathname = "/hook"): string {
    return `http://127.0.0.1:${this.port}${pathname}`;
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const silent = () => new CountingReceiver(() => undefined);
const answering = () =>
  new CountingReceiver((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(204).end());
  });

async function listDeliveries(
  emulator: FakeRuntimeEmulator,
  apiKey: string,
  query = "",
): Promise<{ deliveries: any[]; next_page_token?: string }> {
  const response = await fetch(`${emulator.url}/emulator/webhooks/deliveries${query}`, { headers: { "x-goog-api-key": apiKey } });
  assert.equal(response.status, 200, await response.clone().text());
  return (await response.json()) as { deliveries: any[]; next_page_token?: string };
}

/** Resolves with `work`'s value, or rejects saying what was still running after `ms` (a hang, not a speed goal). */
async function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} was still running after ${ms} ms`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

async function waitFor(condition: () => boolean, what: string): Promise<void> {
  for (let tries = 0; tries < 200; tries += 1) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail(`${what} did not happen`);
}

describe("webhook attempts end at EMULATOR_WEBHOOK_TIMEOUT_SECONDS", () => {
  let emulator: FakeRuntimeEmulator;
  before(async () => {
    emulator = await startFakeRuntimeEmulator({ EMULATOR_WEBHOOK_TIMEOUT_SECONDS: "1" });
  });
  after(() => emulator.close());

  for (const [kind, makeReceiver] of [
    ["a receiver that never answers", silent],
    [
      "a receiver that trickles its body",
      () =>
        new CountingReceiver((req, res) => {
          req.resume();
          res.writeHead(200, { "content-type": "text/plain" });
          const drip = setInterval(() => res.write("."), 100);
          res.on("close", () => clearInterval(drip));
        }),
    ],
  ] as const) {
    it(`${kind}: the attempt fails at the deadline, with the garbage collector running, and its connection is closed`, async () => {
      const receiver = await makeReceiver().start();
      const gc = setInterval(collectGarbage, 100);
      try {
        const ai = new GoogleGenAI({ apiKey: "wh-timeout-key", httpOptions: { baseUrl: emulator.url } });
        const webhook = await ai.webhooks.create({ uri: receiver.url(), subscribed_events: ["interaction.completed"] });
        await within(20_000, "the ping's attempt", ai.webhooks.ping(webhook.id!));
        const [delivery] = (await listDeliveries(emulator, "wh-timeout-key", `?webhook_id=${webhook.id}`)).deliveries;
        assert.equal(delivery.attempts.length, 1);
        assert.equal(delivery.attempts[0].error, "no answer within 1000 ms (EMULATOR_WEBHOOK_TIMEOUT_SECONDS)");
        assert.equal(delivery.attempts[0].response_code, null);
        assert.equal(receiver.connections, 1);
        await waitFor(() => receiver.open === 0, "the attempt's connection closing");
      } finally {
        clearInterval(gc);
        await receiver.close();
      }
    });
  }
});

describe("webhook attempts at once are bounded, in total and per key", () => {
  const TOTAL = 5;
  const PER_KEY = 3;
  const QUEUE_PER_KEY = 10;
  let emulator: FakeRuntimeEmulator;
  let receiver: CountingReceiver;
  let fast: CountingReceiver;
  before(async () => {
    receiver = await silent().start();
    fast = await answering().start();
    // Two seconds an attempt: key A's attempts that go take about 9 s in all, long past key B's ping.
    emulator = await startFakeRuntimeEmulator({
      EMULATOR_WEBHOOK_TIMEOUT_SECONDS: "2",
      EMULATOR_WEBHOOK_CONCURRENCY: String(TOTAL),
      EMULATOR_WEBHOOK_CONCURRENCY_PER_KEY: String(PER_KEY),
      EMULATOR_WEBHOOK_QUEUE_PER_KEY: String(QUEUE_PER_KEY),
    });
  });
  after(async () => {
    await emulator.close();
    await receiver.close();
    await fast.close();
  });

  it("10 webhooks × 3 interactions to a silent receiver: the receiver never sees more connections than the bounds, /health answers, another key is served", async () => {
    const flooder = new GoogleGenAI({ apiKey: "wh-flood-a", httpOptions: { baseUrl: emulator.url } });
    const other = new GoogleGenAI({ apiKey: "wh-flood-b", httpOptions: { baseUrl: emulator.url } });
    for (let index = 0; index < 10; index += 1) {
      await flooder.webhooks.create({ uri: receiver.url(`/a/${index}`), subscribed_events: ["interaction.completed"] });
    }
    const otherSilent = await other.webhooks.create({ uri: receiver.url("/b/silent"), subscribed_events: ["interaction.failed"] });
    const otherFast = await other.webhooks.create({ uri: fast.url("/b/fast"), subscribed_events: ["interaction.failed"] });
    const watch = watchForStalls(emulator.url, HOSTILE_INPUT_BOUNDS, { inProcess: true });
    for (let run = 0; run < 3; run += 1) await flooder.interactions.create({ agent: AGENT, input: "say hello" } as never);
    // Key B's attempts go while key A's wait: B's silent webhook takes a slot A cannot (A is at its
    // own bound), and B's ping to a receiver that answers ends while A still has attempts waiting.
    void other.webhooks.ping(otherSilent.id!);
    await within(20_000, "key B's ping", other.webhooks.ping(otherFast.id!));
    const waitingOfA = (await listDeliveries(emulator, "wh-flood-a")).deliveries.filter((delivery) => delivery.attempts.length === 0);
    assert.ok(waitingOfA.length > 0, "key A still had attempts waiting when key B's ping was done");
    await within(60_000, "the flood", emulator.webhooksSettled());
    await watch.assertNoStall("while 30 deliveries went to a silent receiver");

    assert.ok(receiver.mostOpen <= TOTAL, `at most ${TOTAL} connections at once, saw ${receiver.mostOpen}`);
    assert.ok((receiver.mostOpenBy.get("a") ?? 0) <= PER_KEY, `at most ${PER_KEY} of key A at once, saw ${receiver.mostOpenBy.get("a")}`);
    const deliveries = (await listDeliveries(emulator, "wh-flood-a", "?page_size=100")).deliveries;
    assert.equal(deliveries.length, 30);
    const notSent = deliveries.filter((delivery) => /^not sent: .*EMULATOR_WEBHOOK_QUEUE_PER_KEY/.test(delivery.attempts[0].error));
    const timedOut = deliveries.filter((delivery) => /no answer within 2000 ms/.test(delivery.attempts[0].error));
    assert.equal(notSent.length + timedOut.length, 30, "each attempt either went and timed out, or was not sent saying why");
    assert.ok(notSent.length > 0, "the line of key A overflowed");
    assert.equal(receiver.connections - 1, timedOut.length, "a not-sent attempt made no connection (one is key B's)");
    for (const delivery of notSent) {
      assert.equal(delivery.status, "pending", "not lost: tried again later");
      assert.equal(delivery.attempts[0].response_code, null);
      assert.ok(delivery.attempts[0].next_retry_time);
    }
    await waitFor(() => receiver.open === 0, "every connection closing");
  });
});

describe("webhook counts and sizes are bounded", () => {
  let emulator: FakeRuntimeEmulator;
  let receiver: CountingReceiver;
  before(async () => {
    receiver = await answering().start();
    emulator = await startFakeRuntimeEmulator({ EMULATOR_MAX_WEBHOOKS_PER_KEY: "2", EMULATOR_WEBHOOK_DELIVERIES_KEPT: "3" });
  });
  after(async () => {
    await emulator.close();
    await receiver.close();
  });

  const post = (apiKey: string, route: string, body: unknown) =>
    fetch(`${emulator.url}/v1beta/${route}`, {
      method: "POST",
      headers: { "x-goog-api-key": apiKey, "content-type": "application/json" },
      body: JSON.stringify(body),
    });

  it("a third webhook of a key is refused naming EMULATOR_MAX_WEBHOOKS_PER_KEY; another key still makes its own", async () => {
    const hook = { uri: receiver.url(), subscribed_events: ["interaction.completed"] };
    for (let index = 0; index < 2; index += 1) assert.equal((await post("wh-count-key", "webhooks", hook)).status, 200);
    const refused = await post("wh-count-key", "webhooks", hook);
    assert.equal(refused.status, 400);
    const body = (await refused.json()) as { error: { status: string; message: string } };
    assert.equal(body.error.status, "FAILED_PRECONDITION");
    assert.match(body.error.message, /EMULATOR_MAX_WEBHOOKS_PER_KEY/);
    assert.equal((await post("wh-count-other", "webhooks", hook)).status, 200);
  });

  it("a user_metadata past EMULATOR_WEBHOOK_METADATA_BYTES is a 400 naming the field, and nothing is sent", async () => {
    const before = receiver.connections;
    const response = await post("wh-metadata-key", "interactions", {
      agent: AGENT,
      input: "say hello",
      webhook_config: {
        uris: Array.from({ length: 20 }, (_, index) => receiver.url(`/m/${index}`)),
        user_metadata: { blob: "x".repeat(1024 * 1024) },
      },
    });
    assert.equal(response.status, 400);
    const body = (await response.json()) as { error: { status: string; message: string } };
    assert.equal(body.error.status, "INVALID_ARGUMENT");
    assert.match(body.error.message, /webhook_config\.user_metadata is \d+ bytes .*16384 .*EMULATOR_WEBHOOK_METADATA_BYTES/);
    await emulator.webhooksSettled();
    assert.equal(receiver.connections, before);
    assert.equal((await listDeliveries(emulator, "wh-metadata-key")).deliveries.length, 0);
  });

  it("a trigger whose interaction carries such a user_metadata is refused at creation, not on every run", async () => {
    const response = await post("wh-metadata-trigger", "triggers", {
      schedule: "* * * * *",
      time_zone: "UTC",
      interaction: { agent: AGENT, input: "say hello", webhook_config: { user_metadata: { blob: "x".repeat(64 * 1024) } } },
    });
    assert.equal(response.status, 400, "the trigger would fail every run with the same 400");
    const body = (await response.json()) as { error: { message: string } };
    assert.match(body.error.message, /^interaction\.webhook_config\.user_metadata is \d+ bytes .*EMULATOR_WEBHOOK_METADATA_BYTES/);
    const listed = await fetch(`${emulator.url}/v1beta/triggers`, { headers: { "x-goog-api-key": "wh-metadata-trigger" } });
    assert.deepEqual(((await listed.json()) as { triggers?: unknown[] }).triggers ?? [], []);
  });

  it("keeps the newest EMULATOR_WEBHOOK_DELIVERIES_KEPT finished deliveries of a key", async () => {
    const ai = new GoogleGenAI({ apiKey: "wh-prune-key", httpOptions: { baseUrl: emulator.url } });
    const webhook = await ai.webhooks.create({ uri: receiver.url(), subscribed_events: ["interaction.completed"] });
    const ids: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      await ai.webhooks.ping(webhook.id!);
      ids.push((await listDeliveries(emulator, "wh-prune-key")).deliveries[0].id);
    }
    const kept = (await listDeliveries(emulator, "wh-prune-key")).deliveries;
    assert.deepEqual(
      kept.map((delivery) => delivery.id),
      ids.slice(2).reverse(),
    );
  });
});

describe("the deliveries list pages by bytes", () => {
  it("large payloads are listed a bounded page at a time, every delivery once", async () => {
    const receiver = await answering().start();
    const emulator = await startFakeRuntimeEmulator({ EMULATOR_WEBHOOK_METADATA_BYTES: String(2 * 1024 * 1024) });
    try {
      const ai = new GoogleGenAI({ apiKey: "wh-pages-key", httpOptions: { baseUrl: emulator.url } });
      const uris = Array.from({ length: 6 }, (_, index) => receiver.url(`/p/${index}`));
      await ai.interactions.create({
        agent: AGENT,
        input: "say hello",
        webhook_config: { uris, user_metadata: { blob: "y".repeat(700 * 1024) } },
      } as never);
      await emulator.webhooksSettled();
      const seen: string[] = [];
      let token: string | undefined;
      let pages = 0;
      do {
        const page = await listDeliveries(emulator, "wh-pages-key", `?page_size=100${token ? `&page_token=${token}` : ""}`);
        pages += 1;
        assert.ok(page.deliveries.length >= 1);
        assert.ok(page.deliveries.length <= 2, `a page holds about 1 MiB: ${page.deliveries.length} deliveries of 700 KiB`);
        seen.push(...page.deliveries.map((delivery) => delivery.id));
        token = page.next_page_token;
      } while (token !== undefined && pages < 20);
      assert.equal(new Set(seen).size, 6);
      assert.equal(seen.length, 6);
    } finally {
      await emulator.close();
      await receiver.close();
    }
  });
});

describe("loopback ports outside EMULATOR_WEBHOOK_LOOPBACK_PORTS", () => {
  it("are refused at create and given up at once for webhook_config.uris, with no connection made", async () => {
    const allowed = await answering().start();
    const elsewhere = await answering().start();
    const emulator = await startFakeRuntimeEmulator({ EMULATOR_WEBHOOK_LOOPBACK_PORTS: String(allowed.port) });
    try {
      const ai = new GoogleGenAI({ apiKey: "wh-ports-key", httpOptions: { baseUrl: emulator.url } });
      await ai.webhooks.create({ uri: allowed.url(), subscribed_events: ["interaction.completed"] });
      for (const uri of [
        elsewhere.url(),
        `http://localhost:${elsewhere.port}/hook`,
        `http://[::1]:${elsewhere.port}/`,
        `http://0.0.0.0:${elsewhere.port}/`,
      ]) {
        const response = await fetch(`${emulator.url}/v1beta/webhooks`, {
          method: "POST",
          headers: { "x-goog-api-key": "wh-ports-key", "content-type": "application/json" },
          body: JSON.stringify({ uri, subscribed_events: ["interaction.completed"] }),
        });
        assert.equal(response.status, 400, uri);
        assert.match(await response.text(), new RegExp(`EMULATOR_WEBHOOK_LOOPBACK_PORTS.*port ${elsewhere.port}`));
      }
      await ai.interactions.create({
        agent: AGENT,
        input: "say hello",
        webhook_config: { uris: [elsewhere.url(), allowed.url("/own")] },
      } as never);
      await emulator.webhooksSettled();
      const deliveries = (await listDeliveries(emulator, "wh-ports-key")).deliveries;
      const refused = deliveries.find((delivery) => delivery.uri === elsewhere.url());
      assert.equal(refused.status, "given_up");
      assert.match(refused.attempts[0].error, /EMULATOR_WEBHOOK_LOOPBACK_PORTS/);
      assert.equal(deliveries.find((delivery) => delivery.uri === allowed.url("/own")).status, "delivered");
      assert.equal(elsewhere.connections, 0, "nothing reached the port that is not allowed");
    } finally {
      await emulator.close();
      await allowed.close();
      await elsewhere.close();
    }
  });
});
