// Webhooks end to end with the official SDK (ai.webhooks.*) against the emulator as `npm start` wires
// it (fake sandboxes): a real loopback receiver checks every delivery with the standardwebhooks
// library's Webhook.verify, the way the service's cookbook does. Covers the secret shown once, ping, a
// background interaction's interaction.completed, webhook_config.uris with user_metadata, rotation with
// immediate revocation and with the 24-hour overlap, a failing receiver retried with backoff as the test
// moves the emulator's clock, the attempts listed, the give-up after 24 h with the webhook's state, and a
// restart keeping the webhook, its rotated secret and a pending delivery; an event reaching only the enabled
// webhooks subscribed to it, at their URIs, as updates change name, uri, subscribed_events and state.
// covers: webhooks.create, webhooks.list, webhooks.get, webhooks.update, webhooks.delete, webhooks.ping
// covers: webhooks.rotateSigningSecret, CreateAgentInteraction.webhook_config
// covers: CreateWebhook.name, CreateWebhook.uri, CreateWebhook.subscribed_events, UpdateWebhook.name, UpdateWebhook.uri
// covers: UpdateWebhook.subscribed_events, UpdateWebhook.state, RotateSigningSecret.revocation_behavior

import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { Webhook } from "standardwebhooks";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";

const AGENT = "antigravity-preview-05-2026";
const HOUR = 60 * 60 * 1000;

interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** A loopback receiver that records every POST and answers with `status` (changeable). */
class Receiver {
  readonly received: Received[] = [];
  status = 200;
  private server!: http.Server;

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        this.received.push({
          path: req.url ?? "",
          headers: Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)])),
          body: Buffer.concat(chunks).toString("utf8"),
        });
        res.writeHead(this.status, { "content-type": "text/plain" }).end("ok");
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return this;
  }

  url(pathname = "/hook"): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${pathname}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** True when `secret` verifies the delivery (standardwebhooks throws on a bad signature). */
function verifies(secret: string, delivery: Received): boolean {
  try {
    new Webhook(secret).verify(delivery.body, delivery.headers);
    return true;
  } catch {
    return false;
  }
}

function sdk(emulator: FakeRuntimeEmulator, apiKey: string): GoogleGenAI {
  return new GoogleGenAI({ apiKey, httpOptions: { baseUrl: emulator.url } });
}

async function deliveries(emulator: FakeRuntimeEmulator, apiKey: string, query = ""): Promise<any[]> {
  const response = await fetch(`${emulator.url}/emulator/webhooks/deliveries${query}`, { headers: { "x-goog-api-key": apiKey } });
  assert.equal(response.status, 200);
  return ((await response.json()) as { deliveries: any[] }).deliveries;
}

