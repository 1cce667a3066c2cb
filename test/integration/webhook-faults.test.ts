// Faults at webhook deliveries (docs/faults.md#webhooks), through the SDK against the emulator with fake
// sandboxes and a real loopback receiver: each injected failure is recorded on the attempt exactly as a
// real failing receiver's is (compared with one, where the machine can make one), retried as for real,
// and marked with injected_fault.

import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { ownerOf } from "../../server/common/ids.js";
import { FaultPlan } from "../../server/faults/fault-plan.js";
import { faultRuleSchema } from "../../server/faults/fault-rules.js";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";

const KEY = "wh-faults-key";

describe("webhook faults", () => {
  let emulator: FakeRuntimeEmulator;
  let receiver: http.Server;
  let received = 0;
  let ai: GoogleGenAI;
  const plan = new FaultPlan();
  const receiverUrl = () => `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const addRule = (rule: unknown) => {
    const added = plan.add(ownerOf(KEY), faultRuleSchema.parse(rule));
    assert.ok(added);
    return added;
  };
  const deliveries = async (): Promise<any[]> => {
    const response = await fetch(`${emulator.url}/emulator/webhooks/deliveries`, { headers: { "x-goog-api-key": KEY } });
    return ((await response.json()) as { deliveries: any[] }).deliveries;
  };
  const lastAttemptOfPing = async (webhookId: string) => {
    await ai.webhooks.ping(webhookId);
    // Newest first: the first of this webhook's is the ping just made.
    const delivery = (await deliveries()).find((candidate) => candidate.webhook_id === webhookId);
    assert.ok(delivery, "the ping's delivery is listed");
    return delivery.attempts.at(-1);
  };

  before(async () => {
    receiver = http.createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        received += 1;
        res.writeHead(200).end("ok");
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    emulator = await startFakeRuntimeEmulator({ EMULATOR_WEBHOOK_TIMEOUT_SECONDS: "1" }, { faults: plan });
    ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
  });

  after(async () => {
    await emulator.close();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  });

  it("http_status with latency is the receiver's answer, late; the receiver gets nothing; then the rule is spent", async () => {
    const webhook = await ai.webhooks.create({ uri: receiverUrl(), subscribed_events: ["interaction.completed"] });
    const rule = addRule({
      target: { kind: "webhook", uri: receiverUrl() },
      effect: { kind: "http_status", status: 503, latency_ms: 300 },
      times: 1,
    });
    const before = received;
    const attempt = await lastAttemptOfPing(webhook.id!);
    assert.equal(attempt.status, "failed");
    assert.equal(attempt.response_code, 503);
    assert.match(attempt.error, /the receiver answered 503/);
    assert.ok(attempt.latency_ms >= 300, `latency ${attempt.latency_ms}`);
    assert.deepEqual(attempt.injected_fault, { rule_id: rule.id, effect: { kind: "http_status", status: 503, latency_ms: 300 } });
    assert.equal(received, before, "the fault answered in the receiver's place");

    const real = await lastAttemptOfPing(webhook.id!);
    assert.equal(real.status, "delivered");
    assert.equal(real.injected_fault, null);
    assert.equal(received, before + 1);
  });

  it("refuse and timeout read exactly as a real refused or silent receiver's attempt", async () => {
    // A real refused receiver: a port that was free a moment ago.
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const closedPort = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const refusing = await ai.webhooks.create({ uri: `http://127.0.0.1:${closedPort}/hook`, subscribed_events: ["interaction.completed"] });
    const realRefusal = await lastAttemptOfPing(refusing.id!);

    const webhook = await ai.webhooks.create({ uri: receiverUrl(), subscribed_events: ["interaction.completed"] });
    addRule({ target: { kind: "webhook", uri: receiverUrl() }, effect: { kind: "refuse" }, times: 1 });
    const injectedRefusal = await lastAttemptOfPing(webhook.id!);
    assert.equal(injectedRefusal.error, realRefusal.error);
    assert.equal(injectedRefusal.response_code, null);
    assert.ok(injectedRefusal.injected_fault);

    addRule({ target: { kind: "webhook", uri: receiverUrl() }, effect: { kind: "timeout" }, times: 1 });
    const timedOut = await lastAttemptOfPing(webhook.id!);
    assert.equal(timedOut.error, "no answer within 1000 ms (EMULATOR_WEBHOOK_TIMEOUT_SECONDS)");
    assert.ok(timedOut.latency_ms >= 1000);
    assert.equal(timedOut.injected_fault.effect.kind, "timeout");

    addRule({ target: { kind: "webhook", uri: receiverUrl() }, effect: { kind: "reset" }, times: 1 });
    const reset = await lastAttemptOfPing(webhook.id!);
    assert.equal(reset.error, "could not reach the receiver: ECONNRESET");
  });

  it("an injected failure of an event delivery is retried on the clock as for real, and the retry reaches the receiver", async () => {
    const webhook = await ai.webhooks.create({ uri: `${receiverUrl()}?events`, subscribed_events: ["interaction.completed"] });
    addRule({ target: { kind: "webhook", uri: `${receiverUrl()}?events` }, effect: { kind: "http_status", status: 500 }, times: 1 });
    await ai.interactions.create({ agent: "antigravity-preview-05-2026", input: "say hello" } as never);
    await emulator.webhooksSettled();
    let delivery = (await deliveries()).find((candidate) => candidate.webhook_id === webhook.id);
    assert.equal(delivery?.status, "pending");
    assert.equal(delivery.attempts[0].response_code, 500);
    assert.ok(delivery.attempts[0].next_retry_time);
    const before = received;
    emulator.clockOf(KEY).advance(61_000);
    await emulator.webhooksSettled();
    delivery = (await deliveries()).find((candidate) => candidate.id === delivery.id);
    assert.equal(delivery.status, "delivered");
    assert.equal(delivery.attempts[1].injected_fault, null);
    assert.equal(received, before + 1);
  });
});
