// The walk that finds a request's undeclared fields (server/api/declared-fields.ts) against the committed
// table: the misspelt request, unknown fields nested in the environment, its sources, tools and
// content parts, the union rules (a tool's type, the agent or model variant, a JSON Schema where a
// response_format may be one), and Google's wording of each (server/http/declared-fields-only.ts).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_UNKNOWN_FIELDS, unknownFields } from "../../server/api/declared-fields.js";
import { violationOf } from "../../server/http/declared-fields-only.js";

const AGENT = "antigravity-preview-05-2026";

describe("unknown fields of a request body", () => {
  it("finds the issue's misspelt tools and environment at the top, in Google's words", () => {
    const found = unknownFields("interactions.create", {
      agent: AGENT,
      input: "hi",
      toolz: [{ type: "code_execution" }],
      enviroment: { type: "remote" },
    });
    // With the declared field each was likely meant to be (the credentials page's "Did you mean …?").
    assert.deepEqual(found, [
      { name: "toolz", at: "", suggestion: "tools" },
      { name: "enviroment", at: "", suggestion: "environment" },
    ]);
    assert.deepEqual(found.map(violationOf), [
      { description: "Invalid JSON payload received. Unknown name \"toolz\": Cannot find field. Did you mean 'tools'?" },
      { description: "Invalid JSON payload received. Unknown name \"enviroment\": Cannot find field. Did you mean 'environment'?" },
    ]);
  });

  it("finds them nested, with the path of the object that holds them", () => {
    const found = unknownFields("interactions.create", {
      agent: AGENT,
      input: [{ type: "text", text: "hi", colour: "red" }],
      environment: {
        type: "remote",
        sources: [
          { type: "inline", target: "a.txt", content: "x" },
          { type: "inline", target: "b", content: "y", mode: "0755" },
        ],
        network: { allowlist: [{ domain: "example.com", headerz: {} }] },
        env: { A: "1", B: { value: "2", secret: true } },
        size: "large",
      },
      tools: [
        { type: "code_execution", name: "run" },
        { type: "function", name: "f", parameters: { type: "object", anything: 1 } },
      ],
    });
    assert.deepEqual(found, [
      { name: "colour", at: "input[0]" },
      { name: "mode", at: "environment.sources[1]" },
      { name: "headerz", at: "environment.network.allowlist[0]" },
      { name: "secret", at: "environment.env[1].value" },
      { name: "size", at: "environment" },
      { name: "name", at: "tools[0]" },
    ]);
    assert.deepEqual(violationOf(found[1]!), {
      field: "environment.sources[1]",
      description: "Invalid JSON payload received. Unknown name \"mode\" at 'environment.sources[1]': Cannot find field.",
    });
  });

  it("reads a history of steps by each step's type, and content parts inside them", () => {
    const found = unknownFields("interactions.create", {
      model: "gemini-3-flash-preview",
      input: [
        { type: "user_input", content: [{ type: "image", uri: "gs://b/x.png", mime_type: "image/png", alt: "x" }] },
        { type: "function_call", id: "c1", name: "f", arguments: { free: { form: 1 } } },
        { type: "function_result", call_id: "c1", result: { any: "thing" }, is_eror: false },
      ],
    });
    assert.deepEqual(found, [
      { name: "alt", at: "input[0].content[0]" },
      { name: "is_eror", at: "input[2]", suggestion: "is_error" },
    ]);
  });

  it("tells the agent variant from the model variant by which is given", () => {
    assert.deepEqual(unknownFields("interactions.create", { agent: AGENT, generation_config: { temperature: 1 } }), [
      { name: "generation_config", at: "" },
    ]);
    assert.deepEqual(unknownFields("interactions.create", { model: "gemini-3-flash-preview", generation_config: { temperature: 1 } }), []);
    assert.deepEqual(unknownFields("interactions.create", { model: "gemini-3-flash-preview", generation_config: { temprature: 1 } }), [
      { name: "temprature", at: "generation_config", suggestion: "temperature" },
    ]);
    assert.deepEqual(unknownFields("interactions.create", { model: "gemini-3-flash-preview", agent_config: { type: "antigravity" } }), [
      { name: "agent_config", at: "" },
    ]);
  });

  it("takes a JSON Schema where a response_format may be one, and checks a ResponseFormat by its type", () => {
    const schema = { type: "object", properties: { a: { type: "string" } }, required: ["a"], additionalProperties: false };
    assert.deepEqual(
      unknownFields("interactions.create", { agent: AGENT, response_format: schema, response_mime_type: "application/json" }),
      [],
    );
    assert.deepEqual(
      unknownFields("interactions.create", { agent: AGENT, response_format: { type: "text", mime_type: "application/json", schema } }),
      [],
    );
    assert.deepEqual(unknownFields("interactions.create", { agent: AGENT, response_format: [{ type: "text", mimetype: "text/plain" }] }), [
      { name: "mimetype", at: "response_format[0]", suggestion: "mime_type" },
    ]);
  });

  it("leaves free-form values alone: labels, headers, function arguments, MCP headers", () => {
    const body = {
      agent: AGENT,
      labels: { team: "a", anything: "b" },
      tools: [{ type: "mcp_server", name: "docs", url: "http://127.0.0.1:1/mcp", headers: { "X-Any": "v" } }],
      input: [{ type: "function_call", id: "c", name: "f", arguments: { whatever: [1, { deep: true }] } }],
    };
    assert.deepEqual(unknownFields("interactions.create", body), []);
  });

  it("checks the other request bodies: environments, credentials", () => {
    assert.deepEqual(
      unknownFields("environments.create", { sources: [{ type: "inline", target: "a", content: "b" }], env: { A: "1" } }),
      [],
    );
    assert.deepEqual(unknownFields("environments.create", { from_environment: "env_1", netwrk: "disabled" }), [
      { name: "netwrk", at: "", suggestion: "network" },
    ]);
    assert.deepEqual(unknownFields("credentials.create", { type: "bearer_token", id: "c", token: "t", header: "X-Key" }), [
      { name: "header", at: "" },
    ]);
    assert.deepEqual(unknownFields("credentials.create", { type: "bearer_token", id: "c", token: "t", value: "v" }), [
      { name: "value", at: "" },
    ]);
    assert.deepEqual(unknownFields("credentials.update", { type: "environment_variable", value: "v", trusted_domains: ["a.com"] }), []);
    assert.deepEqual(unknownFields("credentials.update", { type: "bearer_token", tokn: "t" }), [
      { name: "tokn", at: "", suggestion: "token" },
    ]);
    // camelCase for a snake_case field, as the REST examples write it.
    assert.deepEqual(unknownFields("credentials.create", { type: "bearer_token", id: "c", token: "t", headerName: "X-Key" }), [
      { name: "headerName", at: "", suggestion: "header_name" },
    ]);
  });

  it("keeps a __proto__ key a field like any other", () => {
    const body = JSON.parse('{"agent": "x", "__proto__": {"polluted": 1}, "labels": {"__proto__": "kept"}}');
    assert.deepEqual(unknownFields("interactions.create", body), [{ name: "__proto__", at: "" }]);
  });

  it("collects at most MAX_UNKNOWN_FIELDS from a hostile body", () => {
    const body: Record<string, unknown> = { agent: AGENT };
    for (let index = 0; index < 10_000; index++) body[`field${index}`] = index;
    assert.equal(unknownFields("interactions.create", body).length, MAX_UNKNOWN_FIELDS);
  });
});
