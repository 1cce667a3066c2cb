// The code examples of the documentation's Antigravity agent page (ai.google.dev/gemini-api/docs/
// antigravity-agent, the revision of 2026-08-19, which also holds the triggers' examples), run as a new
// user would: the JavaScript example through the official SDK, the REST example as the same HTTP
// request, the Python example as the body the Python SDK sends. Our own code throughout.
//
// The examples whose outcome is the model's (function calling: the agent asks for get_weather; the
// budget: the run stops at max_total_tokens) run through the model agent against a loopback stand-in of
// an OpenAI-compatible server (test/support/fake-openai-server.ts, docs/model-agent.md) that answers as
// the page's model would; their lines say "model agent, loopback fake". The MCP example's server is on
// an outside host: tools/parity/doc-examples.ts lists it.
//
// Each `// doc-example:` line names the example (page#section: what) that docs/coverage.md lists.
// covers: interactions.create, interactions.get, interactions.cancel, triggers.create, triggers.list
// covers: triggers.get, triggers.update, triggers.delete, triggers.run, triggers.listExecutions

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { docClient, type DocClient, type Json } from "../support/doc-example-client.js";
import { startFakeOpenAiServer, type FakeOpenAiServer } from "../support/fake-openai-server.js";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";
import { fakeRuntimeEmulatorForTests } from "../support/fake-runtime-tests.js";

const KEY = "doc-examples-antigravity-key";
const AGENT = "antigravity-preview-05-2026";
// A 1x1 PNG, the page's chart.png stand-in.
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

let doc: DocClient;
fakeRuntimeEmulatorForTests({
  ready: (emulator) => {
    doc = docClient(emulator.url, KEY);
  },
});

describe("antigravity-agent: the agent", () => {
  it("runs the page's first interaction", async () => {
    // doc-example: antigravity-agent#intro: Hacker News summary in a remote environment (python, javascript, rest)
    const body = {
      agent: AGENT,
      input: "Read Hacker News, summarize the top 10 stories, and save the results as a PDF.",
      environment: "remote",
    };
    assert.equal(typeof (await doc.create(body)).output_text, "string");
    assert.equal((await doc.createByRest(body)).steps.at(-1).type, "model_output");
  });

  it("takes a tools list of google_search and url_context", async () => {
    // doc-example: antigravity-agent#supported-tools: tools google_search and url_context only (python, javascript, rest)
    const body = {
      agent: AGENT,
      input: "Search for the latest AI research papers on reasoning and summarize them.",
      environment: "remote",
      tools: [{ type: "google_search" }, { type: "url_context" }],
    };
    await doc.create(body);
    await doc.createByRest(body);
  });

  it("takes an image as base64 data beside the text", async () => {
    // doc-example: antigravity-agent#multimodal-input: text and an inline base64 image/png (python, javascript, rest)
    const body = {
      agent: AGENT,
      input: [
        { type: "text", text: "Analyze this chart and summarize the trends." },
        { type: "image", data: PNG, mime_type: "image/png" },
      ],
      environment: "remote",
    };
    await doc.create(body);
    await doc.createByRest(body);
  });

  it("takes agent_config.model", async () => {
    // doc-example: antigravity-agent#model-selection: agent_config model gemini-3.5-flash-lite (python, javascript, rest)
    const body = {
      agent: AGENT,
      input: "Summarize the key differences between functional and object-oriented programming.",
      environment: "remote",
      agent_config: { type: "antigravity", model: "gemini-3.5-flash-lite" },
    };
    await doc.create(body);
    await doc.createByRest(body);
  });
});

