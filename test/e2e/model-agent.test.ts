// A model behind the agent, end to end (issue 18): the official SDK against the emulator started as
// `npm start` starts it, with real Docker sandboxes and hooks, and the model a loopback server that
// speaks its protocol exactly as the official client sends it (test/support/fake-openai-server.ts,
// fake-gemini-server.ts). An ordinary prompt drives tool calls in the sandbox, a hook's denial reaches
// the model, a function round trip, usage as the model reported it, the answer streaming; then the
// session replays from its cassette with no model server at all, and a divergent one fails clearly.
// The model's key is looked for everywhere it must not be.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { chromium } from "playwright-core";
import { findChromium, INSTALL_CHROMIUM, runningInCi } from "../support/browser.js";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";
import { startFakeGeminiServer, type FakeGemini } from "../support/fake-gemini-server.js";
import { startFakeOpenAiServer, type FakeOpenAiServer, type FakeOpenAiStep } from "../support/fake-openai-server.js";
import { startMcpTestServer } from "../support/mcp-test-server.js";

const AGENT = "antigravity-preview-05-2026";
const KEY = "model-agent-key";
const OPENAI_KEY = "sk-model-agent-secret-0123456789";
const GEMINI_KEY = "gemini-model-agent-secret-0123456789";
const PRIMES_PROMPT = "Write a Python script that prints the first 10 primes and run it.";
const PRIMES_SCRIPT = [
  "primes = []",
  "n = 2",
  "while len(primes) < 10:",
  "    if all(n % p for p in primes):",
  "        primes.append(n)",
  "    n += 1",
  "print(*primes)",
  "",
].join("\n");

type Step = Record<string, any> & { type: string };
type Interaction = {
  id: string;
  status: string;
  steps: Step[];
  usage?: Record<string, any>;
  errors?: Array<{ code: string; message: string }>;
};
type Event = Record<string, any> & { event_type: string };

const folder = fs.mkdtempSync(path.join(os.tmpdir(), "model-agent-"));
const cassette = path.join(folder, "session.json");
let openai: FakeOpenAiServer;
let emulator: EmulatorProcess;
let ai: GoogleGenAI;

before(async () => {
  openai = await startFakeOpenAiServer({ apiKey: OPENAI_KEY });
  emulator = await startEmulatorProcess({
    EMULATOR_AGENT_MODEL: "openai:fake-coder",
    EMULATOR_OPENAI_BASE_URL: openai.url,
    EMULATOR_OPENAI_API_KEY: OPENAI_KEY,
    EMULATOR_MODEL_MODE: "record",
    EMULATOR_MODEL_CASSETTE: cassette,
  });
  ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
});
after(async () => {
  await emulator?.destroy();
  await openai?.close();
  fs.rmSync(folder, { recursive: true, force: true });
});

const toolCall = (id: string, name: string, args: Record<string, unknown>) => {
  const text = JSON.stringify(args);
  // The arguments arrive in fragments, as a streaming server sends them.
  return { id, name, argumentPieces: [text.slice(0, 10), text.slice(10)] };
};

/** The primes session: write the script, run it, answer; each turn with the usage the server reports. */
const PRIMES_TURNS: FakeOpenAiStep[] = [
  {
    kind: "answer",
    text: ["I will write ", "the script first."],
    toolCalls: [toolCall("call_write", "write_file", { path: "/workspace/primes.py", content: PRIMES_SCRIPT })],
    usage: { prompt_tokens: 410, completion_tokens: 60 },
  },
  {
    kind: "answer",
    toolCalls: [toolCall("call_run", "code_execution", { code: "python3 /workspace/primes.py", language: "bash" })],
    usage: { prompt_tokens: 520, completion_tokens: 25 },
  },
  {
    kind: "answer",
    text: ["The first 10 primes ", "are 2 3 5 7 11 13 17 19 23 29."],
    usage: { prompt_tokens: 600, completion_tokens: 18, reasoning_tokens: 4 },
  },
];

const chromiumPath = findChromium();

