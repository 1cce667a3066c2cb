// A model behind the agent, through the HTTP API of an emulator in this process (fake sandboxes) and
// the official openai client against a loopback OpenAI-compatible server: what of the request reaches
// the model (system_instruction, generation_config, a JSON response_format, the model's name), the
// faults that must end an interaction cleanly (a timeout, an unreachable server, a cancel while the
// model streams), the token budget's incomplete status, and a bad agent_config refused up front.
// covers: CreateAgentInteraction.agent_config(antigravity).model
// covers: CreateAgentInteraction.agent_config(antigravity).max_total_tokens, CreateModelInteraction.system_instruction
// covers: CreateModelInteraction.generation_config, CreateModelInteraction.response_format(text)
// covers: CreateAgent.system_instruction, CreateAgent.agent_config, CreateAgent.agent_config.model
// covers: CreateAgent.agent_config.max_total_tokens, CreateAgent.tools(function).description

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../support/fake-openai-server.js";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";
import { fakeRuntimeEmulatorForTests } from "../support/fake-runtime-tests.js";
import { closedLoopbackPort } from "../support/mcp-test-server.js";
import { HOSTILE_INPUT_BOUNDS, withoutStalls } from "../support/stall-detector.js";

const KEY = "model-faults-key";
const AGENT = "antigravity-preview-05-2026";

type Interaction = { id: string; status: string; steps?: Array<Record<string, any>>; errors?: Array<{ code: string; message: string }> };

let openai: FakeOpenAiServer;
let ai: GoogleGenAI;
const fixture = fakeRuntimeEmulatorForTests({
  // The settings name the fake model server, started first.
  env: async () => {
    openai = await startFakeOpenAiServer();
    return {
      ...openai.agentSettings,
      EMULATOR_MODEL_TIMEOUT_SECONDS: "1",
    };
  },
  ready: () => {
    ai = fixture.sdk(KEY);
  },
});
after(async () => {
  await openai?.close();
});

describe("a model behind the agent: what of the request reaches the model", () => {
  it("passes a model interaction's system_instruction, generation_config and JSON response_format on, with only its own tools", async () => {
    openai.script({ kind: "answer", text: ['{"city": "Paris"}'] });
    const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
    const interaction = (await ai.interactions.create({
      model: "gemini-2.5-flash",
      input: "Which city is the capital of France?",
      system_instruction: "Answer in JSON.",
      generation_config: { temperature: 0.2, top_p: 0.9, seed: 7, max_output_tokens: 64, stop_sequences: ["END"], thinking_level: "low" },
      response_format: { type: "text", mime_type: "application/json", schema },
    } as never)) as Interaction;
    assert.equal(interaction.status, "completed", JSON.stringify(interaction.errors));
    const sent = openai.requests.at(-1)?.body;
    // The OpenAI-compatible server serves every gemini-* name with EMULATOR_AGENT_MODEL's model.
    assert.equal(sent.model, "fake-model");
    assert.deepEqual(sent.messages, [
      { role: "system", content: "Answer in JSON." },
      { role: "user", content: "Which city is the capital of France?" },
    ]);
    assert.deepEqual(
      [sent.temperature, sent.top_p, sent.seed, sent.max_tokens, sent.stop, sent.reasoning_effort],
      [0.2, 0.9, 7, 64, ["END"], "low"],
    );
    assert.deepEqual(sent.response_format, { type: "json_schema", json_schema: { name: "answer", schema, strict: false } });
    assert.equal(sent.tools, undefined, "a model interaction without tools offers the model none");
    assert.equal(interaction.steps?.at(-1)?.content[0].text, '{"city": "Paris"}');
  });

  it("gives a custom agent's system_instruction, agent_config model and token budget, and function tools to the model", async () => {
    const weather = {
      type: "function",
      name: "get_weather",
      description: "The current weather in a city",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    };
    // Its own API key: the budget test below lists this key's incomplete interactions.
    const team = fixture.sdk("model-agent-team-key");
    await team.agents.create({
      id: "budgeted-analyst",
      system_instruction: "You are the team's analyst.",
      agent_config: { type: "antigravity", model: "agent-model", max_total_tokens: "1000" },
      tools: [weather],
    } as never);
    openai.script({
      kind: "answer",
      toolCalls: [{ id: "c1", name: "list_files", argumentPieces: ["{}"] }],
      usage: { prompt_tokens: 900, completion_tokens: 200 },
    });
    const over = (await team.interactions.create({ agent: "budgeted-analyst", input: "how is the weather?" } as never)) as Interaction;
    const sent = openai.requests.at(-1)?.body;
    assert.equal(sent.model, "agent-model");
    assert.deepEqual(sent.messages[0], { role: "system", content: "You are the team's analyst." });
    const offered = (sent.tools as Array<{ function: { name: string; description?: string; parameters?: unknown } }>).find(
      (tool) => tool.function.name === "get_weather",
    );
    assert.deepEqual(offered?.function, { name: "get_weather", description: weather.description, parameters: weather.parameters });
    assert.equal(over.status, "incomplete", "the agent's max_total_tokens bounds its run");
    assert.equal(over.errors?.[0]?.code, "quota_exceeded");
  });

  it("asks agent_config.model for an agent interaction", async () => {
    openai.script({ kind: "answer", text: ["Hi."] });
    await ai.interactions.create({ agent: AGENT, input: "hi", agent_config: { type: "antigravity", model: "other-model" } } as never);
    assert.equal(openai.requests.at(-1)?.body.model, "other-model");
  });
});

