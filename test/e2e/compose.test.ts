// docker-compose.yml as a user runs it, on a machine without a container registry: `up --build` builds
// both services from server/Dockerfile FROM the local Node.js image (the set-up's, on the offline base),
// the emulator in the stack builds the sandbox image on the host's engine through the socket, the real
// SDK runs an interaction whose hook denies one call and whose other call leaves through the proxy
// service to an upstream the test runs on the stack's own network; `down -v --rmi local` then leaves no
// container, volume, network or image of the stack, and no sandbox.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { OFFLINE_BASE_TAG } from "../../server/sandbox/docker/image.js";
import {
  buildStageImages,
  imageExists,
  removeImage,
  sandboxImageTags,
  startComposeStack,
  type ComposeStack,
} from "../support/compose-stack.js";

const AGENT = "antigravity-preview-05-2026";
const KEY = "compose-e2e-key";
const UPSTREAM_DOMAIN = "api.compose-test.example";
// The upstream: answers every request with what it received, as JSON.
const UPSTREAM_PROGRAM =
  'require("http").createServer((q, s) => { s.setHeader("content-type", "application/json"); ' +
  's.end(JSON.stringify({ url: q.url, headers: q.headers })); }).listen(8081, () => console.log("upstream ready"))';
const HOOKS = {
  gate: {
    pre_tool_execution: [
      {
        matcher: "code_execution",
        hooks: [
          {
            type: "command",
            command: `if grep -q 'rm -rf'; then echo '{"decision":"deny","reason":"no rm -rf in this stack"}'; fi`,
          },
        ],
      },
    ],
  },
};

// Where the offline base exists (no registry), the stack's emulator is given a base image that is
// neither present nor pullable (its registry is a closed port on the engine's loopback): as for
// debian:bookworm-slim on a machine without a registry, the emulator falls back to the offline base, and
// as the name is new each run, so is the sandbox image's tag, which the emulator therefore builds itself.
const offlineBase = await imageExists(OFFLINE_BASE_TAG);
const UNPULLABLE_BASE = `127.0.0.1:9/iemu-compose-test-base:${process.pid}-${Date.now()}`;
let stack: ComposeStack;
let stageImagesBefore: Set<string>;
let sandboxImagesBefore: Set<string>;
let stackSandboxImage: string | undefined;
let environmentId: string | undefined;

const progress = (line: string) => console.log(`  compose: ${line}`);

before(
  async () => {
    stageImagesBefore = await buildStageImages();
    sandboxImagesBefore = await sandboxImageTags();
    stack = await startComposeStack({
      env: {
        EMULATOR_API_KEYS: KEY,
        EMULATOR_EGRESS_HOST_MAP: `${UPSTREAM_DOMAIN}=upstream:8081`,
        ...(offlineBase ? { EMULATOR_BASE_IMAGE: UNPULLABLE_BASE } : {}),
      },
      override: {
        version: "3.8",
        services: {
          upstream: { image: process.env.NODE_IMAGE ?? "interactions-emulator-node:local", command: ["node", "-e", UPSTREAM_PROGRAM] },
        },
      },
      progress,
    });
    console.log(
      `  compose: dependency stage ${(stack.timings.depsCacheMs / 1000).toFixed(0)} s, up --build until /health ${(stack.timings.upMs / 1000).toFixed(0)} s`,
    );
  },
  { timeout: 30 * 60_000 },
);

after(async () => {
  await stack?.cleanUp();
  if (stackSandboxImage && !sandboxImagesBefore?.has(stackSandboxImage)) await removeImage(stackSandboxImage).catch(() => undefined);
  for (const id of await buildStageImages()) if (!stageImagesBefore?.has(id)) await removeImage(id).catch(() => undefined);
});

