// End to end: the official @google/genai SDK, unchanged, against the emulator started as `npm start`
// starts it, with real Docker sandboxes.
// covers: interactions.create, interactions.get, CreateAgentInteraction.tools(code_execution), CreateAgentInteraction.agent, CreateAgentInteraction.input
// covers: CreateAgentInteraction.environment, CreateAgentInteraction.environment.environment_id
// covers: CreateAgentInteraction.environment.env, CreateAgentInteraction.environment.env.credential
// covers: CreateAgentInteraction.environment.sources, CreateAgentInteraction.previous_interaction_id

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import Docker from "dockerode";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";

const AGENT = "antigravity-preview-05-2026";
const KEY = "test-key-one";
const OTHER_KEY = "test-key-two";

let emulator: EmulatorProcess;
let ai: GoogleGenAI;

function client(apiKey: string, extra: { apiVersion?: string } = {}): GoogleGenAI {
  return new GoogleGenAI({ apiKey, ...extra, httpOptions: { baseUrl: emulator.url } });
}

function statusOf(error: unknown): number | undefined {
  return (error as { status?: number }).status;
}

before(async () => {
  emulator = await startEmulatorProcess({ EMULATOR_MAX_SOURCES_BYTES: String(64 * 1024) });
  ai = client(KEY);
});

after(async () => {
  await emulator?.destroy();
});

