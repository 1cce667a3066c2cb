// Issue 30: requests the service's documentation, its OpenAPI document and the official SDK's samples
// send, sent the same way (through the official SDK, or as the REST examples' plain HTTP) to the
// emulator as `npm start` wires it, with in-memory sandboxes that show which files were placed where.
// Each was refused before: `environment: "remote"` (a 404), `agents/`- and `interactions/`-prefixed
// names (a 400 and a 404), absolute source targets (a 400), an unknown model (a 400 where the API
// errors page says 404), an OAuth2 credential's token_url and scopes on update (a 400), a refused
// upload answer without X-Goog-Upload-Status (the SDKs resend it), and the "no route" answer that left
// out agents, triggers and webhooks. Our own code throughout; each test names the page or sample.
// covers: CreateAgentInteraction.environment, CreateAgentInteraction.agent, CreateAgentInteraction.previous_interaction_id
// covers: CreateAgentInteraction.environment.sources.target, CreateModelInteraction.model, credentials.update
// covers: agents.get, agents.delete, interactions.get, interactions.delete

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";
import { messageOf, statusOf } from "../support/environments-harness.js";

const KEY = "documented-requests-key";
const AGENT = "antigravity-preview-05-2026";

type Interaction = {
  id: string;
  status: string;
  agent?: string;
  environment_id?: string;
  previous_interaction_id?: string;
  errors?: unknown;
};

let emulator: FakeRuntimeEmulator;
let ai: GoogleGenAI;

before(async () => {
  emulator = await startFakeRuntimeEmulator({});
  ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
});
after(() => emulator?.close());

async function interact(request: Record<string, unknown>): Promise<Interaction> {
  const interaction = (await ai.interactions.create(request as never)) as unknown as Interaction;
  assert.equal(interaction.status, "completed", JSON.stringify(interaction.errors));
  return interaction;
}

