// The edge check of request bodies against the service's OpenAPI document (server/http/documented-requests.ts):
// a body the document refuses is a 400 that names the field and says what the document expects there,
// before any route reads it; with the contract check on, a wrong value is no longer echoed back as a
// 500 contract_violation. The request audit (openapi-requests.test.ts) shows that every such body is
// refused; this shows what the refusal says.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";

const AGENT = "antigravity-preview-05-2026";
let emulator: FakeRuntimeEmulator;

before(async () => {
  emulator = await startFakeRuntimeEmulator({ EMULATOR_CONTRACT_CHECK: "true" });
});

after(async () => {
  await emulator?.close();
});

async function create(body: unknown): Promise<{ status: number; message: string; code: string }> {
  const response = await fetch(`${emulator.url}/v1beta/interactions`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-goog-api-key": "document-edge-key" },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as { error?: { message: string; code: string } };
  return { status: response.status, message: json.error?.message ?? "", code: json.error?.code ?? "" };
}

describe("a request body the OpenAPI document refuses", () => {
  it("is a 400 invalid_request naming the field and what the document expects there", async () => {
    const cases: Array<[unknown, string]> = [
      [
        { agent: AGENT, input: "hi", tools: [{ type: "mcp_server", name: "docs", url: "http://127.0.0.1:9/mcp", headers: 5 }] },
        "Invalid request: tools[0].headers: must be an object of strings",
      ],
      [{ agent: AGENT, input: [{ type: "function_result", name: "f", result: "r" }] }, "Invalid request: input[0].call_id: is required"],
      [
        { agent: AGENT, input: "hi", safety_settings: [{ threshold: 5 }] },
        "Invalid request: safety_settings[0].threshold: must be a string",
      ],
      [
        { agent: AGENT, input: [{ type: "text", text: "hi", annotations: [{ type: "place_citation", name: 7 }] }] },
        "Invalid request: input[0].annotations[0].name: must be a string",
      ],
      [{ model: "gemini-2.5-flash", input: "hi", background: "yes" }, 'Invalid request: background: must be a boolean, got "yes"'],
      // An unknown value of an enum names the value given.
      [
        { agent: AGENT, input: "hi", environment: { type: "remote", sources: [{ type: "skill_registry", source: "s", target: "s" }] } },
        'Invalid request: environment.sources[0].type: must be one of "gcs", "inline", "repository", got "skill_registry"',
      ],
      // An interaction that names neither or both of agent and model: the emulator's own words, not a oneOf's.
      [{ input: "hi" }, "agent or model is required"],
      [{ agent: AGENT, model: "gemini-2.5-flash", input: "hi" }, "not both"],
    ];
    for (const [body, message] of cases) {
      const answer = await create(body);
      assert.equal(answer.status, 400, `${JSON.stringify(body)}: ${answer.message}`);
      assert.equal(answer.code, "invalid_request");
      if (message.startsWith("Invalid request:")) assert.equal(answer.message, message);
      else assert.ok(answer.message.includes(message), `${JSON.stringify(body)}: ${answer.message}`);
    }
  });

  it("names an unknown step type in the API errors page's words, with the types the document has", async () => {
    const answer = await create({ agent: AGENT, input: [{ type: "funtion_call", id: "c1", name: "f", arguments: {} }] });
    assert.equal(answer.status, 400);
    assert.match(
      answer.message,
      /The value 'funtion_call' is not supported for 'type' at 'input\[0\]'\. Supported values: .*'function_call'/,
    );
  });

  it("takes a 64-bit integer as a number as well as a decimal string, as proto3 JSON parsing does", async () => {
    for (const max_total_tokens of [5000, "5000"]) {
      const answer = await create({ agent: AGENT, input: "hi", agent_config: { type: "antigravity", max_total_tokens } });
      assert.notEqual(answer.message.includes("max_total_tokens"), true, answer.message);
    }
  });
});