describe("a model behind the agent, when things go wrong", () => {
  it("fails an interaction whose model does not answer within EMULATOR_MODEL_TIMEOUT_SECONDS, /health answering meanwhile", async () => {
    openai.script({ kind: "hang" });
    const { result } = await withoutStalls(
      fixture.emulator.url,
      HOSTILE_INPUT_BOUNDS,
      async () => (await ai.interactions.create({ agent: AGENT, input: "hello" })) as Interaction,
      { inProcess: true, what: "a model that never answers" },
    );
    assert.equal(result.status, "failed");
    assert.equal(result.errors?.[0]?.code, "deadline_exceeded");
    assert.match(result.errors?.[0]?.message ?? "", /openai:fake-model\) failed at turn 1: .*EMULATOR_MODEL_TIMEOUT_SECONDS/);
  });

  it("ends a run past agent_config.max_total_tokens as incomplete (the document deprecates budget_exceeded), and refuses a budget that is not a number", async () => {
    openai.script({
      kind: "answer",
      toolCalls: [{ id: "c1", name: "list_files", argumentPieces: ["{}"] }],
      usage: { prompt_tokens: 900, completion_tokens: 200 },
    });
    const over = (await ai.interactions.create({
      agent: AGENT,
      input: "list my files",
      agent_config: { type: "antigravity", max_total_tokens: "1000" },
    } as never)) as Interaction;
    assert.equal(over.status, "incomplete");
    assert.equal(over.errors?.[0]?.code, "quota_exceeded");
    assert.deepEqual(
      (over.steps ?? []).map((step) => step.type),
      [],
      "the turn's call did not run",
    );
    const listed = await fetch(`${fixture.emulator.url}/emulator/interactions?status=incomplete`, { headers: { "x-goog-api-key": KEY } });
    assert.equal(listed.status, 200);
    const page = (await listed.json()) as { interactions: Array<{ id: string }> };
    assert.deepEqual(
      page.interactions.map((listedOne) => listedOne.id),
      [over.id],
      "the list filters by the new status",
    );

    const asked = openai.requests.length;
    await assert.rejects(
      ai.interactions.create({ agent: AGENT, input: "hi", agent_config: { type: "antigravity", max_total_tokens: "lots" } } as never),
      (error: Error & { status?: number }) => {
        assert.equal(error.status, 400);
        // Refused at the edge by the OpenAPI document (an int64: a decimal string, or a number).
        assert.match(error.message, /agent_config\.max_total_tokens: must be a 64-bit integer/);
        return true;
      },
    );
    assert.equal(openai.requests.length, asked, "nothing was asked of the model");
  });

  it("stops the model's request when the interaction is cancelled mid-stream, its text step closed", async () => {
    openai.script({ kind: "stall", textBefore: ["Thinking about ", "it"] });
    const disconnected = openai.disconnected(openai.requests.length);
    const started = (await ai.interactions.create({ agent: AGENT, input: "take your time", background: true } as never)) as Interaction;
    // Wait until the streamed text is in the interaction, then cancel.
    for (let tries = 0; tries < 100; tries++) {
      const now = (await ai.interactions.get(started.id)) as Interaction;
      if (now.steps?.some((step) => step.type === "model_output")) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const cancelled = (await ai.interactions.cancel(started.id)) as Interaction;
    assert.equal(cancelled.status, "cancelled");
    await disconnected;
    const stored = (await ai.interactions.get(started.id)) as Interaction;
    const output = stored.steps?.find((step) => step.type === "model_output");
    assert.equal(output?.content[0].text, "Thinking about it");
  });
});

describe("a model behind the agent whose server is not there", () => {
  let lonely: FakeRuntimeEmulator;
  before(async () => {
    lonely = await startFakeRuntimeEmulator({
      EMULATOR_AGENT_MODEL: "openai:fake-model",
      EMULATOR_OPENAI_BASE_URL: `http://127.0.0.1:${await closedLoopbackPort()}/v1`,
    });
  });
  after(async () => {
    await lonely?.close();
  });

  it("fails the interaction UNAVAILABLE, saying where it looked and which setting to fix", async () => {
    const client = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: lonely.url } });
    const interaction = (await client.interactions.create({ agent: AGENT, input: "hello" })) as Interaction;
    assert.equal(interaction.status, "failed");
    assert.equal(interaction.errors?.[0]?.code, "service_unavailable");
    assert.match(interaction.errors?.[0]?.message ?? "", /EMULATOR_OPENAI_BASE_URL/);
  });
});