/** The interaction's dashboard page, in headless Chromium, lists its model turns with their source. */
async function showsModelTurns(emulatorUrl: string, id: string, sources: string[]): Promise<void> {
  if (chromiumPath === null) {
    if (runningInCi()) throw new Error(`Chromium is missing, and the dashboard's check must run in CI: ${INSTALL_CHROMIUM}.`);
    console.log(`# skipping the dashboard's model turns check: ${INSTALL_CHROMIUM}`);
    return;
  }
  const browser = await chromium.launch({ executablePath: chromiumPath, headless: true });
  try {
    const page = await browser.newPage();
    await page.goto(`${emulatorUrl}/ui?key=${KEY}`);
    await page.goto(`${emulatorUrl}/ui/interactions/${encodeURIComponent(id)}`);
    const rows = page.locator("section.model-turns tbody tr");
    await rows.first().waitFor();
    const shown = await rows.evaluateAll((trs) => trs.map((tr) => (tr.textContent ?? "").replace(/\s+/g, " ")));
    assert.equal(shown.length, sources.length, shown.join("\n"));
    shown.forEach((rowText, index) => {
      assert.match(rowText, /openai/);
      assert.match(rowText, /fake-coder/);
      assert.ok(rowText.includes(sources[index] ?? ""), rowText);
    });
    assert.match((await page.locator("section.usage").textContent()) ?? "", /as the model reported them/);
  } finally {
    await browser.close();
  }
}

async function collect(stream: AsyncIterable<unknown>): Promise<Event[]> {
  const events: Event[] = [];
  for await (const event of stream) events.push(event as Event);
  return events;
}

