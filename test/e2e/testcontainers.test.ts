// InteractionsEmulatorContainer (interactions-sandbox-emulator/testcontainers) against the real engine:
// the emulator's compose image built from this checkout when the engine lacks it, the container started
// with the engine's socket and a unique instance, the official SDK running code in a sandbox the
// emulator in the container made on the same engine, and stop() leaving no container, volume or image
// of that instance, nor the emulator's own container. Then the same from a fresh scratch project's own
// node:test file, as another project's CI uses it.
//
// Ryuk is off (TESTCONTAINERS_RYUK_DISABLED=true): Testcontainers' reaper is an image pulled from Docker
// Hub, and this machine has no registry; the module's stop() removes everything on its own.

process.env.TESTCONTAINERS_RYUK_DISABLED = "true";

import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import Docker from "dockerode";
import { InteractionsEmulatorContainer } from "../../clients/node/index.js";
import { baseUrlOf, LABEL_CONTAINER_OF_INSTANCE, publishOnLoopbackOnly } from "../../clients/node/container-settings.js";
import { EMULATOR_IMAGE_REPOSITORY, LOCAL_NODE_IMAGE } from "../../clients/node/emulator-image.js";
import { makeScratchProject } from "../support/scratch-project.js";
import { startCli } from "../support/cli-runs.js";
import { buildDepsCache, buildStageImages, removeImage, sandboxImageTags } from "../support/compose-stack.js";
import { objectsOfInstance } from "../support/docker-fixture.js";

const AGENT = "antigravity-preview-05-2026";
const docker = new Docker();

async function emulatorImageTags(): Promise<Set<string>> {
  const images = await docker.listImages({ filters: { reference: [EMULATOR_IMAGE_REPOSITORY] } });
  return new Set(images.flatMap((image) => image.RepoTags ?? []));
}

async function containerExists(id: string): Promise<boolean> {
  return docker
    .getContainer(id)
    .inspect()
    .then(
      () => true,
      () => false,
    );
}

let imagesBefore: Set<string>;
let stageImagesBefore: Set<string>;
let sandboxImagesBefore: Set<string>;

before(
  async () => {
    [imagesBefore, stageImagesBefore, sandboxImagesBefore] = await Promise.all([
      emulatorImageTags(),
      buildStageImages(),
      sandboxImageTags(),
    ]);
    // The dependency stage (npm ci compiling the native modules: minutes) as the tagged cache the compose
    // test keeps, so that only the first of these runs compiles; the module's build then reuses it.
    await buildDepsCache(process.env.NODE_IMAGE ?? LOCAL_NODE_IMAGE, (line) => console.log(`  deps: ${line}`), { removeOlder: false });
  },
  { timeout: 30 * 60_000 },
);

// What the tests built goes: the emulator's image, the build's untagged stage images and a sandbox image
// the emulator in the container may have built. The dependency stage's cache (compose-stack.ts) stays.
after(async () => {
  for (const tag of await emulatorImageTags()) if (!imagesBefore?.has(tag)) await removeImage(tag).catch(() => undefined);
  for (const id of await buildStageImages()) if (!stageImagesBefore?.has(id)) await removeImage(id).catch(() => undefined);
  for (const tag of await sandboxImageTags()) if (!sandboxImagesBefore?.has(tag)) await removeImage(tag).catch(() => undefined);
});

