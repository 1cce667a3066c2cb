// The test clock on a shared emulator (issue 29, items 2, 3 and 10), through POST /emulator/clock as a
// test calls it, with fake sandboxes: a key's move leaves every other key's world alone (its idle
// environment, its webhook's retries and state, its triggers); a key's clock stays within
// EMULATOR_CLOCK_MAX_OFFSET_DAYS however many moves sum past it; one move makes up at most
// EMULATOR_TRIGGER_MAX_CATCH_UP_RUNS runs of a trigger and EMULATOR_CLOCK_MAX_RUNS_PER_MOVE of a key's
// triggers, and records the rest as one skipped execution; a schedule with no date that ever comes
// (February 30) is refused.

import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";

const AGENT = "antigravity-preview-05-2026";
const HOUR_S = 3600;
const DAY_S = 86_400;

async function call(emulator: FakeRuntimeEmulator, key: string, method: string, urlPath: string, body?: unknown) {
  const response = await fetch(`${emulator.url}${urlPath}`, {
    method,
    headers: { "x-goog-api-key": key, "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, json: (await response.json()) as any };
}

async function advance(emulator: FakeRuntimeEmulator, key: string, seconds: number) {
  const moved = await call(emulator, key, "POST", "/emulator/clock", { advance_seconds: seconds });
  assert.equal(moved.status, 200, JSON.stringify(moved.json));
  return moved.json as { now: string; offset_seconds: number };
}

async function createTrigger(emulator: FakeRuntimeEmulator, key: string, schedule: string): Promise<any> {
  const created = await call(emulator, key, "POST", "/v1beta/triggers", {
    schedule,
    time_zone: "UTC",
    interaction: { agent: AGENT, input: "hello" },
  });
  assert.equal(created.status, 200, JSON.stringify(created.json));
  return created.json;
}

/** The trigger's executions (all of them, newest first) once none is in progress. */
async function settledExecutions(emulator: FakeRuntimeEmulator, key: string, id: string): Promise<any[]> {
  for (let attempt = 0; attempt < 400; attempt += 1) {
    const { json } = await call(emulator, key, "GET", `/v1beta/triggers/${id}/executions?page_size=100`);
    const executions: any[] = json.trigger_executions ?? [];
    if (executions.every((execution) => execution.status !== "in_progress")) return executions;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail("the trigger's executions did not end");
}

async function waitForInteraction(emulator: FakeRuntimeEmulator, key: string, id: string): Promise<void> {
  for (let attempt = 0; attempt < 400; attempt += 1) {
    if ((await call(emulator, key, "GET", `/v1beta/interactions/${id}`)).json.status !== "in_progress") return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail("the interaction did not end");
}

describe("a test clock per key on a shared emulator", () => {
  let emulator: FakeRuntimeEmulator;
  let failing: http.Server;
  let received = 0;
  before(async () => {
    emulator = await startFakeRuntimeEmulator({ EMULATOR_TRIGGER_CATCH_UP_SECONDS: "0.3" });
    // A webhook receiver that always fails, so a delivery stays pending and is retried on its owner's clock.
    failing = http.createServer((req, res) => {
      received += 1;
      req.resume();
      req.on("end", () => res.writeHead(503).end());
    });
    await new Promise<void>((resolve) => failing.listen(0, "127.0.0.1", resolve));
  });
  after(async () => {
    await emulator.close();
    await new Promise((resolve) => failing.close(resolve));
  });

  it("a move by key A leaves key B's idle environment, clock and triggers alone, and expires A's own", async () => {
    const [a, b] = ["clock-env-a", "clock-env-b"];
    const environmentOfB = await call(emulator, b, "POST", "/v1beta/environments", { sources: [] });
    const environmentOfA = await call(emulator, a, "POST", "/v1beta/environments", { sources: [] });
    assert.equal(environmentOfB.status, 200, JSON.stringify(environmentOfB.json));
    const triggerOfB = await createTrigger(emulator, b, "*/5 * * * *");

    // Past the default idle TTL (an hour) and past a dozen of B's five-minute runs.
    const moved = await advance(emulator, a, HOUR_S + 100);
    assert.equal(moved.offset_seconds, HOUR_S + 100);

    assert.equal((await call(emulator, a, "GET", `/v1beta/environments/${environmentOfA.json.id}`)).json.status, "expired");
    assert.equal((await call(emulator, b, "GET", `/v1beta/environments/${environmentOfB.json.id}`)).json.status, "active");
    assert.ok(emulator.runtime.channels.has(environmentOfB.json.id), "B's sandbox is still there");
    assert.equal((await call(emulator, b, "GET", "/emulator/clock")).json.offset_seconds, 0, "B's clock did not move");
    assert.deepEqual(await settledExecutions(emulator, b, triggerOfB.id), [], "B's trigger did not run");
    assert.equal((await call(emulator, b, "GET", `/v1beta/triggers/${triggerOfB.id}`)).json.next_run_time, triggerOfB.next_run_time);
    await call(emulator, b, "DELETE", `/v1beta/triggers/${triggerOfB.id}`);
    await call(emulator, a, "POST", "/emulator/clock", { reset: true });
  });

  it("a move by key A runs none of key B's webhook retries and leaves B's webhook enabled; B's own move does", async () => {
    const [a, b] = ["clock-webhook-a", "clock-webhook-b"];
    const uri = `http://127.0.0.1:${(failing.address() as AddressInfo).port}/b`;
    const webhook = await call(emulator, b, "POST", "/v1beta/webhooks", { uri, subscribed_events: ["interaction.completed"] });
    assert.equal(webhook.status, 200, JSON.stringify(webhook.json));
    const interaction = await call(emulator, b, "POST", "/v1beta/interactions", { agent: AGENT, input: "say hello", background: true });
    await waitForInteraction(emulator, b, interaction.json.id);
    await emulator.webhooksSettled();
    const before = received;
    const pending = (await call(emulator, b, "GET", "/emulator/webhooks/deliveries")).json.deliveries;
    assert.equal(pending.length, 1, JSON.stringify(pending));
    assert.equal(pending[0].status, "pending");
    assert.equal(pending[0].attempts.length, 1);

    await advance(emulator, a, 25 * HOUR_S);
    await emulator.webhooksSettled();
    const [untouched] = (await call(emulator, b, "GET", "/emulator/webhooks/deliveries")).json.deliveries;
    assert.equal(untouched.status, "pending", JSON.stringify(untouched));
    assert.equal(untouched.attempts.length, 1, "none of B's retries ran");
    assert.equal(received, before);
    assert.equal((await call(emulator, b, "GET", `/v1beta/webhooks/${webhook.json.id}`)).json.state, "enabled");

    // B's own clock drives B's retries to the end of their window.
    await advance(emulator, b, 25 * HOUR_S);
    await emulator.webhooksSettled();
    const [givenUp] = (await call(emulator, b, "GET", "/emulator/webhooks/deliveries")).json.deliveries;
    assert.equal(givenUp.status, "given_up");
    assert.equal((await call(emulator, b, "GET", `/v1beta/webhooks/${webhook.json.id}`)).json.state, "disabled_due_to_failed_deliveries");
    await call(emulator, a, "POST", "/emulator/clock", { reset: true });
    await call(emulator, b, "POST", "/emulator/clock", { reset: true });
  });

  it("keeps a key's clock within EMULATOR_CLOCK_MAX_OFFSET_DAYS however many moves sum past it, and a reset frees it", async () => {
    const key = "clock-bound-key";
    // Ten moves of ten years stay within the default bound of about a century (36525 days); the eleventh would pass it.
    let offset = 0;
    for (let move = 0; move < 10; move += 1) offset = (await advance(emulator, key, 3650 * DAY_S)).offset_seconds;
    const refused = await call(emulator, key, "POST", "/emulator/clock", { advance_seconds: 3650 * DAY_S });
    assert.equal(refused.status, 400, JSON.stringify(refused.json));
    assert.equal(refused.json.error.status, "INVALID_ARGUMENT");
    assert.match(refused.json.error.message, /36525 days \(EMULATOR_CLOCK_MAX_OFFSET_DAYS\)/);
    assert.match(refused.json.error.message, /"reset": true/);
    const unchanged = await call(emulator, key, "GET", "/emulator/clock");
    assert.equal(unchanged.json.offset_seconds, offset, "a refused move moves nothing");
    // Everything that stamps a time still works for the key at its furthest.
    const environment = await call(emulator, key, "POST", "/v1beta/environments", { sources: [] });
    assert.equal(environment.status, 200, JSON.stringify(environment.json));
    const trigger = await createTrigger(emulator, key, "0 9 * * 1");
    assert.ok(Date.parse(trigger.next_run_time) > Date.parse(unchanged.json.now));
    await call(emulator, key, "DELETE", `/v1beta/triggers/${trigger.id}`);

    assert.equal((await call(emulator, key, "POST", "/emulator/clock", { reset: true })).json.offset_seconds, 0);
    assert.equal((await advance(emulator, key, 3650 * DAY_S)).offset_seconds, 3650 * DAY_S, "after a reset the key moves again");
    await call(emulator, key, "POST", "/emulator/clock", { reset: true });
  });

  it("refuses a schedule whose date never comes (February 30) with a 400 that says so", async () => {
    const refused = await call(emulator, "clock-feb-key", "POST", "/v1beta/triggers", {
      schedule: "0 0 30 2 *",
      time_zone: "UTC",
      interaction: { agent: AGENT, input: "hello" },
    });
    assert.equal(refused.status, 400, JSON.stringify(refused.json));
    assert.match(refused.json.error.message, /never run/);
    assert.deepEqual((await call(emulator, "clock-feb-key", "GET", "/v1beta/triggers")).json.triggers ?? [], []);
  });
});

describe("trigger catch-up on a move of the clock", () => {
  let emulator: FakeRuntimeEmulator;
  before(async () => {
    emulator = await startFakeRuntimeEmulator({
      EMULATOR_TRIGGER_CATCH_UP_SECONDS: "0.3",
      EMULATOR_TRIGGER_MAX_CATCH_UP_RUNS: "5",
      EMULATOR_CLOCK_MAX_RUNS_PER_MOVE: "8",
    });
  });
  after(() => emulator.close());

  it("makes up at most EMULATOR_TRIGGER_MAX_CATCH_UP_RUNS runs of a trigger and records the rest as one skipped execution", async () => {
    const key = "catch-up-key";
    const trigger = await createTrigger(emulator, key, "* * * * *");
    const moved = await advance(emulator, key, HOUR_S);
    const executions = await settledExecutions(emulator, key, trigger.id);
    const ran = executions.filter((execution) => execution.status !== "skipped");
    const skipped = executions.filter((execution) => execution.status === "skipped");
    assert.equal(ran.length, 5, JSON.stringify(executions.map((execution) => execution.status)));
    assert.equal(skipped.length, 1);
    assert.match(skipped[0].error, /were missed: .*at most 5 runs of a trigger \(EMULATOR_TRIGGER_MAX_CATCH_UP_RUNS\)/);
    const after = (await call(emulator, key, "GET", `/v1beta/triggers/${trigger.id}`)).json;
    assert.ok(Date.parse(after.next_run_time) > Date.parse(moved.now), "the schedule goes on after the clock's new time");
    // The next move makes up its own runs again.
    await advance(emulator, key, 120);
    assert.equal((await settledExecutions(emulator, key, trigger.id)).length, executions.length + 2);
    await call(emulator, key, "DELETE", `/v1beta/triggers/${trigger.id}`);
  });

  it("makes at most EMULATOR_CLOCK_MAX_RUNS_PER_MOVE runs of a key's triggers together", async () => {
    const key = "catch-up-many-key";
    const triggers = [await createTrigger(emulator, key, "* * * * *"), await createTrigger(emulator, key, "* * * * *")];
    await advance(emulator, key, HOUR_S);
    let ran = 0;
    for (const trigger of triggers) {
      const executions = await settledExecutions(emulator, key, trigger.id);
      ran += executions.filter((execution) => execution.status !== "skipped").length;
      const skipped = executions.filter((execution) => execution.status === "skipped");
      assert.equal(skipped.length, 1, JSON.stringify(executions));
      assert.match(skipped[0].error, /at most 8 runs of a key's triggers together \(EMULATOR_CLOCK_MAX_RUNS_PER_MOVE\)/);
    }
    assert.equal(ran, 8);
  });
});

describe("trigger executions in progress in total", () => {
  let emulator: FakeRuntimeEmulator;
  before(async () => {
    emulator = await startFakeRuntimeEmulator({ EMULATOR_TRIGGER_CATCH_UP_SECONDS: "0.3", EMULATOR_TRIGGER_MAX_RUNNING: "1" });
  });
  after(() => emulator.close());

  it("starts no scheduled run past EMULATOR_TRIGGER_MAX_RUNNING, recording it as skipped", async () => {
    const [a, b] = ["running-a", "running-b"];
    // A's run holds its sandbox until it is cancelled.
    const environment = await call(emulator, a, "POST", "/v1beta/environments", { sources: [] });
    emulator.runtime.channels.get(environment.json.id)!.onRun = (request) =>
      new Promise((resolve) => request.signal?.addEventListener("abort", () => resolve({ exitCode: 137 }), { once: true }));
    const held = await call(emulator, a, "POST", "/v1beta/triggers", {
      schedule: "*/5 * * * *",
      time_zone: "UTC",
      environment_id: environment.json.id,
      interaction: { agent: AGENT, input: '```tool_calls\n[{"name": "code_execution", "args": {"code": "sleep 1000"}}]\n```' },
    });
    assert.equal(held.status, 200, JSON.stringify(held.json));
    await advance(emulator, a, 300);
    const running = (await call(emulator, a, "GET", `/v1beta/triggers/${held.json.id}/executions`)).json.trigger_executions;
    assert.deepEqual(
      running.map((execution: any) => execution.status),
      ["in_progress"],
    );

    const trigger = await createTrigger(emulator, b, "*/5 * * * *");
    await advance(emulator, b, 300);
    const [skipped, ...rest] = await settledExecutions(emulator, b, trigger.id);
    assert.equal(rest.length, 0);
    assert.equal(skipped.status, "skipped");
    assert.match(skipped.error, /1 trigger executions in progress, the most it runs at once \(EMULATOR_TRIGGER_MAX_RUNNING\)/);
    await call(emulator, a, "DELETE", `/v1beta/triggers/${held.json.id}`);
    await call(emulator, a, "POST", `/v1beta/interactions/${running[0].interaction_id}/cancel`);
  });
});
