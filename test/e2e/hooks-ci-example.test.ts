// docs/testing-hooks-in-ci.md's worked example, run as it is written there (only the import of
// startEmulator differs: the page imports the package by name). A suite of a hook configuration that
// uses all three of issue 20's features: it starts from a prepared state (an environment with the
// repository's files, the seed's security gate and a "toolchain" installed, exported once), makes the
// gate time out on purpose to see the documented fail-open, and ends by asking hook coverage whether
// every rule was exercised, as a CI gate would.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI, type Interactions } from "@google/genai";
import { type EmbeddedEmulator, startEmulator } from "../../server/embed.js";
import { SEED_GATE_SCRIPT } from "../support/seed-hooks-files.js";

// ---- The page's example, from here to the end marker ----
type Interaction = Interactions.Interaction;
const AGENT = "antigravity-preview-05-2026";
const STATE_FILE = path.join(os.tmpdir(), `hooks-ci-example-${process.pid}.tar.gz`);

const hooksJson = {
  "security-gate": {
    pre_tool_execution: [
      { matcher: "code_execution", hooks: [{ type: "command", command: "python3 /.agents/hooks-scripts/gate.py", timeout: 3 }] },
    ],
  },
};

/** Once (in CI, a cached step): an environment with the repository, the hooks and a toolchain, saved to a file. */
async function prepareState(file: string): Promise<void> {
  const emulator = await startEmulator();
  try {
    const ai = new GoogleGenAI({ apiKey: emulator.apiKey, httpOptions: { baseUrl: emulator.baseUrl } });
    const setup = await ai.interactions.create({
      agent: AGENT,
      input:
        "Run `mkdir -p ~/.local/bin && printf '#!/bin/sh\\necho lint ok\\n' > ~/.local/bin/lint && chmod +x ~/.local/bin/lint` using code_execution.",
      tools: [{ type: "code_execution" }],
      environment: {
        type: "remote",
        sources: [
          { type: "inline", target: ".agents/hooks.json", content: JSON.stringify(hooksJson, null, 2) },
          { type: "inline", target: ".agents/hooks-scripts/gate.py", content: SEED_GATE_SCRIPT },
          { type: "inline", target: "workspace/src/app.py", content: "print('hello')\n" },
        ],
      },
    });
    assert.equal(setup.status, "completed");
    const saved = await fetch(`${emulator.baseUrl}/emulator/state`, { headers: { "x-goog-api-key": emulator.apiKey } });
    assert.equal(saved.status, 200);
    fs.writeFileSync(file, Buffer.from(await saved.arrayBuffer()));
  } finally {
    await emulator.stop();
  }
}

let emulator: EmbeddedEmulator;
let ai: GoogleGenAI;
let environment: string;

async function emulatorApi(method: string, route: string, body?: unknown): Promise<any> {
  const response = await fetch(`${emulator.baseUrl}${route}`, {
    method,
    headers: { "x-goog-api-key": emulator.apiKey, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  assert.ok(response.ok, `${method} ${route}: ${response.status} ${await response.clone().text()}`);
  return response.json();
}

async function run(code: string): Promise<Interaction> {
  return ai.interactions.create({
    agent: AGENT,
    input: `Run \`${code}\` using code_execution.`,
    tools: [{ type: "code_execution" }],
    environment,
  });
}

const resultOf = (interaction: Interaction): any => (interaction.steps as any[]).find((step) => step.type === "code_execution_result");

before(async () => {
  if (!fs.existsSync(STATE_FILE)) await prepareState(STATE_FILE);
  emulator = await startEmulator({ state: STATE_FILE });
  ai = new GoogleGenAI({ apiKey: emulator.apiKey, httpOptions: { baseUrl: emulator.baseUrl } });
  const listed = await ai.environments.list();
  environment = (listed as any).environments[0].id;
});
after(async () => {
  await emulator?.stop();
});

describe("the security gate", () => {
  it("starts from the prepared environment", async () => {
    const interaction = await run("~/.local/bin/lint && cat src/app.py");
    assert.match(resultOf(interaction).result ?? JSON.stringify(resultOf(interaction)), /lint ok[\s\S]*hello/);
  });

  it("denies rm -rf", async () => {
    const interaction = await run("rm -rf /workspace/src");
    assert.equal(resultOf(interaction).is_error, true);
    assert.match(JSON.stringify(resultOf(interaction)), /Destructive command blocked/);
  });

  it("fails open when the gate times out, as the service documents", async () => {
    await emulatorApi("POST", "/emulator/faults", {
      target: { kind: "hook", command: "python3 /.agents/hooks-scripts/gate.py" },
      effect: { kind: "timeout" },
      times: 1,
    });
    const interaction = await run("rm -rf /tmp/scratch");
    assert.notEqual(resultOf(interaction).is_error, true, "a timed-out gate allows the call");
    const trace = await emulatorApi("GET", `/emulator/interactions/${interaction.id}/hooks`);
    const handler = trace.tool_calls[0].pre.handlers[0];
    assert.equal(handler.fail_open.code, "timeout");
    assert.ok(handler.injected_fault, "the trace says the timeout was injected");
    await emulatorApi("DELETE", "/emulator/faults");
  });
});

describe("coverage", () => {
  it("every rule of the hooks was exercised", async () => {
    const report = await emulatorApi("GET", `/emulator/hooks/coverage?environment=${environment}`);
    const unexercised = report.configs.flatMap((config: any) =>
      config.rules
        .filter((rule: any) => rule.state !== "exercised" && rule.state !== "disabled")
        .map((rule: any) => `${config.path}:${rule.line} ${rule.state}`),
    );
    assert.deepEqual(unexercised, []);
  });
});
// ---- end of the page's example ----

after(() => fs.rmSync(STATE_FILE, { force: true }));
