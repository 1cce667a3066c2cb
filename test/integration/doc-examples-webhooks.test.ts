// The code examples of the documentation's webhooks page (ai.google.dev/gemini-api/docs/webhooks, the
// revision of 2026-10 whose dynamic example is an interaction with webhook_config), run as a new user
// would: the JavaScript example through the official SDK, the REST example as the same HTTP request
// (the page's REST examples use /v1/), the Python example as the body the Python SDK sends. Our own code
// throughout. The page's receiver, https://my-api.com/…, is a loopback receiver of this test: the
// emulator delivers to loopback (and to EMULATOR_WEBHOOK_HOSTS only), and nothing leaves the machine.
//
// Each `// doc-example:` line names the example (page#section: what) that docs/coverage.md lists.
// covers: webhooks.create, webhooks.get, webhooks.list, webhooks.update, webhooks.delete
// covers: webhooks.rotateSigningSecret, CreateModelInteraction.webhook_config

import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { Webhook } from "standardwebhooks";
import { docClient, type DocClient, type Json } from "../support/doc-example-client.js";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";

const KEY = "doc-examples-webhooks-key";

let emulator: FakeRuntimeEmulator;
let doc: DocClient;
let receiver: http.Server;
const received: Array<{ path: string; headers: Record<string, string>; body: string }> = [];
const receiverUrl = (pathname: string) => `http://127.0.0.1:${(receiver.address() as AddressInfo).port}${pathname}`;

before(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({
        path: req.url ?? "",
        headers: Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)])),
        body: Buffer.concat(chunks).toString("utf8"),
      });
      res.writeHead(200, { "content-type": "application/json" }).end('{"status": "received"}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  emulator = await startFakeRuntimeEmulator();
  doc = docClient(emulator.url, KEY);
});
after(async () => {
  await emulator?.close();
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
});

describe("webhooks: static webhooks", () => {
  let webhook: Json;
  let byRest: Json;

  it("creates a webhook and shows its signing secret once", async () => {
    // doc-example: webhooks#create-a-webhook: MyBatchWebhook on batch.succeeded and batch.failed (python, javascript, rest)
    const body = { name: "MyBatchWebhook", subscribed_events: ["batch.succeeded", "batch.failed"], uri: receiverUrl("/gemini-callback") };
    webhook = (await doc.client.webhooks.create(body as never)) as Json;
    assert.match(webhook.new_signing_secret ?? "", /^whsec_/);
    assert.equal(webhook.name, "MyBatchWebhook");
    assert.ok(webhook.id);
    const answer = await doc.rest("POST", "/v1/webhooks", body);
    assert.equal(answer.status, 200, answer.text);
    byRest = answer.json;
    assert.match(byRest.new_signing_secret ?? "", /^whsec_/);
  });

  it("gets and lists webhooks", async () => {
    // doc-example: webhooks#get-a-webhook: webhooks.get, name, uri and subscribed_events (python, javascript, rest)
    const got = (await doc.client.webhooks.get(webhook.id)) as Json;
    assert.deepEqual(
      [got.name, got.uri, got.subscribed_events],
      ["MyBatchWebhook", receiverUrl("/gemini-callback"), ["batch.succeeded", "batch.failed"]],
    );
    assert.equal(got.new_signing_secret, undefined, "the secret is shown at creation only");
    assert.equal((await doc.rest("GET", `/v1/webhooks/${byRest.id}`)).json.id, byRest.id);

    // doc-example: webhooks#list-webhooks: webhooks.list, each id, name and uri (python, javascript, rest)
    const listed = (await doc.client.webhooks.list()) as Json;
    assert.deepEqual(listed.webhooks.map((one: Json) => one.id).sort(), [webhook.id, byRest.id].sort());
    assert.equal((await doc.rest("GET", "/v1/webhooks")).json.webhooks.length, 2);
  });

  it("updates the subscribed events without an update_mask", async () => {
    // doc-example: webhooks#update-a-webhook: subscribed_events with batch.cancelled (python, javascript, rest)
    const events = ["batch.succeeded", "batch.failed", "batch.cancelled"];
    const updated = (await doc.client.webhooks.update(webhook.id, { subscribed_events: events } as never)) as Json;
    assert.deepEqual(updated.subscribed_events, events);
    assert.equal(updated.name, "MyBatchWebhook");
    const patched = await doc.rest("PATCH", `/v1/webhooks/${byRest.id}`, { subscribed_events: events });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.json.subscribed_events, events);
  });

  it("rotates the signing secret with the page's revocation_behavior, through the SDK", async () => {
    // doc-example: webhooks#rotate-a-signing-secret: rotateSigningSecret with REVOKE_PREVIOUS_SECRETS_AFTER_H24 (python, javascript)
    const response = (await doc.client.webhooks.rotateSigningSecret(webhook.id, {
      revocation_behavior: "REVOKE_PREVIOUS_SECRETS_AFTER_H24",
    } as never)) as Json;
    assert.match(response.secret ?? "", /^whsec_/);
  });

  it("rotates the signing secret at the REST example's path, POST /v1/webhooks/{id}/rotate_secret", async () => {
    // doc-example: webhooks#rotate-a-signing-secret: POST /v1/webhooks/{id}/rotate_secret (rest)
    const rotated = await doc.rest("POST", `/v1/webhooks/${byRest.id}/rotate_secret`, {
      revocation_behavior: "REVOKE_PREVIOUS_SECRETS_AFTER_H24",
    });
    assert.equal(rotated.status, 200, rotated.text);
    assert.match(rotated.json.secret ?? "", /^whsec_/);
  });

  it("deletes a webhook", async () => {
    // doc-example: webhooks#delete-a-webhook: webhooks.delete and DELETE /v1/webhooks/{id} (python, javascript, rest)
    await doc.client.webhooks.delete(webhook.id);
    assert.equal((await doc.rest("DELETE", `/v1/webhooks/${byRest.id}`)).status, 200);
    assert.equal((await doc.rest("GET", `/v1/webhooks/${webhook.id}`)).status, 404);
  });
});