describe("docker-compose.yml, offline", { timeout: 10 * 60_000 }, () => {
  it("built the sandbox image from inside the emulator container, on the offline base, on the engine it drives", async (t) => {
    const logs = await stack.logs("emulator");
    const ready = /sandbox image (interactions-emulator-sandbox:[0-9a-f]+) ready/.exec(logs);
    stackSandboxImage = ready?.[1];
    if (!offlineBase) {
      t.skip(`no ${OFFLINE_BASE_TAG} on this engine: the sandbox image comes from the registry's base`);
      return;
    }
    assert.ok(ready, `the emulator's log says the image it built:\n${logs}`);
    assert.match(logs, new RegExp(`building sandbox image ${ready[1]} FROM ${OFFLINE_BASE_TAG}`));
    assert.ok(await imageExists(ready[1]!));
  });

  it("runs an SDK interaction whose hook denies one call and whose other call reaches an upstream through the proxy service", async () => {
    const ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: stack.url } });
    const interaction = await ai.interactions.create({
      agent: AGENT,
      input: `\`\`\`tool_calls\n${JSON.stringify([
        { name: "code_execution", args: { code: "rm -rf /workspace/precious" } },
        { name: "code_execution", args: { code: `curl -sS http://${UPSTREAM_DOMAIN}/through-the-stack -H 'X-Api-Key: from-the-sandbox'` } },
      ])}\n\`\`\``,
      environment: {
        type: "remote",
        sources: [{ type: "inline", target: ".agents/hooks.json", content: JSON.stringify(HOOKS) }],
        network: { allowlist: [{ domain: UPSTREAM_DOMAIN, transform: { "X-Api-Key": "injected-by-the-proxy" } }] },
      },
    });
    environmentId = interaction.environment_id;
    assert.equal(interaction.status, "completed");
    const results = (interaction.steps as Array<Record<string, any>>).filter((step) => step.type === "code_execution_result");
    assert.equal(results.length, 2);
    assert.equal(results[0]!.is_error, true);
    assert.equal(results[0]!.result, 'Tool call denied by hook "gate": no rm -rf in this stack');
    assert.equal(results[1]!.is_error, false, results[1]!.result);
    const received = JSON.parse(results[1]!.result) as { url: string; headers: Record<string, string> };
    assert.equal(received.url, "/through-the-stack");
    assert.equal(received.headers["x-api-key"], "injected-by-the-proxy", "the proxy service injected the policy's header");

    const trace = await fetch(`${stack.url}/emulator/interactions/${interaction.id}/hooks`, { headers: { "x-goog-api-key": KEY } });
    const calls = ((await trace.json()) as { tool_calls: Array<Record<string, any>> }).tool_calls;
    assert.equal(calls[0]!.pre.handlers[0].decision, "deny");
    assert.equal(calls[1]!.pre.handlers[0].decision, "allow");

    // The dashboard ships in the image: its page and its browser modules answer.
    const page = await fetch(`${stack.url}/ui`);
    assert.equal(page.status, 200, "the dashboard's page in the compose image");
    assert.equal((await fetch(`${stack.url}/ui/assets/app.js`)).status, 200, "the dashboard's modules (ui/) in the compose image");

    // With the proxy as its own service, the egress log is its stdout: one JSON line per attempt.
    const attempts = (await stack.logs("proxy"))
      .split("\n")
      .map((line) => line.slice(line.indexOf("{")))
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.ok(
      attempts.some((entry) => entry.host === UPSTREAM_DOMAIN && entry.decision === "allowed" && entry.environment_id === environmentId),
      JSON.stringify(attempts),
    );
  });

  it("leaves no container, volume, network or image of the stack, nor any sandbox, after down -v --rmi local", async () => {
    // The environment goes through the API, as a user would end it; the warm pool's sandbox goes when the
    // emulator stops; `down` removes the rest.
    if (environmentId) await new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: stack.url } }).environments.delete(environmentId);
    await stack.down();
    assert.deepEqual(await stack.leftovers(), { containers: [], volumes: [], networks: [], images: [] });
  });
});
