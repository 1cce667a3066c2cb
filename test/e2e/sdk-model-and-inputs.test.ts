// End to end with the official SDK (issue 10, parts 5 and 6): a model interaction (`model` instead of
// `agent`) with and without an environment, counting the Docker containers to show that none is created
// when nothing needs one; an image part round-tripped byte for byte in the user_input step; an
// image-only input answered with the documented sentence; a list of steps kept whole; include_input.
// covers: CreateModelInteraction.model, CreateModelInteraction.input, CreateModelInteraction.input(user_input)
// covers: CreateModelInteraction.environment, CreateAgentInteraction.input(image), CreateAgentInteraction.input(text)

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { objectsOfInstance } from "../support/docker-fixture.js";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";

const MODEL = "gemini-3-flash-preview";
const AGENT = "antigravity-preview-05-2026";
const KEY = "model-inputs-e2e-key";

let emulator: EmulatorProcess;
let ai: GoogleGenAI;

before(async () => {
  emulator = await startEmulatorProcess();
  ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
});
after(async () => {
  await emulator?.destroy();
});

const script = (calls: unknown[]): string => `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``;
// Its warm pool's sandboxes, which come and go in the background, are not counted.
const containers = async (): Promise<number> => (await objectsOfInstance(emulator.instance, { sandboxes: true })).containers;

type Steps = Array<Record<string, any>>;

describe("model interactions through the SDK", () => {
  it("run without a sandbox when no environment is given and nothing needs one: no container is created", async () => {
    const before = await containers();
    const interaction = await ai.interactions.create({
      model: MODEL,
      input: "Say hello.",
      system_instruction: "You are terse.",
      generation_config: { temperature: 0.1, max_output_tokens: 64, thinking_level: "low" },
    });
    assert.equal(interaction.status, "completed");
    assert.equal(interaction.model, MODEL);
    assert.equal(interaction.agent, undefined);
    assert.equal(interaction.environment_id, undefined);
    assert.equal(interaction.system_instruction, "You are terse.");
    assert.deepEqual(interaction.generation_config, { temperature: 0.1, max_output_tokens: 64, thinking_level: "low" });
    assert.match(interaction.output_text ?? "", /I read your message \("Say hello\."\)/);
    assert.equal(await containers(), before, "no sandbox container was created");

    const fetched = await ai.interactions.get(interaction.id);
    assert.equal(fetched.model, MODEL);
    // The create answer holds the run's steps, as the service's; GET the whole timeline, the input first.
    assert.equal(fetched.steps?.[0]?.type, "user_input");
    assert.deepEqual(fetched.steps?.slice(1), interaction.steps);
  });

  it("run its script in the environment given, in one new container", async () => {
    const before = await containers();
    const interaction = await ai.interactions.create({
      model: MODEL,
      input: script([{ name: "code_execution", args: { code: "echo from-a-model" } }]),
      environment: { type: "remote" },
    });
    assert.equal(interaction.status, "completed");
    assert.equal(interaction.model, MODEL);
    assert.match(interaction.environment_id ?? "", /^env_/);
    assert.deepEqual(
      (interaction.steps as Steps).map((step) => step.type),
      ["code_execution_call", "code_execution_result", "model_output"],
    );
    assert.equal((interaction.steps as Steps)[1]?.result, "from-a-model\n");
    assert.equal(await containers(), before + 1);
  });

  it("refuse both agent and model with a 400 saying so", async () => {
    await assert.rejects(ai.interactions.create({ agent: AGENT, model: MODEL, input: "hi" } as never), (error: unknown) => {
      assert.equal((error as { status?: number }).status, 400);
      assert.match((error as Error).message, /not both/);
      return true;
    });
  });
});

describe("whole inputs through the SDK", () => {
  it("keep an image part byte for byte in the user_input step, and name it in the answer", async () => {
    const bytes = randomBytes(64 * 1024);
    const image = { type: "image" as const, data: bytes.toString("base64"), mime_type: "image/png" };
    const interaction = await ai.interactions.create({ agent: AGENT, input: [{ type: "text", text: "Describe this." }, image] });
    assert.equal(interaction.status, "completed");
    assert.deepEqual(
      (interaction.steps as Steps).map((step) => step.type),
      ["model_output"],
      "the create answer holds the run's steps only",
    );
    const userInput = ((await ai.interactions.get(interaction.id)).steps as Steps)[0];
    assert.equal(userInput?.type, "user_input");
    const content = userInput?.content as Array<{ data?: string }>;
    assert.ok(Buffer.from(content[1]?.data ?? "", "base64").equals(bytes), "the same bytes");
    assert.deepEqual(content, [{ type: "text", text: "Describe this." }, image]);
    assert.match(
      interaction.output_text ?? "",
      /I could not read 1 image \(image\/png\): the emulated agent reads only the text of the input\./,
    );
  });

  it("answer an image-only input with the documented sentence, not as an empty message", async () => {
    const interaction = await ai.interactions.create({
      model: MODEL,
      input: { type: "image", uri: "https://example.com/cat.jpg", mime_type: "image/jpeg" },
    });
    assert.equal(interaction.status, "completed");
    assert.match(
      interaction.output_text ?? "",
      /^Your message had no text for the emulated agent to read\. I could not read 1 image \(image\/jpeg\): the emulated agent reads only the text of the input\. No tool call was made\./,
    );
    assert.doesNotMatch(interaction.output_text ?? "", /empty/);
  });

  it("keep a list of steps whole, answer its last user_input, and give the input back with include_input", async () => {
    const history = [
      { type: "user_input" as const, content: [{ type: "text" as const, text: "Run `echo earlier`" }] },
      { type: "model_output" as const, content: [{ type: "text" as const, text: "Ran `echo earlier` and it printed: earlier" }] },
      { type: "user_input" as const, content: [{ type: "text" as const, text: "Now run `echo later`" }] },
    ];
    const interaction = await ai.interactions.create({ model: MODEL, input: history });
    assert.equal(interaction.status, "completed");
    // The history is the input: GET has it first, the create answer only what the run made of it.
    const steps = interaction.steps as Steps;
    assert.deepEqual(
      steps.map((step) => step.type),
      ["code_execution_call", "code_execution_result", "model_output"],
    );
    assert.equal(steps[0]?.arguments.code, "echo later");
    assert.deepEqual(((await ai.interactions.get(interaction.id)).steps as Steps).slice(0, 3), history);
    assert.match(interaction.output_text ?? "", /later/);

    const withInput = await ai.interactions.get(interaction.id, { include_input: true });
    assert.deepEqual(withInput.input, history);
    const without = await ai.interactions.get(interaction.id);
    assert.equal(without.input, undefined);
    assert.deepEqual(without.steps, withInput.steps);
  });

  it("give a string input back as a string with include_input", async () => {
    const interaction = await ai.interactions.create({ agent: AGENT, input: "just text" });
    assert.equal((await ai.interactions.get(interaction.id, { include_input: true })).input, "just text");
  });

  it("refuse an image whose data is not base64 with a 400 naming it", async () => {
    await assert.rejects(
      ai.interactions.create({ agent: AGENT, input: [{ type: "image", data: "this is not base64!", mime_type: "image/png" }] }),
      (error: unknown) => {
        assert.equal((error as { status?: number }).status, 400);
        assert.match((error as Error).message, /input\[0\]\.data: must be base64/);
        return true;
      },
    );
  });
});
