// Faults on demand against real Docker sandboxes (docs/faults.md), the "Done when":
// - "the gate's command times out, next 1 time": the next `rm -rf` runs (the gate fails open, as the
//   documentation says a timed-out pre hook does), the trace says the timeout was injected and took the
//   gate's own timeout; the rule is then spent and the real gate denies the next one;
// - "drop the sandbox channel": the call ends UNAVAILABLE, marked injected, and the environment
//   survives: its next interaction opens a new channel and finds its files.
// The seed's security gate (test/support/seed-hooks-files.ts), with a 1 s timeout in its hooks.json.

import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import type { GoogleGenAI } from "@google/genai";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";
import { AGENT, KEY, bash, type Interaction, resultsOf, runIn, script, sdk } from "../support/fault-harness.js";
import { SEED_GATE_SCRIPT } from "../support/seed-hooks-files.js";

const GATE_COMMAND = "python3 /.agents/hooks-scripts/gate.py";
const HOOKS_JSON = JSON.stringify({
  "security-gate": {
    pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "command", command: GATE_COMMAND, timeout: 1 }] }],
  },
});

type Json = Record<string, any>;
let emulator: EmulatorProcess;
let ai: GoogleGenAI;
let environmentId: string;

before(async () => {
  emulator = await startEmulatorProcess();
  ai = sdk(emulator);
  const setup = (await ai.interactions.create({
    agent: AGENT,
    input: script([bash("mkdir -p /tmp/forbidden && echo kept > /workspace/keep.txt")]),
    environment: {
      type: "remote",
      sources: [
        { type: "inline", target: ".agents/hooks.json", content: HOOKS_JSON },
        { type: "inline", target: ".agents/hooks-scripts/gate.py", content: SEED_GATE_SCRIPT },
      ],
    },
  })) as Interaction;
  assert.equal(setup.status, "completed");
  environmentId = setup.environment_id!;
});

after(async () => {
  await emulator?.destroy();
});

async function faults(method: string, path = "", body?: unknown): Promise<Json> {
  const response = await fetch(`${emulator.url}/emulator/faults${path}`, {
    method,
    headers: { "content-type": "application/json", "x-goog-api-key": KEY },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const answer = (await response.json()) as Json;
  assert.equal(response.status, 200, JSON.stringify(answer));
  return answer;
}

async function hooksOf(interactionId: string): Promise<Json> {
  const response = await fetch(`${emulator.url}/emulator/interactions/${interactionId}/hooks`, { headers: { "x-goog-api-key": KEY } });
  return (await response.json()) as Json;
}

beforeEach(async () => {
  await faults("DELETE");
});

describe("faults on demand, against real sandboxes", () => {
  it("the gate's command times out (next 1 time): the next rm -rf runs by fail-open, the trace says the timeout was injected", async () => {
    const rule = await faults("POST", "", { target: { kind: "hook", command: GATE_COMMAND }, effect: { kind: "timeout" }, times: 1 });
    const ran = await runIn(ai, environmentId, "rm -rf /tmp/forbidden && echo removed");
    assert.equal(ran.status, "completed");
    assert.deepEqual(resultsOf(ran), ["removed\n"]);
    const [call] = (await hooksOf(ran.id!)).tool_calls;
    const [gate] = call.pre.handlers;
    assert.equal(call.pre.decision, "allow");
    assert.equal(gate.timed_out, true);
    assert.equal(gate.fail_open.code, "timeout");
    assert.ok(gate.duration_ms >= 1000, `the gate's own 1 s timeout was waited out (${gate.duration_ms} ms)`);
    assert.deepEqual(gate.injected_fault, { rule_id: rule.id, effect: { kind: "timeout" } });
    assert.match(call.pre.summary, /fail-open \(timeout\); 1 fault injected/);
    const check = await runIn(ai, environmentId, "test -e /tmp/forbidden && echo present || echo gone");
    assert.deepEqual(resultsOf(check), ["gone\n"], "the rm -rf really ran");

    // Spent: the real gate runs again and denies.
    const denied = await runIn(ai, environmentId, "rm -rf /workspace");
    assert.deepEqual(resultsOf(denied), ['Tool call denied by hook "security-gate": Destructive command blocked by security gate.']);
    assert.equal((await hooksOf(denied.id!)).tool_calls[0].pre.handlers[0].injected_fault, null);
    assert.equal((await faults("GET")).rules[0].injected, 1);
  });

  it("drop the sandbox channel: the call ends UNAVAILABLE, marked injected; the environment survives with its files", async () => {
    const rule = await faults("POST", "", { target: { kind: "sandbox_channel" }, effect: { kind: "drop" }, times: 1 });
    const cut = await runIn(ai, environmentId, "sleep 3; echo finished");
    assert.equal(cut.status, "failed");
    assert.equal(cut.errors?.[0]?.code, "service_unavailable");
    assert.match(cut.errors?.[0]?.message ?? "", new RegExp(`injected by fault rule ${rule.id}`));
    const [result] = resultsOf(cut);
    assert.match(result ?? "", new RegExp(`^The sandbox stopped answering: .*\\(injected by fault rule ${rule.id}\\)$`));
    assert.doesNotMatch(result ?? "", /finished/);

    const next = await runIn(ai, environmentId, "cat /workspace/keep.txt");
    assert.equal(next.status, "completed");
    assert.deepEqual(resultsOf(next), ["kept\n"]);
    const environment = (await ai.environments.get(environmentId)) as Json;
    assert.equal(environment.id, environmentId);
  });

  // ---- Egress (the other helper's part adds its case here: "egress to example.test answers 503 with 2 s latency") ----
});