describe("a model behind the agent (openai: through the official client)", () => {
  let primes: Interaction;

  it("runs an ordinary prompt's tool calls in the sandbox, streams the answer, and counts the model's usage", async () => {
    openai.script(...PRIMES_TURNS);
    const events = await collect(await ai.interactions.create({ agent: AGENT, input: PRIMES_PROMPT, stream: true }));
    const completed = events.at(-1);
    assert.equal(completed?.event_type, "interaction.completed");
    const streamed = completed?.interaction as Interaction;
    assert.equal(streamed.status, "completed", JSON.stringify(streamed.errors));
    // interaction.completed carries no steps (as documented): the run's own steps are GET's after the input.
    assert.equal(streamed.steps, undefined);
    const fetched = (await ai.interactions.get(streamed.id)) as Interaction;
    assert.equal(fetched.steps[0]?.type, "user_input");
    primes = { ...fetched, steps: fetched.steps.slice(1) };
    assert.deepEqual(
      primes.steps.map((step) => step.type),
      ["model_output", "function_call", "function_result", "code_execution_call", "code_execution_result", "model_output"],
    );
    const [said, write, wrote, run, ran, answer] = primes.steps;
    assert.equal(said?.content[0].text, "I will write the script first.");
    assert.deepEqual(write?.arguments, { path: "/workspace/primes.py", content: PRIMES_SCRIPT });
    assert.equal(wrote?.is_error, false);
    assert.deepEqual(run?.arguments, { code: "python3 /workspace/primes.py", language: "bash" });
    // The sandbox really ran the model's script.
    assert.equal(ran?.result, "2 3 5 7 11 13 17 19 23 29\n");
    assert.equal(answer?.content[0].text, "The first 10 primes are 2 3 5 7 11 13 17 19 23 29.");
    // The answer streamed as text deltas of its step.
    const answerIndex = events.filter((event) => event.event_type === "step.start").length - 1;
    const deltas = events.filter((event) => event.event_type === "step.delta" && event.index === answerIndex);
    assert.ok(deltas.length >= 1 && deltas.every((event) => event.delta.type === "text"));
    assert.equal(deltas.map((event) => event.delta.text).join(""), answer?.content[0].text);
    // Usage: the sum of what the server reported for its three turns.
    assert.equal(primes.usage?.total_input_tokens, 410 + 520 + 600);
    assert.equal(primes.usage?.total_output_tokens, 60 + 25 + 14);
    assert.equal(primes.usage?.total_thought_tokens, 4);
    assert.equal(primes.usage?.total_tokens, 410 + 520 + 600 + 60 + 25 + 18);

    // The model was told the sandbox's output under its own call ID.
    const third = openai.requests[2]?.body;
    const toolMessage = third.messages.find((message: any) => message.role === "tool" && message.tool_call_id === "call_run");
    assert.equal(toolMessage?.content, "2 3 5 7 11 13 17 19 23 29\n");
    assert.equal(openai.requests[0]?.headers.authorization, `Bearer ${OPENAI_KEY}`);
    assert.deepEqual(
      openai.requests[0]?.body.tools.map((tool: any) => tool.function.name),
      ["code_execution", "read_file", "write_file", "list_files", "delete_file"],
    );
    assert.deepEqual(openai.problems, []);
  });

  it("gives a hook's denial to the model, which adapts", async () => {
    const hooks = JSON.stringify({
      guard: {
        pre_tool_execution: [
          {
            matcher: "code_execution",
            hooks: [{ type: "command", command: `echo '{"decision":"deny","reason":"use read_file for files"}'` }],
          },
        ],
      },
    });
    openai.script(
      { kind: "answer", toolCalls: [toolCall("call_cat", "code_execution", { code: "cat /workspace/notes.txt" })] },
      { kind: "answer", toolCalls: [toolCall("call_read", "read_file", { path: "/workspace/notes.txt" })] },
      { kind: "answer", text: ["The notes say: hello."] },
    );
    const first = openai.requests.length;
    const interaction = (await ai.interactions.create({
      agent: AGENT,
      input: "What do my notes say?",
      environment: {
        type: "remote",
        sources: [
          { type: "inline", target: ".agents/hooks.json", content: hooks },
          { type: "inline", target: "workspace/notes.txt", content: "hello" },
        ],
      },
    } as never)) as Interaction;
    assert.equal(interaction.status, "completed", JSON.stringify(interaction.errors));
    const denied = openai.requests[first + 1]?.body.messages.at(-1);
    assert.deepEqual(denied, {
      role: "tool",
      tool_call_id: "call_cat",
      content: 'Error: Tool call denied by hook "guard": use read_file for files',
    });
    const read = interaction.steps.find((step) => step.type === "function_result" && step.name === "read_file");
    assert.equal(read?.result, "hello");
    const hooksTrace = (await (
      await fetch(`${emulator.url}/emulator/interactions/${interaction.id}/hooks`, { headers: { "x-goog-api-key": KEY } })
    ).json()) as { tool_calls: Array<{ pre: { decision: string } }> };
    assert.equal(hooksTrace.tool_calls[0]?.pre.decision, "deny");
  });

  it("hands a declared function to the client and gives its result back to the model", async () => {
    const tools = [
      {
        type: "function",
        name: "get_weather",
        description: "Weather of a city",
        parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      },
    ];
    openai.script(
      { kind: "answer", toolCalls: [toolCall("call_weather", "get_weather", { city: "Paris" })] },
      { kind: "answer", text: ["It is sunny in Paris."] },
    );
    const asked = (await ai.interactions.create({ agent: AGENT, input: "Weather in Paris?", tools } as never)) as Interaction;
    assert.equal(asked.status, "requires_action");
    const call = asked.steps.find((step) => step.type === "function_call");
    assert.deepEqual(call?.arguments, { city: "Paris" });
    const answered = (await ai.interactions.create({
      agent: AGENT,
      previous_interaction_id: asked.id,
      tools,
      input: [{ type: "function_result", call_id: call?.id, result: "sunny, 21 C" }],
    } as never)) as Interaction;
    assert.equal(answered.status, "completed");
    assert.equal(answered.steps.at(-1)?.content[0].text, "It is sunny in Paris.");
    const told = openai.requests.at(-1)?.body.messages.at(-1);
    assert.deepEqual(told, { role: "tool", tool_call_id: "call_weather", content: "sunny, 21 C" });
  });

  it("declares an MCP server's allowed tools to the model and calls the one it picks", async () => {
    const mcp = await startMcpTestServer();
    try {
      openai.script(
        { kind: "answer", toolCalls: [toolCall("call_add", "mcp__local__add", { a: 2, b: 3 })] },
        { kind: "answer", text: ["2 + 3 = 5."] },
      );
      const first = openai.requests.length;
      const interaction = (await ai.interactions.create({
        agent: AGENT,
        input: "What is 2 + 3? Use the calculator.",
        tools: [
          { type: "code_execution" },
          { type: "mcp_server", name: "local", url: mcp.url, allowed_tools: [{ mode: "auto", tools: ["add", "echo"] }] },
        ],
      } as never)) as Interaction;
      assert.equal(interaction.status, "completed", JSON.stringify(interaction.errors));
      const declared = openai.requests[first]?.body.tools.map((tool: any) => tool.function.name);
      assert.deepEqual(
        declared.filter((name: string) => name.startsWith("mcp__")),
        ["mcp__local__echo", "mcp__local__add"],
        "in the order the server lists them",
      );
      const add = openai.requests[first]?.body.tools.find((tool: any) => tool.function.name === "mcp__local__add");
      assert.deepEqual(Object.keys(add.function.parameters.properties), ["a", "b"]);
      assert.deepEqual(mcp.calls, [{ name: "add", args: { a: 2, b: 3 } }]);
      const result = interaction.steps.find((step) => step.type === "mcp_server_tool_result");
      assert.deepEqual([result?.server_name, result?.name, result?.result], ["local", "add", "5"]);
      assert.deepEqual(openai.requests[first + 1]?.body.messages.at(-1), { role: "tool", tool_call_id: "call_add", content: "5" });
    } finally {
      await mcp.close();
    }
  });

  it("still runs a tool_calls script scripted, without asking the model", async () => {
    const before = openai.requests.length;
    const interaction = (await ai.interactions.create({
      agent: AGENT,
      input: '```tool_calls\n[{"name": "code_execution", "args": {"code": "env", "language": "bash"}}]\n```',
    })) as Interaction;
    assert.equal(interaction.status, "completed");
    assert.equal(openai.requests.length, before);
    // The model's key is not in the sandbox's environment.
    const env = interaction.steps.find((step) => step.type === "code_execution_result")?.result ?? "";
    assert.match(env, /PATH=/);
    assert.ok(!env.includes(OPENAI_KEY));
  });

  it("ends the interaction failed, naming the backend, when the model's server fails", async () => {
    openai.script({
      kind: "status",
      status: 429,
      body: { error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" } },
    });
    const interaction = (await ai.interactions.create({ agent: AGENT, input: "hello" })) as Interaction;
    assert.equal(interaction.status, "failed");
    assert.equal(interaction.errors?.[0]?.code, "rate_limit_exceeded");
    assert.match(interaction.errors?.[0]?.message ?? "", /openai:fake-coder\) failed at turn 1/);
    assert.ok(!JSON.stringify(interaction).includes(OPENAI_KEY));
  });

  it("keeps the model's key out of the store, the event log and the cassette", async () => {
    const stored = fs
      .readdirSync(emulator.dataDir)
      .filter((name) => name.startsWith("emulator.sqlite"))
      .map((name) => fs.readFileSync(path.join(emulator.dataDir, name)));
    assert.ok(stored.length > 0);
    for (const bytes of stored) assert.equal(bytes.indexOf(OPENAI_KEY), -1);
    const recorded = fs.readFileSync(cassette, "utf8");
    assert.ok(!recorded.includes(OPENAI_KEY));
    const parsed = JSON.parse(recorded) as { version: number; turns: unknown[] };
    assert.equal(parsed.version, 1);
    // Every turn that answered was recorded (the 429 was not): 3 + 3 + 2 + 2.
    assert.equal(parsed.turns.length, 10);
  });

  it("replays the recorded session with no model server, the same steps, and fails a divergent one clearly", async () => {
    const replay = await startEmulatorProcess({
      EMULATOR_AGENT_MODEL: "openai:fake-coder",
      // Nothing listens here: a replay that reached for the network would fail.
      EMULATOR_OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
      EMULATOR_MODEL_MODE: "replay",
      EMULATOR_MODEL_CASSETTE: cassette,
    });
    try {
      const client = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: replay.url } });
      const before = openai.requests.length;
      const again = (await client.interactions.create({ agent: AGENT, input: PRIMES_PROMPT })) as Interaction;
      assert.equal(again.status, "completed", JSON.stringify(again.errors));
      const shape = (steps: Step[]) => steps.map(({ id: _id, call_id: _callId, ...rest }) => rest);
      assert.deepEqual(shape(again.steps), shape(primes.steps));
      assert.deepEqual(again.usage, primes.usage);
      assert.equal(openai.requests.length, before, "the model server was not asked");
      const turns = (await (
        await fetch(`${replay.url}/emulator/interactions/${again.id}/model-turns`, { headers: { "x-goog-api-key": KEY } })
      ).json()) as { turns: Array<{ source: string }> };
      assert.deepEqual(
        turns.turns.map((turn) => turn.source),
        ["replayed", "replayed", "replayed"],
      );

      await showsModelTurns(replay.url, again.id, ["replayed", "replayed", "replayed"]);

      const divergent = (await client.interactions.create({
        agent: AGENT,
        input: "Write a Python script that prints the first 20 primes and run it.",
      })) as Interaction;
      assert.equal(divergent.status, "failed");
      assert.equal(divergent.errors?.[0]?.code, "failed_precondition");
      const message = divergent.errors?.[0]?.message ?? "";
      console.log(`# a divergent replay: ${message}`);
      assert.ok(message.includes(cassette), message);
      assert.match(message, /turn \d+/);
      assert.match(message, /messages\[0\]/);
      assert.match(message, /EMULATOR_MODEL_MODE=record/);
    } finally {
      await replay.destroy();
    }
  });
});

