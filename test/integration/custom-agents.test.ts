// Custom agents (docs/agents.md) through the official SDK against an emulator in this process with
// in-memory sandboxes that show which files were placed in them: the resource (create, list in pages,
// get, delete, per API key, refusals), an interaction that names an agent getting a fresh copy of the
// base environment each time with the agent's fields merged under its own, deleting the agent under a
// conversation, and a restart keeping the agent.
// covers: agents.create, agents.list, agents.get, agents.delete, CreateAgentInteraction.agent_config
// covers: CreateAgentInteraction.system_instruction

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";

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

const connect = () => {
  ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
  other = new GoogleGenAI({ apiKey: OTHER_KEY, httpOptions: { baseUrl: emulator.url } });
};

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "emu-agents-"));
  emulator = await startFakeRuntimeEmulator({ EMULATOR_DATA_DIR: dataDir });
  connect();
});
after(async () => {
  await emulator?.close();
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