async function call(method: string, route: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${emulator.url}${route}`, {
    method,
    headers: { "x-goog-api-key": KEY, "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: text ? (JSON.parse(text) as any) : undefined };
}

/** The files placed in an environment's (fake) sandbox. */
function filesOf(environmentId: string | undefined): Map<string, string> {
  const channel = emulator.runtime.channels.get(environmentId ?? "");
  assert.ok(channel, `no sandbox for environment ${environmentId}`);
  return channel.files;
}

const rejects = (status: number, pattern: RegExp) => (error: unknown) => {
  assert.equal(statusOf(error), status, String(error));
  assert.match(messageOf(error), pattern);
  return true;
};

describe('environment: "remote", a fresh sandbox', () => {
  it("runs the agent environments page's first example and its reuse_env example", async () => {
    // gemini-api/docs/agent-environment, "simple" (JavaScript): environment: 'remote'.
    const first = await interact({
      agent: AGENT,
      input: "Write a hello world script at /workspace/hello.py.",
      environment: "remote",
    });
    assert.match(first.environment_id ?? "", /^env_/);
    assert.ok(emulator.runtime.channels.has(first.environment_id!), "a sandbox was made for it");
    // "reuse_env": the follow-up passes interaction.environment_id; the REST form "environments/{id}" names it too.
    const second = await interact({ agent: AGENT, input: "Run /workspace/hello.py.", environment: first.environment_id });
    assert.equal(second.environment_id, first.environment_id);
    const third = await interact({ agent: AGENT, input: "Again.", environment: `environments/${first.environment_id}` });
    assert.equal(third.environment_id, first.environment_id);
  });

  it('makes a new sandbox for every "remote", a continued conversation included', async () => {
    const first = await interact({ agent: AGENT, input: "hello", environment: "remote" });
    const next = await interact({ agent: AGENT, input: "hello again", environment: "remote", previous_interaction_id: first.id });
    assert.notEqual(next.environment_id, first.environment_id);
    // Without environment, a continuation stays where it was (unchanged by this issue).
    const stays = await interact({ agent: AGENT, input: "and again", previous_interaction_id: next.id });
    assert.equal(stays.environment_id, next.environment_id);
  });

  it("takes \"remote\" as a custom agent's base_environment (the custom agents page's research-assistant example)", async () => {
    const agent = await ai.agents.create({
      id: "research-assistant-abc123",
      base_agent: AGENT,
      description: "A helpful research assistant.",
      system_instruction: "You are a helpful research assistant.",
      base_environment: "remote",
      tools: [{ type: "google_search" }],
    } as never);
    assert.equal(agent.base_environment, "remote");
    const first = await interact({ agent: agent.id, input: "hello" });
    const second = await interact({ agent: agent.id, input: "hello", environment: "remote" });
    assert.ok(first.environment_id && second.environment_id);
    assert.notEqual(first.environment_id, second.environment_id, "a fresh sandbox each time");
  });

  it('gives a custom agent with a base environment config a fresh copy of it for environment: "remote" (the code-reviewer example)', async () => {
    // The page's base environment is a GitHub repository (an outside host): an inline source stands in for it.
    await ai.agents.create({
      id: "code-reviewer",
      base_agent: AGENT,
      system_instruction: "You are a senior code reviewer.",
      base_environment: { type: "remote", sources: [{ type: "inline", target: "/workspace/repo/src/main.py", content: "print(1)\n" }] },
    } as never);
    const result = await interact({
      agent: "code-reviewer",
      input: "Review the latest changes in /workspace/repo/src.",
      environment: "remote",
    });
    assert.equal(filesOf(result.environment_id).get("/workspace/repo/src/main.py"), "print(1)\n");
  });

  it('forks an environment made with "remote" into an agent (the custom agents page\'s fork example)', async () => {
    const setup = await interact({
      agent: AGENT,
      input: "Write a basic Hello World template to /workspace/template.py.",
      environment: "remote",
    });
    const agent = await ai.agents.create({
      id: "my-data-analyst-abc123",
      base_agent: AGENT,
      base_environment: setup.environment_id,
    } as never);
    const run = await interact({ agent: agent.id, input: "Use the template." });
    assert.ok(run.environment_id && run.environment_id !== setup.environment_id, "a fork of it, not it");
    filesOf(run.environment_id);
  });

  it('runs a trigger whose interaction asks for "remote" (docs/triggers.md\'s example)', async () => {
    const trigger = await ai.triggers.create({
      schedule: "0 9 * * *",
      time_zone: "UTC",
      interaction: { agent: AGENT, input: "Run `npm test`", environment: "remote" } as never,
    });
    const execution = (await ai.triggers.run(trigger.id!)) as { status?: string; interaction_id?: string; error?: string };
    assert.notEqual(execution.status, "failed", execution.error);
    assert.ok(execution.interaction_id);
    const interaction = (await ai.interactions.get(execution.interaction_id)) as unknown as Interaction;
    assert.match(interaction.environment_id ?? "", /^env_/);
    await ai.triggers.delete(trigger.id!);
  });

  it("still answers 404 for an environment ID that does not exist", async () => {
    await assert.rejects(
      ai.interactions.create({ agent: AGENT, input: "hi", environment: "env_missing" } as never),
      rejects(404, /env_missing not found/),
    );
  });
});

describe("resource names with their collection's prefix", () => {
  it('runs agent "agents/antigravity-preview-05-2026" with inline sources and a network allowlist (the SDK sample environment_lifecycle_test.ts)', async () => {
    const interaction = await interact({
      agent: `agents/${AGENT}`,
      input: "hello implicit environment with sources",
      environment: {
        type: "remote",
        network: {
          allowlist: [
            { domain: "api.github.com", transform: { Authorization: "Bearer autopush-sources-token" } },
            { domain: "*.google.com" },
          ],
        },
        sources: [{ type: "inline", target: "hello_sources.py", content: 'print("Hello from inline source file!")' }],
      },
    });
    assert.equal(interaction.agent, AGENT);
    const environment = await ai.environments.get(interaction.environment_id!);
    assert.equal(environment.id, interaction.environment_id);
    // A relative target that does not start with a folder at the root lands in /workspace, where the
    // agent's commands run (`python hello_sources.py` finds it).
    assert.equal(filesOf(interaction.environment_id).get("/workspace/hello_sources.py"), 'print("Hello from inline source file!")');
  });

  it("names interactions as interactions/{id}: get, previous_interaction_id, delete", async () => {
    const first = await interact({ agent: AGENT, input: "hello" });
    // The SDK percent-encodes the whole name into the path: /interactions/interactions%2Fint_….
    const got = (await ai.interactions.get(`interactions/${first.id}`)) as unknown as Interaction;
    assert.equal(got.id, first.id);
    const next = await interact({ agent: AGENT, input: "more", previous_interaction_id: `interactions/${first.id}` });
    assert.equal(next.previous_interaction_id, first.id);
    await ai.interactions.delete(`interactions/${next.id}`);
    await assert.rejects(ai.interactions.get(next.id), rejects(404, /not found/));
  });

  it("names custom agents as agents/{id}: interactions, get, delete; and a base_agent as agents/…", async () => {
    await ai.agents.create({ id: "prefixed-agent", base_agent: `agents/${AGENT}` } as never);
    const run = await interact({ agent: "agents/prefixed-agent", input: "hello" });
    assert.equal(run.agent, "prefixed-agent");
    assert.equal((await ai.agents.get("agents/prefixed-agent")).id, "prefixed-agent");
    await ai.agents.delete("agents/prefixed-agent");
    await assert.rejects(ai.agents.get("prefixed-agent"), rejects(404, /not found/));
  });
});

describe("absolute source targets land where the relative ones do", () => {
  it("places /workspace/notes.txt of an interaction's environment at /workspace/notes.txt", async () => {
    const interaction = await interact({
      agent: AGENT,
      input: "Summarise /workspace/notes.txt.",
      environment: { type: "remote", sources: [{ type: "inline", target: "/workspace/notes.txt", content: "notes" }] },
    });
    assert.equal(filesOf(interaction.environment_id).get("/workspace/notes.txt"), "notes");
  });

  it("places them for environments.create and a trigger's interaction too (the SDK's trigger sample writes /workspace/…)", async () => {
    const environment = await ai.environments.create({
      sources: [{ type: "inline", target: "/workspace/data/a.csv", content: "a,b\n" }],
    } as never);
    assert.equal(filesOf(environment.id).get("/workspace/data/a.csv"), "a,b\n");
    const trigger = await ai.triggers.create({
      schedule: "0 9 * * *",
      time_zone: "America/Argentina/Buenos_Aires",
      display_name: "issue-solver",
      interaction: {
        agent: AGENT,
        input: "List all files under /workspace and describe what you find.",
        environment: { type: "remote", sources: [{ type: "inline", target: "/workspace/spoon-knife/README.md", content: "# Spoon" }] },
      } as never,
    });
    const execution = (await ai.triggers.run(trigger.id!)) as { status?: string; interaction_id?: string; error?: string };
    assert.notEqual(execution.status, "failed", execution.error);
    const interaction = (await ai.interactions.get(execution.interaction_id!)) as unknown as Interaction;
    assert.equal(filesOf(interaction.environment_id).get("/workspace/spoon-knife/README.md"), "# Spoon");
    await ai.triggers.delete(trigger.id!);
  });

  it("still refuses the root and the reserved folders, in either spelling, creating nothing", async () => {
    const before = emulator.runtime.channels.size;
    for (const target of ["/opt", "/", "/usr/bin/python3", "/usr/libexec/interactions-emulator/sandbox-executor", "/etc/passwd"]) {
      await assert.rejects(
        ai.interactions.create({
          agent: AGENT,
          input: "hi",
          environment: { type: "remote", sources: [{ type: "inline", target, content: "x" }] },
        } as never),
        rejects(400, /sources\[0\]\.target/),
        target,
      );
    }
    assert.equal(emulator.runtime.channels.size, before);
  });
});

describe("refusals as the documentation states them", () => {
  it("answers an unknown model with a 404 (the API errors page: model_not_found)", async () => {
    await assert.rejects(ai.interactions.create({ model: "gpt-4o", input: "hi" } as never), rejects(404, /model "gpt-4o" is not emulated/));
    const { status, json } = await call("POST", "/v1beta/interactions", { model: "gpt-4o", input: "hi" });
    assert.equal(status, 404);
    assert.equal((json as { error: { code: string } }).error.code, "model_not_found");
  });

  it("names every resource it serves when a route does not exist, agents, triggers and webhooks included", async () => {
    const { status, json } = await call("GET", "/v1beta/nothing-here");
    assert.equal(status, 404);
    for (const resource of ["interactions", "environments", "credentials", "agents", "triggers", "webhooks"]) {
      assert.match(json.error.message, new RegExp(`/\\{version\\}/${resource}\\b`), resource);
    }
    assert.match(json.error.message, /\/upload\/\{version\}\/environments/);
    assert.match(json.error.message, /\/emulator\/faults/);
    assert.match(json.error.message, /\/health/);
  });
});

describe("credentials.update of an OAuth2 credential", () => {
  it("updates token_url and scopes (OAuth2UpdateConfig), and shows them", async () => {
    await ai.credentials.create({
      id: "oauth-docs",
      type: "oauth2",
      client_id: "client",
      client_secret: "secret",
      refresh_token: "refresh",
      token_url: "https://oauth2.example.com/token",
      scopes: ["read"],
    } as never);
    const updated = (await ai.credentials.update("oauth-docs", {
      type: "oauth2",
      token_url: "https://oauth2.example.com/v2/token",
      scopes: ["read", "write"],
    } as never)) as { token_url?: string; scopes?: string[] };
    assert.equal(updated.token_url, "https://oauth2.example.com/v2/token");
    assert.deepEqual(updated.scopes, ["read", "write"]);
    const shown = (await ai.credentials.get("oauth-docs")) as { token_url?: string; scopes?: string[]; client_secret?: string };
    assert.deepEqual(shown.scopes, ["read", "write"]);
    assert.equal(shown.client_secret, undefined, "secrets stay write-only");
  });
});

describe("the resumable upload protocol's refusals", () => {
  async function start(environmentId: string, filePath: string, length: number) {
    const started = await call("PUT", `/upload/v1beta/environments/${environmentId}/files/${filePath}`, undefined, {
      "x-goog-upload-protocol": "resumable",
      "x-goog-upload-command": "start",
      "x-goog-upload-header-content-length": String(length),
    });
    assert.equal(started.status, 200, JSON.stringify(started.json));
    return started.headers.get("x-goog-upload-url")!;
  }
  const send = (url: string, command: string, offset: number, body: string) =>
    fetch(url, {
      method: "POST",
      headers: { "x-goog-api-key": KEY, "x-goog-upload-command": command, "x-goog-upload-offset": String(offset) },
      body,
    });

  it('answers every refusal with X-Goog-Upload-Status: "final" when the upload is over, "active" when it goes on', async () => {
    const environment = await ai.environments.create({});
    // A refused start: nothing goes on.
    const refusedStart = await call("PUT", `/upload/v1beta/environments/${environment.id}/files/workspace/a.txt`, undefined, {
      "x-goog-upload-protocol": "multipart",
    });
    assert.equal(refusedStart.status, 400);
    assert.equal(refusedStart.headers.get("x-goog-upload-status"), "final");

    // A chunk at the wrong offset: refused, and the upload goes on.
    const url = await start(environment.id, "workspace/a.txt", 5);
    const wrongOffset = await send(url, "upload", 3, "abcde");
    assert.equal(wrongOffset.status, 400);
    assert.equal(wrongOffset.headers.get("x-goog-upload-status"), "active");

    // A refused finalize (fewer bytes than announced) ends the upload.
    const refusedFinalize = await send(url, "upload, finalize", 0, "abc");
    assert.equal(refusedFinalize.status, 400);
    assert.equal(refusedFinalize.headers.get("x-goog-upload-status"), "final");
    // What the Python SDK does next without the header (it resends the chunk): the upload is gone.
    const unknown = await send(url, "upload, finalize", 0, "abc");
    assert.equal(unknown.status, 404);
    assert.equal(unknown.headers.get("x-goog-upload-status"), "final");
  });

  it("lets a client that resends a chunk while the status is missing (both SDKs do) see the refusal itself", async () => {
    const environment = await ai.environments.create({});
    const url = await start(environment.id, "workspace/b.txt", 4);
    // The SDKs' chunk loop (our own code): send; resend up to three times while X-Goog-Upload-Status is missing.
    let response = await send(url, "upload, finalize", 0, "ab");
    for (let attempt = 0; attempt < 3 && !response.headers.get("x-goog-upload-status"); attempt += 1) {
      response = await send(url, "upload, finalize", 0, "ab");
    }
    assert.equal(response.status, 400, "the refusal, not the 404 of a resend");
    assert.match(((await response.json()) as { error: { message: string } }).error.message, /announced 4/);
  });
});