/** A background interaction run to its end; then every delivery its end made has been attempted. */
async function backgroundInteraction(emulator: FakeRuntimeEmulator, ai: GoogleGenAI, extra: object = {}): Promise<string> {
  const created = (await ai.interactions.create({ agent: AGENT, input: "say hello", background: true, ...extra } as never)) as {
    id: string;
  };
  for (let tries = 0; tries < 200; tries += 1) {
    const current = (await ai.interactions.get(created.id)) as { status: string };
    if (current.status !== "in_progress") break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  await emulator.webhooksSettled();
  return created.id;
}

describe("webhooks", () => {
  let emulator: FakeRuntimeEmulator;
  let receiver: Receiver;

  before(async () => {
    emulator = await startFakeRuntimeEmulator();
    receiver = await new Receiver().start();
  });
  after(async () => {
    await emulator?.close();
    await receiver?.close();
  });

  it("shows the secret once, pings with a signature standardwebhooks verifies, and refuses what it cannot deliver", async () => {
    const ai = sdk(emulator, "wh-create-key");
    const created = await ai.webhooks.create({ name: "mine", uri: receiver.url("/ping"), subscribed_events: ["interaction.completed"] });
    assert.match(created.new_signing_secret ?? "", /^whsec_[A-Za-z0-9+/]+=*$/);
    assert.equal(created.state, "enabled");
    const secret = created.new_signing_secret!;
    const read = await ai.webhooks.get(created.id!);
    assert.equal(read.new_signing_secret, undefined, "the secret is shown at creation only");
    assert.equal(read.signing_secrets?.length, 1);
    assert.ok(!JSON.stringify(read).includes(secret.slice(10)), "never the whole secret again");
    const listed = await ai.webhooks.list();
    assert.deepEqual(
      listed.webhooks?.map((webhook) => [webhook.id, webhook.new_signing_secret]),
      [[created.id, undefined]],
    );
    assert.equal((await sdk(emulator, "wh-someone-else").webhooks.list()).webhooks?.length ?? 0, 0, "per API key");

    await ai.webhooks.ping(created.id!);
    const ping = receiver.received.filter((delivery) => delivery.path === "/ping");
    assert.equal(ping.length, 1);
    assert.ok(verifies(secret, ping[0]!), "the ping verifies with the webhook's secret");
    assert.equal(JSON.parse(ping[0]!.body).type, "webhook.ping");

    for (const [body, pattern] of [
      [{ uri: "http://example.com/hook", subscribed_events: ["interaction.completed"] }, /EMULATOR_WEBHOOK_HOSTS/],
      [{ uri: receiver.url(), subscribed_events: ["interaction.exploded"] }, /subscribed_events/],
      [{ uri: receiver.url(), subscribed_events: [] }, /at least one event/],
    ] as const) {
      const response = await fetch(`${emulator.url}/v1beta/webhooks`, {
        method: "POST",
        headers: { "x-goog-api-key": "wh-create-key", "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      assert.equal(response.status, 400);
      assert.match(await response.text(), pattern);
    }
    const updated = await ai.webhooks.update(created.id!, { state: "disabled", update_mask: "state" });
    assert.equal(updated.state, "disabled");
    await ai.webhooks.delete(created.id!);
    await assert.rejects(ai.webhooks.get(created.id!), /404|not found/i);
  });

  it("ping takes no body fields (the document's PingWebhookRequest has none): a field or a list is a 400, and nothing is sent", async () => {
    const ai = sdk(emulator, "wh-ping-body-key");
    const created = await ai.webhooks.create({ uri: receiver.url("/ping-body"), subscribed_events: ["interaction.completed"] });
    const ping = (body: unknown) =>
      fetch(`${emulator.url}/v1beta/webhooks/${created.id}:ping`, {
        method: "POST",
        headers: { "x-goog-api-key": "wh-ping-body-key", "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const field = await ping({ loud: true });
    assert.equal(field.status, 400);
    const fieldError = ((await field.json()) as { error: { code: string; message: string } }).error;
    assert.equal(fieldError.code, "parameter_unknown");
    assert.match(fieldError.message, /Unknown name "loud": Cannot find field\./);
    const list = await ping([1]);
    assert.equal(list.status, 400);
    assert.equal(((await list.json()) as { error: { status: string } }).error.status, "INVALID_ARGUMENT");
    assert.equal(receiver.received.filter((delivery) => delivery.path === "/ping-body").length, 0, "no ping sent");
    assert.equal((await ping({})).status, 200);
    assert.equal(receiver.received.filter((delivery) => delivery.path === "/ping-body").length, 1);
  });

  it("delivers a background interaction's interaction.completed, and webhook_config.uris instead with its user_metadata", async () => {
    const ai = sdk(emulator, "wh-complete-key");
    const webhook = await ai.webhooks.create({ uri: receiver.url("/registered"), subscribed_events: ["interaction.completed"] });
    const id = await backgroundInteraction(emulator, ai);
    const registered = receiver.received.filter((delivery) => delivery.path === "/registered");
    assert.equal(registered.length, 1);
    assert.ok(verifies(webhook.new_signing_secret!, registered[0]!));
    const payload = JSON.parse(registered[0]!.body);
    assert.equal(payload.type, "interaction.completed");
    assert.equal(payload.data.id, id);
    assert.equal(typeof payload.version, "string");
    assert.ok(!Number.isNaN(Date.parse(payload.timestamp)));

    const own = await backgroundInteraction(emulator, ai, {
      webhook_config: { uris: [receiver.url("/own")], user_metadata: { job: "nightly" } },
    });
    assert.equal(receiver.received.filter((delivery) => delivery.path === "/registered").length, 1, "not to the registered one");
    const mine = receiver.received.filter((delivery) => delivery.path === "/own");
    assert.equal(mine.length, 1);
    assert.deepEqual(JSON.parse(mine[0]!.body).data, { id: own, user_metadata: { job: "nightly" } });
    assert.ok(verifies(webhook.new_signing_secret!, mine[0]!), "signed with the key's webhook secrets");

    const refused = await fetch(`${emulator.url}/v1beta/interactions`, {
      method: "POST",
      headers: { "x-goog-api-key": "wh-complete-key", "content-type": "application/json" },
      body: JSON.stringify({ agent: AGENT, input: "hi", background: true, webhook_config: { uris: ["not a url"] } }),
    });
    assert.equal(refused.status, 400, "a webhook_config that could never be delivered is refused at creation");
    assert.match(await refused.text(), /full URL/);
  });

  it("delivers an event only to the enabled webhooks subscribed to it, each at its uri, as updates change them", async () => {
    const ai = sdk(emulator, "wh-fields-key");
    const at = (pathname: string) => receiver.received.filter((delivery) => delivery.path === pathname).length;
    const failedOnly = await ai.webhooks.create({
      name: "failures",
      uri: receiver.url("/failed-only"),
      subscribed_events: ["interaction.failed"],
    });
    assert.equal(failedOnly.name, "failures");
    assert.equal(failedOnly.uri, receiver.url("/failed-only"));
    assert.deepEqual(failedOnly.subscribed_events, ["interaction.failed"]);
    const completed = await ai.webhooks.create({ uri: receiver.url("/completed"), subscribed_events: ["interaction.completed"] });

    await backgroundInteraction(emulator, ai);
    assert.equal(at("/completed"), 1, "the subscribed webhook gets interaction.completed");
    assert.equal(at("/failed-only"), 0, "a webhook not subscribed to it does not");

    // The first now listens to completions at another URI under another name; the second is disabled.
    const moved = await ai.webhooks.update(failedOnly.id!, {
      name: "completions",
      uri: receiver.url("/moved"),
      subscribed_events: ["interaction.completed"],
    });
    assert.deepEqual([moved.name, moved.uri, moved.subscribed_events], ["completions", receiver.url("/moved"), ["interaction.completed"]]);
    assert.equal((await ai.webhooks.get(failedOnly.id!)).name, "completions");
    assert.equal((await ai.webhooks.update(completed.id!, { state: "disabled" })).state, "disabled");
    await backgroundInteraction(emulator, ai);
    assert.deepEqual([at("/moved"), at("/failed-only"), at("/completed")], [1, 0, 1], "to the new URI; none to the disabled webhook");

    assert.equal((await ai.webhooks.update(completed.id!, { state: "enabled" })).state, "enabled");
    await backgroundInteraction(emulator, ai);
    assert.deepEqual([at("/moved"), at("/completed")], [2, 2], "enabled again, it gets the next one");
    const refused = await fetch(`${emulator.url}/v1beta/webhooks/${completed.id}`, {
      method: "PATCH",
      headers: { "x-goog-api-key": "wh-fields-key", "content-type": "application/json" },
      body: JSON.stringify({ uri: "http://example.com/hook" }),
    });
    assert.equal(refused.status, 400, "an update's uri is checked as a create's");
    assert.match(await refused.text(), /EMULATOR_WEBHOOK_HOSTS/);
  });

  it("after an immediate rotation only the new secret verifies; with the overlap both do, for 24 hours of the clock", async () => {
    const ai = sdk(emulator, "wh-rotate-key");
    const webhook = await ai.webhooks.create({ uri: receiver.url("/rotate"), subscribed_events: ["interaction.completed"] });
    const first = webhook.new_signing_secret!;
    const lastPing = async () => {
      await ai.webhooks.ping(webhook.id!);
      return receiver.received.filter((delivery) => delivery.path === "/rotate").at(-1)!;
    };

    const overlap = await ai.webhooks.rotateSigningSecret(webhook.id!, { revocation_behavior: "revoke_previous_secrets_after_h24" });
    const second = overlap.secret!;
    assert.notEqual(second, first);
    let ping = await lastPing();
    assert.ok(verifies(first, ping) && verifies(second, ping), "both verify during the overlap");
    assert.equal(ping.headers["webhook-signature"]!.split(" ").length, 2);
    const during = await ai.webhooks.get(webhook.id!);
    assert.equal(during.signing_secrets?.length, 2);
    assert.equal(during.signing_secrets?.filter((secret) => secret.expire_time !== undefined).length, 1);

    emulator.clockOf("wh-rotate-key").advance(24 * HOUR + 1000);
    ping = await lastPing();
    assert.ok(!verifies(first, ping) && verifies(second, ping), "the old secret ends after 24 h of the emulator's clock");

    const immediate = await ai.webhooks.rotateSigningSecret(webhook.id!, { revocation_behavior: "revoke_previous_secrets_immediately" });
    ping = await lastPing();
    assert.ok(verifies(immediate.secret!, ping), "the new secret verifies");
    assert.ok(!verifies(second, ping), "the revoked one does not");
    assert.equal((await ai.webhooks.get(webhook.id!)).signing_secrets?.length, 1);
  });

  it("retries a failing receiver with backoff as the clock moves, lists every attempt, and gives up after 24 h", async () => {
    const failing = await new Receiver().start();
    failing.status = 503;
    try {
      const ai = sdk(emulator, "wh-failing-key");
      const webhook = await ai.webhooks.create({ uri: failing.url(), subscribed_events: ["interaction.completed"] });
      await backgroundInteraction(emulator, ai);
      assert.equal(failing.received.length, 1);
      let [delivery] = await deliveries(emulator, "wh-failing-key");
      assert.equal(delivery.status, "pending");
      assert.equal(delivery.attempts[0].response_code, 503);
      assert.equal(delivery.attempts[0].status, "failed");
      assert.equal(typeof delivery.attempts[0].latency_ms, "number");
      const firstRetry = Date.parse(delivery.attempts[0].next_retry_time);
      assert.ok(Math.abs(firstRetry - Date.parse(delivery.attempts[0].time) - 60_000) < 1000, "the first retry is a minute later");

      emulator.clockOf("wh-failing-key").advance(30_000);
      await emulator.webhooksSettled();
      assert.equal(failing.received.length, 1, "not before its time");
      emulator.clockOf("wh-failing-key").advance(31_000);
      await emulator.webhooksSettled();
      assert.equal(failing.received.length, 2, "retried once the clock reaches it");
      [delivery] = await deliveries(emulator, "wh-failing-key");
      // Each wait counts from when the attempt was due (the test ran it a second late): it doubles.
      const secondWait = Date.parse(delivery.attempts[1].next_retry_time) - firstRetry;
      assert.equal(secondWait, 120_000);
      assert.ok(
        failing.received.every((attempt) => attempt.headers["webhook-id"] === delivery.id),
        "one webhook-id for all attempts",
      );

      emulator.clockOf("wh-failing-key").advance(25 * HOUR);
      await emulator.webhooksSettled();
      [delivery] = await deliveries(emulator, "wh-failing-key");
      assert.equal(delivery.status, "given_up");
      assert.equal(delivery.attempts.length, 14);
      assert.equal(failing.received.length, 14);
      assert.equal(delivery.attempts.at(-1).next_retry_time, undefined);
      const lastDue = Date.parse(delivery.attempts.at(-2).next_retry_time) - Date.parse(delivery.attempts[0].time);
      assert.ok(Math.abs(lastDue - 24 * HOUR) < 1000, `the last retry was due 24 h after the first attempt (${lastDue} ms)`);
      assert.equal((await ai.webhooks.get(webhook.id!)).state, "disabled_due_to_failed_deliveries");
      assert.equal((await deliveries(emulator, "wh-someone-else")).length, 0, "per API key");
    } finally {
      await failing.close();
    }
  });
});

describe("webhooks across a restart", () => {
  it("keeps the webhook, its rotated secret and a pending delivery, which goes out after the restart", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "emu-webhooks-"));
    const receiver = await new Receiver().start();
    const key = "wh-restart-key";
    try {
      let emulator = await startFakeRuntimeEmulator({ EMULATOR_DATA_DIR: dataDir });
      let ai = sdk(emulator, key);
      const webhook = await ai.webhooks.create({ uri: receiver.url(), subscribed_events: ["interaction.completed"] });
      const rotated = (await ai.webhooks.rotateSigningSecret(webhook.id!, { revocation_behavior: "revoke_previous_secrets_immediately" }))
        .secret!;
      receiver.status = 500;
      const interactionId = await backgroundInteraction(emulator, ai);
      assert.equal(receiver.received.length, 1);
      await emulator.close();

      receiver.status = 200;
      emulator = await startFakeRuntimeEmulator({ EMULATOR_DATA_DIR: dataDir });
      try {
        ai = sdk(emulator, key);
        const kept = await ai.webhooks.get(webhook.id!);
        assert.equal(kept.signing_secrets?.length, 1);
        assert.equal(kept.signing_secrets?.[0]?.truncated_secret?.slice(6, 10), rotated.slice(6, 10), "the rotated secret is kept");
        let [delivery] = await deliveries(emulator, key);
        assert.equal(delivery.status, "pending");
        emulator.clockOf(key).advance(2 * 60_000);
        await emulator.webhooksSettled();
        assert.equal(receiver.received.length, 2);
        assert.ok(verifies(rotated, receiver.received[1]!), "signed with the rotated secret");
        assert.equal(JSON.parse(receiver.received[1]!.body).data.id, interactionId);
        [delivery] = await deliveries(emulator, key);
        assert.equal(delivery.status, "delivered");
        assert.deepEqual(
          delivery.attempts.map((attempt: { response_code: number }) => attempt.response_code),
          [500, 200],
        );
      } finally {
        await emulator.close();
      }
    } finally {
      await receiver.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
