// Function calling through the interaction service, without Docker (a fake sandbox): a run that calls a
// declared function stops in requires_action with its function_call steps (and says so in its events);
// the interaction that answers every open call_id goes on with the rest of the script in the same
// environment, its function_result steps first; every other answer is a 400 saying which call is wrong,
// and leaves nothing behind; no hook runs for a function call, and the trace says why.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CreateInteractionRequest } from "../../server/api/create-interaction.js";
import type { JsonValue } from "../../server/agent/planner.js";
import { contentText } from "../../server/agent/steps.js";
import { pendingScript, rememberedRuns } from "../../server/planners/scripted/scripted-planner-state.js";
import { InvalidArgumentError } from "../../server/common/errors.js";
import type { InteractionRecord } from "../../server/interactions/interaction-store.js";
import type { StreamEvent } from "../../server/interactions/events.js";
import { serviceWithFakeSandbox, type FakeInteractionService } from "../support/fake-interaction-service.js";

const OWNER = "owner-function-calling";
const AGENT = "antigravity-preview-05-2026";
const WEATHER_TOOL = {
  type: "function",
  name: "get_weather",
  description: "The weather in a city",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};
const TOOLS = [{ type: "code_execution" }, WEATHER_TOOL];
const script = (calls: unknown[]): string => `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``;
const weather = (city: string) => ({ name: "get_weather", args: { city } });
const write = (path: string, content: string) => ({ name: "write_file", args: { path, content } });
const read = (path: string) => ({ name: "read_file", args: { path } });

async function create(
  fake: FakeInteractionService,
  request: Record<string, unknown>,
): Promise<{ record: InteractionRecord; events: StreamEvent[] }> {
  const run = await fake.service.create(OWNER, { agent: AGENT, ...request } as CreateInteractionRequest);
  const events: StreamEvent[] = [];
  const record = await run.done;
  run.log.subscribe(0, { event: (event) => events.push(event), end: () => undefined });
  return { record, events };
}

function functionCalls(record: InteractionRecord): Array<{ id: string; name: string; arguments: Record<string, unknown> }> {
  return record.steps.flatMap((step) =>
    step.type === "function_call" && step.name === "get_weather" ? [{ id: step.id, name: step.name, arguments: step.arguments }] : [],
  );
}

const answer = (callId: string, result: unknown, extra: Record<string, unknown> = {}) => ({
  type: "function_result",
  call_id: callId,
  result,
  ...extra,
});

describe("function calling: a round trip", () => {
  it("stops in requires_action after the function call, and the answer goes on with the script in the same environment", async () => {
    const fake = serviceWithFakeSandbox(OWNER);
    const { record: first, events } = await create(fake, {
      tools: TOOLS,
      input: script([write("/workspace/city.txt", "Paris"), weather("Paris"), read("/workspace/city.txt")]),
    });
    assert.equal(first.status, "requires_action");
    assert.equal(first.environmentId, "env_fake");
    assert.deepEqual(
      first.steps.map((step) => step.type),
      ["user_input", "function_call", "function_result", "function_call"],
    );
    const [call] = functionCalls(first);
    assert.ok(call);
    assert.deepEqual(call.arguments, { city: "Paris" });
    // The stream says it too: a status_update, then the final snapshot, both requires_action.
    assert.deepEqual(
      events
        .slice(-2)
        .map((event) => [
          event.event_type,
          event.event_type === "interaction.completed" ? event.interaction.status : (event as { status?: string }).status,
        ]),
      [
        ["interaction.status_update", "requires_action"],
        ["interaction.completed", "requires_action"],
      ],
    );
    assert.equal(fake.channel.files.get("/workspace/city.txt"), "Paris");
    fake.channel.files.set("/workspace/city.txt", "Paris, changed while the client worked");

    const { record: second } = await create(fake, { previous_interaction_id: first.id, input: [answer(call.id, "sunny")] });
    assert.equal(second.status, "completed");
    assert.equal(second.environmentId, "env_fake", "the same environment, without naming it");
    assert.equal(second.previousInteractionId, first.id);
    assert.deepEqual(second.steps[0], { type: "function_result", call_id: call.id, name: "get_weather", result: "sunny", is_error: false });
    assert.deepEqual(
      second.steps.map((step) => step.type),
      ["function_result", "function_call", "function_result", "model_output"],
    );
    const readResult = second.steps[2];
    assert.ok(readResult?.type === "function_result");
    assert.equal(readResult.result, "Paris, changed while the client worked", "the script's next call ran in the same sandbox");
    assert.deepEqual(second.steps[3], {
      type: "model_output",
      content: [
        {
          type: "text",
          text: `The client answered the function call get_weather (${call.id}): sunny\n\nThen I went on with your request.\n\nRead /workspace/city.txt: Paris, changed while the client worked`,
        },
      ],
    });
  });

  it("hands several calls of one turn over together and takes their answers together", async () => {
    const fake = serviceWithFakeSandbox(OWNER);
    const { record: first } = await create(fake, { tools: TOOLS, input: script([weather("Paris"), weather("Rome")]) });
    assert.equal(first.status, "requires_action");
    const calls = functionCalls(first);
    assert.deepEqual(
      calls.map((call) => call.arguments.city),
      ["Paris", "Rome"],
    );
    const [paris, rome] = calls as [(typeof calls)[0], (typeof calls)[0]];
    // Answered in another order than asked, one with Content items and an error, one with an object.
    const { record: second } = await create(fake, {
      previous_interaction_id: first.id,
      input: [
        answer(rome.id, [{ type: "text", text: "no data" }], { is_error: true, name: "get_weather" }),
        answer(paris.id, { sky: "clear" }),
      ],
    });
    assert.equal(second.status, "completed");
    assert.deepEqual(second.steps.slice(0, 2), [
      { type: "function_result", call_id: rome.id, name: "get_weather", result: [{ type: "text", text: "no data" }], is_error: true },
      { type: "function_result", call_id: paris.id, name: "get_weather", result: { sky: "clear" }, is_error: false },
    ]);
    const last = second.steps[second.steps.length - 1];
    assert.deepEqual(last, {
      type: "model_output",
      content: [
        {
          type: "text",
          text: `The client answered 2 function calls:\n1. get_weather (${rome.id}) with an error: no data\n2. get_weather (${paris.id}): {"sky":"clear"}\n\nThat was the last step of your request; no tool call was left to make.`,
        },
      ],
    });
  });

  it("runs a script of function calls only without any environment", async () => {
    const fake = serviceWithFakeSandbox(OWNER);
    const { record } = await create(fake, { tools: [WEATHER_TOOL], input: 'call the function `get_weather` with {"city": "Oslo"}' });
    assert.equal(record.status, "requires_action");
    assert.equal(record.environmentId, null);
    assert.equal(fake.channel.commands.length, 0);
  });

  it("keeps the rest of the script in the planner state, and no more once it is done", async () => {
    const fake = serviceWithFakeSandbox(OWNER);
    const { record: first } = await create(fake, { tools: TOOLS, input: script([weather("Paris"), read("/workspace/x")]) });
    const [call] = functionCalls(first);
    assert.ok(call);
    assert.deepEqual(first.plannerState, {
      planner: "scripted",
      data: {
        runs: [{ read: "script", calls: [{ name: "get_weather", call_id: call.id, status: "asked_client" }] }],
        pending: { source: "script", calls: [read("/workspace/x")], notes: [] },
      },
    });
    const { record: second } = await create(fake, { previous_interaction_id: first.id, input: [answer(call.id, "ok")] });
    const data = second.plannerState?.data as { runs: Array<{ read: string }>; pending?: unknown };
    assert.deepEqual(
      data.runs.map((run) => run.read),
      ["script", "function_results"],
    );
    assert.equal(data.pending, undefined);
  });
});

describe("function calling: the rest of the script in the planner state", () => {
  it("is read back only when it is a scripted planner's and well formed", () => {
    const pending: { [key: string]: JsonValue } = {
      source: "script",
      calls: [read("/a"), { kind: "function", name: "f", args: {} }, { server: "docs", name: "search", args: { q: "x" } }],
      notes: ["n"],
      response: "Done.",
    };
    assert.deepEqual(pendingScript({ planner: "scripted", data: { runs: [], pending } }), pending);
    const unreadable = [
      null,
      { planner: "other", data: { runs: [], pending } },
      { planner: "scripted", data: { runs: [] } },
      { planner: "scripted", data: { runs: [], pending: { ...pending, source: "model" } } },
      { planner: "scripted", data: { runs: [], pending: { ...pending, calls: [{ name: "rm", args: {} }] } } },
      { planner: "scripted", data: { runs: [], pending: { ...pending, calls: [{ kind: "function", name: "f" }] } } },
      { planner: "scripted", data: { runs: [], pending: { ...pending, notes: [1] } } },
      { planner: "scripted", data: { runs: [], pending: { ...pending, response: 42 } } },
      { planner: "scripted", data: { runs: [], pending: { ...pending, calls: [{ server: 7, name: "search", args: {} }] } } },
    ];
    for (const state of unreadable) assert.equal(pendingScript(state as never), null, JSON.stringify(state));
  });

  it("remembers function calls handed to the client among the runs a later state resumes", () => {
    const runs = [{ read: "script", calls: [{ name: "get_weather", call_id: "call_1", status: "asked_client" }] }];
    assert.deepEqual(rememberedRuns({ planner: "scripted", data: { runs } }), runs);
  });

  it("when the previous state holds none, the answer reports the results and ends", async () => {
    const fake = serviceWithFakeSandbox(OWNER);
    const { record: first } = await create(fake, { tools: TOOLS, input: script([weather("Paris"), read("/workspace/x")]) });
    const [call] = functionCalls(first);
    assert.ok(call);
    fake.db.prepare("UPDATE interactions SET planner_state = ? WHERE id = ?").run(JSON.stringify({ planner: "other", data: {} }), first.id);
    const { record: second } = await create(fake, { previous_interaction_id: first.id, input: [answer(call.id, "sunny")] });
    assert.equal(second.status, "completed");
    assert.deepEqual(
      second.steps.map((step) => step.type),
      ["function_result", "model_output"],
    );
  });
});

describe("function calling with a fixed answer", () => {
  it("gives the input's response block, exactly, once the client's results came back and the script is done", async () => {
    const fake = serviceWithFakeSandbox(OWNER);
    const input = `${script([weather("Paris"), read("/workspace/city.txt")])}\n\n\`\`\`response\nIt is sunny in Paris.\n\`\`\``;
    const { record: first } = await create(fake, { tools: TOOLS, input });
    assert.equal(first.status, "requires_action");
    assert.equal(first.steps.at(-1)?.type, "function_call", "no answer yet: the client has calls to run");
    const [call] = functionCalls(first);
    assert.ok(call);
    const { record: second } = await create(fake, { previous_interaction_id: first.id, input: [answer(call.id, "sunny")] });
    assert.equal(second.status, "completed");
    assert.deepEqual(
      second.steps.map((step) => step.type),
      ["function_result", "function_call", "function_result", "model_output"],
      "the rest of the script ran first",
    );
    assert.deepEqual(second.steps.at(-1), { type: "model_output", content: [{ type: "text", text: "It is sunny in Paris." }] });
  });

  it("answers JSON that fits the response format the answering request gives", async () => {
    const fake = serviceWithFakeSandbox(OWNER);
    const { record: first } = await create(fake, { tools: TOOLS, input: script([weather("Paris")]) });
    const [call] = functionCalls(first);
    assert.ok(call);
    const schema = { type: "object", properties: { sunny: { type: "boolean" } }, required: ["sunny"] };
    const { record: second } = await create(fake, {
      previous_interaction_id: first.id,
      input: [answer(call.id, "sunny")],
      response_format: { type: "text", mime_type: "application/json", schema },
    });
    const output = second.steps.at(-1);
    assert.ok(output?.type === "model_output");
    assert.deepEqual(JSON.parse(contentText(output.content)), { sunny: false });
  });
});

