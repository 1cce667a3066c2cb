// Faults at the model (docs/faults.md#the-model), through the SDK against the emulator with its model
// behind the loopback OpenAI-compatible server: an injected failure ends the interaction exactly as the
// server failing that way does (compared with the server made to fail so), plus the mark; the model
// turns view records the turn with injected_fault; the server never sees a request a fault stood in for.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { ownerOf } from "../../server/common/ids.js";
import { FaultPlan } from "../../server/faults/fault-plan.js";
import { faultRuleSchema } from "../../server/faults/fault-rules.js";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../support/fake-openai-server.js";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";

const KEY = "model-faults-key";
const AGENT = "antigravity-preview-05-2026";

type Interaction = { id: string; status: string; steps?: Array<Record<string, any>>; errors?: Array<{ code: string; message: string }> };

describe("model faults", () => {
  let openai: FakeOpenAiServer;
  let emulator: FakeRuntimeEmulator;
  let ai: GoogleGenAI;
  const plan = new FaultPlan();
  const addRule = (rule: unknown) => {
    const added = plan.add(ownerOf(KEY), faultRuleSchema.parse(rule));
    assert.ok(added);
    return added;
  };
  const ask = async (input = "hello") => (await ai.interactions.create({ agent: AGENT, input })) as Interaction;
  const turnsOf = async (id: string): Promise<Array<Record<string, any>>> => {
    const response = await fetch(`${emulator.url}/emulator/interactions/${id}/model-turns`, { headers: { "x-goog-api-key": KEY } });
    assert.equal(response.status, 200);
    return ((await response.json()) as { turns: Array<Record<string, any>> }).turns;
  };

  before(async () => {
    openai = await startFakeOpenAiServer();
    emulator = await startFakeRuntimeEmulator({ ...openai.agentSettings, EMULATOR_MODEL_TIMEOUT_SECONDS: "1" }, { faults: plan });
    ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
  });
  after(async () => {
    await emulator?.close();
    await openai?.close();
  });

  it("http_status 503 and error read as the server's own 503 and 500, plus the mark; the server sees nothing", async () => {
    openai.script({ kind: "status", status: 503, body: { error: { message: "injected HTTP 503" } } });
    const real = await ask();
    const rule = addRule({ target: { kind: "model", model: "openai:fake-model" }, effect: { kind: "http_status", status: 503 }, times: 1 });
    const asked = openai.requests.length;
    const injected = await ask();
    assert.equal(openai.requests.length, asked, "the fault answered in the server's place");
    assert.equal(injected.status, real.status);
    assert.equal(injected.errors?.[0]?.code, "service_unavailable");
    assert.equal(injected.errors?.[0]?.code, real.errors?.[0]?.code);
    assert.equal(injected.errors?.[0]?.message, `${real.errors?.[0]?.message} (injected by fault rule ${rule.id})`);
    const [turn] = await turnsOf(injected.id);
    assert.deepEqual(turn?.injected_fault, { rule_id: rule.id, effect: { kind: "http_status", status: 503 } });
    assert.match(String(turn?.error), /503/);

    openai.script({ kind: "status", status: 500, body: { error: { message: "the model crashed" } } });
    const realError = await ask();
    const errorRule = addRule({ target: { kind: "model" }, effect: { kind: "error", message: "the model crashed" }, times: 1 });
    const injectedError = await ask();
    assert.equal(injectedError.errors?.[0]?.message, `${realError.errors?.[0]?.message} (injected by fault rule ${errorRule.id})`);

    addRule({ target: { kind: "model" }, effect: { kind: "http_status", status: 429 }, times: 1 });
    assert.equal((await ask()).errors?.[0]?.code, "rate_limit_exceeded");
  });

  it("timeout holds the turn for EMULATOR_MODEL_TIMEOUT_SECONDS and ends it as the server's silence does", async () => {
    openai.script({ kind: "hang" });
    const real = await ask();
    addRule({ target: { kind: "model" }, effect: { kind: "timeout" }, times: 1 });
    const started = Date.now();
    const injected = await ask();
    assert.ok(Date.now() - started >= 1000);
    assert.equal(injected.errors?.[0]?.code, "deadline_exceeded");
    assert.equal(injected.errors?.[0]?.message.replace(/ \(injected by fault rule fault_[0-9a-f]+\)$/, ""), real.errors?.[0]?.message);
  });

  it("latency delays a real turn, recorded with the mark; a rule for another model never fires", async () => {
    addRule({ target: { kind: "model", model: "openai:other-model" }, effect: { kind: "error", message: "not me" }, times: 1 });
    const rule = addRule({ target: { kind: "model" }, effect: { kind: "latency", ms: 300 }, times: 1 });
    openai.script({ kind: "answer", text: ["late but fine"] });
    const interaction = await ask();
    assert.equal(interaction.status, "completed");
    const [turn] = await turnsOf(interaction.id);
    assert.ok(Number(turn?.latency_ms) >= 300);
    assert.equal(turn?.injected_fault?.rule_id, rule.id);
    assert.equal(turn?.error, undefined);
    plan.clear(ownerOf(KEY));
  });
});
