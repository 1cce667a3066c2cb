// End to end, with the official @google/genai SDK against the emulator started as `npm start` starts
// it: `usage` on interactions and in their stream (deterministic, following the documented rule, and
// the same after a restart), a ```response block giving the exact output_text, and JSON
// response_format answers that validate against their schema (or 400s that name what is wrong).
// covers: CreateAgentInteraction.response_format, CreateAgentInteraction.response_format(text), CreateAgentInteraction.response_mime_type
// covers: CreateAgentInteraction.response_format(audio), CreateAgentInteraction.response_format(image)
// covers: CreateAgentInteraction.response_format(video)

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI, type GoogleGenAIInteraction } from "@google/genai";
import Ajv2020Module from "ajv/dist/2020.js";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";

const AGENT = "antigravity-preview-05-2026";
const KEY = "usage-answers-e2e-key";

let emulator: EmulatorProcess;
let ai: GoogleGenAI;

before(async () => {
  emulator = await startEmulatorProcess();
  ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
});
after(async () => {
  await emulator?.destroy();
});

/** The unary create's result, as the SDK types it. */
type Interaction = GoogleGenAIInteraction;
type Usage = NonNullable<Interaction["usage"]>;

const fence = (info: string, body: string) => `\`\`\`${info}\n${body}\n\`\`\``;
const toolCalls = (calls: unknown[]) => fence("tool_calls", JSON.stringify(calls));
const statusOf = (error: unknown) => (error as { status?: number }).status;
/** The documented rule: a text counts ceil(length / 4) tokens. */
const tokens = (text: string) => Math.ceil(text.length / 4);

async function create(params: Record<string, unknown>): Promise<Interaction> {
  return (await ai.interactions.create({ agent: AGENT, ...params } as Parameters<typeof ai.interactions.create>[0])) as Interaction;
}

async function refusedWith(params: Record<string, unknown>): Promise<string> {
  try {
    await create(params);
  } catch (error) {
    assert.equal(statusOf(error), 400, String(error));
    return (error as Error).message;
  }
  assert.fail("expected a 400");
}

/**
 * What the rule says the interaction's usage is, from what was sent and the steps that came back: the
 * run's own steps, as the create answer holds them (without the input's user_input step).
 */
function expectedUsage(input: string, systemInstruction: string, steps: Interaction["steps"]) {
  let output = 0;
  let toolUse = 0;
  for (const step of steps ?? []) {
    const record = step as { type: string; arguments?: unknown; result?: string; content?: Array<{ text?: string }> };
    if (record.type.endsWith("_call")) output += tokens(JSON.stringify(record.arguments));
    else if (record.type.endsWith("_result")) toolUse += tokens(record.result ?? "");
    else if (record.type === "model_output") for (const part of record.content ?? []) output += tokens(part.text ?? "");
  }
  const inputTokens = tokens(input) + tokens(systemInstruction);
  return { input: inputTokens, output, toolUse, total: inputTokens + output + toolUse };
}

describe("usage through the SDK", () => {
  const input = toolCalls([
    { name: "write_file", args: { path: "/workspace/notes.txt", content: "first line\nsecond line\n" } },
    { name: "code_execution", args: { code: "wc -l < /workspace/notes.txt", language: "bash" } },
  ]);
  const systemInstruction = "Answer briefly.";
  let first: Interaction;

  it("is on the interaction, follows the documented rule, and interaction.usage.total_tokens works", async () => {
    first = await create({ input, system_instruction: systemInstruction, environment: { type: "remote" } });
    assert.equal(first.status, "completed");
    const usage = first.usage as Usage;
    const expected = expectedUsage(input, systemInstruction, first.steps);
    assert.equal(usage.total_input_tokens, expected.input);
    assert.equal(usage.initial_input_tokens, expected.input);
    assert.equal(usage.total_output_tokens, expected.output);
    assert.equal(usage.total_tool_use_tokens, expected.toolUse);
    assert.equal(first.usage?.total_tokens, expected.total);
    assert.deepEqual(usage.input_tokens_by_modality, [{ modality: "text", tokens: expected.input }]);
    assert.equal(usage.total_cached_tokens, 0);
    assert.equal(usage.total_thought_tokens, 0);
  });

  it("is the same for the same input, and GET returns it", async () => {
    const again = await create({ input, system_instruction: systemInstruction, environment: { type: "remote" } });
    assert.deepEqual(again.usage, first.usage);
    assert.deepEqual((await ai.interactions.get(first.id)).usage, first.usage);
  });

  it("is in the stream: on status updates and step stops as it grows, and the completed interaction's is GET's", async () => {
    const stream = await ai.interactions.create({
      agent: AGENT,
      input,
      system_instruction: systemInstruction,
      environment: { type: "remote" },
      stream: true,
    });
    const events: Array<Record<string, any>> = [];
    for await (const event of stream) events.push(event as Record<string, any>);
    const status = events.find((event) => event.event_type === "interaction.status_update");
    assert.equal(status?.usage?.total_tokens, first.usage?.total_input_tokens, "the first status update counts the input");
    const stops = events.filter((event) => event.event_type === "step.stop");
    assert.ok(stops.every((stop) => typeof stop.usage?.total_tokens === "number"));
    const totals = stops.map((stop) => stop.usage.total_tokens as number);
    assert.deepEqual(
      totals,
      [...totals].sort((a, b) => a - b),
      "the running total only grows",
    );
    // The run's steps (the streamed ones: the input's step is not streamed) carry their own count, and they add up to the interaction's.
    const ownCounts = stops.map((stop) => stop.step_usage.total_tokens as number);
    const completed = events.at(-1);
    assert.equal(completed?.event_type, "interaction.completed");
    const usage = completed?.interaction.usage as Usage;
    assert.equal((usage.total_input_tokens ?? 0) + ownCounts.reduce((sum, count) => sum + count, 0), usage.total_tokens);
    assert.deepEqual(usage, stops.at(-1)?.usage);
    assert.deepEqual((await ai.interactions.get(completed?.interaction.id)).usage, usage);
    assert.deepEqual(usage, first.usage, "streamed or not, the same input counts the same");
  });

  it("is the same after the emulator restarts", async () => {
    await emulator.stop();
    emulator = await startEmulatorProcess({}, emulator);
    ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
    assert.deepEqual((await ai.interactions.get(first.id)).usage, first.usage);
  });
});

