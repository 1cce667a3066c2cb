// Custom agents (docs/agents.md) through the official SDK against an emulator in this process with
// in-memory sandboxes that show which files were placed in them: the resource (create, list in pages,
// get, delete, per API key, refusals), an interaction that names an agent getting a fresh copy of the
// base environment each time with the agent's fields merged under its own, deleting the agent under a
// conversation, and a restart keeping the agent; what an agent's variables, decoded sources and tools
// (functions, an MCP server's allowed tools and headers, code_execution or not) do in its interactions.
// covers: agents.create, agents.list, agents.get, agents.delete, CreateAgentInteraction.agent_config
// covers: CreateAgentInteraction.system_instruction
// covers: CreateAgent.id, CreateAgent.base_agent, CreateAgent.description, CreateAgent.agent_config.type
// covers: CreateAgent.base_environment, CreateAgent.base_environment.type, CreateAgent.base_environment.environment_id
// covers: CreateAgent.base_environment.sources, CreateAgent.base_environment.sources.content
// covers: CreateAgent.base_environment.sources.target, CreateAgent.base_environment.sources.encoding
// covers: CreateAgent.base_environment.env, CreateAgent.base_environment.env.value, CreateAgent.base_environment.env(EnvVar)
// covers: CreateAgent.tools, CreateAgent.tools(code_execution)
// covers: CreateAgent.tools(code_execution).type, CreateAgent.tools(function), CreateAgent.tools(function).name
// covers: CreateAgent.tools(function).parameters, CreateAgent.tools(function).type, CreateAgent.tools(mcp_server)
// covers: CreateAgent.tools(mcp_server).name, CreateAgent.tools(mcp_server).url, CreateAgent.tools(mcp_server).type
// covers: CreateAgent.tools(mcp_server).headers, CreateAgent.tools(mcp_server).allowed_tools
// covers: CreateAgent.tools(mcp_server).allowed_tools.mode, CreateAgent.tools(mcp_server).allowed_tools.tools
// covers: CreateAgent.tools(google_search), CreateAgent.tools(url_context)

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";
import { startMcpTestServer, type McpTestServer } from "../support/mcp-test-server.js";

const KEY = "custom-agents-key";
const OTHER_KEY = "custom-agents-other-key";
const HOOKS = JSON.stringify({ hooks: { PreToolUse: [] } });
const GATE = {
  id: "security-gate",
  base_agent: "",
  description: "Runs with the team's hooks",
  system_instruction: "Never delete files.",
  tools: [{ type: "code_execution" }],
  agent_config: { type: "antigravity", model: "gemini-3-flash-preview", max_total_tokens: "100000" },
  base_environment: {
    type: "remote",
    sources: [
      { type: "inline", target: ".agents/hooks.json", content: HOOKS },
      { type: "inline", target: "AGENTS.md", content: "# Rules" },
    ],
    env: { TEAM_TOKEN: "tok-secret-91c" },
  },
};

type Interaction = {
  id: string;
  status: string;
  agent?: string;
  environment_id?: string;
  system_instruction?: string;
  tools?: unknown;
  agent_config?: Record<string, unknown>;
  errors?: unknown;
};

let dataDir: string;
let emulator: FakeRuntimeEmulator;
let ai: GoogleGenAI;
let other: GoogleGenAI;
let mcp: McpTestServer;

