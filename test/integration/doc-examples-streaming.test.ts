// The code examples of the documentation's streaming page (ai.google.dev/gemini-api/docs/streaming, the
// revision of 2026-09-18), run as a new user would: the JavaScript example through the official SDK, the
// REST example as the same HTTP request (curl --no-buffer), the Python example as the body the Python
// SDK sends. Our own code throughout. Every example of this page is a model's answer, so they run through
// the model agent against a loopback stand-in of an OpenAI-compatible server
// (test/support/fake-openai-server.ts, docs/model-agent.md) that answers as the page's model would.
// The page's other examples (Google Search, Deep Research, image output) are listed in
// tools/parity/doc-examples.ts with why they are not run.
//
// Each `// doc-example:` line names the example (page#section: what) that docs/coverage.md lists.
// covers: interactions.create

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { docClient, drain, sseEvents, type DocClient, type Json } from "../support/doc-example-client.js";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../support/fake-openai-server.js";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";

const KEY = "doc-examples-streaming-key";
const MODEL = "gemini-3.8-flash";

let openai: FakeOpenAiServer;
let emulator: FakeRuntimeEmulator;
let doc: DocClient;

before(async () => {
  openai = await startFakeOpenAiServer();
  emulator = await startFakeRuntimeEmulator(openai.agentSettings);
  doc = docClient(emulator.url, KEY);
});
after(async () => {
  await emulator?.close();
  await openai?.close();
});

const textOf = (events: Json[]) =>
  events
    .filter((event) => event.event_type === "step.delta" && event.delta?.type === "text")
    .map((event) => event.delta.text)
    .join("");

describe("streaming (model agent, loopback fake)", () => {
  it("streams text deltas, the wire ending with data: [DONE]", async () => {
    // doc-example: streaming#intro: stream true, step.delta text events (python, javascript, rest; model agent, loopback fake)
    openai.script({ kind: "answer", text: ["1, 2, 3, 4, 5, 6, ", "7, 8, 9, 10"] });
    const events = await drain(await doc.client.interactions.create({ model: MODEL, input: "Count from 1 to 25.", stream: true } as never));
    assert.equal(textOf(events), "1, 2, 3, 4, 5, 6, 7, 8, 9, 10");
    assert.equal(events[0]?.event_type, "interaction.created");
    assert.equal(events.at(-1)?.event_type, "interaction.completed");
    assert.ok(events.at(-1)?.interaction.usage, "interaction.completed carries the usage");

    openai.script({ kind: "answer", text: ["1, 2, ", "3"] });
    const byRest = await doc.rest("POST", "/v1beta/interactions", { model: MODEL, input: "Count from 1 to 25.", stream: true });
    const wire = sseEvents(byRest.text);
    assert.equal(wire.at(-1)?.data, "[DONE]");
    const parsed = wire.slice(0, -1).map((event) => ({ name: event.event, ...JSON.parse(event.data) }));
    for (const event of parsed) assert.equal(event.name, event.event_type, "each event: line names its event_type");
    assert.equal(textOf(parsed), "1, 2, 3");
  });

  it("streams a function call's arguments, then the answer to its result", async () => {
    // doc-example: streaming#streaming-with-function-calling: turn 1 accumulates arguments_delta, turn 2 sends the function_result (python, javascript, rest; model agent, loopback fake)
    const weatherTool = {
      type: "function",
      name: "get_weather",
      description: "Get the current weather in a given location",
      parameters: {
        type: "object",
        properties: { location: { type: "string", description: "The city and state, e.g. San Francisco, CA" } },
        required: ["location"],
      },
    };
    openai.script(
      { kind: "answer", toolCalls: [{ id: "call_1", name: "get_weather", argumentPieces: ['{"location": ', '"Paris, France"}'] }] },
      { kind: "answer", text: ["It is sunny ", "and 22°C in Paris."] },
    );
    const events = await drain(
      await doc.client.interactions.create({
        model: MODEL,
        tools: [weatherTool],
        input: "What is the weather in Paris right now?",
        stream: true,
      } as never),
    );
    let firstInteractionId: string | undefined;
    let funcCall: Json | undefined;
    let args = "";
    for (const event of events) {
      if (event.event_type === "interaction.created") firstInteractionId = event.interaction.id;
      else if (event.event_type === "step.start" && event.step.type === "function_call") funcCall = event.step;
      else if (event.event_type === "step.delta" && event.delta.type === "arguments_delta") args += event.delta.arguments;
    }
    assert.ok(firstInteractionId && funcCall, JSON.stringify(events));
    assert.equal(funcCall.name, "get_weather");
    assert.deepEqual(JSON.parse(args), { location: "Paris, France" });
    assert.equal(events.at(-1)?.interaction.status, "requires_action");

    const stream2 = await drain(
      await doc.client.interactions.create({
        model: MODEL,
        previous_interaction_id: firstInteractionId,
        input: [
          {
            type: "function_result",
            name: funcCall.name,
            call_id: funcCall.id,
            result: { content: [{ type: "text", text: '{"weather": "Sunny and 22°C"}' }] },
          },
        ],
        stream: true,
      } as never),
    );
    assert.equal(textOf(stream2), "It is sunny and 22°C in Paris.");
    const sentBack = openai.requests.at(-1)?.body.messages.find((message: Json) => message.role === "tool");
    assert.match(JSON.stringify(sentBack), /Sunny and 22/);
  });

  it("streams thought summaries before the answer", async () => {
    // doc-example: streaming#streaming-with-thinking: generation_config thinking_summaries auto, thought_summary deltas (python, javascript, rest; model agent, loopback fake)
    openai.script({ kind: "answer", reasoning: ["I need the GCD: ", "Euclid's algorithm."], text: ["The GCD is 21."] });
    const events = await drain(
      await doc.client.interactions.create({
        model: MODEL,
        input: "What is the greatest common divisor of 1071 and 462?",
        generation_config: { thinking_summaries: "auto" },
        stream: true,
      } as never),
    );
    const thoughts = events
      .filter((event) => event.event_type === "step.delta" && event.delta.type === "thought_summary")
      .map((event) => event.delta.content?.text ?? "")
      .join("");
    assert.equal(thoughts, "I need the GCD: Euclid's algorithm.", JSON.stringify(events));
    assert.equal(textOf(events), "The GCD is 21.");
  });
});
