// startEmulator(), the package's entry point: an emulator in the test's own process, on a free port with
// a throwaway data folder, whose stop() removes every container, volume and image it made (a fork's
// image included) and the folder. Then the same from a fresh scratch project, as another project's
// test suite uses it: its own package.json with a `file:` dependency on this repository, which its
// node_modules links to (what npm makes of it, without installing anything), the SDK as its own
// dependency, and a node:test file like the one in docs/embedding.md.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { startEmulator } from "../../server/embed.js";
import { makeScratchProject } from "../support/scratch-project.js";
import { startCli } from "../support/cli-runs.js";
import { objectsOfInstance } from "../support/docker-fixture.js";

const AGENT = "antigravity-preview-05-2026";

describe("startEmulator() in this process", () => {
  it("serves the SDK on a free port and removes its containers, volumes, fork image and data folder on stop()", async () => {
    const emulator = await startEmulator();
    let stopped = false;
    try {
      assert.match(emulator.baseUrl, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.notEqual(new URL(emulator.baseUrl).port, "8080");
      assert.ok(emulator.dataDir.startsWith(os.tmpdir()));
      const ai = new GoogleGenAI({ apiKey: emulator.apiKey, httpOptions: { baseUrl: emulator.baseUrl } });
      const interaction = await ai.interactions.create({
        agent: AGENT,
        input: "Run `echo embedded > /workspace/out.txt && cat /workspace/out.txt` using code_execution.",
        tools: [{ type: "code_execution" }],
        environment: { type: "remote" },
      });
      assert.equal(interaction.status, "completed");
      assert.match(JSON.stringify(interaction.steps), /embedded/);
      await ai.environments.create({ from_environment: `environments/${interaction.environment_id}` });
      const made = await objectsOfInstance(emulator.instance);
      assert.ok(made.containers >= 2 && made.images >= 1 && made.volumes >= 1, JSON.stringify(made));

      await emulator.stop();
      stopped = true;
      assert.deepEqual(await objectsOfInstance(emulator.instance), { containers: 0, volumes: 0, images: 0 });
      assert.equal(fs.existsSync(emulator.dataDir), false);
      await emulator.stop(); // a second stop() is harmless
      await assert.rejects(fetch(`${emulator.baseUrl}/health`));
    } finally {
      if (!stopped) await emulator.stop();
    }
  });

  it("runs several at once, each with its own port, folder and key, and keeps a data folder it was given", async () => {
    const given = fs.mkdtempSync(path.join(os.tmpdir(), "embedded-given-"));
    const [first, second] = await Promise.all([startEmulator({ apiKey: "first-key" }), startEmulator({ dataDir: given })]);
    try {
      assert.notEqual(first.baseUrl, second.baseUrl);
      assert.notEqual(first.instance, second.instance);
      assert.equal(first.apiKey, "first-key");
      assert.equal(second.dataDir, given);
      for (const emulator of [first, second]) {
        const health = await fetch(`${emulator.baseUrl}/health`);
        assert.equal(health.status, 200);
      }
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
    assert.equal(fs.existsSync(first.dataDir), false);
    assert.equal(fs.existsSync(given), true, "a folder the caller gave is the caller's");
    fs.rmSync(given, { recursive: true, force: true });
  });
});

describe("startEmulator() from a fresh scratch project", () => {
  let scratch: string;

  before(() => {
    scratch = makeScratchProject({
      prefix: "emulator-scratch-",
      name: "my-agent-tests",
      testFile: "agent.test.js",
      testSource: `import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { startEmulator } from "interactions-sandbox-emulator";

let emulator;
let ai;

before(async () => {
  emulator = await startEmulator();
  ai = new GoogleGenAI({ apiKey: emulator.apiKey, httpOptions: { baseUrl: emulator.baseUrl } });
  console.log(\`EMULATOR \${emulator.instance} \${emulator.dataDir}\`);
});
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
  const fork = await ai.environments.create({ from_environment: \`environments/\${interaction.environment_id}\` });
  assert.equal(fork.status, "active");
});
`,
    });
  });
  after(() => {
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it("runs one SDK interaction in the project's own test and leaves no container, volume or image behind", async () => {
    const run = startCli(["--test", "--test-reporter=tap"], { cwd: scratch, command: [process.execPath] });
    const { status } = await run.exited;
    const output = `${run.stdout()}\n${run.stderr()}`;
    assert.equal(status, 0, output);
    assert.match(output, /^# pass 1$/m);
    const match = /EMULATOR (\S+) (\S+)/.exec(output);
    assert.ok(match, output);
    const [, instance, dataDir] = match;
    assert.deepEqual(await objectsOfInstance(instance!), { containers: 0, volumes: 0, images: 0 });
    assert.equal(fs.existsSync(dataDir!), false);
  });
});
