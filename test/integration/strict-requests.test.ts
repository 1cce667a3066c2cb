// Strict like the service (issue 17, item 5 and case 7), through the HTTP API of an emulator in this
// process with fake sandboxes: a field the SDK's types do not declare is a 400 in Google's words before
// anything runs (the issue's misspelt request, unknown fields nested in environment, sources, tools and
// content parts, the other request bodies), at once even for a body full of them; EMULATOR_LOOSE=true
// lets them through with one warning line. And the create answer holds only the run's own steps while
// GET and cancel give the whole timeline, read with the official SDK (its output_text included).

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";
import { HOSTILE_INPUT_BOUNDS, withoutStalls } from "../support/stall-detector.js";

const KEY = "strict-requests-key";
const AGENT = "antigravity-preview-05-2026";
const ISSUE_REQUEST = {
  agent: AGENT,
  input: "Run `ls` using code_execution.",
  toolz: [{ type: "code_execution" }],
  enviroment: { type: "remote", sources: [{ type: "inline", target: "a.txt", content: "a" }] },
};

interface ErrorBody {
  error: { code: string; message: string; status: string; details?: Array<{ "@type": string; fieldViolations: unknown[] }> };
}

async function send(url: string, method: string, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { "content-type": "application/json", "x-goog-api-key": KEY },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** Google's words for an unknown field, and the declared field it was likely meant to be, when one is close. */
const unknownName = (name: string, at?: string, meant?: string) =>
  `Invalid JSON payload received. Unknown name "${name}"${at === undefined ? "" : ` at '${at}'`}: Cannot find field.${meant ? ` Did you mean '${meant}'?` : ""}`;

describe("unknown request fields, refused as the service refuses them", () => {
  let emulator: FakeRuntimeEmulator;
  before(async () => {
    emulator = await startFakeRuntimeEmulator();
  });
  after(() => emulator.close());

  it("refuses the issue's misspelt request at once, naming both fields, and runs nothing", async () => {
    const { status, body } = await send(emulator.url, "POST", "/v1beta/interactions", ISSUE_REQUEST);
    assert.equal(status, 400);
    const error = (body as ErrorBody).error;
    assert.equal(error.code, "parameter_unknown");
    assert.equal(error.status, "INVALID_ARGUMENT");
    assert.equal(error.message, `${unknownName("toolz", undefined, "tools")}\n${unknownName("enviroment", undefined, "environment")}`);
    assert.deepEqual(error.details, [
      {
        "@type": "type.googleapis.com/google.rpc.BadRequest",
        fieldViolations: [
          { description: unknownName("toolz", undefined, "tools") },
          { description: unknownName("enviroment", undefined, "environment") },
        ],
      },
    ]);
    assert.equal(emulator.runtime.channels.size, 0, "no sandbox was made");
    const listed = await send(emulator.url, "GET", "/emulator/interactions", undefined);
    assert.deepEqual(listed.body.interactions, [], "no interaction was stored");
  });

  it("names unknown fields nested in the environment, its sources, the tools and the content parts, with their paths", async () => {
    const { status, body } = await send(emulator.url, "POST", "/v1beta/interactions", {
      agent: AGENT,
      input: [{ type: "text", text: "hi", colour: "red" }],
      environment: { type: "remote", sources: [{ type: "inline", target: "a.txt", content: "a", mode: "0644" }] },
      tools: [{ type: "code_execution" }, { type: "code_execution", parameters: {} }],
    });
    assert.equal(status, 400);
    const violations = [
      { field: "input[0]", description: unknownName("colour", "input[0]") },
      { field: "environment.sources[0]", description: unknownName("mode", "environment.sources[0]") },
      { field: "tools[1]", description: unknownName("parameters", "tools[1]") },
    ];
    assert.equal((body as ErrorBody).error.message, violations.map((violation) => violation.description).join("\n"));
    assert.deepEqual((body as ErrorBody).error.details?.[0]?.fieldViolations, violations);
  });

  it("checks environments and credentials too", async () => {
    const environment = await send(emulator.url, "POST", "/v1beta/environments", { sources: [], netwrok: "disabled" });
    assert.equal(environment.status, 400);
    assert.equal(environment.body.error.message, unknownName("netwrok", undefined, "network"));
    const credential = await send(emulator.url, "POST", "/v1beta/credentials", { type: "bearer_token", id: "c1", token: "t", headr: "X" });
    assert.equal(credential.status, 400);
    assert.equal(credential.body.error.message, unknownName("headr"));
    const created = await send(emulator.url, "POST", "/v1beta/credentials", { type: "bearer_token", id: "c1", token: "t" });
    assert.equal(created.status, 200);
    const update = await send(emulator.url, "PATCH", "/v1beta/credentials/c1", { type: "bearer_token", tokn: "u" });
    assert.equal(update.status, 400);
    assert.equal(update.body.error.message, unknownName("tokn", undefined, "token"));
  });

  it("answers a body full of unknown fields at once, with /health answering meanwhile", async () => {
    // 4,000 unknown fields: one in each of 2,000 parts, and 2,000 more at the top; sent ten times.
    const parts = Array.from({ length: 2_000 }, (_, index) => ({ type: "text", text: "x", junk: index }));
    const wide: Record<string, unknown> = { agent: AGENT, input: parts };
    for (let index = 0; index < 2_000; index++) wide[`field${index}`] = index;
    // Serialised before the watch starts: the test's own work in this process is not the server's.
    const text = JSON.stringify(wide);
    const { result, report } = await withoutStalls(
      emulator.url,
      HOSTILE_INPUT_BOUNDS,
      async () => {
        // Ten in a row, so that the watch spans enough /health polls to say something.
        const answers = [];
        for (let round = 0; round < 10; round++) answers.push(await send(emulator.url, "POST", "/v1beta/interactions", text));
        return answers.at(-1)!;
      },
      { inProcess: true, what: "a body of 4,000 unknown fields" },
    );
    assert.equal(result.status, 400);
    assert.equal(result.body.error.details[0].fieldViolations.length, 100, "at most 100 are listed");
    console.log(
      `# ${(text.length / 1048576).toFixed(1)} MiB of unknown fields: /health longest ${Math.round(report.longestHealthMs)} ms, event loop longest ${Math.round(report.longestEventLoopMs ?? 0)} ms`,
    );
  });
});

describe("EMULATOR_LOOSE=true", () => {
  let emulator: FakeRuntimeEmulator;
  before(async () => {
    emulator = await startFakeRuntimeEmulator({ EMULATOR_LOOSE: "true" });
  });
  after(() => emulator.close());

  it("accepts unknown fields with one warning line naming them", async () => {
    const warnings: string[] = [];
    const original = console.warn;
    console.warn = (...args: unknown[]) => warnings.push(args.map(String).join(" "));
    let answer: { status: number; body: any };
    try {
      answer = await send(emulator.url, "POST", "/v1beta/interactions", { agent: AGENT, input: "hi", toolz: [], labels: { a: "b" } });
    } finally {
      console.warn = original;
    }
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.status, "completed");
    assert.deepEqual(warnings, ['EMULATOR_LOOSE: POST /v1beta/interactions holds fields the SDK does not declare, ignored: "toolz"']);
  });

  it("lets fields through to PingWebhook and RunTrigger too, which declare none, with the same warning", async () => {
    const warnings: string[] = [];
    const original = console.warn;
    console.warn = (...args: unknown[]) => warnings.push(args.map(String).join(" "));
    let ping: { status: number; body: any };
    let run: { status: number; body: any };
    try {
      ping = await send(emulator.url, "POST", "/v1beta/webhooks/wh_missing:ping", { verbose: true });
      run = await send(emulator.url, "POST", "/v1beta/triggers/trg_missing/executions", { force: true });
    } finally {
      console.warn = original;
    }
    // Past the field check, each route says what it says of a webhook or trigger that does not exist.
    assert.equal(ping.status, 404, JSON.stringify(ping.body));
    assert.equal(run.status, 404, JSON.stringify(run.body));
    assert.deepEqual(warnings, [
      'EMULATOR_LOOSE: POST /v1beta/webhooks/wh_missing:ping holds fields the SDK does not declare, ignored: "verbose"',
      'EMULATOR_LOOSE: POST /v1beta/triggers/trg_missing/executions holds fields the SDK does not declare, ignored: "force"',
    ]);
  });
});

