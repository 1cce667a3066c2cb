// Every status and event the service documents, produced by the emulator as `npm start` wires it (fake
// sandboxes), read through the official SDK (@google/genai 3.3): the documented stream shape (no
// user_input step, an interaction.completed without steps), the flex tier starting queued, an agent's
// token budget ending incomplete (model-agent-service.test.ts), and on demand, fault rules that make the
// next interaction start queued, end incomplete, or stop at requires_continuation with a token that a
// create continues (by hand for an agent; by the SDK's own automatic continuation for a model), and the
// webhook events interaction.cancelled (sent) and batch.cancelled (accepted).
// covers: CreateAgentInteraction.service_tier, CreateAgentInteraction.continuation_token, CreateModelInteraction.continuation_token
// covers: CreateModelInteraction.service_tier

import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, beforeEach, describe, it } from "node:test";
import type { GoogleGenAI } from "@google/genai";
import { fakeRuntimeEmulatorForTests } from "../support/fake-runtime-tests.js";

const KEY = "statuses-key";
const AGENT = "antigravity-preview-05-2026";
const MODEL = "gemini-3-flash-preview";
const INPUT = "say hello to the whole wide world";

type Json = Record<string, any>;
let ai: GoogleGenAI;
const fixture = fakeRuntimeEmulatorForTests({
  ready: () => {
    ai = fixture.sdk(KEY);
  },
});

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${fixture.emulator.url}${path}`, {
    method,
    headers: { "content-type": "application/json", "x-goog-api-key": KEY },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as Json };
}

const addRule = async (rule: unknown) => {
  const answer = await call("POST", "/emulator/faults", rule);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
};

async function streamed(request: Json): Promise<Json[]> {
  const events: Json[] = [];
  const stream = (await ai.interactions.create({ ...request, stream: true } as never)) as unknown as AsyncIterable<Json>;
  for await (const event of stream) events.push(event);
  return events;
}

async function settled(id: string): Promise<Json> {
  for (;;) {
    const current = (await ai.interactions.get(id)) as Json;
    if (current.status !== "in_progress" && current.status !== "queued") return current;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const textOf = (steps: Json[]): string =>
  steps
    .filter((step) => step.type === "model_output")
    .flatMap((step) => step.content.map((part: Json) => part.text))
    .join("");

/** The answer the scripted agent gives INPUT, run without any rule. */
async function fullAnswer(): Promise<string> {
  const whole = (await ai.interactions.create({ agent: AGENT, input: INPUT } as never)) as Json;
  assert.equal(whole.status, "completed");
  return textOf(whole.steps);
}

beforeEach(async () => {
  await call("DELETE", "/emulator/faults");
});

describe("the stream as the documentation shows it", () => {
  it("starts at the output's first step (no user_input) and ends with an interaction.completed without steps", async () => {
    const events = await streamed({ agent: AGENT, input: INPUT });
    const types = events.map((event) => event.event_type);
    assert.deepEqual(types.slice(0, 3), ["interaction.created", "interaction.status_update", "step.start"]);
    const starts = events.filter((event) => event.event_type === "step.start");
    assert.ok(
      starts.every((event) => event.step.type !== "user_input"),
      "no user_input step in the stream",
    );
    assert.deepEqual(
      starts.map((event) => event.index),
      starts.map((_, index) => index),
      "the output's steps are numbered from 0",
    );
    const completed = events.at(-1)!;
    assert.equal(completed.event_type, "interaction.completed");
    assert.equal(completed.interaction.status, "completed");
    assert.equal(completed.interaction.steps, undefined, "interaction.completed carries no steps");
    assert.ok(completed.interaction.usage, "but the usage");

    // GET has the whole timeline; a resumed stream (GET ?stream=true) shows the same events as the first.
    const id = completed.interaction.id as string;
    const full = (await ai.interactions.get(id)) as Json;
    assert.equal(full.steps[0].type, "user_input");
    const replayed: Json[] = [];
    for await (const event of (await ai.interactions.get(id, { stream: true } as never)) as unknown as AsyncIterable<Json>) {
      replayed.push(event);
    }
    assert.deepEqual(
      replayed.map((event) => [event.event_type, event.event_id, event.index]),
      events.map((event) => [event.event_type, event.event_id, event.index]),
    );
  });
});

describe("queued", () => {
  it("the flex service tier starts queued, then in_progress", async () => {
    const created = (await ai.interactions.create({ agent: AGENT, input: INPUT, background: true, service_tier: "flex" } as never)) as Json;
    assert.equal(created.status, "queued");
    assert.equal((await settled(created.id)).status, "completed");

    const events = await streamed({ agent: AGENT, input: INPUT, service_tier: "flex" });
    assert.equal(events[0]!.interaction.status, "queued");
    assert.deepEqual([events[1]!.event_type, events[1]!.status], ["interaction.status_update", "in_progress"]);
    assert.equal(events.at(-1)!.interaction.service_tier, "flex");

    // A model interaction's tier too.
    const modelRun = (await ai.interactions.create({
      model: MODEL,
      input: INPUT,
      background: true,
      service_tier: "flex",
    } as never)) as Json;
    assert.equal(modelRun.status, "queued");
    assert.equal((await settled(modelRun.id)).status, "completed");
    const standard = (await ai.interactions.create({
      model: MODEL,
      input: INPUT,
      background: true,
      service_tier: "standard",
    } as never)) as Json;
    assert.notEqual(standard.status, "queued");

    const refused = await call("POST", "/v1beta/interactions", { agent: AGENT, input: INPUT, service_tier: "cheap" });
    assert.equal(refused.status, 400);
    assert.match(JSON.stringify(refused.body), /service_tier/);
  });

  it("a fault rule holds the next interaction queued for its ms; a cancel meanwhile ends it cancelled without running", async () => {
    const rule = await addRule({ target: { kind: "interaction" }, effect: { kind: "queued", ms: 600_000 }, times: 1 });
    const created = (await ai.interactions.create({ agent: AGENT, input: INPUT, background: true } as never)) as Json;
    assert.equal(created.status, "queued");
    assert.equal(((await ai.interactions.get(created.id)) as Json).status, "queued", "still queued");
    const cancelled = await call("POST", `/v1beta/interactions/${created.id}/cancel`);
    assert.equal(cancelled.body.status, "cancelled");
    assert.equal(((await ai.interactions.get(created.id)) as Json).steps.filter((step: Json) => step.type !== "user_input").length, 0);
    const listed = await call("GET", "/emulator/faults");
    assert.equal(listed.body.rules.find((one: Json) => one.id === rule.id).injected, 1);

    await addRule({ target: { kind: "interaction", agent: AGENT }, effect: { kind: "queued", ms: 50 }, times: 1 });
    const events = await streamed({ agent: AGENT, input: INPUT });
    assert.equal(events[0]!.interaction.status, "queued");
    assert.equal(events.at(-1)!.interaction.status, "completed");
  });
});

describe("incomplete", () => {
  it("a fault rule ends the next interaction incomplete, its answer cut, the reason marked in errors", async () => {
    const answer = await fullAnswer();
    const rule = await addRule({ target: { kind: "interaction" }, effect: { kind: "incomplete" }, times: 1 });
    const events = await streamed({ agent: AGENT, input: INPUT });
    const completed = events.at(-1)!;
    assert.equal(completed.interaction.status, "incomplete");
    assert.ok(
      events.some((event) => event.event_type === "interaction.status_update" && event.status === "incomplete"),
      "announced as a status_update",
    );
    assert.ok(!events.some((event) => event.event_type === "error"), "not a failure: no error event");
    const got = (await ai.interactions.get(completed.interaction.id)) as Json;
    assert.equal(got.status, "incomplete");
    const cut = textOf(got.steps);
    assert.ok(cut.length > 0 && cut.length < answer.length && answer.startsWith(cut), `${cut} is a cut of ${answer}`);
    assert.ok(String(got.errors[0].message).endsWith(`(injected by fault rule ${rule.id}).`));
    const listed = await call("GET", "/emulator/interactions?status=incomplete");
    assert.ok(
      listed.body.interactions.some((item: Json) => item.id === got.id),
      "listed by its status",
    );
  });

  it("refuses an interaction effect at another target, and another effect at an interaction", async () => {
    for (const rule of [
      { target: { kind: "model" }, effect: { kind: "incomplete" } },
      { target: { kind: "interaction" }, effect: { kind: "timeout" } },
    ]) {
      const answer = await call("POST", "/emulator/faults", rule);
      assert.equal(answer.status, 400);
      assert.match(JSON.stringify(answer.body), /cannot happen at/);
    }
  });
});

describe("requires_continuation", () => {
  it("stops an agent's interaction with a continuation_token; a create with it writes the rest", async () => {
    const answer = await fullAnswer();
    await addRule({ target: { kind: "interaction" }, effect: { kind: "requires_continuation" }, times: 1 });
    const events = await streamed({ agent: AGENT, input: INPUT });
    const end = events.at(-1)!;
    assert.equal(end.interaction.status, "requires_continuation");
    const token = end.interaction.continuation_token as string;
    assert.match(token, /^ct_/);
    const update = events.find((event) => event.event_type === "interaction.status_update" && event.status === "requires_continuation");
    assert.equal(update?.continuation_token, token);
    const first = (await ai.interactions.get(end.interaction.id)) as Json;
    assert.equal(first.continuation_token, token);

    // As the SDK's ContinuationInterruptedError says: the token, the interaction that issued it, no input.
    const second = (await ai.interactions.create({
      agent: AGENT,
      previous_interaction_id: first.id,
      continuation_token: token,
    } as never)) as Json;
    assert.equal(second.status, "completed");
    assert.equal(second.previous_interaction_id, first.id);
    assert.equal(textOf(first.steps) + textOf(second.steps), answer, "the two parts make the whole answer");
    assert.equal(second.steps[0].type, "model_output", "a continuation records no input");

    const again = await call("POST", "/v1beta/interactions", {
      agent: AGENT,
      previous_interaction_id: second.id,
      continuation_token: token,
    });
    assert.equal(again.status, 400, "a token belongs to the interaction that issued it");
    assert.match(JSON.stringify(again.body), /handed out by interaction/);
    const forged = await call("POST", "/v1beta/interactions", {
      agent: AGENT,
      previous_interaction_id: first.id,
      continuation_token: "nope",
    });
    assert.equal(forged.status, 400);
    assert.match(JSON.stringify(forged.body), /not a token this emulator handed out/);
  });

  it("is continued by the SDK's own automatic continuation for a model interaction", async () => {
    const whole = (await ai.interactions.create({ model: MODEL, input: INPUT } as never)) as Json;
    await addRule({ target: { kind: "interaction", model: MODEL }, effect: { kind: "requires_continuation" }, times: 1 });
    const merged = (await ai.interactions.create({ model: MODEL, input: INPUT } as never)) as Json;
    assert.equal(merged.status, "completed");
    assert.equal(merged.continuation_ids?.length, 2, "two hops");
    assert.equal(textOf(merged.steps), textOf(whole.steps));
  });
});

describe("webhook events", () => {
  let server: http.Server;
  const received: Json[] = [];

  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        received.push(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Json);
        res.writeHead(200).end("ok");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  });
  after(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it("accepts every documented event (batch.cancelled too) and sends interaction.cancelled for a cancelled interaction", async () => {
    const uri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const webhook = await ai.webhooks.create({ uri, subscribed_events: ["interaction.cancelled", "batch.cancelled"] as never });
    assert.deepEqual(webhook.subscribed_events, ["interaction.cancelled", "batch.cancelled"]);
    await addRule({ target: { kind: "interaction" }, effect: { kind: "queued", ms: 600_000 }, times: 1 });
    const created = (await ai.interactions.create({ agent: AGENT, input: INPUT, background: true } as never)) as Json;
    await call("POST", `/v1beta/interactions/${created.id}/cancel`);
    await fixture.emulator.webhooksSettled();
    const events = received.filter((payload) => payload.type === "interaction.cancelled");
    assert.deepEqual(
      events.map((payload) => payload.data.id),
      [created.id],
    );
    await ai.webhooks.delete(webhook.id!);
  });
});
