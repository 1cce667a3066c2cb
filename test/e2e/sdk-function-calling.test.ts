// End to end: client-side function calling through the official SDK, against the emulator started as
// `npm start` starts it, with real Docker sandboxes. A script calls a declared function; the interaction
// stops in requires_action with the function_call step; the client answers with function_result steps
// and previous_interaction_id, and the script goes on in the same sandbox. Wrong answers and arguments
// that do not fit are 400s saying which; a `.*` hook does not run for the function call, and the hook
// trace says why; a stream shows the documented event sequence.
// covers: CreateAgentInteraction.tools(function), CreateAgentInteraction.input(function_result)
// covers: CreateAgentInteraction.previous_interaction_id

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";

const AGENT = "antigravity-preview-05-2026";
const KEY = "function-calling-e2e-key";

let emulator: EmulatorProcess;
let ai: GoogleGenAI;

before(async () => {
  emulator = await startEmulatorProcess();
  ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
});
after(async () => {
  await emulator?.destroy();
});

const WEATHER = {
  type: "function" as const,
  name: "get_weather",
  description: "The current weather in a city",
  parameters: {
    type: "object",
    properties: { city: { type: "string" }, unit: { enum: ["celsius", "fahrenheit"] } },
    required: ["city"],
  },
};
const TOOLS = [{ type: "code_execution" as const }, WEATHER];
const script = (calls: unknown[]): string => `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``;
const bash = (code: string) => ({ name: "code_execution", args: { code, language: "bash" } });
const weather = (city: string) => ({ name: "get_weather", args: { city } });
const statusOf = (error: unknown) => (error as { status?: number }).status;

type Step = Record<string, any> & { type: string };
type Interaction = { id?: string; status?: string; environment_id?: string; output_text?: string; steps?: Step[] };
type Event = Record<string, any> & { event_type: string; event_id: string };

const functionCalls = (interaction: Interaction) =>
  (interaction.steps ?? []).filter((step) => step.type === "function_call" && step.name === "get_weather") as unknown as Array<{
    id: string;
    name: string;
    arguments: Record<string, unknown>;
  }>;

async function create(body: Record<string, unknown>): Promise<Interaction> {
  return (await ai.interactions.create({ agent: AGENT, ...body } as never)) as Interaction;
}

async function refusal(body: Record<string, unknown>): Promise<string> {
  const error = await create(body).then(
    () => assert.fail("expected a 400"),
    (caught: unknown) => caught,
  );
  assert.equal(statusOf(error), 400, String(error));
  return String((error as Error).message);
}

async function collect(stream: AsyncIterable<unknown>): Promise<Event[]> {
  const events: Event[] = [];
  for await (const event of stream) events.push(event as Event);
  return events;
}

describe("function calling through the official SDK", () => {
  it("round trip: requires_action with the call, then the result, and the script goes on in the same sandbox", async () => {
    const token = `token-${Date.now()}`;
    const first = await create({
      tools: TOOLS,
      input: script([bash(`echo ${token} > /workspace/before.txt; echo started`), weather("Paris"), bash("cat /workspace/before.txt")]),
      environment: { type: "remote" },
    });
    assert.equal(first.status, "requires_action");
    assert.match(first.environment_id ?? "", /^env_/);
    assert.deepEqual(
      first.steps?.map((step) => step.type),
      ["code_execution_call", "code_execution_result", "function_call"],
    );
    const [call] = functionCalls(first);
    assert.ok(call);
    assert.match(call.id, /^call_/);
    assert.deepEqual(call.arguments, { city: "Paris" });
    assert.equal(first.output_text, undefined, "nothing is answered while the client has the turn");
    const fetched = (await ai.interactions.get(first.id!)) as Interaction;
    assert.equal(fetched.status, "requires_action");

    const second = await create({
      tools: TOOLS,
      previous_interaction_id: first.id,
      input: [{ type: "function_result", call_id: call.id, name: "get_weather", result: "sunny, 21 °C" }],
    });
    assert.equal(second.status, "completed");
    assert.equal(second.environment_id, first.environment_id);
    // The client's results are the second interaction's input: GET has them first, the create answer only what followed.
    assert.deepEqual(
      second.steps?.map((step) => step.type),
      ["code_execution_call", "code_execution_result", "model_output"],
    );
    const secondWhole = (await ai.interactions.get(second.id!)) as Interaction;
    assert.deepEqual(secondWhole.steps?.[0], {
      type: "function_result",
      call_id: call.id,
      name: "get_weather",
      result: "sunny, 21 °C",
      is_error: false,
    });
    assert.equal(second.steps?.[1]?.result, `${token}\n`, "the file written before the call is read after it");
    assert.equal(
      second.output_text,
      `The client answered the function call get_weather (${call.id}): sunny, 21 °C\n\nThen I went on with your request.\n\nRan \`cat /workspace/before.txt\` (bash). Output: ${token}`,
    );
  });

  it("hands two calls of one turn over together, and takes both answers together", async () => {
    const first = await create({ tools: [WEATHER], input: script([weather("Paris"), weather("Rome")]) });
    assert.equal(first.status, "requires_action");
    assert.equal(first.environment_id, undefined, "function calls alone need no sandbox");
    const [paris, rome] = functionCalls(first);
    assert.ok(paris && rome);
    assert.deepEqual([paris.arguments, rome.arguments], [{ city: "Paris" }, { city: "Rome" }]);
    const second = await create({
      previous_interaction_id: first.id,
      input: [
        { type: "function_result", call_id: rome.id, result: [{ type: "text", text: "rain" }] },
        { type: "function_result", call_id: paris.id, result: { sky: "clear" } },
      ],
    });
    assert.equal(second.status, "completed");
    assert.equal(
      second.output_text,
      `The client answered 2 function calls:\n1. get_weather (${rome.id}): rain\n2. get_weather (${paris.id}): {"sky":"clear"}\n\nThat was the last step of your request; no tool call was left to make.`,
    );
  });

  it("refuses a wrong call_id, naming it and the open calls", async () => {
    const first = await create({ tools: [WEATHER], input: script([weather("Oslo")]) });
    const [call] = functionCalls(first);
    assert.ok(call);
    const message = await refusal({
      previous_interaction_id: first.id,
      input: [{ type: "function_result", call_id: "call_wrong", result: "x" }],
    });
    assert.match(
      message,
      /input\[0\]: call_id "call_wrong" is not a call interaction int_\w+ is waiting for; its open calls are call_\w+ \(get_weather\)/,
    );
    assert.match(message, new RegExp(`input: no function_result for ${call.id} \\(get_weather\\)`));
    // The interaction still waits, and the right answer is taken afterwards.
    const answered = await create({
      previous_interaction_id: first.id,
      input: [{ type: "function_result", call_id: call.id, result: "x" }],
    });
    assert.equal(answered.status, "completed");
  });

  it("refuses a script whose arguments do not fit the declared parameters, naming the call and the path", async () => {
    const message = await refusal({
      tools: [WEATHER],
      input: script([weather("Paris"), { name: "get_weather", args: { city: "Rome", unit: "kelvin" } }]),
    });
    assert.match(message, /tool_calls item 2: function get_weather: arguments\.unit must be one of "celsius", "fahrenheit", got "kelvin"/);
    const phrased = await refusal({ tools: [WEATHER], input: "call the function `get_weather` with {}" });
    assert.match(phrased, /function get_weather: arguments\.city is missing/);
    const undeclared = await refusal({ tools: [WEATHER], input: script([{ name: "get_time", args: {} }]) });
    assert.match(
      undeclared,
      /unknown tool "get_time"; emulated tools are code_execution, .*; the functions declared in tools are get_weather/,
    );
  });

  it("runs no .* hook for a function call, and the hook trace says why", async () => {
    const hooks = {
      audit: {
        pre_tool_execution: [
          { matcher: ".*", hooks: [{ type: "command", command: "cat >> /tmp/pre-hook.jsonl; echo >> /tmp/pre-hook.jsonl" }] },
        ],
      },
    };
    const first = await create({
      tools: TOOLS,
      input: script([{ name: "write_file", args: { path: "/workspace/a.txt", content: "a" } }, weather("Paris")]),
      environment: { type: "remote", sources: [{ type: "inline", target: ".agents/hooks.json", content: JSON.stringify(hooks) }] },
    });
    assert.equal(first.status, "requires_action");
    const [call] = functionCalls(first);
    assert.ok(call);
    const second = await create({
      tools: TOOLS,
      previous_interaction_id: first.id,
      input: [{ type: "function_result", call_id: call.id, result: "sunny" }],
    });
    // The answering interaction's own script is empty, so one more interaction reads the hook's log.
    const check = await create({
      previous_interaction_id: second.id,
      input: script([{ name: "read_file", args: { path: "/tmp/pre-hook.jsonl" } }]),
    });
    const log = String(check.steps?.find((step) => step.type === "function_result")?.result ?? "");
    const seen = log
      .trim()
      .split("\n")
      .map((line) => (JSON.parse(line) as { tool_call: { name: string } }).tool_call.name);
    assert.deepEqual(seen, ["write_file", "read_file"], "the .* hook ran before each sandbox tool and never for get_weather");

    const response = await fetch(`${emulator.url}/emulator/interactions/${first.id}/hooks`, { headers: { "x-goog-api-key": KEY } });
    assert.equal(response.status, 200);
    const trace = ((await response.json()) as { tool_calls: Array<Record<string, any>> }).tool_calls;
    assert.deepEqual(
      trace.map((entry) => entry.tool_call.name),
      ["write_file", "get_weather"],
    );
    assert.equal(trace[0]?.pre.rules[0].match, "matched");
    const functionEntry = trace[1]!;
    assert.equal(functionEntry.call_id, call.id);
    assert.equal(functionEntry.pre, null);
    assert.equal(functionEntry.post, null);
    assert.equal(functionEntry.hooks_not_run.code, "not_a_sandbox_tool");
    assert.match(
      functionEntry.hooks_not_run.reason,
      /get_weather is a function declared in tools, which the client runs, not a sandbox tool/,
    );
  });

  it("streams the documented sequence for a run that ends requires_action, and for the run that answers it", async () => {
    const events = await collect(
      await ai.interactions.create({
        agent: AGENT,
        tools: TOOLS,
        input: script([bash("echo hi"), weather("Paris")]),
        environment: { type: "remote" },
        stream: true,
      }),
    );
    const shape = events.map((event) =>
      event.event_type.startsWith("step.")
        ? `${event.event_type}:${event.index}`
        : `${event.event_type}${event.status ? `:${event.status}` : ""}`,
    );
    // As documented: no user_input step in the stream; the output's steps numbered from 0.
    assert.deepEqual(shape.slice(0, 5), [
      "interaction.created",
      "interaction.status_update:in_progress",
      "step.start:0",
      "step.stop:0",
      "step.start:1",
    ]);
    assert.deepEqual(shape.slice(-5), [
      "step.start:2",
      "step.delta:2",
      "step.stop:2",
      "interaction.status_update:requires_action",
      "interaction.completed",
    ]);
    // As the streaming page shows a function call: empty arguments at its start, their JSON text in an arguments_delta.
    const callStart = events.at(-5)!;
    assert.equal(callStart.step.type, "function_call");
    assert.deepEqual(callStart.step.arguments, {});
    assert.deepEqual(JSON.parse(events.at(-4)!.delta.arguments), { city: "Paris" });
    const completed = events.at(-1)!;
    assert.equal(completed.interaction.status, "requires_action");
    assert.equal(completed.interaction.steps, undefined, "interaction.completed carries no steps");

    const answerEvents = await collect(
      await ai.interactions.create({
        agent: AGENT,
        previous_interaction_id: completed.interaction.id,
        input: [{ type: "function_result", call_id: callStart.step.id, result: "sunny" }],
        stream: true,
      }),
    );
    const answerShape = answerEvents.map((event) =>
      event.event_type.startsWith("step.")
        ? `${event.event_type}:${event.index}`
        : `${event.event_type}${event.status ? `:${event.status}` : ""}`,
    );
    // The function_result steps record the input: not streamed, as a user_input step is not.
    assert.deepEqual(answerShape, [
      "interaction.created",
      "interaction.status_update:in_progress",
      "step.start:0",
      "step.delta:0",
      "step.stop:0",
      "interaction.completed",
    ]);
    const answered = (await ai.interactions.get(answerEvents[0]!.interaction.id)) as Record<string, any>;
    assert.deepEqual(answered.steps[0], {
      type: "function_result",
      call_id: callStart.step.id,
      name: "get_weather",
      result: "sunny",
      is_error: false,
    });
    assert.equal(answerEvents[2]!.step.type, "model_output");
    assert.equal(answerEvents.at(-1)!.interaction.status, "completed");
  });
});
