// Triggers through the official SDK (ai.triggers.*) against the emulator as `npm start` wires it, with
// fake sandboxes, driven by the test clock (POST /emulator/clock): a */5 trigger runs exactly once per
// advanced five minutes and each execution names its completed interaction; a trigger whose
// interaction is refused at creation ends in `error` after max_consecutive_failures and runs no more;
// a paused trigger does not run; run now starts an execution at once; a run held open makes the next
// one `skipped` and its execution_timeout_seconds cancels it as `timed_out`; a restart keeps the
// trigger and its schedule. And the clock route's refusals, and the environment TTL on the clock.
// covers: triggers.create, triggers.list, triggers.get, triggers.update, triggers.delete, triggers.run, triggers.listExecutions
// covers: CreateTrigger.display_name, CreateTrigger.schedule, CreateTrigger.time_zone, CreateTrigger.interaction
// covers: CreateTrigger.max_consecutive_failures, CreateTrigger.execution_timeout_seconds, CreateTrigger.environment_id
// covers: UpdateTrigger.status, UpdateTrigger.display_name

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";

const KEY = "triggers-key";
const OTHER_KEY = "triggers-other-key";
const AGENT = "antigravity-preview-05-2026";
const FIVE_MINUTES = 300_000;

const script = (calls: unknown[]) => `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``;

async function call(emulator: FakeRuntimeEmulator, method: string, urlPath: string, body?: unknown, key = KEY) {
  const response = await fetch(`${emulator.url}${urlPath}`, {
    method,
    headers: { "x-goog-api-key": key, "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, json: (await response.json()) as any };
}

async function advance(emulator: FakeRuntimeEmulator, seconds: number): Promise<{ now: string; offset_seconds: number }> {
  const { status, json } = await call(emulator, "POST", "/emulator/clock", { advance_seconds: seconds });
  assert.equal(status, 200, JSON.stringify(json));
  return json;
}

/**
 * Moves the clock to about a second past its next five-minute boundary, so a test's few real ms never
 * cross one; returns that boundary.
 */
async function alignToFiveMinutes(emulator: FakeRuntimeEmulator): Promise<number> {
  const { json } = await call(emulator, "GET", "/emulator/clock");
  const now = Date.parse(json.now);
  const target = Math.ceil(now / FIVE_MINUTES) * FIVE_MINUTES + 1000;
  await advance(emulator, (target - now) / 1000);
  return target - 1000;
}

/** The trigger's executions once none is in progress (runs end in the background after the clock answers). */
async function settledExecutions(ai: GoogleGenAI, id: string): Promise<any[]> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const page = await ai.triggers.listExecutions(id, { page_size: 100 });
    const executions = page.trigger_executions ?? [];
    if (executions.every((execution) => execution.status !== "in_progress")) return executions;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail("the trigger's executions did not end");
}

describe("triggers on the test clock", () => {
  let emulator: FakeRuntimeEmulator;
  let ai: GoogleGenAI;
  before(async () => {
    // Three tool calls per interaction at most: a script of four is refused at creation (a 4xx).
    emulator = await startFakeRuntimeEmulator({ EMULATOR_MAX_TOOL_CALLS: "3", EMULATOR_TRIGGER_CATCH_UP_SECONDS: "0.3" });
    ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
  });
  after(() => emulator.close());

  it("runs a */5 trigger exactly twice when the clock moves ten minutes, each execution naming its completed interaction", async () => {
    const start = await alignToFiveMinutes(emulator);
    const trigger = await ai.triggers.create({
      display_name: "every five minutes",
      schedule: "*/5 * * * *",
      time_zone: "Europe/Berlin",
      interaction: { agent: AGENT, input: "hello" } as never,
    });
    assert.equal(trigger.status, "active");
    assert.equal(trigger.schedule, "*/5 * * * *");
    assert.equal(trigger.display_name, "every five minutes");
    assert.equal(trigger.time_zone, "Europe/Berlin");
    assert.equal(Date.parse(trigger.next_run_time!), start + FIVE_MINUTES);
    assert.deepEqual((await ai.triggers.listExecutions(trigger.id)).trigger_executions ?? [], []);

    await advance(emulator, 600);
    const executions = await settledExecutions(ai, trigger.id);
    assert.equal(executions.length, 2, JSON.stringify(executions));
    // Newest first, each at its own scheduled time, five minutes apart.
    assert.deepEqual(
      executions.map((execution) => Date.parse(execution.scheduled_time)),
      [start + 2 * FIVE_MINUTES, start + FIVE_MINUTES],
    );
    for (const execution of executions) {
      assert.equal(execution.status, "completed", JSON.stringify(execution));
      assert.equal(execution.trigger_id, trigger.id);
      const interaction = await ai.interactions.get(execution.interaction_id);
      assert.equal(interaction.status, "completed");
    }
    const after = await ai.triggers.get(trigger.id);
    assert.equal(Date.parse(after.next_run_time!), start + 3 * FIVE_MINUTES);
    assert.equal(after.previous_interaction_id, executions[0].interaction_id);
    assert.equal(after.consecutive_failure_count, 0);
    // Another key sees none of it.
    const other = new GoogleGenAI({ apiKey: OTHER_KEY, httpOptions: { baseUrl: emulator.url } });
    await assert.rejects(other.triggers.get(trigger.id), /not found/i);
    assert.deepEqual((await other.triggers.list()).triggers ?? [], []);
    await ai.triggers.delete(trigger.id);
    await assert.rejects(ai.triggers.get(trigger.id), /not found/i);
  });

  it("ends a trigger whose interaction is refused in error after max_consecutive_failures, and runs it no more", async () => {
    await alignToFiveMinutes(emulator);
    const tooLong = script(Array.from({ length: 4 }, () => ({ name: "code_execution", args: { code: "true" } })));
    const trigger = await ai.triggers.create({
      schedule: "*/5 * * * *",
      time_zone: "UTC",
      max_consecutive_failures: 2,
      interaction: { agent: AGENT, input: tooLong } as never,
    });
    await advance(emulator, 1800);
    const executions = await settledExecutions(ai, trigger.id);
    assert.equal(executions.length, 2, JSON.stringify(executions));
    for (const execution of executions) {
      assert.equal(execution.status, "failed");
      assert.match(execution.error, /refused: .*EMULATOR_MAX_TOOL_CALLS/);
      assert.equal(execution.interaction_id, undefined);
    }
    const stopped = await ai.triggers.get(trigger.id);
    assert.equal(stopped.status, "error");
    assert.equal(stopped.consecutive_failure_count, 2);
    assert.equal(stopped.next_run_time, undefined);
    assert.deepEqual(
      (await ai.triggers.list({ filter: "status=error" })).triggers?.map((listed) => listed.id),
      [trigger.id],
    );

    // Resuming starts the count afresh and the schedule from now.
    const resumed = await ai.triggers.update(trigger.id, { status: "active" });
    assert.equal(resumed.status, "active");
    assert.equal(resumed.consecutive_failure_count, 0);
    assert.ok(resumed.next_run_time && resumed.last_resume_time);
    await ai.triggers.update(trigger.id, { status: "paused" });
  });

  it("does not run a paused trigger; run now starts one at once whatever the status", async () => {
    await alignToFiveMinutes(emulator);
    const trigger = await ai.triggers.create({
      schedule: "*/5 * * * *",
      time_zone: "UTC",
      interaction: { agent: AGENT, input: "hi" } as never,
    });
    const paused = await ai.triggers.update(trigger.id, { status: "paused" });
    assert.equal(paused.status, "paused");
    const renamed = await ai.triggers.update(trigger.id, { display_name: "renamed while paused" });
    assert.equal(renamed.display_name, "renamed while paused");
    assert.equal(renamed.status, "paused", "a display_name update leaves the status");
    assert.equal((await ai.triggers.get(trigger.id)).display_name, "renamed while paused");
    assert.equal(paused.next_run_time, undefined);
    assert.ok(paused.last_pause_time);
    await advance(emulator, 900);
    assert.deepEqual((await ai.triggers.listExecutions(trigger.id)).trigger_executions ?? [], []);

    const started = await ai.triggers.run(trigger.id);
    assert.equal(started.trigger_id, trigger.id);
    assert.match(started.interaction_id ?? "", /^int_/);
    const [execution] = await settledExecutions(ai, trigger.id);
    assert.equal(execution.id, started.id);
    assert.equal(execution.status, "completed");
    await assert.rejects(ai.triggers.update(trigger.id, { status: "error" }), /is set by failed executions/);
  });

  it("run now takes no body fields (the document's RunTriggerRequest has none): a field or a list is a 400, and nothing runs", async () => {
    const trigger = await ai.triggers.create({
      schedule: "0 0 1 1 *",
      time_zone: "UTC",
      interaction: { agent: AGENT, input: "hi" } as never,
    });
    const at = `/v1beta/triggers/${trigger.id}/executions`;
    const field = await call(emulator, "POST", at, { force: true });
    assert.equal(field.status, 400);
    assert.equal(field.json.error.code, "parameter_unknown");
    assert.match(field.json.error.message, /Unknown name "force": Cannot find field\./);
    const list = await call(emulator, "POST", at, [1]);
    assert.equal(list.status, 400, JSON.stringify(list.json));
    assert.equal(list.json.error.status, "INVALID_ARGUMENT");
    assert.deepEqual((await ai.triggers.listExecutions(trigger.id)).trigger_executions ?? [], [], "neither ran it");
    assert.equal((await call(emulator, "POST", at, {})).status, 200, "an empty object is no body");
    await settledExecutions(ai, trigger.id);
  });

  it("skips a run due while the previous one is still going, and cancels that one at its execution timeout", async () => {
    const environment = await call(emulator, "POST", "/v1beta/environments", { sources: [] });
    assert.equal(environment.status, 200, JSON.stringify(environment.json));
    const channel = emulator.runtime.channels.get(environment.json.id)!;
    // Every command in the sandbox runs until it is cancelled.
    channel.onRun = (request) =>
      new Promise((resolve) => request.signal?.addEventListener("abort", () => resolve({ exitCode: 137 }), { once: true }));
    await alignToFiveMinutes(emulator);
    const trigger = await ai.triggers.create({
      schedule: "*/5 * * * *",
      time_zone: "UTC",
      environment_id: environment.json.id,
      execution_timeout_seconds: 420,
      interaction: { agent: AGENT, input: script([{ name: "code_execution", args: { code: "sleep 1000" } }]) } as never,
    });
    // The run at 5 minutes is still going at 10: that one is skipped.
    await advance(emulator, 600);
    const midway = (await ai.triggers.listExecutions(trigger.id)).trigger_executions ?? [];
    assert.deepEqual(
      midway.map((execution) => execution.status),
      ["skipped", "in_progress"],
      JSON.stringify(midway),
    );
    // Seven minutes after it started, it is cancelled.
    await advance(emulator, 120);
    const executions = await settledExecutions(ai, trigger.id);
    assert.deepEqual(
      executions.map((execution) => execution.status),
      ["skipped", "timed_out"],
      JSON.stringify(executions),
    );
    assert.equal(executions[1].environment_id, environment.json.id);
    const timedOut = await ai.interactions.get(executions[1].interaction_id);
    assert.equal(timedOut.status, "cancelled");
    assert.equal(timedOut.environment_id, environment.json.id, "the run was in the trigger's environment");
    assert.ok(
      channel.commands.some((command) => command.argv.at(-1)?.includes("sleep 1000")),
      "its command reached that sandbox",
    );
    const after = await ai.triggers.get(trigger.id);
    assert.equal(after.consecutive_failure_count, 1);
    await ai.triggers.delete(trigger.id);
  });

  it("refuses a bad schedule, an unknown time zone and a streamed interaction with a 400 that says what to fix", async () => {
    const base = { time_zone: "UTC", schedule: "*/5 * * * *", interaction: { agent: AGENT, input: "hi" } };
    const cases: Array<[object, RegExp]> = [
      [{ ...base, schedule: "*/5 * * * * *" }, /not standard cron: give five fields/],
      [{ ...base, schedule: "61 * * * *" }, /not a valid cron schedule/],
      [{ ...base, time_zone: "Mars/Olympus_Mons" }, /not an IANA time zone name/],
      [{ ...base, interaction: { ...base.interaction, stream: true } }, /runs in the background/],
      [{ ...base, interaction: { ...base.interaction, toolz: [] } }, /Unknown name \\"toolz\\" at 'interaction'/],
    ];
    const stored = ((await ai.triggers.list()).triggers ?? []).length;
    for (const [body, message] of cases) {
      const { status, json } = await call(emulator, "POST", "/v1beta/triggers", body);
      assert.equal(status, 400, JSON.stringify(json));
      assert.match(JSON.stringify(json.error), message);
    }
    assert.equal(((await ai.triggers.list()).triggers ?? []).length, stored, "no refused trigger was stored");
  });

  it("expires an environment idle for EMULATOR_ENVIRONMENT_TTL_SECONDS of the clock's time before the move answers", async () => {
    const environment = await call(emulator, "POST", "/v1beta/environments", { sources: [] });
    assert.equal(environment.status, 200, JSON.stringify(environment.json));
    await advance(emulator, 3000);
    assert.equal((await call(emulator, "GET", `/v1beta/environments/${environment.json.id}`)).json.status, "active");
    await advance(emulator, 601);
    assert.equal((await call(emulator, "GET", `/v1beta/environments/${environment.json.id}`)).json.status, "expired");
  });

  it("refuses to move the clock backwards, and goes back to real time on reset", async () => {
    const before = await call(emulator, "GET", "/emulator/clock");
    for (const body of [{ advance_seconds: -1 }, {}, { advance_seconds: 1, reset: true }, { reset: false }, { advance_seconds: "60" }]) {
      const { status, json } = await call(emulator, "POST", "/emulator/clock", body);
      assert.equal(status, 400, `${JSON.stringify(body)} → ${JSON.stringify(json)}`);
      assert.equal(json.error.status, "INVALID_ARGUMENT");
    }
    assert.match(JSON.stringify((await call(emulator, "POST", "/emulator/clock", { advance_seconds: -1 })).json), /only moves forward/);
    const unchanged = await call(emulator, "GET", "/emulator/clock");
    assert.equal(unchanged.json.offset_seconds, before.json.offset_seconds);
    assert.ok(before.json.offset_seconds > 0);
    const reset = await call(emulator, "POST", "/emulator/clock", { reset: true });
    assert.equal(reset.json.offset_seconds, 0);
    assert.ok(Math.abs(Date.parse(reset.json.now) - Date.now()) < 5000);
    assert.equal((await call(emulator, "GET", "/emulator/clock", undefined, "")).status, 401);
  });
});

describe("triggers across a restart", () => {
  it("keeps the trigger and its schedule, and runs it when its time comes", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "emu-triggers-"));
    try {
      let emulator = await startFakeRuntimeEmulator({ EMULATOR_DATA_DIR: dataDir });
      let ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
      const trigger = await ai.triggers.create({
        schedule: "0 9 * * 1",
        time_zone: "America/New_York",
        interaction: { agent: AGENT, input: "weekly" } as never,
      });
      await emulator.close();

      emulator = await startFakeRuntimeEmulator({ EMULATOR_DATA_DIR: dataDir });
      ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
      try {
        const again = await ai.triggers.get(trigger.id);
        const { sdkHttpResponse: _a, ...gotten } = again as any;
        const { sdkHttpResponse: _b, ...made } = trigger as any;
        assert.deepEqual(gotten, made);
        // Monday 09:00 in New York, as the time zone's offset that day says.
        const next = new Date(again.next_run_time!);
        const local = new Intl.DateTimeFormat("en-US", {
          timeZone: "America/New_York",
          weekday: "short",
          hour: "2-digit",
          minute: "2-digit",
          hour12: false,
        }).format(next);
        assert.equal(local, "Mon 09:00");
        const { json } = await call(emulator, "GET", "/emulator/clock");
        await advance(emulator, (next.getTime() - Date.parse(json.now)) / 1000 + 1);
        const executions = await settledExecutions(ai, trigger.id);
        assert.equal(executions.length, 1);
        assert.equal(executions[0].status, "completed");
        assert.equal(executions[0].scheduled_time, again.next_run_time);
      } finally {
        await emulator.close();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
