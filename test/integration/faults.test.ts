// Faults on demand (docs/faults.md) through the real HTTP API of an emulator in this process with
// in-memory sandboxes: the rules API (shapes, refusals, the per-key bound, isolation between keys,
// DELETE, /health), a hook's command timing out (fail-open, marked in the trace, waited for real, used
// up after its times), and a tool erroring (marked in the result, never reaching the sandbox).

import assert from "node:assert/strict";
import { before, beforeEach, describe, it } from "node:test";
import type { GoogleGenAI } from "@google/genai";
import { MAX_FAULT_RULES_PER_KEY } from "../../server/faults/fault-plan.js";
import { codeOf } from "../support/fake-sandbox-channel.js";
import { startFakeRuntimeEmulator } from "../support/fake-runtime.js";
import { fakeRuntimeEmulatorForTests } from "../support/fake-runtime-tests.js";

const KEY = "faults-key";
const OTHER_KEY = "faults-other-key";
const AGENT = "antigravity-preview-05-2026";
const GATE_COMMAND = "python3 /.agents/hooks-scripts/gate.py";
/** The seed's security gate, with a short timeout so an injected timeout is waited out quickly. */
const HOOKS_JSON = JSON.stringify({
  "security-gate": {
    pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "command", command: GATE_COMMAND, timeout: 0.4 }] }],
  },
});

type Json = Record<string, any>;
let ai: GoogleGenAI;
const fixture = fakeRuntimeEmulatorForTests({
  ready: () => {
    ai = fixture.sdk(KEY);
  },
});

