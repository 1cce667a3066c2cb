// Model interactions and whole inputs (issue 10, parts 5 and 6), through the interaction service with a
// fake sandbox (no Docker): `model` instead of `agent` runs the same scripted planner in the same loop,
// with no environment unless a sandbox tool is scripted or one is given; system_instruction and
// generation_config are echoed; every input part is kept verbatim (and stored once), a history is kept
// whole, the answer names what the agent could not read, and include_input gives the input back as sent.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createInteractionSchema, type CreateInteractionRequest } from "../../server/api/create-interaction.js";
import { contentText } from "../../server/agent/steps.js";
import { InvalidArgumentError, NotFoundError } from "../../server/common/errors.js";
import type { InteractionRecord } from "../../server/interactions/interaction-store.js";
import { renderInteraction } from "../../server/interactions/interaction-view.js";
import { parseOrThrow } from "../../server/http/zod-errors.js";
import { serviceWithFakeSandbox, type FakeInteractionService } from "../support/fake-interaction-service.js";

const OWNER = "owner-model-inputs";
const MODEL = "gemini-3-flash-preview";
const AGENT = "antigravity-preview-05-2026";
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==";
const ONE_IMAGE = "I could not read 1 image (image/png): the emulated agent reads only the text of the input.";

type Harness = FakeInteractionService;

function harness(): Harness {
  return serviceWithFakeSandbox(OWNER);
}

/** Creates an interaction from a body as the route would (schema first), and waits for its end. */
async function create(h: Harness, body: Record<string, unknown>): Promise<InteractionRecord> {
  const request = parseOrThrow(createInteractionSchema, body) as CreateInteractionRequest;
  const run = await h.service.create(OWNER, request);
  return run.done;
}

function answerOf(record: InteractionRecord): string {
  const last = record.steps.at(-1);
  assert.equal(last?.type, "model_output");
  return last.type === "model_output" ? contentText(last.content) : "";
}

async function refusal(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (error) {
    assert.ok(error instanceof InvalidArgumentError, `expected a 400, got ${String(error)}`);
    return error.message;
  }
  assert.fail("expected a 400");
}