describe("antigravity-agent: background execution", () => {
  it("starts in the background, is polled to completed, and a running one is cancelled", async () => {
    // doc-example: antigravity-agent#background-execution: background true, then interactions.get until done (python, javascript, rest)
    const body = { agent: AGENT, input: "Run a complex analysis on the repository.", environment: "remote", background: true };
    const started = (await doc.client.interactions.create(body as never)) as Json;
    assert.ok(["in_progress", "queued", "completed"].includes(started.status), started.status);
    assert.equal((await doc.settle(started.id)).status, "completed");
    const byRest = await doc.rest("POST", "/v1beta/interactions", body, { "Api-Revision": "2026-05-20" });
    assert.equal(byRest.status, 200, byRest.text);
    const polled = await doc.rest("GET", `/v1beta/interactions/${byRest.json.id}`);
    assert.equal(polled.status, 200);

    // doc-example: antigravity-agent#background-execution: cancel, and POST interactions/{id}:cancel (python, javascript, rest)
    const hold = async () => {
      const rule = await doc.rest("POST", "/emulator/faults", {
        target: { kind: "interaction" },
        effect: { kind: "queued", ms: 600_000 },
        times: 1,
      });
      assert.equal(rule.status, 200, rule.text);
      return (await doc.client.interactions.create(body as never)) as Json;
    };
    const running = await hold();
    assert.equal(((await doc.client.interactions.cancel(running.id)) as Json).status, "cancelled");
    const runningToo = await hold();
    const cancelled = await doc.rest("POST", `/v1beta/interactions/${runningToo.id}:cancel`);
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.json.status, "cancelled");
  });

  it("continues a finished background interaction in its environment", async () => {
    // doc-example: antigravity-agent#background-execution: a second background turn with previous_interaction_id and environment_id (python, javascript, rest)
    const first = (await doc.client.interactions.create({
      agent: AGENT,
      input: "Clone https://github.com/google/generative-ai-python and run its tests.",
      environment: "remote",
      background: true,
    } as never)) as Json;
    const done = await doc.settle(first.id);
    const followup = (await doc.client.interactions.create({
      agent: AGENT,
      input: "Fix any failing tests and re-run them.",
      previous_interaction_id: done.id,
      environment: done.environment_id,
      background: true,
    } as never)) as Json;
    const finished = await doc.settle(followup.id);
    assert.equal(finished.status, "completed");
    assert.equal(finished.environment_id, done.environment_id);
    const byRest = await doc.rest(
      "POST",
      "/v1beta/interactions",
      {
        agent: AGENT,
        input: "Fix any failing tests and re-run them.",
        previous_interaction_id: finished.id,
        environment: done.environment_id,
        background: true,
      },
      { "Api-Revision": "2026-05-20" },
    );
    assert.equal(byRest.status, 200, byRest.text);
    assert.equal((await doc.settle(byRest.json.id)).environment_id, done.environment_id);
  });
});