describe("InteractionsEmulatorContainer", { timeout: 20 * 60_000 }, () => {
  it("runs the emulator's image with the socket, serves the SDK, and stop() removes its sandboxes and itself", async () => {
    const progress: string[] = [];
    const emulator = await new InteractionsEmulatorContainer()
      .withApiKey("tc-e2e-key")
      .withSettings({ EMULATOR_TOOL_TIMEOUT_SECONDS: "60" })
      .withBuildProgress((line) => {
        progress.push(line);
        console.log(`  build: ${line}`);
      })
      .start();
    let stopped = false;
    try {
      if (!imagesBefore.has(`${(await docker.getContainer(emulator.getId()).inspect()).Config.Image}`)) {
        assert.ok(
          progress.some((line) => /building the emulator's image/.test(line)),
          progress.join("\n"),
        );
      }
      assert.equal(emulator.apiKey, "tc-e2e-key");
      assert.match(emulator.instance, /^testcontainers-[0-9a-f]{10}$/);
      // With an engine on this machine, published on the host's loopback only, as compose publishes it
      // (the emulator holds the engine's socket); a test run in a container reaches the engine through
      // its bridge's gateway instead (Testcontainers' getHost()), and the port is published as usual.
      const port = emulator.getMappedPort(8080);
      const bindings = (await docker.getContainer(emulator.getId()).inspect()).NetworkSettings.Ports["8080/tcp"];
      if (publishOnLoopbackOnly(emulator.getHost())) {
        assert.equal(emulator.baseUrl, `http://127.0.0.1:${port}`);
        assert.deepEqual(
          bindings?.map((binding) => binding.HostIp),
          ["127.0.0.1"],
        );
      } else {
        assert.equal(emulator.baseUrl, baseUrlOf(emulator.getHost(), port));
      }
      assert.equal(emulator.getLabels()[LABEL_CONTAINER_OF_INSTANCE], emulator.instance);
      const health = (await (await fetch(`${emulator.baseUrl}/health`)).json()) as Record<string, unknown>;
      assert.equal(health.status, "ok", JSON.stringify(health));

      const ai = new GoogleGenAI({ apiKey: emulator.apiKey, httpOptions: { baseUrl: emulator.baseUrl } });
      const interaction = await ai.interactions.create({
        agent: AGENT,
        input: "Run `echo from the container > /workspace/out.txt && cat /workspace/out.txt` using code_execution.",
        tools: [{ type: "code_execution" }],
        environment: { type: "remote" },
      });
      assert.equal(interaction.status, "completed", JSON.stringify(interaction));
      assert.match(JSON.stringify(interaction.steps), /from the container/);
      // A fork: a committed image and another container, both with the instance label.
      await ai.environments.create({ from_environment: `environments/${interaction.environment_id}` });
      const made = await objectsOfInstance(emulator.instance);
      assert.ok(made.containers >= 2 && made.images >= 1, JSON.stringify(made));

      const id = emulator.getId();
      await emulator.stop();
      stopped = true;
      assert.deepEqual(await objectsOfInstance(emulator.instance), { containers: 0, volumes: 0, images: 0 });
      assert.equal(await containerExists(id), false, "the emulator's own container is removed");
      await emulator.stop(); // a second stop() is harmless
    } finally {
      if (!stopped) await emulator.stop().catch(() => undefined);
    }
  });

  it("refuses a setting the container decides, before anything starts", async () => {
    await assert.rejects(
      new InteractionsEmulatorContainer().withSettings({ PORT: "9000" }).start(),
      /withSettings\(\): PORT is decided by the container/,
    );
  });
});

describe("InteractionsEmulatorContainer from a fresh scratch project", { timeout: 20 * 60_000 }, () => {
  let scratch: string;

  before(() => {
    scratch = makeScratchProject({
      prefix: "emulator-tc-scratch-",
      name: "my-agent-ci",
      testFile: "agent.test.js",
      testSource: `import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { InteractionsEmulatorContainer } from "interactions-sandbox-emulator/testcontainers";

let emulator;
let ai;

before(async () => {
  emulator = await new InteractionsEmulatorContainer().start();
  ai = new GoogleGenAI({ apiKey: emulator.apiKey, httpOptions: { baseUrl: emulator.baseUrl } });
  console.log(\`EMULATOR \${emulator.instance} \${emulator.getId()} \${emulator.baseUrl}\`);
}, { timeout: 600_000 });
after(() => emulator.stop());

test("the agent runs code in a sandbox", async () => {
  const interaction = await ai.interactions.create({
    agent: "${AGENT}",
    input: "Run \`echo hello from the sandbox\` using code_execution.",
    tools: [{ type: "code_execution" }],
    environment: { type: "remote" },
  });
  assert.equal(interaction.status, "completed");
  assert.match(interaction.output_text ?? "", /hello from the sandbox/);
});
`,
    });
  });
  after(() => {
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it("starts the container, runs one SDK interaction and stops it, leaving no container, volume or image of it", async () => {
    const run = startCli(["--test", "--test-reporter=tap"], {
      cwd: scratch,
      command: [process.execPath],
      // The engine as a loopback address (it runs on this machine, as the compose test assumes): the
      // port is then published on 127.0.0.1 only, and the SDK reaches it there.
      env: { TESTCONTAINERS_RYUK_DISABLED: "true", TESTCONTAINERS_HOST_OVERRIDE: "127.0.0.1" },
    });
    const { status } = await run.exited;
    const output = `${run.stdout()}\n${run.stderr()}`;
    assert.equal(status, 0, output);
    assert.match(output, /^# pass 1$/m);
    const match = /EMULATOR (\S+) ([0-9a-f]{64}) (\S+)/.exec(output);
    assert.ok(match, output);
    const [, instance, containerId, baseUrl] = match;
    assert.match(baseUrl!, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.deepEqual(await objectsOfInstance(instance!), { containers: 0, volumes: 0, images: 0 });
    assert.equal(await containerExists(containerId!), false, "the emulator's container is removed");
  });
});