describe("a model behind the agent (gemini: through @google/genai)", () => {
  let gemini: FakeGemini;
  let emulatorG: EmulatorProcess;
  let client: GoogleGenAI;
  before(async () => {
    gemini = await startFakeGeminiServer(GEMINI_KEY);
    emulatorG = await startEmulatorProcess({
      EMULATOR_AGENT_MODEL: "gemini:gemini-2.5-flash",
      EMULATOR_GEMINI_API_KEY: GEMINI_KEY,
      EMULATOR_GEMINI_BASE_URL: gemini.url,
    });
    client = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulatorG.url } });
  });
  after(async () => {
    await emulatorG?.destroy();
    await gemini?.close();
  });

  it("runs the same prompt's calls in the sandbox, with thoughts, streamed text and the model's usage", async () => {
    gemini.script(
      {
        thoughts: ["I need a script."],
        calls: [{ name: "write_file", args: { path: "/workspace/primes.py", content: PRIMES_SCRIPT } }],
        usage: { promptTokenCount: 300, candidatesTokenCount: 40, thoughtsTokenCount: 7 },
      },
      {
        calls: [{ name: "code_execution", args: { code: "python3 /workspace/primes.py" } }],
        usage: { promptTokenCount: 380, candidatesTokenCount: 12 },
      },
      { text: ["The primes: ", "2 3 5 7 11 13 17 19 23 29."], usage: { promptTokenCount: 420, candidatesTokenCount: 15 } },
    );
    const events = await collect(await client.interactions.create({ agent: AGENT, input: PRIMES_PROMPT, stream: true }));
    // interaction.completed carries no steps (as the documentation's streams show): GET has them.
    const completed = events.at(-1)?.interaction as Interaction;
    assert.equal(completed.status, "completed", JSON.stringify(completed.errors));
    const interaction = (await client.interactions.get(completed.id)) as Interaction;
    assert.deepEqual(
      interaction.steps.map((step) => step.type),
      ["user_input", "thought", "function_call", "function_result", "code_execution_call", "code_execution_result", "model_output"],
    );
    assert.deepEqual(interaction.steps[1]?.summary, [{ type: "text", text: "I need a script." }]);
    assert.equal(interaction.steps[5]?.result, "2 3 5 7 11 13 17 19 23 29\n");
    assert.equal(interaction.usage?.total_input_tokens, 300 + 380 + 420);
    assert.equal(interaction.usage?.total_thought_tokens, 7);
    assert.ok(events.some((event) => event.event_type === "step.delta" && event.delta.type === "text"));
    // The model key went to the Gemini server as the emulator's own, never the client's key.
    assert.equal(gemini.requests[0]?.headers["x-goog-api-key"], GEMINI_KEY);
    assert.ok(gemini.requests.every((request) => request.headers["x-goog-api-key"] !== KEY));
    assert.match(gemini.requests[0]?.path ?? "", /models\/gemini-2\.5-flash:streamGenerateContent/);
    assert.deepEqual(gemini.refusals, []);
  });

  it("takes a model interaction's model name for the Gemini backend", async () => {
    gemini.script({ text: ["Hi."], usage: { promptTokenCount: 5, candidatesTokenCount: 2 } });
    const interaction = (await client.interactions.create({ model: "gemini-2.5-pro", input: "Say hi." } as never)) as Interaction;
    assert.equal(interaction.status, "completed", JSON.stringify(interaction.errors));
    assert.match(gemini.requests.at(-1)?.path ?? "", /models\/gemini-2\.5-pro:streamGenerateContent/);
    assert.deepEqual(gemini.requests.at(-1)?.body.tools ?? [], [], "a model interaction has no sandbox tools");
  });
});