async function call(
  method: string,
  path: string,
  options: { key?: string | null; body?: unknown } = {},
): Promise<{ status: number; body: Json }> {
  const key = options.key === undefined ? KEY : options.key;
  const response = await fetch(`${fixture.emulator.url}${path}`, {
    method,
    headers: { "content-type": "application/json", ...(key !== null ? { "x-goog-api-key": key } : {}) },
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as Json };
}

const addRule = (body: unknown, key = KEY) => call("POST", "/emulator/faults", { key, body });
const script = (calls: unknown[]): string => `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``;
const bash = (code: string) => ({ name: "code_execution", args: { code, language: "bash" } });

describe("the faults API", () => {
  beforeEach(async () => {
    await call("DELETE", "/emulator/faults");
    await call("DELETE", "/emulator/faults", { key: OTHER_KEY });
  });

  it("stores a rule and answers it with its id, times left and injected count; GET lists it", async () => {
    const rule = { target: { kind: "hook", command: GATE_COMMAND }, effect: { kind: "timeout" }, times: 2 };
    const added = await addRule(rule);
    assert.equal(added.status, 200);
    assert.match(added.body.id, /^fault_[0-9a-f]{16}$/);
    assert.deepEqual(added.body.target, rule.target);
    assert.deepEqual(added.body.effect, rule.effect);
    assert.equal(added.body.times, 2);
    assert.equal(added.body.remaining, 2);
    assert.equal(added.body.injected, 0);
    const seeded = await addRule({
      target: { kind: "tool", name: "read_file" },
      effect: { kind: "latency", ms: 5 },
      probability: 0.5,
      seed: 7,
    });
    assert.equal(seeded.status, 200);
    assert.equal(seeded.body.probability, 0.5);
    assert.equal(seeded.body.seed, 7);
    const listed = await call("GET", "/emulator/faults");
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.rules.map((listedRule: Json) => listedRule.id),
      [added.body.id, seeded.body.id],
    );
  });

  it("refuses a misfit naming the field and why, and a bad field naming it, as 400 INVALID_ARGUMENT", async () => {
    const misfit = await addRule({
      target: { kind: "hook", command: GATE_COMMAND },
      effect: { kind: "http_status", status: 503 },
      times: 1,
    });
    assert.equal(misfit.status, 400);
    assert.equal(misfit.body.error.status, "INVALID_ARGUMENT");
    assert.match(misfit.body.error.message, /effect\.kind: a command hook makes no HTTP request/);
    const drop = await addRule({ target: { kind: "egress", host: "example.test" }, effect: { kind: "drop" } });
    assert.equal(drop.status, 400);
    assert.match(drop.body.error.message, /effect\.kind: a "drop" effect cannot happen at a "egress" target/);
    const unknownField = await addRule({ target: { kind: "tool", name: "read_file", nme: "x" }, effect: { kind: "timeout" } });
    assert.equal(unknownField.status, 400);
    assert.match(unknownField.body.error.message, /target/);
    const both = await addRule({ target: { kind: "sandbox_channel" }, effect: { kind: "drop" }, times: 1, probability: 0.5 });
    assert.equal(both.status, 400);
    assert.match(both.body.error.message, /probability: give "times" or "probability", not both/);
    assert.deepEqual((await call("GET", "/emulator/faults")).body, { rules: [] }, "nothing refused was stored");
  });

  it("needs an API key", async () => {
    const anonymous = await call("GET", "/emulator/faults", { key: null });
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body.error.status, "UNAUTHENTICATED");
  });

  it("keeps each key's rules to itself: another key neither sees nor deletes them", async () => {
    const mine = await addRule({ target: { kind: "sandbox_channel" }, effect: { kind: "drop" }, times: 1 });
    assert.deepEqual((await call("GET", "/emulator/faults", { key: OTHER_KEY })).body, { rules: [] });
    const theirs = await call("DELETE", `/emulator/faults/${mine.body.id}`, { key: OTHER_KEY });
    assert.equal(theirs.status, 404);
    assert.equal(theirs.body.error.status, "NOT_FOUND");
    assert.deepEqual((await call("DELETE", "/emulator/faults", { key: OTHER_KEY })).body, { cleared: 0 });
    assert.equal((await call("GET", "/emulator/faults")).body.rules.length, 1);
  });

  it("deletes one rule by id ({}), then clears the rest ({cleared: N}); /health says faults are active only while some are", async () => {
    const health = async () => (await fetch(`${fixture.emulator.url}/health`)).json() as Promise<Json>;
    assert.equal((await health()).faults, undefined);
    const first = await addRule({ target: { kind: "tool", name: "write_file" }, effect: { kind: "error", message: "no" }, times: 1 });
    await addRule({ target: { kind: "tool", name: "list_files" }, effect: { kind: "latency", ms: 1 }, times: 1 });
    await addRule({ target: { kind: "model" }, effect: { kind: "timeout" }, times: 3 }, OTHER_KEY);
    const busy = await health();
    assert.equal(busy.status, "ok");
    assert.deepEqual(busy.faults, { active_rules: 3 });
    assert.deepEqual((await call("DELETE", `/emulator/faults/${first.body.id}`)).body, {});
    assert.equal((await call("DELETE", `/emulator/faults/${first.body.id}`)).status, 404);
    assert.deepEqual((await call("DELETE", "/emulator/faults")).body, { cleared: 1 });
    assert.deepEqual((await health()).faults, { active_rules: 1 });
    await call("DELETE", "/emulator/faults", { key: OTHER_KEY });
    assert.equal((await health()).faults, undefined);
  });

  it(`refuses a key's rule past ${MAX_FAULT_RULES_PER_KEY} with 429 RESOURCE_EXHAUSTED saying what to do; other keys are unaffected`, async () => {
    const rule = { target: { kind: "tool", name: "read_file" }, effect: { kind: "latency", ms: 1 }, times: 1 };
    for (let index = 0; index < MAX_FAULT_RULES_PER_KEY; index++) assert.equal((await addRule(rule)).status, 200);
    const past = await addRule(rule);
    assert.equal(past.status, 429);
    assert.equal(past.body.error.status, "RESOURCE_EXHAUSTED");
    assert.match(past.body.error.message, /DELETE \/emulator\/faults/);
    assert.equal((await addRule(rule, OTHER_KEY)).status, 200);
  });
});

describe("the faults API's bounds over all keys", () => {
  it("refuses a rule past EMULATOR_MAX_FAULT_RULES over all keys (invented keys cannot grow memory) and one past the size bound", async () => {
    const bounded = await startFakeRuntimeEmulator({ EMULATOR_MAX_FAULT_RULES: "150" });
    try {
      const add = async (key: string, body: unknown) => {
        const response = await fetch(`${bounded.url}/emulator/faults`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-goog-api-key": key },
          body: JSON.stringify(body),
        });
        return { status: response.status, body: (await response.json()) as Json };
      };
      const rule = { target: { kind: "tool", name: "read_file" }, effect: { kind: "latency", ms: 1 }, times: 1 };
      const statuses: number[] = [];
      for (let keyIndex = 0; keyIndex < 3; keyIndex++) {
        for (let index = 0; index < 60; index++) statuses.push((await add(`invented-${keyIndex}`, rule)).status);
      }
      assert.equal(statuses.filter((status) => status === 200).length, 150, "150 rules in all, whoever's keys");
      const past = await add("invented-9", rule);
      assert.equal(past.status, 429);
      assert.match(past.body.error.message, /holds 150 fault rules over all API keys.*EMULATOR_MAX_FAULT_RULES/);
      // The largest rule the fields allow is past the 8 KiB bound on one rule.
      const large = {
        target: { kind: "hook", command: "c".repeat(4096), group: "g".repeat(1000), matcher: "m".repeat(1000) },
        effect: { kind: "error", message: "e".repeat(2000) },
      };
      const refused = await add("another-key", large);
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.match(refused.body.error.message, /more than the 8192 a rule may have \(EMULATOR_FAULT_RULE_MAX_BYTES\)/);
    } finally {
      await bounded.close();
    }
  });
});

