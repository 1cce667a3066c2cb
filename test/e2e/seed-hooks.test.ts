// The service documentation's hook examples, verbatim (only the client's base URL differs), against
// the emulator with real sandboxes, plus the emulator's hook trace for each.
// covers: interactions.create, CreateAgentInteraction.environment.sources

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";
import { SEED_GATE_SCRIPT } from "../support/seed-hooks-files.js";

let emulator: EmulatorProcess;
let client: GoogleGenAI;
const API_KEY = "seed-examples-key";

before(async () => {
  emulator = await startEmulatorProcess();
  client = new GoogleGenAI({ apiKey: API_KEY, httpOptions: { baseUrl: emulator.url } });
});
after(async () => {
  await emulator?.destroy();
});

async function hookTrace(interactionId: string): Promise<{ status: number; body: Record<string, any> }> {
  const response = await fetch(`${emulator.url}/emulator/interactions/${interactionId}/hooks`, { headers: { "x-goog-api-key": API_KEY } });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

// ---- The seed's first JavaScript example, verbatim from here to the next marker ----
const hooksConfig = {
  "security-gate": {
    pre_tool_execution: [
      {
        matcher: "code_execution",
        hooks: [
          {
            type: "command",
            command: "python3 /.agents/hooks-scripts/gate.py",
            timeout: 10,
          },
        ],
      },
    ],
  },
};

async function securityGateExample() {
  const interaction = await client.interactions.create({
    agent: "antigravity-preview-05-2026",
    input: "Run `rm -rf /tmp/forbidden` using code_execution.",
    tools: [{ type: "code_execution" }],
    environment: {
      type: "remote",
      sources: [
        {
          type: "inline",
          target: ".agents/hooks.json",
          content: JSON.stringify(hooksConfig, null, 2),
        },
        {
          type: "inline",
          target: ".agents/hooks-scripts/gate.py",
          content: SEED_GATE_SCRIPT,
        },
      ],
    },
  });
  console.log(interaction.output_text);
  return interaction;
}
// ---- end of the verbatim example ----

// ---- The seed's privacy-gate JavaScript example, verbatim ----
const privacyHooksConfig = {
  "privacy-gate": {
    pre_tool_execution: [
      {
        matcher: "read_file",
        hooks: [
          {
            type: "command",
            command: "python3 /.agents/hooks-scripts/check_privacy.py",
            timeout: 5,
          },
        ],
      },
    ],
  },
};

const checkPrivacyScript = `#!/usr/bin/env python3
import sys, json
data = json.load(sys.stdin)
path = str(data.get("tool_call", {}).get("args", {}).get("path", ""))

if "/private/" in path:
    resp = {
        "decision": "deny",
        "reason": "Access to confidential \`/private/\` records is blocked by PII compliance policy. Query approved \`/public/\` summary tables instead."
    }
else:
    resp = {"decision": "allow"}

print(json.dumps(resp))
`;

async function privacyGateExample() {
  const int1 = await client.interactions.create({
    agent: "antigravity-preview-05-2026",
    input: "Use your filesystem tool to read `/workspace/private/employees.json` and summarize the employee details.",
    environment: {
      type: "remote",
      sources: [
        {
          type: "inline",
          target: ".agents/hooks.json",
          content: JSON.stringify(privacyHooksConfig, null, 2),
        },
        {
          type: "inline",
          target: ".agents/hooks-scripts/check_privacy.py",
          content: checkPrivacyScript,
        },
        {
          type: "inline",
          target: "workspace/private/employees.json",
          content: '{"employees": [{"id": 1, "salary": 150000, "ssn": "000-00-0000"}]}',
        },
        {
          type: "inline",
          target: "workspace/public/summary.json",
          content: '{"department": "Engineering", "team_size": 42, "status": "active"}',
        },
      ],
    },
  });
  console.log(int1.output_text);

  const int2 = await client.interactions.create({
    agent: "antigravity-preview-05-2026",
    input: "Understood. Please read the approved `/workspace/public/summary.json` file instead and provide the summary.",
    environment: int1.environment_id,
    previous_interaction_id: int1.id,
  });
  console.log(int2.output_text);
  return { int1, int2 };
}
// ---- end of the verbatim example ----

describe("the documentation's security gate", () => {
  it("denies `rm -rf /tmp/forbidden`: the result is an error carrying the hook's reason, and output_text says so", async () => {
    const interaction = await securityGateExample();
    const steps = interaction.steps as Array<Record<string, any>>;
    const result = steps.find((step) => step.type === "code_execution_result")!;
    assert.equal(result.is_error, true);
    assert.equal(result.result, 'Tool call denied by hook "security-gate": Destructive command blocked by security gate.');
    assert.match(interaction.output_text ?? "", /security-gate/);
    assert.match(interaction.output_text ?? "", /Destructive command blocked by security gate\./);

    const trace = await hookTrace(interaction.id!);
    assert.equal(trace.status, 200);
    assert.equal(trace.body.interaction_id, interaction.id);
    const call = trace.body.tool_calls[0];
    assert.equal(call.tool_call.name, "code_execution");
    assert.equal(call.pre.decision, "deny");
    assert.equal(call.post, null);
  });

  it("never runs the denied command (a folder it would delete is still there)", async () => {
    const interaction = await client.interactions.create({
      agent: "antigravity-preview-05-2026",
      input: "Run `rm -rf /tmp/forbidden` using code_execution.",
      tools: [{ type: "code_execution" }],
      environment: {
        type: "remote",
        sources: [
          { type: "inline", target: ".agents/hooks.json", content: JSON.stringify(hooksConfig) },
          { type: "inline", target: ".agents/hooks-scripts/gate.py", content: SEED_GATE_SCRIPT },
          { type: "inline", target: "tmp/forbidden/keep.txt", content: "still here" },
        ],
      },
    });
    const check = await client.interactions.create({
      agent: "antigravity-preview-05-2026",
      input: "Run `cat /tmp/forbidden/keep.txt` using code_execution.",
      environment: interaction.environment_id!,
    });
    const result = (check.steps as Array<Record<string, any>>).find((step) => step.type === "code_execution_result")!;
    assert.equal(result.is_error, false);
    assert.equal(result.result, "still here");
  });
});

describe("the documentation's privacy gate", () => {
  it("denies the private read without its content appearing anywhere, then answers from the public summary", async () => {
    const { int1, int2 } = await privacyGateExample();
    const denied = (int1.steps as Array<Record<string, any>>).find((step) => step.type === "function_result")!;
    assert.equal(denied.is_error, true);
    assert.match(denied.result, /^Tool call denied by hook "privacy-gate": Access to confidential `\/private\/` records/);
    assert.match(int1.output_text ?? "", /privacy-gate/);

    const stored = await fetch(`${emulator.url}/v1beta/interactions/${int1.id}`, { headers: { "x-goog-api-key": API_KEY } });
    const trace = await hookTrace(int1.id!);
    for (const text of [JSON.stringify(int1), await stored.text(), JSON.stringify(trace.body)]) {
      assert.doesNotMatch(text, /000-00-0000|150000/);
    }

    assert.equal(int2.environment_id, int1.environment_id);
    const read = (int2.steps as Array<Record<string, any>>).find((step) => step.type === "function_result")!;
    assert.equal(read.is_error, false);
    assert.equal(read.result, '{"department": "Engineering", "team_size": 42, "status": "active"}');
    assert.match(int2.output_text ?? "", /Engineering/);
    assert.equal((await hookTrace(int2.id!)).body.tool_calls[0].pre.decision, "allow");
  });
});

describe("the hook trace endpoint", () => {
  it("answers 404 for another API key's interaction and 401 without a key", async () => {
    const created = await client.interactions.create({ agent: "antigravity-preview-05-2026", input: "hello" });
    const other = await fetch(`${emulator.url}/emulator/interactions/${created.id}/hooks`, {
      headers: { "x-goog-api-key": "someone-else" },
    });
    assert.equal(other.status, 404);
    const anonymous = await fetch(`${emulator.url}/emulator/interactions/${created.id}/hooks`);
    assert.equal(anonymous.status, 401);
  });
});