describe("the create answer holds the run's steps; GET and cancel the whole timeline", () => {
  let emulator: FakeRuntimeEmulator;
  let ai: GoogleGenAI;
  before(async () => {
    emulator = await startFakeRuntimeEmulator();
    ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
  });
  after(() => emulator.close());

  it("answers a unary create without the input step, and GET with it; output_text reads the same from both", async () => {
    const created = await ai.interactions.create({ agent: AGENT, input: "hello" });
    assert.equal(created.status, "completed");
    assert.deepEqual(
      created.steps?.map((step) => step.type),
      ["model_output"],
    );
    assert.ok(created.output_text && created.output_text.length > 0, "the SDK's output_text reads the answer");
    const got = await ai.interactions.get(created.id);
    assert.deepEqual(
      got.steps?.map((step) => step.type),
      ["user_input", "model_output"],
    );
    assert.deepEqual(got.steps?.slice(1), created.steps);
    assert.equal(got.output_text, created.output_text);
  });

  it("leaves a whole history given as input out of the create answer", async () => {
    const history = [
      { type: "user_input" as const, content: [{ type: "text" as const, text: "first" }] },
      { type: "model_output" as const, content: [{ type: "text" as const, text: "an earlier answer" }] },
      { type: "user_input" as const, content: [{ type: "text" as const, text: "second" }] },
    ];
    const created = await ai.interactions.create({ model: "gemini-3-flash-preview", input: history });
    assert.deepEqual(
      created.steps?.map((step) => step.type),
      ["model_output"],
    );
    const got = await ai.interactions.get(created.id);
    assert.deepEqual(got.steps?.slice(0, 3), history);
  });

  it("answers a background create with no steps yet, and a cancel with the whole timeline", async () => {
    const script = `\`\`\`tool_calls\n${JSON.stringify([{ name: "code_execution", args: { code: "sleep 30" } }])}\n\`\`\``;
    const created = await ai.interactions.create({ agent: AGENT, input: script, background: true });
    assert.equal(created.status, "in_progress");
    assert.deepEqual(created.steps ?? [], []);
    const cancelled = await ai.interactions.cancel(created.id);
    assert.equal(cancelled.steps?.[0]?.type, "user_input");
  });
});