describe("interactions through the official SDK", () => {
  // The SDK's create() type is a union with its streaming overload; a unary call returns this shape.
  let first: { id?: string; status?: string; environment_id?: string; output_text?: string; steps?: Array<{ type: string }> };
  let continued: typeof first;

  it("creates an interaction that writes a file and runs a command in a new sandbox", async () => {
    first = await ai.interactions.create({
      agent: AGENT,
      input: "Use your filesystem tool to create `/workspace/a.txt` containing 'hi', then run `cat /workspace/a.txt` using code_execution.",
      tools: [{ type: "code_execution" }],
      environment: { type: "remote", sources: [{ type: "inline", target: "workspace/data.json", content: "{}" }] },
    });
    assert.equal(first.status, "completed");
    assert.match(first.id ?? "", /^int_[a-z2-7]{24}$/);
    assert.match(first.environment_id ?? "", /^env_[a-z2-7]{24}$/);
    assert.match(first.output_text ?? "", /hi/);
    // The create answer holds only the run's steps, as the service's; GET adds the user_input step (below).
    const types = (first.steps ?? []).map((step) => step.type);
    assert.deepEqual(types, ["function_call", "function_result", "code_execution_call", "code_execution_result", "model_output"]);
    const result = first.steps?.[3] as { result?: string; is_error?: boolean };
    assert.equal(result.result, "hi");
    assert.equal(result.is_error, false);
  });

  it("gets the same interaction back from the store", async () => {
    const fetched = await ai.interactions.get(first.id!);
    assert.equal(fetched.id, first.id);
    assert.equal(fetched.environment_id, first.environment_id);
    assert.equal(fetched.steps?.[0]?.type, "user_input", "GET gives the whole timeline, the input first");
    assert.deepEqual(fetched.steps?.slice(1), first.steps);
    assert.equal(fetched.output_text, first.output_text);
  });

  it("reuses the sandbox when a later interaction passes the environment ID", async () => {
    const before = await emulator.sandboxCount();
    const second = await ai.interactions.create({
      agent: AGENT,
      input: "Read `/workspace/a.txt` then read `/workspace/data.json`",
      environment: first.environment_id!,
      previous_interaction_id: first.id!,
    });
    assert.equal(second.environment_id, first.environment_id);
    assert.equal((second.steps?.[1] as { result?: string } | undefined)?.result, "hi");
    assert.equal((second.steps?.[3] as { result?: string } | undefined)?.result, "{}");
    assert.equal(await emulator.sandboxCount(), before);
    continued = second;
  });

  it("keeps the agent's planner state with each interaction and resumes it in the next (debug route only)", async () => {
    const planner = async (id: string, key = KEY) =>
      fetch(`${emulator.url}/emulator/interactions/${id}/planner`, { headers: { "x-goog-api-key": key } });
    const response = await planner(continued.id!);
    assert.equal(response.status, 200);
    const body = (await response.json()) as {
      previous_interaction_id: string;
      planner_state: {
        planner: string;
        data: { runs: Array<{ read: string; calls: Array<{ name: string; call_id: string; status: string }> }> };
      };
    };
    assert.equal(body.previous_interaction_id, first.id);
    assert.equal(body.planner_state.planner, "scripted");
    assert.deepEqual(
      body.planner_state.data.runs.map((run) => [run.read, run.calls.map((call) => `${call.name} ${call.status}`)]),
      [
        ["phrasing", ["write_file ok", "code_execution ok"]],
        ["phrasing", ["read_file ok", "read_file ok"]],
      ],
    );
    assert.equal(body.planner_state.data.runs[1]?.calls[0]?.call_id, (continued.steps?.[0] as { id?: string } | undefined)?.id);
    assert.equal(JSON.stringify(await ai.interactions.get(continued.id!)).includes("planner"), false, "not on the public resource");
    assert.equal((await planner(continued.id!, OTHER_KEY)).status, 404);
  });

  it("serves /v1beta/ as well as the SDK's default /v1/", async () => {
    const beta = client(KEY, { apiVersion: "v1beta" });
    const created = await beta.interactions.create({ agent: AGENT, input: "Hello there" });
    assert.equal(created.status, "completed");
    const viaV1 = await ai.interactions.get(created.id!);
    assert.equal(viaV1.id, created.id);
    assert.match(viaV1.output_text ?? "", /no tool call/i);
  });

  it("answers 401 with a Google error when no API key is sent", async () => {
    const response = await fetch(`${emulator.url}/v1beta/interactions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ agent: AGENT, input: "hi" }),
    });
    assert.equal(response.status, 401);
    assert.match(response.headers.get("content-type") ?? "", /application\/json/);
    const body = (await response.json()) as { error: { code: string; status: string; message: string } };
    assert.equal(body.error.code, "authentication");
    assert.equal(body.error.status, "UNAUTHENTICATED");
    assert.match(body.error.message, /x-goog-api-key/);
  });

  it("answers 404 for another API key's interaction, as for a missing one", async () => {
    const other = client(OTHER_KEY);
    await assert.rejects(other.interactions.get(first.id!), (error: unknown) => statusOf(error) === 404);
    await assert.rejects(ai.interactions.get("int_doesnotexist"), (error: unknown) => statusOf(error) === 404);
  });

  it("answers 404 for another API key's environment and previous interaction", async () => {
    const other = client(OTHER_KEY);
    await assert.rejects(
      other.interactions.create({ agent: AGENT, input: "Run `ls`", environment: first.environment_id! }),
      (error: unknown) => statusOf(error) === 404,
    );
    await assert.rejects(
      other.interactions.create({ agent: AGENT, input: "hi", previous_interaction_id: first.id! }),
      (error: unknown) => statusOf(error) === 404,
    );
  });

  it("refuses an agent it does not emulate, saying which it does", async () => {
    await assert.rejects(ai.interactions.create({ agent: "deep-research-pro-preview-12-2025", input: "hi" }), (error: unknown) => {
      assert.equal(statusOf(error), 400);
      assert.match((error as Error).message, /antigravity/);
      return true;
    });
  });

  it("keeps interactions and environments across a restart", async () => {
    await emulator.stop();
    emulator = await startEmulatorProcess({}, emulator);
    ai = client(KEY);
    const fetched = await ai.interactions.get(first.id!);
    assert.equal(fetched.id, first.id);
    const again = await ai.interactions.create({ agent: AGENT, input: "read `/workspace/a.txt`", environment: first.environment_id! });
    assert.equal((again.steps?.[1] as { result?: string } | undefined)?.result, "hi");
  });
});

describe("bad sources are refused with a 400 that leaves nothing behind", () => {
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ["a target with ..", { type: "inline", target: "workspace/../../tmp/escaped", content: "x" }, /contains "\.\."/],
    // An absolute target is the relative one (issue 30), but not where it reaches a reserved folder.
    ["an absolute target on a reserved folder", { type: "inline", target: "/opt", content: "x" }, /holds \/opt\/emulator/],
    ["a target under a system folder", { type: "inline", target: "etc/profile.d/x.sh", content: "x" }, /system folder/],
    ["invalid base64", { type: "inline", target: "workspace/b.bin", content: "%%%", encoding: "base64" }, /not valid base64/],
    [
      "content over the size limit",
      { type: "inline", target: "workspace/big", content: "x".repeat(64 * 1024 + 1) },
      /larger than 65536 bytes/,
    ],
    [
      "an unsupported source type",
      { type: "skill_registry", source: "skills/pdf", target: "skills/pdf" },
      /sources\[0\]\.type: must be one of "gcs", "inline", "repository", got "skill_registry"/,
    ],
  ];
  for (const [what, source, pattern] of cases) {
    it(`refuses ${what}`, async () => {
      const before = await emulator.sandboxCount();
      await assert.rejects(
        ai.interactions.create({ agent: AGENT, input: "Run `ls`", environment: { type: "remote", sources: [source] } }),
        (error: unknown) => {
          assert.equal(statusOf(error), 400);
          assert.match((error as Error).message, pattern);
          return true;
        },
      );
      assert.equal(await emulator.sandboxCount(), before);
    });
  }

  it("refuses two sources with the same target", async () => {
    const before = await emulator.sandboxCount();
    await assert.rejects(
      ai.interactions.create({
        agent: AGENT,
        input: "Run `ls`",
        environment: {
          type: "remote",
          sources: [
            { type: "inline", target: "workspace/a", content: "1" },
            { type: "inline", target: "workspace/a", content: "2" },
          ],
        },
      }),
      (error: unknown) => statusOf(error) === 400 && /same file/.test((error as Error).message),
    );
    assert.equal(await emulator.sandboxCount(), before);
  });
});

describe("environment variables", () => {
  it("are seen by commands, and a later update through environment_id adds to them", async () => {
    const created = await ai.interactions.create({
      agent: AGENT,
      input: "Run `echo $GREETING-$LITERAL`",
      environment: { type: "remote", env: { GREETING: "hello", LITERAL: { value: "world" } } },
    });
    assert.equal((created.steps?.[1] as { result?: string } | undefined)?.result, "hello-world\n");
    const updated = await ai.interactions.create({
      agent: AGENT,
      input: "Run `echo $GREETING-$LITERAL`",
      environment: { type: "remote", environment_id: created.environment_id!, env: { GREETING: "hi" } },
    });
    assert.equal(updated.environment_id, created.environment_id);
    assert.equal((updated.steps?.[1] as { result?: string } | undefined)?.result, "hi-world\n");
  });

  it("refuse a reference to a credential that does not exist with a 400 naming the variable", async () => {
    await assert.rejects(
      ai.interactions.create({ agent: AGENT, input: "Run `true`", environment: { type: "remote", env: { S: { credential: "cred_1" } } } }),
      (error: unknown) => statusOf(error) === 400 && /environment\.env\.S: credential "cred_1" not found/.test((error as Error).message),
    );
  });
});

describe("a sandbox that dies", () => {
  it("fails the running interaction with a reason, and later reuse is refused as expired", async () => {
    const created = await ai.interactions.create({ agent: AGENT, input: "Run `true`", environment: { type: "remote" } });
    const docker = new Docker();
    const [container] = await docker.listContainers({
      filters: { label: [`dev.interactions-emulator.environment=${created.environment_id}`] },
    });
    assert.ok(container, "the environment's container was not found");
    const running = ai.interactions.create({ agent: AGENT, input: "Run `sleep 30`", environment: created.environment_id! });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await docker.getContainer(container.Id).remove({ force: true });
    const failed = await running;
    assert.equal(failed.status, "failed");
    assert.match(failed.output_text ?? "", /sandbox stopped answering/);
    assert.equal((failed as { errors?: Array<{ code: string }> }).errors?.[0]?.code, "service_unavailable");
    await assert.rejects(
      ai.interactions.create({ agent: AGENT, input: "Run `true`", environment: created.environment_id! }),
      (error: unknown) => statusOf(error) === 400 && /expired/.test((error as Error).message),
    );
  });
});

describe("idle environments", () => {
  it("expire after EMULATOR_ENVIRONMENT_TTL_SECONDS: the container is removed and reuse is refused", async () => {
    const short = await startEmulatorProcess({ EMULATOR_ENVIRONMENT_TTL_SECONDS: "1" });
    try {
      const sdk = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: short.url } });
      const created = await sdk.interactions.create({ agent: AGENT, input: "Run `true`", environment: { type: "remote" } });
      assert.equal(await short.sandboxCount(), 1);
      let count = 1;
      // Waits for the sweep (a loaded machine can take a while), not for a fixed time.
      for (let tries = 0; tries < 150 && count > 0; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        count = await short.sandboxCount();
      }
      assert.equal(count, 0, "the idle sandbox was not removed");
      await assert.rejects(
        sdk.interactions.create({ agent: AGENT, input: "Run `true`", environment: created.environment_id! }),
        (error: unknown) => statusOf(error) === 400 && /expired/.test((error as Error).message),
      );
    } finally {
      await short.destroy();
    }
  });
});