describe("faults in interactions", () => {
  let environmentId: string;

  before(async () => {
    const setup = (await ai.interactions.create({
      agent: AGENT,
      input: script([bash("true")]),
      environment: {
        type: "remote",
        sources: [
          { type: "inline", target: ".agents/hooks.json", content: HOOKS_JSON },
          { type: "inline", target: ".agents/hooks-scripts/gate.py", content: "print('{}')" },
        ],
      },
    })) as Json;
    assert.equal(setup.status, "completed");
    environmentId = setup.environment_id;
  });
  beforeEach(async () => {
    await call("DELETE", "/emulator/faults");
  });

  const channel = () => fixture.emulator.runtime.channels.get(environmentId)!;
  const hooksOf = async (interactionId: string) => (await call("GET", `/emulator/interactions/${interactionId}/hooks`)).body;

  it("a gate timing out (injected, next 1 time) fails open after its own timeout: the rm -rf runs, the trace marks the timeout injected", async () => {
    const rule = await addRule({ target: { kind: "hook", command: GATE_COMMAND }, effect: { kind: "timeout" }, times: 1 });
    const before = channel().commands.length;
    const started = performance.now();
    const interaction = (await ai.interactions.create({
      agent: AGENT,
      input: script([bash("rm -rf /tmp/forbidden")]),
      environment: environmentId,
    })) as Json;
    const elapsed = performance.now() - started;
    assert.equal(interaction.status, "completed");
    assert.ok(elapsed >= 400, `the handler's own 0.4 s timeout was waited out (took ${Math.round(elapsed)} ms)`);
    const ran = channel().commands.slice(before).map(codeOf);
    assert.deepEqual(ran, ["rm -rf /tmp/forbidden"], "the gate never ran; the tool did");
    const [trace] = (await hooksOf(interaction.id)).tool_calls;
    const [handler] = trace.pre.handlers;
    assert.equal(trace.pre.decision, "allow");
    assert.equal(handler.timed_out, true);
    assert.equal(handler.signal, "SIGKILL");
    assert.equal(handler.fail_open.code, "timeout");
    assert.deepEqual(handler.injected_fault, { rule_id: rule.body.id, effect: { kind: "timeout" } });
    assert.match(trace.pre.summary, new RegExp(`only by fail-open \\(timeout\\); 1 fault injected \\(timeout by ${rule.body.id}\\)`));
    const [spent] = (await call("GET", "/emulator/faults")).body.rules;
    assert.equal(spent.remaining, 0);
    assert.equal(spent.injected, 1);

    // Used up: the next call runs the gate for real, and its trace has no mark.
    const next = (await ai.interactions.create({ agent: AGENT, input: script([bash("ls")]), environment: environmentId })) as Json;
    assert.equal(next.status, "completed");
    const [nextTrace] = (await hooksOf(next.id)).tool_calls;
    assert.equal(nextTrace.pre.handlers[0].injected_fault, null);
    assert.ok(
      channel().commands.some((request) => codeOf(request) === GATE_COMMAND),
      "the gate ran",
    );
    assert.doesNotMatch(nextTrace.pre.summary, /injected/);
  });

  it("a tool erroring (injected) gives an is_error result with the message and the mark; nothing reaches the sandbox", async () => {
    const rule = await addRule({
      target: { kind: "tool", name: "code_execution" },
      effect: { kind: "error", message: "disk on fire" },
      times: 1,
    });
    // Another key's rule for the same tool never fires in this key's work.
    await addRule({ target: { kind: "tool", name: "code_execution" }, effect: { kind: "error", message: "not mine" } }, OTHER_KEY);
    channel().onRun = async () => ({ stdout: '{"decision": "allow"}' });
    const before = channel().commands.length;
    const interaction = (await ai.interactions.create({
      agent: AGENT,
      input: script([bash("echo hi")]),
      environment: environmentId,
    })) as Json;
    assert.equal(interaction.status, "completed");
    const result = interaction.steps.find((step: Json) => step.type === "code_execution_result");
    assert.equal(result.is_error, true);
    assert.equal(result.result, `disk on fire (injected by fault rule ${rule.body.id})`);
    assert.deepEqual(channel().commands.slice(before).map(codeOf), [GATE_COMMAND], "the pre hook ran as usual; the tool never did");
    await call("DELETE", "/emulator/faults", { key: OTHER_KEY });
  });
});
