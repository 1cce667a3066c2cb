// A model's answer is bounded (issue 29, item 14), through the HTTP API of an emulator in this process
// (fake sandboxes) and the official openai client against a loopback OpenAI-compatible server: a
// server that streams text without end costs at most EMULATOR_MODEL_ANSWER_BYTES, the interaction
// fails with RESOURCE_EXHAUSTED naming it while /health answers, and a model's text counts against
// EMULATOR_MAX_INTERACTION_OUTPUT_BYTES as tool results do.

import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import type { GoogleGenAI } from "@google/genai";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../support/fake-openai-server.js";
import { fakeRuntimeEmulatorForTests } from "../support/fake-runtime-tests.js";
import { HOSTILE_INPUT_BOUNDS, withoutStalls } from "../support/stall-detector.js";

const KEY = "model-bounds-key";
const AGENT = "antigravity-preview-05-2026";
const ANSWER_BYTES = 1024 * 1024;
const OUTPUT_BYTES = 64 * 1024;

type Interaction = { id: string; status: string; steps?: Array<Record<string, any>>; errors?: Array<{ code: string; message: string }> };

let openai: FakeOpenAiServer;
let ai: GoogleGenAI;
const fixture = fakeRuntimeEmulatorForTests({
  // The settings name the fake model server, started first.
  env: async () => {
    openai = await startFakeOpenAiServer();
    return {
      ...openai.agentSettings,
      EMULATOR_MODEL_TIMEOUT_SECONDS: "60",
      EMULATOR_MODEL_ANSWER_BYTES: String(ANSWER_BYTES),
      EMULATOR_MAX_INTERACTION_OUTPUT_BYTES: String(OUTPUT_BYTES),
    };
  },
  ready: () => {
    ai = fixture.sdk(KEY);
  },
});
after(async () => {
  await openai?.close();
});

async function stored(id: string): Promise<string> {
  const response = await fetch(`${fixture.emulator.url}/v1beta/interactions/${id}`, { headers: { "x-goog-api-key": KEY } });
  assert.equal(response.status, 200);
  return response.text();
}

describe("a model's answer is bounded", () => {
  it("cuts off a server that streams without end at EMULATOR_MODEL_ANSWER_BYTES and fails the interaction saying so", async () => {
    // Before the fix this read until the fake server gave up (64 MiB here; the issue's went to V8's 512 MB limit).
    const sent = { bytes: 0 };
    openai.script({ kind: "endless", piece: "all work and no play ".repeat(200), giveUpBytes: 64 * 1024 * 1024, sent });
    const { result: interaction } = await withoutStalls(
      fixture.emulator.url,
      HOSTILE_INPUT_BOUNDS,
      async () => (await ai.interactions.create({ agent: AGENT, input: "say something" } as never)) as unknown as Interaction,
      { inProcess: true, what: "a model server streaming without end" },
    );
    assert.equal(interaction.status, "failed");
    assert.equal(interaction.errors?.[0]?.code, "quota_exceeded", JSON.stringify(interaction.errors));
    assert.match(interaction.errors![0]!.message, /sent more than 1048576 bytes for one answer \(EMULATOR_MODEL_ANSWER_BYTES\)/);
    await openai.disconnected(openai.requests.length - 1);
    // What the server got to write: the bound, plus what the sockets' buffers held when it was cut.
    assert.ok(sent.bytes < 16 * 1024 * 1024, `the server wrote ${sent.bytes} bytes before the emulator hung up`);
    const body = await stored(interaction.id);
    assert.ok(body.length < ANSWER_BYTES, `the stored interaction is ${body.length} characters`);
    assert.match(body, /this interaction's output reached 65536 bytes in all \(EMULATOR_MAX_INTERACTION_OUTPUT_BYTES\)/);
  });

  it("counts a model's text against EMULATOR_MAX_INTERACTION_OUTPUT_BYTES: it is cut with a note", async () => {
    openai.script({ kind: "answer", text: Array.from({ length: 100 }, () => "x".repeat(2048)) });
    const interaction = (await ai.interactions.create({ agent: AGENT, input: "a long answer" } as never)) as unknown as Interaction;
    assert.equal(interaction.status, "completed", JSON.stringify(interaction.errors));
    const text = String(interaction.steps?.at(-1)?.content?.[0]?.text ?? "");
    assert.ok(text.startsWith("x".repeat(OUTPUT_BYTES)), "what fits is kept");
    assert.ok(text.length < OUTPUT_BYTES + 300, `the stored text has ${text.length} characters`);
    assert.match(
      text.slice(OUTPUT_BYTES),
      /^\n\[truncated: kept 65536 of 204800 bytes of the model's text; this interaction's output reached 65536 bytes in all \(EMULATOR_MAX_INTERACTION_OUTPUT_BYTES\)\]$/,
    );
  });
});
