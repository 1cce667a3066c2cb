// The table of declared request fields: generated from the installed SDK's genai.d.ts, committed in
// schemas/sdk-request-fields.json (this test fails until `npm run schemas` has rewritten a stale copy),
// and read the way the SDK's types mean it: each tool type with its own fields, both create variants,
// every content and step type.

import assert from "node:assert/strict";
import fs from "node:fs";
import { describe, it } from "node:test";
import { type FieldNode, type ObjectNode, SDK_FIELDS_FILE, declaredFieldsTable } from "../../server/api/declared-fields.js";
import { sdkRequestFieldsTable, sdkRequestFieldsText, sdkVersion } from "../../tools/sdk-request-fields.js";

const table = sdkRequestFieldsTable();

function objectOf(name: string): ObjectNode {
  const node = table.types[name];
  assert.ok(node !== undefined && typeof node === "object" && "fields" in node, `${name} is an object type in the table`);
  return node;
}

function alternatives(name: string): string[] {
  const node = table.types[name] as { union?: FieldNode[] } | undefined;
  return (node?.union ?? []).flatMap((member) => (typeof member === "object" && "ref" in member ? [member.ref] : []));
}

describe("the table of declared request fields", () => {
  it("is committed as generated from the installed SDK (npm run schemas rewrites it)", () => {
    const committed = fs.readFileSync(SDK_FIELDS_FILE, "utf8");
    assert.equal(committed, sdkRequestFieldsText(table), "schemas/sdk-request-fields.json is stale: run `npm run schemas`");
    assert.equal(declaredFieldsTable().sdk, `@google/genai ${sdkVersion()}`);
  });

  it("holds both create variants, the agent's without generation_config and the model's with it", () => {
    assert.deepEqual(alternatives("CreateInteractionRequestBody").sort(), ["CreateAgentInteraction", "CreateModelInteraction"]);
    const agent = objectOf("CreateAgentInteraction");
    const model = objectOf("CreateModelInteraction");
    assert.deepEqual(agent.required, ["agent"]);
    assert.deepEqual(model.required, ["model"]);
    for (const field of ["input", "tools", "environment", "response_format", "labels", "stream", "store", "background"]) {
      assert.ok(field in agent.fields && field in model.fields, field);
    }
    assert.ok(!("generation_config" in agent.fields));
    assert.ok("generation_config" in model.fields);
  });

  it("tells tools apart by their type: a function's fields are not a code_execution tool's", () => {
    const tools = alternatives("Tool_2").map(objectOf);
    const byTag = new Map(tools.flatMap((tool) => (tool.tags ?? []).map((tag) => [tag, tool] as const)));
    for (const tag of ["code_execution", "function", "mcp_server", "google_search", "url_context", "file_search"]) {
      assert.ok(byTag.has(tag), `a tool of type ${tag}`);
    }
    assert.deepEqual(Object.keys(byTag.get("code_execution")?.fields ?? {}), ["type"]);
    assert.deepEqual(Object.keys(byTag.get("function")?.fields ?? {}).sort(), ["description", "name", "parameters", "type"]);
    assert.equal(byTag.get("function")?.fields.parameters, "any", "a function's parameters are a JSON Schema, not checked field by field");
  });

  it("has every content and step type, each tagged", () => {
    const contents = alternatives("Content_2").map(objectOf);
    assert.deepEqual(contents.flatMap((content) => content.tags ?? []).sort(), ["audio", "document", "image", "text", "video"]);
    const steps = alternatives("Step").map(objectOf);
    const stepTags = steps.flatMap((step) => step.tags ?? []);
    for (const tag of ["user_input", "model_output", "thought", "function_call", "function_result", "code_execution_call"]) {
      assert.ok(stepTags.includes(tag), tag);
    }
  });

  it("has the environment, its sources and network, and the other request bodies", () => {
    assert.deepEqual(Object.keys(objectOf("Environment_2").fields).sort(), ["env", "environment_id", "network", "sources", "type"]);
    assert.deepEqual(Object.keys(objectOf("Source").fields).sort(), ["content", "encoding", "source", "target", "type"]);
    assert.deepEqual(Object.keys(objectOf("AllowlistEntry").fields).sort(), ["credential", "domain", "transform"]);
    const environmentCreate = objectOf("CreateEnvironmentRequest_2");
    assert.deepEqual(Object.keys(environmentCreate.fields).sort(), ["env", "from_environment", "network", "sources"]);
    assert.deepEqual(environmentCreate.extensions, ["env"], "env is the emulator's addition, documented in fidelity.md");
    assert.deepEqual(alternatives("CredentialCreateParams").sort(), ["EnvironmentVariableConfig", "HttpBearerConfig", "OAuth2Config"]);
    assert.deepEqual(Object.keys(table.requests).sort(), [
      "agents.create",
      "credentials.create",
      "credentials.update",
      "environments.create",
      "interactions.create",
      "triggers.create",
      "triggers.update",
    ]);
    // A trigger's interaction is any interactions.create body (the document's CreateTrigger takes a model one too).
    assert.deepEqual(objectOf("TriggerCreateParams").fields["interaction"], { ref: "CreateInteractionRequestBody" });
  });
});
