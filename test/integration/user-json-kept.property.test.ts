// A user's JSON is kept exactly (issue 17, case 6): keys like "__proto__", "constructor", "toString"
// and "prototype" come back as sent from every place that stores or echoes a user's JSON (function
// call arguments and results, MCP tool arguments and results, response_format schemas and the answers
// built from them, labels, environment variables), and none of them ever reaches Object.prototype.
// Through the HTTP API of an in-process emulator with fake sandboxes, compared on JSON.parse of the raw
// response body (an SDK could lose such keys itself), with fast-check biased towards those keys.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";
import { runs } from "../support/property-runs.js";
import { startRawJsonMcpServer, type RawJsonMcpServer } from "../support/raw-json-mcp-server.js";

const AGENT = "antigravity-preview-05-2026";
const KEY = "user-json-key";
const SPECIAL_KEYS = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "__defineGetter__", "valueOf"];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const key = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...SPECIAL_KEYS) }, { weight: 1, arbitrary: fc.string({ maxLength: 8 }) });
/** An object whose keys are own properties whatever their names (Object.fromEntries defines, never assigns). */
const objectOf = <T>(value: fc.Arbitrary<T>) =>
  fc
    .uniqueArray(fc.tuple(key, value), { selector: ([name]) => name, maxLength: 5 })
    .map((entries) => Object.fromEntries(entries) as Record<string, T>);