const connect = () => {
  ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
  other = new GoogleGenAI({ apiKey: OTHER_KEY, httpOptions: { baseUrl: emulator.url } });
};

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "emu-agents-"));
  emulator = await startFakeRuntimeEmulator({ EMULATOR_DATA_DIR: dataDir });
  mcp = await startMcpTestServer();
  connect();
});
after(async () => {
  await emulator?.close();
  await mcp?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function post(route: string, body: unknown, key = KEY): Promise<{ status: number; json: any }> {
  const response = await fetch(`${emulator.url}/v1beta${route}`, {
    method: "POST",
    headers: { "x-goog-api-key": key, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

async function interact(request: Record<string, unknown>, client = ai): Promise<Interaction> {
  const interaction = (await client.interactions.create({ input: "hello", ...request } as never)) as unknown as Interaction;
  assert.equal(interaction.status, "completed", JSON.stringify(interaction.errors));
  return interaction;
}

const script = (calls: unknown[]): string => `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``;
const bash = (code: string) => ({ name: "code_execution", args: { code, language: "bash" } });

/** The paths of the files the fake sandbox of an environment was given. */
function placed(environmentId: string | undefined): string[] {
  const channel = emulator.runtime.channels.get(environmentId ?? "");
  assert.ok(channel, `no sandbox for environment ${environmentId}`);
  return [...channel.files.keys()].sort();
}

describe("custom agents", () => {
  it("creates an agent and gives it back in the SDK's Agent shape, the base environment's contents and secrets left out", async () => {
    const created = (await ai.agents.create(GATE as never)) as Record<string, any>;
    assert.equal(created.id, "security-gate");
    assert.equal(created.base_agent, "antigravity-preview-05-2026");
    assert.equal(created.description, GATE.description);
    assert.equal(created.system_instruction, GATE.system_instruction);
    assert.deepEqual(created.tools, GATE.tools);
    assert.deepEqual(created.agent_config, GATE.agent_config);
    assert.deepEqual(created.base_environment.sources, [
      { type: "inline", target: ".agents/hooks.json" },
      { type: "inline", target: "AGENTS.md" },
    ]);
    assert.deepEqual(created.base_environment.env, { TEAM_TOKEN: "[redacted]" });
    const got = (await ai.agents.get("security-gate")) as Record<string, unknown>;
    // The bodies, without the SDK's record of the HTTP answer (its Date header may tick between the two).
    const body = ({ sdkHttpResponse: _, ...rest }: Record<string, unknown>) => JSON.parse(JSON.stringify(rest));
    assert.deepEqual(body(got), body(created));
  });

  it("lists an API key's agents in pages, and another key sees none of them", async () => {
    await ai.agents.create({ id: "a-helper", base_agent: "antigravity-preview-09-2026" } as never);
    const generated = (await ai.agents.create({ description: "no id given" } as never)) as { id: string };
    assert.match(generated.id, /^agent-[0-9a-f]{16}$/);
    const first = await ai.agents.list({ page_size: 2 } as never);
    assert.deepEqual(
      first.agents?.map((agent) => agent.id),
      ["a-helper", generated.id],
    );
    assert.ok(first.next_page_token);
    const second = await ai.agents.list({ page_size: 2, page_token: first.next_page_token } as never);
    assert.deepEqual(
      second.agents?.map((agent) => agent.id),
      ["security-gate"],
    );
    assert.equal(second.next_page_token ?? "", "");
    const theirs = await other.agents.list();
    assert.deepEqual(theirs.agents ?? [], []);
    await assert.rejects(other.agents.get("security-gate"), /not found/i);
    const refused = await post("/interactions", { agent: "security-gate", input: "hello" }, OTHER_KEY);
    assert.equal(refused.status, 400);
    assert.match(refused.json.error.message, /names no custom agent of this API key/);
  });

  it("refuses definitions it could not run, saying what to fix, and keeps nothing of them", async () => {
    const cases: Array<[Record<string, unknown>, number, RegExp]> = [
      [{ id: "x1", base_agent: "deep-research-pro-preview-12-2025" }, 400, /base_agent .* is not an agent this emulator runs/],
      [{ id: "x2", base_agent: "security-gate" }, 400, /cannot extend another custom agent/],
      [{ id: "antigravity-mine" }, 400, /does not start with "antigravity-"/],
      [{ id: "has space" }, 400, /id/],
      [{ id: "x3", base_environment: { type: "remote", environment_id: "env_abc" } }, 400, /give its ID as base_environment/],
      [{ id: "x4", base_environment: { type: "local" } }, 400, /remote/],
      [{ id: "x5", base_environment: "env_missing" }, 404, /Environment env_missing not found/],
      [{ id: "x6", hooks: {} }, 400, /hooks/],
      [{ id: "security-gate" }, 409, /already exists/],
    ];
    for (const [body, status, message] of cases) {
      const answer = await post("/agents", body);
      assert.equal(answer.status, status, JSON.stringify(body));
      assert.match(answer.json.error.message, message, JSON.stringify(body));
    }
    const ids = (await ai.agents.list()).agents?.map((agent) => agent.id) ?? [];
    assert.ok(!ids.some((id) => id?.startsWith("x")), ids.join(", "));
  });

  it("runs an interaction naming the agent as its base agent with its fields, in a fresh copy of its base environment each time", async () => {
    const first = await interact({ agent: "security-gate" });
    assert.equal(first.agent, "security-gate");
    assert.equal(first.system_instruction, GATE.system_instruction);
    assert.deepEqual(first.tools, GATE.tools);
    assert.deepEqual(first.agent_config, GATE.agent_config);
    assert.deepEqual(placed(first.environment_id), ["/.agents/hooks.json", "/workspace/AGENTS.md"]);
    // Whatever the first interaction left in its sandbox, the second starts from the base again.
    emulator.runtime.channels.get(first.environment_id!)!.files.set("/workspace/left-over.txt", "x");
    const second = await interact({ agent: "security-gate" });
    assert.notEqual(second.environment_id, first.environment_id);
    assert.deepEqual(
      placed(second.environment_id),
      placed(first.environment_id).filter((file) => !file.includes("left-over")),
    );
  });

  it("lets the request's own fields win: instructions and tools whole, agent_config key by key, its sources added, an environment ID reused", async () => {
    const own = await interact({
      agent: "security-gate",
      system_instruction: "Be brief.",
      tools: [{ type: "function", name: "lookup", description: "Looks up", parameters: { type: "object" } }],
      agent_config: { type: "antigravity", max_total_tokens: "5000" },
      environment: { type: "remote", sources: [{ type: "inline", target: "workspace/extra.txt", content: "more" }] },
    });
    assert.equal(own.agent, "security-gate");
    assert.equal(own.system_instruction, "Be brief.");
    assert.deepEqual(
      (own.tools as Array<{ name?: string }>).map((tool) => tool.name),
      ["lookup"],
    );
    assert.deepEqual(own.agent_config, { type: "antigravity", model: "gemini-3-flash-preview", max_total_tokens: "5000" });
    assert.ok(placed(own.environment_id).includes("/workspace/extra.txt"));
    assert.ok(placed(own.environment_id).includes("/.agents/hooks.json"));
    const reused = await interact({ agent: "security-gate", environment: own.environment_id });
    assert.equal(reused.environment_id, own.environment_id);
  });

  it("forks an agent's base environment given as an environment ID, a new environment each time", async () => {
    const base = await interact({ agent: "antigravity-preview-05-2026", environment: { type: "remote" } });
    await ai.agents.create({ id: "forker", base_environment: base.environment_id } as never);
    const one = await interact({ agent: "forker" });
    const two = await interact({ agent: "forker" });
    assert.ok(one.environment_id && two.environment_id);
    assert.equal(new Set([base.environment_id, one.environment_id, two.environment_id]).size, 3);
    const refused = await post("/interactions", {
      agent: "forker",
      input: "hello",
      environment: { type: "remote", sources: [{ target: "workspace/a", content: "a" }] },
    });
    assert.equal(refused.status, 400);
    assert.match(refused.json.error.message, /fork of environment/);
    // The base environment deleted: the agent stays, its interactions are refused naming both.
    await fetch(`${emulator.url}/v1beta/environments/${base.environment_id}`, { method: "DELETE", headers: { "x-goog-api-key": KEY } });
    const gone = await post("/interactions", { agent: "forker", input: "hello" });
    assert.equal(gone.status, 400);
    assert.equal(gone.json.error.status, "FAILED_PRECONDITION");
    assert.match(gone.json.error.message, new RegExp(`agent forker .*${base.environment_id}`));
  });

  it("keeps interactions made with an agent, and their continuations, working after the agent is deleted", async () => {
    await ai.agents.create({ id: "short-lived", system_instruction: "Short.", base_environment: GATE.base_environment } as never);
    const first = await interact({ agent: "short-lived" });
    await ai.agents.delete("short-lived");
    await assert.rejects(ai.agents.get("short-lived"), /not found/i);
    const again = (await ai.interactions.get(first.id)) as unknown as Interaction;
    assert.equal(again.agent, "short-lived");
    const next = await interact({ agent: "short-lived", previous_interaction_id: first.id });
    assert.equal(next.environment_id, first.environment_id);
    assert.equal(next.system_instruction, "Short.");
    // Continuing the continuation works too; a new conversation with the deleted agent is a clear 400.
    await interact({ agent: "short-lived", previous_interaction_id: next.id });
    const fresh = await post("/interactions", { agent: "short-lived", input: "hello" });
    assert.equal(fresh.status, 400);
    assert.match(fresh.json.error.message, /short-lived/);
    const deleteAgain = await fetch(`${emulator.url}/v1beta/agents/short-lived`, { method: "DELETE", headers: { "x-goog-api-key": KEY } });
    assert.equal(deleteAgain.status, 404);
  });

  it("runs its interactions with the base environment's variables and decoded sources, and code_execution from its tools", async () => {
    await ai.agents.create({
      id: "with-variables",
      tools: [{ type: "code_execution" }],
      base_environment: {
        type: "remote",
        env: { API_TOKEN: { value: "tok-from-the-agent" } },
        sources: [
          { type: "inline", target: "workspace/data.bin", content: Buffer.from("decoded bytes").toString("base64"), encoding: "base64" },
        ],
      },
    } as never);
    const shown = (await ai.agents.get("with-variables")) as Record<string, any>;
    assert.deepEqual(shown.base_environment.env, { API_TOKEN: { value: "[redacted]" } }, "the value is not shown back");
    const run = await interact({ agent: "with-variables", input: script([bash("echo ran")]) });
    const channel = emulator.runtime.channels.get(run.environment_id!)!;
    assert.equal(channel.files.get("/workspace/data.bin"), "decoded bytes");
    const command = channel.commands.find((request) => request.argv.at(-1) === "echo ran");
    assert.ok(command, "the agent's code_execution tool ran the call");
    assert.equal(command.env?.API_TOKEN, "tok-from-the-agent");

    // The document's other branch of env, one EnvVar without a name, is read as the map the SDK types:
    // {"value": "…"} is a variable named value (docs/fidelity.md).
    await ai.agents.create({ id: "lone-variable", base_environment: { type: "remote", env: { value: "lone" } } } as never);
    const lone = await interact({ agent: "lone-variable", input: script([bash("echo lone")]) });
    const loneCommand = emulator.runtime.channels
      .get(lone.environment_id!)!
      .commands.find((request) => request.argv.at(-1) === "echo lone");
    assert.equal(loneCommand?.env?.value, "lone");
  });

  it("offers its interactions exactly its tools: its functions, its MCP server's allowed tools with its headers, no code_execution it lacks", async () => {
    const weather = {
      type: "function",
      name: "get_weather",
      description: "The current weather in a city",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    };
    const server = {
      type: "mcp_server",
      name: "team",
      url: mcp.url,
      headers: { Authorization: "Bearer agent-mcp-token" },
      allowed_tools: [
        { mode: "auto", tools: ["echo", "header"] },
        { mode: "none", tools: ["add"] },
      ],
    };
    const tools = [weather, server, { type: "google_search", search_types: ["web_search"] }, { type: "url_context" }];
    const created = (await ai.agents.create({ id: "tool-user", tools } as never)) as Record<string, any>;
    assert.deepEqual(created.tools[1].headers, { Authorization: "[redacted]" }, "header values are not shown back");
    const callsBefore = mcp.calls.length;
    const run = (await ai.interactions.create({
      agent: "tool-user",
      input: script([
        { server: "team", name: "echo", args: { text: "hi" } },
        { server: "team", name: "header", args: { name: "Authorization" } },
        { server: "team", name: "add", args: { a: 1, b: 2 } },
        { name: "get_weather", args: { city: "Paris" } },
      ]),
    } as never)) as unknown as Interaction & { steps: Array<Record<string, any>> };
    assert.equal(run.status, "requires_action", JSON.stringify(run.errors));
    const results = run.steps.filter((step) => step.type === "mcp_server_tool_result");
    assert.deepEqual(
      results.map((step) => [step.name, step.is_error]),
      [
        ["echo", false],
        ["header", false],
        ["add", true],
      ],
    );
    assert.equal(results[1]?.result, "Bearer agent-mcp-token", "the agent's header reached its server");
    assert.match(results[2]?.result, /is not in its allowed_tools/);
    assert.deepEqual(
      mcp.calls.slice(callsBefore).map((call) => call.name),
      ["echo", "header"],
      "add never reached the server",
    );
    const call = run.steps.find((step) => step.type === "function_call");
    assert.deepEqual([call?.name, call?.arguments], ["get_weather", { city: "Paris" }]);
    assert.deepEqual(
      (run.tools as Array<{ type: string }>).map((tool) => tool.type),
      ["function", "mcp_server", "google_search", "url_context"],
      "google_search and url_context are kept and echoed (the emulated agent never calls them)",
    );
    // Its tools leave code_execution out, so a code_execution call is skipped: nothing runs.
    const noCode = (await interact({ agent: "tool-user", input: script([bash("echo never")]) })) as Interaction & { output_text?: string };
    assert.match(noCode.output_text ?? "", /code_execution is not enabled/);
    assert.ok(
      [...emulator.runtime.channels.values()].every((channel) => channel.commands.every((request) => request.argv.at(-1) !== "echo never")),
      "no sandbox ran it",
    );
    // The function's parameters are checked: arguments that do not fit are refused, naming the path.
    const misfit = await post("/interactions", { agent: "tool-user", input: script([{ name: "get_weather", args: { town: "Paris" } }]) });
    assert.equal(misfit.status, 400);
    assert.match(misfit.json.error.message, /function get_weather: arguments\.city is missing/);
  });

  it("keeps the agents over a restart", async () => {
    await emulator.close();
    emulator = await startFakeRuntimeEmulator({ EMULATOR_DATA_DIR: dataDir });
    connect();
    const got = (await ai.agents.get("security-gate")) as Record<string, unknown>;
    assert.equal(got.system_instruction, GATE.system_instruction);
    const after = await interact({ agent: "security-gate" });
    assert.deepEqual(placed(after.environment_id), ["/.agents/hooks.json", "/workspace/AGENTS.md"]);
  });
});