describe("scripted answers through the SDK", () => {
  it("gives the response block's text exactly as output_text, after the script's calls ran", async () => {
    const answer = "The file has 2 lines.\n\n- counted with `wc -l`\n- nothing else was changed";
    const interaction = await create({
      input: `${toolCalls([{ name: "code_execution", args: { code: "printf 'a\\nb\\n' | wc -l" } }])}\n${fence("response", answer)}`,
      environment: { type: "remote" },
    });
    assert.equal(interaction.status, "completed");
    assert.equal(interaction.output_text, answer);
    const result = (interaction.steps ?? []).find((step) => step.type === "code_execution_result") as { result?: string };
    assert.equal(result.result?.trim(), "2");
  });
});

describe("structured answers through the SDK", () => {
  const schema = {
    type: "object",
    properties: {
      title: { type: "string" },
      rating: { type: "integer", minimum: 1, maximum: 5 },
      tags: { type: "array", items: { type: "string", enum: ["short", "long"] }, minItems: 1 },
      reviewer: { $ref: "#/$defs/person" },
    },
    required: ["title", "rating", "tags", "reviewer"],
    additionalProperties: false,
    $defs: {
      person: { type: "object", properties: { name: { type: "string" }, email: { type: "string", format: "email" } }, required: ["email"] },
    },
  };
  const validate = new Ajv2020Module.default({ strict: false }).compile(schema);
  const responseFormat = { type: "text", mime_type: "application/json", schema };

  it("answers JSON valid against the schema when nothing is scripted", async () => {
    const interaction = await create({ input: "Review the book.", response_format: responseFormat });
    assert.equal(interaction.status, "completed");
    const answer = JSON.parse(interaction.output_text ?? "");
    assert.ok(validate(answer), JSON.stringify(validate.errors));
    assert.deepEqual(answer, { title: "", rating: 1, tags: ["short"], reviewer: { email: "user@example.com" } });
    assert.deepEqual(interaction.response_format, responseFormat);
  });

  it("answers the scripted JSON, exactly, when it fits; also in the older schema + response_mime_type form", async () => {
    const scripted = '{"title": "Dune", "rating": 5, "tags": ["long"], "reviewer": {"name": "Ada", "email": "ada@example.com"}}';
    const interaction = await create({ input: `Review the book.\n${fence("response", scripted)}`, response_format: responseFormat });
    assert.equal(interaction.output_text, scripted);
    assert.ok(validate(JSON.parse(interaction.output_text ?? "")));
    const older = await create({ input: fence("response", scripted), response_format: schema, response_mime_type: "application/json" });
    assert.equal(older.output_text, scripted);
  });

  it("refuses a scripted answer that does not fit with a 400 naming the path, before anything runs", async () => {
    const before = await emulator.sandboxCount();
    const message = await refusedWith({
      input: `${toolCalls([{ name: "code_execution", args: { code: "echo never" } }])}\n${fence("response", '{"title": "Dune", "rating": 9, "tags": [], "reviewer": {}}')}`,
      response_format: responseFormat,
    });
    assert.match(message, /input: the response block does not match the schema in response_format\.schema/);
    assert.match(message, /\/rating must be <= 5/);
    assert.match(message, /\/tags must NOT have fewer than 1 items/);
    assert.match(message, /\/reviewer must have required property 'email'/);
    assert.equal(await emulator.sandboxCount(), before, "no sandbox was made for a refused request");
  });

  it("refuses audio, image and video output with a 400 that says to ask for text", async () => {
    assert.match(
      await refusedWith({ input: "Read it aloud.", response_format: { type: "audio", mime_type: "audio/wav" } }),
      /asks for audio output: the emulated agent answers in text only/,
    );
    assert.match(
      await refusedWith({ input: "Draw it.", response_format: [{ type: "image" }] }),
      /response_format\[0\] asks for image output/,
    );
  });
});