describe("function calling: answers that do not fit are refused before anything runs", () => {
  async function waiting(fake: FakeInteractionService): Promise<{ first: InteractionRecord; paris: string; rome: string }> {
    const { record: first } = await create(fake, { tools: TOOLS, input: script([weather("Paris"), weather("Rome")]) });
    const [paris, rome] = functionCalls(first).map((call) => call.id);
    assert.ok(paris && rome);
    return { first, paris, rome };
  }

  async function refusal(fake: FakeInteractionService, request: Record<string, unknown>): Promise<string> {
    const before = fake.db.prepare("SELECT COUNT(*) AS n FROM interactions").get() as { n: number };
    const error = await fake.service.create(OWNER, { agent: AGENT, ...request } as CreateInteractionRequest).then(
      () => assert.fail("expected a 400"),
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof InvalidArgumentError, String(error));
    assert.deepEqual(fake.db.prepare("SELECT COUNT(*) AS n FROM interactions").get(), before, "nothing was created");
    return error.message;
  }

  it("names an unknown call_id and the open calls", async () => {
    const fake = serviceWithFakeSandbox(OWNER);
    const { first, paris, rome } = await waiting(fake);
    const message = await refusal(fake, {
      previous_interaction_id: first.id,
      input: [answer(paris, "a"), answer("call_nope", "b"), answer(rome, "c")],
    });
    assert.equal(
      message,
      `input[1]: call_id "call_nope" is not a call interaction ${first.id} is waiting for; its open calls are ${paris} (get_weather), ${rome} (get_weather)`,
    );
  });

  it("names a missing call_id", async () => {
    const fake = serviceWithFakeSandbox(OWNER);
    const { first, paris, rome } = await waiting(fake);
    const message = await refusal(fake, { previous_interaction_id: first.id, input: [answer(paris, "a")] });
    assert.equal(
      message,
      `input: no function_result for ${rome} (get_weather); interaction ${first.id} waits for the results of all its function calls, one function_result per call_id`,
    );
  });

  it("names a call_id answered twice", async () => {
    const fake = serviceWithFakeSandbox(OWNER);
    const { first, paris, rome } = await waiting(fake);
    const message = await refusal(fake, {
      previous_interaction_id: first.id,
      input: [answer(paris, "a"), answer(rome, "b"), answer(paris, "c")],
    });
    assert.equal(message, `input[2]: call_id "${paris}" is answered twice (also input[0]); send one function_result per call`);
  });

  it("names a result whose function name is not the call's", async () => {
    const fake = serviceWithFakeSandbox(OWNER);
    const { first, paris, rome } = await waiting(fake);
    const message = await refusal(fake, {
      previous_interaction_id: first.id,
      input: [answer(paris, "a", { name: "get_time" }), answer(rome, "b")],
    });
    assert.equal(message, `input[0]: call_id "${paris}" is a call of get_weather, but the function_result names "get_time"`);
  });

  it("names a result without call_id or result", async () => {
    const fake = serviceWithFakeSandbox(OWNER);
    const { first, paris, rome } = await waiting(fake);
    const message = await refusal(fake, {
      previous_interaction_id: first.id,
      input: [{ type: "function_result", call_id: paris }, { type: "function_result", result: "b" }, answer(rome, "c")],
    });
    assert.match(
      message,
      /^input\[0\]\.result must be the function's output: a string, an object, or a list of Content items \(text or image\)/m,
    );
    assert.match(message, /^input\[1\]\.call_id must be the id of the function_call step it answers \(a string\), got undefined/m);
    assert.match(message, new RegExp(`^input: no function_result for ${paris} \\(get_weather\\)`, "m"));
  });

  it("names a result whose Content items are not the document's (text or image)", async () => {
    const fake = serviceWithFakeSandbox(OWNER);
    const { first, paris, rome } = await waiting(fake);
    const message = await refusal(fake, {
      previous_interaction_id: first.id,
      input: [answer(paris, [{ type: "audio", data: "AAAA" }]), answer(rome, [{ type: "text", text: 5 }])],
    });
    assert.match(message, /^input\[0\]\.result must be the function's output: .*, got an array$/m);
    assert.match(message, /^input\[1\]\.result must be the function's output: .*, got an array$/m);
  });

  it("refuses text instead of (or besides) the results", async () => {
    const fake = serviceWithFakeSandbox(OWNER);
    const { first, paris, rome } = await waiting(fake);
    const text = await refusal(fake, { previous_interaction_id: first.id, input: "What now?" });
    assert.match(
      text,
      new RegExp(`^input: interaction ${first.id} is waiting for the results of its function calls .*; the text input is not\\.`),
    );
    const mixed = await refusal(fake, {
      previous_interaction_id: first.id,
      input: [answer(paris, "a"), answer(rome, "b"), { type: "user_input", content: [{ type: "text", text: "and?" }] }],
    });
    assert.match(mixed, /input\[2\], a user_input item is not\./);
  });

  it("refuses results for an interaction that waits for none, or without previous_interaction_id", async () => {
    const fake = serviceWithFakeSandbox(OWNER);
    const { record: done } = await create(fake, { input: "Hello" });
    const toCompleted = await refusal(fake, { previous_interaction_id: done.id, input: [answer("call_x", "a")] });
    assert.equal(
      toCompleted,
      `input[0]: the function_result for call_id "call_x" answers no open function call: interaction ${done.id} is completed and waits for no function results (only an interaction in requires_action does).`,
    );
    const { paris } = await waiting(fake);
    const orphan = await refusal(fake, { input: [answer(paris, "a")] });
    assert.match(
      orphan,
      /no previous_interaction_id names the interaction that asked for it; pass that interaction's id as previous_interaction_id\.$/,
    );
  });

  it("still takes a Step[] history whose results answer calls it carries (read as before: the last user text)", async () => {
    const fake = serviceWithFakeSandbox(OWNER);
    const { record } = await create(fake, {
      input: [
        { type: "user_input", content: [{ type: "text", text: "Hello" }] },
        { type: "function_call", id: "fc_1", name: "get_weather", arguments: { city: "Paris" } },
        answer("fc_1", "sunny"),
      ],
    });
    assert.equal(record.status, "completed");
    assert.deepEqual(record.steps[0], { type: "user_input", content: [{ type: "text", text: "Hello" }] });
  });
});

describe("function calling and hooks", () => {
  it("runs no hook for a function call, even under a .* matcher, and the trace says why", async () => {
    const fake = serviceWithFakeSandbox(OWNER);
    const hooks = { audit: { pre_tool_execution: [{ matcher: ".*", hooks: [{ type: "command", command: "audit-pre" }] }] } };
    fake.channel.files.set("/.agents/hooks.json", JSON.stringify(hooks));
    const payloads: string[] = [];
    fake.channel.onRun = async (request) => {
      if (request.argv.some((arg) => arg.includes("audit-pre"))) payloads.push(request.stdin?.toString("utf8") ?? "");
      return {};
    };
    const { record: first } = await create(fake, { tools: TOOLS, input: script([write("/workspace/a.txt", "x"), weather("Paris")]) });
    const [call] = functionCalls(first);
    assert.ok(call);
    const { record: second } = await create(fake, { previous_interaction_id: first.id, input: [answer(call.id, "sunny")] });
    assert.equal(second.status, "completed");
    assert.deepEqual(
      payloads.map((payload) => (JSON.parse(payload) as { tool_call: { name: string } }).tool_call.name),
      ["write_file"],
      "the .* hook ran for the sandbox tool only",
    );

    const trace = first.hookTraces as Array<Record<string, any>>;
    assert.deepEqual(
      trace.map((entry) => [entry.tool_call.name, entry.pre === null]),
      [
        ["write_file", false],
        ["get_weather", true],
      ],
    );
    const functionEntry = trace[1];
    assert.equal(functionEntry?.call_id, call.id);
    assert.deepEqual(functionEntry?.tool_call, { name: "get_weather", args: { city: "Paris" } });
    assert.equal(functionEntry?.post, null);
    assert.equal(functionEntry?.hooks_not_run.code, "not_a_sandbox_tool");
    assert.equal(functionEntry?.hooks_not_run.tool_type, "function");
    assert.match(
      functionEntry?.hooks_not_run.reason,
      /not a sandbox tool: hooks fire only for code_execution, read_file, write_file, list_files, delete_file/,
    );
    assert.match(functionEntry?.hooks_not_run.reason, /no matcher \("\.\*" included\) was tried/);
  });
});