describe("antigravity-agent: triggers", () => {
  const prompt =
    "Review open PRs in my-org/my-app for new comments and address feedback. Close issues whose PRs were merged. Then check for new issues labeled 'accepted', skip any already tracked in /workspace/solved-issues/, fix the rest, and open a PR for each. Save reports to /workspace/solved-issues/.";
  const environment = {
    type: "remote",
    network: {
      allowlist: [
        { domain: "api.github.com", transform: { Authorization: "Bearer ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" } },
        { domain: "github.com" },
      ],
    },
  };
  const trigger = (input: unknown) => ({
    schedule: "0 9 * * *",
    time_zone: "America/Argentina/Buenos_Aires",
    display_name: "issue-solver",
    interaction: { agent: AGENT, input, environment },
  });

  it("creates, lists, gets, pauses, resumes, runs, lists the executions of, and deletes a trigger", async () => {
    // doc-example: antigravity-agent#create-a-trigger: a daily cron trigger with a network allowlist (python, javascript, rest)
    const made = (await doc.client.triggers.create(trigger(prompt) as never)) as Json;
    assert.equal(made.status, "active");
    assert.ok(made.next_run_time, JSON.stringify(made));
    const withParts = (await doc.client.triggers.create(trigger([{ type: "text", text: prompt }]) as never)) as Json;
    const byRest = await doc.rest("POST", "/v1beta/triggers", trigger([{ type: "text", text: prompt.replace("'accepted'", "accepted") }]));
    assert.equal(byRest.status, 200, byRest.text);

    // doc-example: antigravity-agent#list-triggers: triggers.list (python, javascript, rest)
    const listed = (await doc.client.triggers.list()) as Json;
    assert.deepEqual(listed.triggers.map((one: Json) => one.id).sort(), [made.id, withParts.id, byRest.json.id].sort());
    for (const one of listed.triggers) assert.equal(one.display_name, "issue-solver");
    assert.equal((await doc.rest("GET", "/v1beta/triggers")).json.triggers.length, 3);

    // doc-example: antigravity-agent#get-a-trigger: triggers.get, schedule and next_run_time (python, javascript, rest)
    const got = (await doc.client.triggers.get(made.id)) as Json;
    assert.equal(got.schedule, "0 9 * * *");
    assert.equal(got.next_run_time, made.next_run_time);
    assert.equal((await doc.rest("GET", `/v1beta/triggers/${made.id}`)).json.id, made.id);

    // doc-example: antigravity-agent#pause-and-resume: update status paused then active (python, javascript, rest)
    assert.equal(((await doc.client.triggers.update(made.id, { status: "paused" } as never)) as Json).status, "paused");
    assert.equal(((await doc.client.triggers.update(made.id, { status: "active" } as never)) as Json).status, "active");
    const paused = await doc.rest("PATCH", `/v1beta/triggers/${byRest.json.id}`, { status: "paused" });
    assert.equal(paused.json?.status, "paused", paused.text);
    assert.equal((await doc.rest("PATCH", `/v1beta/triggers/${byRest.json.id}`, { status: "active" })).json.status, "active");

    // doc-example: antigravity-agent#run-a-trigger-immediately: triggers.run and POST triggers/{id}/executions (python, javascript, rest)
    const execution = (await doc.client.triggers.run(made.id)) as Json;
    assert.ok(execution.id, JSON.stringify(execution));
    const ranByRest = await doc.rest("POST", `/v1beta/triggers/${byRest.json.id}/executions`);
    assert.equal(ranByRest.status, 200, ranByRest.text);

    // doc-example: antigravity-agent#list-executions: listExecutions, then the execution's interaction (python, javascript, rest)
    let executions: Json[] = [];
    for (let tries = 0; tries < 500; tries++) {
      executions = ((await doc.client.triggers.listExecutions(made.id)) as Json).trigger_executions;
      if (executions.length > 0 && executions.every((one) => one.status !== "in_progress" && one.status !== "queued")) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const ex = executions[0]!;
    assert.equal(ex.status, "completed", JSON.stringify(ex));
    assert.ok(ex.start_time && ex.end_time, JSON.stringify(ex));
    const interaction = (await doc.client.interactions.get(ex.interaction_id)) as Json;
    assert.equal(typeof interaction.output_text, "string");
    assert.equal((await doc.rest("GET", `/v1beta/triggers/${made.id}/executions`)).json.trigger_executions.length, 1);

    // doc-example: antigravity-agent#delete-a-trigger: triggers.delete and DELETE triggers/{id} (python, javascript, rest)
    await doc.client.triggers.delete(made.id);
    assert.equal((await doc.rest("DELETE", `/v1beta/triggers/${byRest.json.id}`)).status, 200);
    assert.equal((await doc.rest("GET", `/v1beta/triggers/${made.id}`)).status, 404);
  });
});

describe("antigravity-agent: the examples whose outcome is the model's (model agent, loopback fake)", () => {
  let openai: FakeOpenAiServer;
  let modelEmulator: FakeRuntimeEmulator;
  let model: DocClient;
  before(async () => {
    openai = await startFakeOpenAiServer();
    modelEmulator = await startFakeRuntimeEmulator(openai.agentSettings);
    model = docClient(modelEmulator.url, KEY);
  });
  after(async () => {
    await modelEmulator?.close();
    await openai?.close();
  });

  it("asks for get_weather, then answers from the function_result sent back", async () => {
    // doc-example: antigravity-agent#function-calling: get_weather requested (requires_action), its result sent back (python, javascript, rest; model agent, loopback fake)
    const getWeather = {
      type: "function",
      name: "get_weather",
      description: "Gets the current weather for a given location.",
      parameters: {
        type: "object",
        properties: { location: { type: "string", description: "The city and country, e.g. San Francisco, USA" } },
        required: ["location"],
      },
    };
    for (const send of ["sdk", "rest"] as const) {
      openai.script(
        { kind: "answer", toolCalls: [{ id: `call_${send}`, name: "get_weather", argumentPieces: ['{"location": ', '"Tokyo, Japan"}'] }] },
        { kind: "answer", text: ["The current weather in Tokyo, Japan is 23°C (Celsius)."] },
      );
      const turn1 = {
        agent: AGENT,
        input: "What is the weather in Tokyo?",
        environment: "remote",
        tools: [{ type: "code_execution" }, getWeather],
      };
      const interaction =
        send === "sdk" ? await model.create(turn1, "requires_action") : await model.createByRest(turn1, "requires_action");
      const executed = new Set(interaction.steps.filter((step: Json) => step.type === "function_result").map((step: Json) => step.call_id));
      const pending = interaction.steps.filter((step: Json) => step.type === "function_call" && !executed.has(step.id));
      assert.equal(pending.length, 1, JSON.stringify(interaction.steps));
      const call = pending[0];
      assert.equal(call.name, "get_weather");
      assert.deepEqual(call.arguments, { location: "Tokyo, Japan" });
      const turn2 = {
        agent: AGENT,
        previous_interaction_id: interaction.id,
        environment: interaction.environment_id,
        input: [{ type: "function_result", name: call.name, call_id: call.id, result: { temperature: 23, unit: "celsius" } }],
      };
      const final = send === "sdk" ? await model.create(turn2) : await model.createByRest(turn2);
      assert.match(send === "sdk" ? final.output_text : final.steps.at(-1).content[0].text, /23°C/);
    }
  });

  it("stops at max_total_tokens as incomplete, and a continuation carries on with its own budget", async () => {
    // doc-example: antigravity-agent#budget-controls: agent_config max_total_tokens 50000 with an inline data.csv (python, javascript, rest; model agent, loopback fake)
    const body = {
      agent: AGENT,
      input: "Analyze the dataset in /workspace/data.csv and generate a summary report.",
      agent_config: { type: "antigravity", max_total_tokens: 50000 },
      environment: {
        type: "remote",
        sources: [{ type: "inline", target: "/workspace/data.csv", content: "id,name,value\n1,alpha,100\n2,beta,200\n" }],
      },
    };
    const overBudget = {
      kind: "answer" as const,
      toolCalls: [{ id: "c1", name: "list_files", argumentPieces: ["{}"] }],
      usage: { prompt_tokens: 45000, completion_tokens: 6000 },
    };
    openai.script(overBudget);
    const interaction = await model.create(body, "incomplete");
    assert.ok(interaction.usage.total_tokens >= 50000, JSON.stringify(interaction.usage));
    openai.script(overBudget);
    const byRest = await model.createByRest(body, "incomplete");
    assert.equal(
      modelEmulator.runtime.channels.get(byRest.environment_id)!.files.get("/workspace/data.csv"),
      "id,name,value\n1,alpha,100\n2,beta,200\n",
    );

    // doc-example: antigravity-agent#continue-an-incomplete-interaction: input "continue" with previous_interaction_id and environment_id (python, javascript, rest; model agent, loopback fake)
    openai.script({ kind: "answer", text: ["Summary: 2 rows, total 300."] });
    const continuation = await model.create({
      agent: AGENT,
      input: "continue",
      previous_interaction_id: interaction.id,
      environment: interaction.environment_id,
      agent_config: { type: "antigravity", max_total_tokens: 50000 },
    });
    assert.equal(continuation.environment_id, interaction.environment_id);
    openai.script({ kind: "answer", text: ["Done."] });
    await model.createByRest({
      agent: AGENT,
      input: "continue",
      previous_interaction_id: byRest.id,
      environment: byRest.environment_id,
      agent_config: { type: "antigravity", max_total_tokens: 50000 },
    });
  });
});