const script = (calls: unknown[]) => `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``;

describe("model interactions", () => {
  it("run the scripted planner without a sandbox when nothing needs one, and echo model, not agent", async () => {
    const h = harness();
    const record = await create(h, { model: MODEL, input: "hello" });
    assert.equal(record.status, "completed");
    assert.deepEqual(h.planned, [], "no environment was created or reused");
    assert.equal(h.channelsOpened, 0);
    const rendered = renderInteraction(h.service.get(record.id, OWNER));
    assert.equal(rendered.model, MODEL);
    assert.equal("agent" in rendered, false);
    assert.equal("environment_id" in rendered, false);
    assert.match(answerOf(record), /I read your message \("hello"\) but found no request/);
  });

  it("get a fresh sandbox when the script uses a sandbox tool, and run it through the same loop", async () => {
    const h = harness();
    h.channel.onRun = async () => ({ stdout: "hi\n" });
    const record = await create(h, { model: MODEL, input: script([{ name: "code_execution", args: { code: "echo hi" } }]) });
    assert.equal(record.status, "completed");
    assert.deepEqual(h.planned, [{ type: "remote" }]);
    assert.equal(record.environmentId, "env_fake");
    assert.deepEqual(
      record.steps.map((step) => step.type),
      ["user_input", "code_execution_call", "code_execution_result", "model_output"],
    );
    assert.equal(record.hookTraces.length, 1, "the call went through the hooks like an agent's");
  });

  it("use the environment given, without opening its channel when nothing runs in it", async () => {
    const h = harness();
    const record = await create(h, { model: MODEL, input: "hello", environment: { type: "remote" } });
    assert.equal(record.status, "completed");
    assert.deepEqual(h.planned, [{ type: "remote" }]);
    assert.equal(record.environmentId, "env_fake");
    assert.equal(h.channelsOpened, 0);
  });

  it("echo system_instruction and generation_config as sent", async () => {
    const h = harness();
    const generation_config = {
      temperature: 0.2,
      max_output_tokens: 256,
      stop_sequences: ["END"],
      thinking_level: "low",
      tool_choice: { allowed_tools: { mode: "any", tools: ["lookup"] } },
      future_knob: { nested: true },
    };
    const record = await create(h, { model: MODEL, input: "hi", system_instruction: "Be terse.", generation_config });
    const rendered = renderInteraction(h.service.get(record.id, OWNER));
    assert.equal(rendered.system_instruction, "Be terse.");
    assert.deepEqual(rendered.generation_config, generation_config);
  });

  it("refuse a generation_config field of the wrong type, naming it", async () => {
    const message = await refusal(create(harness(), { model: MODEL, input: "hi", generation_config: { temperature: "hot" } }));
    assert.match(message, /generation_config\.temperature: /);
    const nested = { tool_choice: { allowed_tools: { tools: ["ok", 5] } } };
    assert.match(
      await refusal(create(harness(), { model: MODEL, input: "hi", generation_config: nested })),
      /generation_config\.tool_choice\.allowed_tools\.tools\[1\]: /,
    );
  });

  it("leave an agent interaction's generation_config unchecked and echoed, as before (agents have none in the SDK)", async () => {
    const h = harness();
    const record = await create(h, { agent: AGENT, input: "hi", generation_config: [[["anything"]]] });
    assert.equal(record.status, "completed");
    assert.deepEqual(renderInteraction(h.service.get(record.id, OWNER)).generation_config, [[["anything"]]]);
  });

  it("refuse both agent and model, neither, and a model that is not gemini-*, saying what is accepted", async () => {
    const h = harness();
    assert.match(await refusal(create(h, { agent: AGENT, model: MODEL, input: "hi" })), /both given.*not both.*antigravity-\*.*gemini-\*/);
    assert.match(await refusal(create(h, { input: "hi" })), /agent or model is required, and neither was given.*antigravity-\*.*gemini-\*/);
    // Issue 30: an unknown model is a 404 (the API errors page: model_not_found), not a 400.
    await assert.rejects(
      create(h, { model: "gpt-4o", input: "hi" }),
      (error: unknown) => error instanceof NotFoundError && /model "gpt-4o" is not emulated.*gemini-\*.*antigravity-\*/.test(error.message),
    );
    assert.match(await refusal(create(h, { agent: "deep-research", input: "hi" })), /agent "deep-research" is not emulated.*antigravity/);
    assert.deepEqual(h.planned, [], "a refusal leaves nothing behind");
  });
});

describe("whole inputs", () => {
  it("keep an image part verbatim in the user_input step, stored once, and name it in the answer", async () => {
    const h = harness();
    const data = Buffer.alloc(512 * 1024, 7).toString("base64");
    const parts = [
      { type: "text", text: "What is in this picture?" },
      { type: "image", data, mime_type: "image/png", resolution: "high" },
    ];
    const record = await create(h, { agent: AGENT, input: parts });
    const fetched = h.service.get(record.id, OWNER);
    assert.deepEqual(fetched.steps[0], { type: "user_input", content: parts });
    assert.match(
      answerOf(fetched),
      /^I read your message \("What is in this picture\?"\) but found no request .*I could not read 1 image \(image\/png\)/s,
    );

    const eventBytes = (h.db.prepare("SELECT SUM(LENGTH(event)) AS n FROM interaction_events").get() as { n: number }).n;
    const other = (h.db.prepare("SELECT LENGTH(echo) + COALESCE(LENGTH(input_shape), 0) AS n FROM interactions").get() as { n: number }).n;
    assert.ok(eventBytes + other < data.length * 1.05, `stored ${eventBytes + other} bytes for an image of ${data.length}`);
  });

  it("answer an image-only input with the documented sentence, not as empty", async () => {
    const h = harness();
    const record = await create(h, { model: MODEL, input: [{ type: "image", data: PNG, mime_type: "image/png" }] });
    const answer = answerOf(record);
    assert.ok(answer.startsWith(`Your message had no text for the emulated agent to read. ${ONE_IMAGE} No tool call was made.`), answer);
    assert.doesNotMatch(answer, /empty/);
  });

  it("name unread parts after the report of a script that ran", async () => {
    const h = harness();
    h.channel.onRun = async () => ({ stdout: "ok\n" });
    const record = await create(h, {
      agent: AGENT,
      input: [
        { type: "text", text: script([{ name: "code_execution", args: { code: "true" } }]) },
        { type: "image", uri: "https://example.com/cat.png", mime_type: "image/png" },
      ],
    });
    assert.equal(record.status, "completed");
    assert.ok(answerOf(record).endsWith(`\n\n${ONE_IMAGE}`), answerOf(record));
  });

  it("keep a list of steps whole, run the last user_input step's script, and give the input back with include_input", async () => {
    const h = harness();
    h.channel.onRun = async (request) => ({ stdout: `ran ${request.argv.at(-1)}\n` });
    const history = [
      { type: "user_input", content: [{ type: "text", text: script([{ name: "code_execution", args: { code: "echo old" } }]) }] },
      { type: "model_output", content: [{ type: "text", text: "Ran echo old." }] },
      { type: "user_input", content: [{ type: "text", text: "Run `echo new`" }] },
    ];
    const record = await create(h, { model: MODEL, input: history });
    const fetched = h.service.get(record.id, OWNER);
    assert.deepEqual(fetched.steps.slice(0, 3), history);
    assert.deepEqual(
      fetched.steps.slice(3).map((step) => step.type),
      ["code_execution_call", "code_execution_result", "model_output"],
    );
    const call = fetched.steps[3] as { arguments: { code: string } };
    assert.equal(call.arguments.code, "echo new", "only the turn being answered is read; the history's script did not run again");

    assert.deepEqual(renderInteraction(fetched, { includeInput: true }).input, history);
    assert.equal("input" in renderInteraction(fetched), false, "no input without include_input");
  });

  it("give back each input form exactly as sent with include_input", async () => {
    const h = harness();
    const forms: unknown[] = [
      "plain text",
      { type: "text", text: "one" },
      [
        { type: "text", text: "a" },
        { type: "image", data: PNG, mime_type: "image/png" },
      ],
    ];
    for (const input of forms) {
      const record = await create(h, { agent: AGENT, input });
      assert.deepEqual(renderInteraction(h.service.get(record.id, OWNER), { includeInput: true }).input, input);
    }
    const none = await create(h, { agent: AGENT });
    assert.equal("input" in renderInteraction(h.service.get(none.id, OWNER), { includeInput: true }), false);
  });

  it("refuse a media part without data or uri before anything exists", async () => {
    const h = harness();
    const message = await refusal(
      create(h, { agent: AGENT, input: [{ type: "image", mime_type: "image/png" }], environment: { type: "remote" } }),
    );
    assert.match(message, /input\[0\] \(image\) has neither data nor uri/);
    assert.deepEqual(h.planned, []);
  });
});
