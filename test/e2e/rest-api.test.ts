// The REST form (what curl sends) and the emulator's own endpoints, without the SDK in between.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";

let emulator: EmulatorProcess;

before(async () => {
  emulator = await startEmulatorProcess({ EMULATOR_API_KEYS: "rest-key,second-key" });
});
after(async () => {
  await emulator?.destroy();
});

async function call(method: string, path: string, body?: unknown, key: string | null = "rest-key") {
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    headers: { "content-type": "application/json", ...(key ? { "x-goog-api-key": key } : {}) },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, type: response.headers.get("content-type") ?? "", json: JSON.parse(text) as Record<string, any> };
}

describe("REST API", () => {
  it("reports the Docker engine and the store on /health", async () => {
    const health = await call("GET", "/health", undefined, null);
    assert.equal(health.status, 200);
    assert.equal(health.json.status, "ok");
    assert.equal(health.json.docker.ok, true);
    assert.match(health.json.docker.detail, /Docker engine/);
    assert.equal(health.json.store.ok, true);
  });

  it("accepts the seed's curl body with a Content[] input on /v1beta/", async () => {
    const created = await call("POST", "/v1beta/interactions", {
      agent: "antigravity-preview-05-2026",
      input: [{ type: "text", text: "Run `echo from-curl` using code_execution." }],
      tools: [{ type: "code_execution" }],
      environment: { type: "remote" },
    });
    assert.equal(created.status, 200);
    assert.match(created.type, /^application\/json/);
    const result = created.json.steps.find((step: { type: string }) => step.type === "code_execution_result");
    assert.equal(result.result, "from-curl\n");
    assert.equal(created.json.environment.type, "remote");
    const fetched = await call("GET", `/v1beta/interactions/${created.json.id}?stream=false`);
    assert.equal(fetched.status, 200);
    // The create answer holds the run's steps only, as the service's; GET the whole timeline, the input first.
    assert.equal(created.json.steps[0].type, "code_execution_call");
    assert.equal(fetched.json.steps[0].type, "user_input");
    assert.deepEqual(fetched.json.steps.slice(1), created.json.steps);
  });

  it("only accepts the keys in EMULATOR_API_KEYS", async () => {
    const refused = await call("POST", "/v1/interactions", { agent: "antigravity-preview-05-2026", input: "hi" }, "wrong-key");
    assert.equal(refused.status, 401);
    assert.match(refused.json.error.message, /EMULATOR_API_KEYS/);
  });

  it("does not echo inline source content or injected header values into the interaction", async () => {
    const created = await call("POST", "/v1/interactions", {
      agent: "antigravity-preview-05-2026",
      input: "hi",
      environment: {
        type: "remote",
        sources: [{ type: "inline", target: "workspace/secret.txt", content: "s3cr3t-value" }],
        network: { allowlist: [{ domain: "api.example.com", transform: { Authorization: "Bearer tok3n-value" } }, { domain: "*" }] },
      },
    });
    assert.equal(created.status, 200);
    assert.doesNotMatch(JSON.stringify(created.json), /s3cr3t-value|tok3n-value/);
    assert.deepEqual(created.json.environment.sources, [{ type: "inline", target: "workspace/secret.txt" }]);
    assert.deepEqual(created.json.environment.network.allowlist, [
      { domain: "api.example.com", transform: { Authorization: "[redacted]" } },
      { domain: "*" },
    ]);
    const stored = await call("GET", `/v1/interactions/${created.json.id}`);
    assert.doesNotMatch(JSON.stringify(stored.json), /s3cr3t-value|tok3n-value/);
  });

  const refusals: Array<[string, string, string, unknown, number, RegExp]> = [
    ["a body that is not JSON", "POST", "/v1/interactions", "{not json", 400, /not valid JSON/],
    ["a body that is not an object", "POST", "/v1/interactions", [1, 2], 400, /JSON object/],
    ["neither agent nor model", "POST", "/v1/interactions", { input: "hi" }, 400, /agent or model is required/],
    [
      "a model that is not gemini-* (a 404: model_not_found)",
      "POST",
      "/v1/interactions",
      { model: "gpt-4o", input: "hi" },
      404,
      /model "gpt-4o" is not emulated.*gemini-\*/,
    ],
    [
      "both agent and model",
      "POST",
      "/v1/interactions",
      { agent: "antigravity-x", model: "gemini-3.5-flash", input: "hi" },
      400,
      /both given; an interaction is run by an agent or by a model, not both/,
    ],
    ["a wrongly typed field", "POST", "/v1/interactions", { agent: "antigravity-x", input: "hi", tools: "code_execution" }, 400, /tools: /],
    [
      "a malformed tool_calls script",
      "POST",
      "/v1/interactions",
      { agent: "antigravity-x", input: '```tool_calls\n[{"name":"rm_file","args":{}}]\n```' },
      400,
      /rm_file/,
    ],
    ["an unknown route", "GET", "/v1/nothing-here", undefined, 404, /No route/],
    ["an unknown version segment", "GET", "/latest/interactions/int_x", undefined, 404, /No route/],
    [
      "an unknown environment",
      "POST",
      "/v1/interactions",
      { agent: "antigravity-x", input: "Run `ls`", environment: "env_missing" },
      404,
      /env_missing not found/,
    ],
    [
      "an unknown previous interaction",
      "POST",
      "/v1/interactions",
      { agent: "antigravity-x", input: "hi", previous_interaction_id: "int_missing" },
      404,
      /int_missing not found/,
    ],
  ];
  for (const [what, method, path, body, status, pattern] of refusals) {
    it(`refuses ${what} with ${status} and a Google error`, async () => {
      const response = await call(method, path, body);
      assert.equal(response.status, status);
      assert.equal(
        response.json.error.code,
        status === 404 ? (/model_not_found/.test(what) ? "model_not_found" : "not_found") : "invalid_request",
      );
      assert.equal(typeof response.json.error.status, "string");
      assert.match(response.json.error.message, pattern);
    });
  }

  it("serves the SDK behind a base URL with a path prefix", async () => {
    const ai = new GoogleGenAI({ apiKey: "rest-key", httpOptions: { baseUrl: `${emulator.url}/gw/` } });
    const created = await ai.interactions.create({ agent: "antigravity-preview-05-2026", input: "hello" });
    assert.equal(created.status, "completed");
    assert.equal((await ai.interactions.get(created.id!)).id, created.id);
  });

  it("lets the SDK find the emulator through GOOGLE_GEMINI_BASE_URL and GEMINI_API_KEY", async () => {
    const saved = { base: process.env.GOOGLE_GEMINI_BASE_URL, key: process.env.GEMINI_API_KEY, google: process.env.GOOGLE_API_KEY };
    process.env.GOOGLE_GEMINI_BASE_URL = emulator.url;
    process.env.GEMINI_API_KEY = "second-key";
    delete process.env.GOOGLE_API_KEY;
    try {
      const ai = new GoogleGenAI({});
      const created = await ai.interactions.create({ agent: "antigravity-preview-05-2026", input: "hello" });
      assert.equal(created.status, "completed");
    } finally {
      for (const [name, value] of [
        ["GOOGLE_GEMINI_BASE_URL", saved.base],
        ["GEMINI_API_KEY", saved.key],
        ["GOOGLE_API_KEY", saved.google],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});