const { json } = fc.letrec<{ json: Json; object: Record<string, Json> }>((tie) => ({
  json: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.jsonValue({ maxDepth: 1 }) as fc.Arbitrary<Json>,
    tie("object"),
    fc.array(tie("json"), { maxLength: 3 }),
  ),
  object: objectOf(tie("json")),
}));
/** Objects at the top, since that is where a copy by assignment loses a key. */
const jsonObject = objectOf(json);
/** What a function_result's result may be: an object or a string. */
const functionResult = fc.oneof(jsonObject, fc.string());
/** Variable names (letters, digits, _), the special keys among them. */
const variableName = fc.oneof(fc.constantFrom(...SPECIAL_KEYS), fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,6}$/));
/** As it will come back: JSON.stringify writes own "__proto__" keys, JSON.parse makes them own again; -0 becomes 0. */
const wire = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const script = (calls: unknown[]): string => `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``;

let emulator: FakeRuntimeEmulator;
let mcp: RawJsonMcpServer;

before(async () => {
  emulator = await startFakeRuntimeEmulator();
  mcp = await startRawJsonMcpServer();
});
after(async () => {
  await mcp?.close();
  await emulator?.close();
});

type Body = Record<string, any>;
type Step = Record<string, any>;

/** A request; the answer parsed from its raw body. */
async function call(method: string, route: string, body?: unknown): Promise<Body> {
  const response = await fetch(`${emulator.url}${route}`, {
    method,
    headers: { "x-goog-api-key": KEY, "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  assert.equal(response.status, 200, text);
  return JSON.parse(text) as Body;
}

/** Creates an interaction; the create answer and the stored one (GET). */
async function interaction(body: Body): Promise<{ created: Body; stored: Body }> {
  const created = await call("POST", "/v1beta/interactions", { agent: AGENT, ...body });
  return { created, stored: await call("GET", `/v1beta/interactions/${created.id}`) };
}

const stepsOf = (body: Body, type: string): Step[] => ((body.steps ?? []) as Step[]).filter((step) => step.type === type);

const FUNCTION_TOOL = { type: "function", name: "f", description: "any object", parameters: { type: "object" } };

/** A response_format schema whose minimal instance is `value`: every key required, each a const. */
function schemaFor(value: Record<string, Json>): Body {
  const properties = Object.fromEntries(Object.entries(value).map(([name, item]) => [name, { const: item }]));
  return { type: "object", properties, required: Object.keys(value) };
}

describe("user JSON is kept exactly, keys like __proto__ included", () => {
  it("keeps function call arguments and function results, in the answer and in storage", async () => {
    await fc.assert(
      fc.asyncProperty(jsonObject, functionResult, async (args, result) => {
        const first = await interaction({ tools: [FUNCTION_TOOL], input: script([{ name: "f", args }]) });
        for (const body of [first.created, first.stored]) {
          assert.deepStrictEqual(
            stepsOf(body, "function_call").map((step) => step.arguments),
            [wire(args)],
          );
        }
        const callId = stepsOf(first.stored, "function_call")[0]!.id as string;
        const second = await interaction({
          tools: [FUNCTION_TOOL],
          previous_interaction_id: first.created.id,
          input: [{ type: "function_result", call_id: callId, name: "f", result }],
        });
        assert.deepStrictEqual(
          stepsOf(second.stored, "function_result").map((step) => step.result),
          [wire(result)],
        );
      }),
      runs(25),
    );
  });

  it("keeps MCP tool arguments and the tool's structured result", async () => {
    const tools = [{ type: "mcp_server", name: "raw", url: mcp.url }];
    await fc.assert(
      fc.asyncProperty(jsonObject, async (value) => {
        const { created, stored } = await interaction({ tools, input: script([{ server: "raw", name: "json", args: { value } }]) });
        for (const body of [created, stored]) {
          assert.deepStrictEqual(
            stepsOf(body, "mcp_server_tool_call").map((step) => step.arguments),
            [wire({ value })],
          );
          const results = stepsOf(body, "mcp_server_tool_result");
          assert.equal(results.length, 1);
          assert.equal(results[0]!.is_error, false, results[0]!.result);
          assert.deepStrictEqual(JSON.parse(results[0]!.result as string), wire(value));
        }
      }),
      runs(20),
    );
  });

  it("keeps response_format schemas, and the answer built from one has every key it requires", async () => {
    await fc.assert(
      fc.asyncProperty(jsonObject, async (value) => {
        const response_format = { type: "text", mime_type: "application/json", schema: schemaFor(value) };
        const { created, stored } = await interaction({ input: "Answer.", response_format });
        for (const body of [created, stored]) {
          assert.deepStrictEqual(body.response_format, wire(response_format));
          const [answer] = stepsOf(body, "model_output");
          assert.ok(answer, "no model_output step");
          const text = (answer.content as Array<{ text?: string }>).map((part) => part.text ?? "").join("");
          assert.deepStrictEqual(JSON.parse(text), wire(value));
        }
      }),
      runs(25),
    );
  });

  it("keeps labels and the names of environment variables", async () => {
    const labelMap = objectOf(fc.string({ maxLength: 6 }));
    const envMap = fc
      .uniqueArray(fc.tuple(variableName, fc.string({ maxLength: 6 })), { selector: ([name]) => name, maxLength: 5 })
      .map((entries) => Object.fromEntries(entries) as Record<string, string>);
    await fc.assert(
      fc.asyncProperty(labelMap, envMap, async (labels, env) => {
        const { created, stored } = await interaction({
          input: script([{ name: "code_execution", args: { code: "true", language: "bash" } }]),
          labels,
          environment: { type: "remote", env },
        });
        for (const body of [created, stored]) {
          assert.deepStrictEqual(body.labels, wire(labels));
          assert.deepStrictEqual(body.environment?.env, wire(Object.fromEntries(Object.keys(env).map((name) => [name, "[redacted]"]))));
        }
        // The sandbox's command got every variable, values as sent.
        const channel = emulator.runtime.channels.get(created.environment_id as string);
        const command = channel?.commands.at(-1);
        assert.ok(command, "no command reached the sandbox");
        for (const [name, text] of Object.entries(env))
          assert.equal(Object.hasOwn(command.env ?? {}, name) ? command.env![name] : undefined, text, name);
      }),
      runs(20),
    );
  });

  it("answers the issue's two cases as sent: a schema requiring __proto__ and constructor, a function result of __proto__", async () => {
    const schema = JSON.parse(
      '{"type": "object", "properties": {"__proto__": {"type": "integer"}, "constructor": {"type": "integer"}}, "required": ["__proto__", "constructor"]}',
    );
    const answered = await interaction({ input: "Answer.", response_format: { type: "text", mime_type: "application/json", schema } });
    const text = (stepsOf(answered.stored, "model_output")[0]!.content as Array<{ text: string }>)[0]!.text;
    assert.deepStrictEqual(JSON.parse(text), JSON.parse('{"__proto__": 0, "constructor": 0}'));

    const first = await interaction({ tools: [FUNCTION_TOOL], input: script([{ name: "f", args: {} }]) });
    const callId = stepsOf(first.stored, "function_call")[0]!.id as string;
    const result = JSON.parse('{"__proto__": {"polluted": 1}}');
    const second = await interaction({
      tools: [FUNCTION_TOOL],
      previous_interaction_id: first.created.id,
      input: [{ type: "function_result", call_id: callId, name: "f", result }],
    });
    const stored = stepsOf(second.stored, "function_result")[0]!.result as object;
    assert.ok(Object.hasOwn(stored, "__proto__"), `stored as ${JSON.stringify(stored)}`);
    assert.deepStrictEqual(stored, result);
  });

  it("never takes Object.prototype's members for the JSON's own keys when checking against a schema", async () => {
    const requiring = { type: "object", required: ["constructor", "__proto__", "toString"] };
    const response = await fetch(`${emulator.url}/v1beta/interactions`, {
      method: "POST",
      headers: { "x-goog-api-key": KEY, "content-type": "application/json" },
      body: JSON.stringify({
        agent: AGENT,
        input: "```response\n{}\n```",
        response_format: { type: "text", mime_type: "application/json", schema: requiring },
      }),
    });
    const text = await response.text();
    assert.equal(response.status, 400, text);
    assert.match(text, /must have required property 'constructor'/);
    const declared = { ...FUNCTION_TOOL, parameters: requiring };
    const called = await fetch(`${emulator.url}/v1beta/interactions`, {
      method: "POST",
      headers: { "x-goog-api-key": KEY, "content-type": "application/json" },
      body: JSON.stringify({ agent: AGENT, tools: [declared], input: script([{ name: "f", args: {} }]) }),
    });
    assert.equal(called.status, 400, await called.text());
    const kept = await interaction({
      tools: [declared],
      input: script([{ name: "f", args: JSON.parse('{"constructor": 1, "__proto__": 2, "toString": 3}') }]),
    });
    assert.deepStrictEqual(
      stepsOf(kept.stored, "function_call")[0]!.arguments,
      JSON.parse('{"constructor": 1, "__proto__": 2, "toString": 3}'),
    );
  });

  it("never pollutes Object.prototype", () => {
    // After every request above, some of which sent {"__proto__": {"polluted": 1}} and its kin.
    const probe: Record<string, unknown> = {};
    assert.equal(probe.polluted, undefined);
    assert.deepEqual(Object.keys(Object.prototype), []);
    assert.equal(Object.getPrototypeOf(probe), Object.prototype);
  });
});