describe("webhooks: receiving", () => {
  it("sends interaction.completed that the page's standardwebhooks receiver verifies", async () => {
    // doc-example: webhooks#handle-webhook-requests-on-a-server: a standardwebhooks receiver for interaction.completed (python, javascript)
    const webhook = (await doc.client.webhooks.create({
      name: "receiver",
      subscribed_events: ["interaction.completed"],
      uri: receiverUrl("/gemini-callback"),
    } as never)) as Json;
    const started = (await doc.client.interactions.create({
      agent: "antigravity-preview-05-2026",
      input: "say hello",
      background: true,
    } as never)) as Json;
    await doc.settle(started.id);
    await emulator.webhooksSettled();
    const delivery = received.find((one) => one.path === "/gemini-callback" && JSON.parse(one.body).data?.id === started.id);
    assert.ok(delivery, JSON.stringify(received));
    const event = new Webhook(webhook.new_signing_secret).verify(delivery.body, delivery.headers) as Json;
    assert.equal(event.type, "interaction.completed");
    assert.equal(event.data.id, started.id);
    await doc.client.webhooks.delete(webhook.id);
  });

  it("sends a background model interaction's end to its webhook_config.uris with the user_metadata", async () => {
    // doc-example: webhooks#send-a-dynamic-request: interactions.create with background and webhook_config (python, javascript, rest)
    const body = {
      model: "gemini-3.8-flash",
      input: "Tell me a short joke about programming.",
      background: true,
      webhook_config: { uris: [receiverUrl("/gemini-webhook-dynamic")], user_metadata: { job_group: "nightly-eval", priority: "high" } },
    };
    const response = (await doc.client.interactions.create(body as never)) as Json;
    assert.ok(response.id && response.status);
    const byRest = await doc.rest("POST", "/v1beta/interactions", body);
    assert.equal(byRest.status, 200, byRest.text);
    for (const id of [response.id, byRest.json.id]) await doc.settle(id);
    await emulator.webhooksSettled();
    for (const id of [response.id, byRest.json.id]) {
      const delivery = received.find((one) => one.path === "/gemini-webhook-dynamic" && JSON.parse(one.body).data?.id === id);
      assert.ok(delivery, JSON.stringify(received));
      assert.deepEqual(JSON.parse(delivery.body).data.user_metadata, { job_group: "nightly-eval", priority: "high" });
    }
  });
});
