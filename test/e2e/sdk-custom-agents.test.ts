// A custom agent as a team ships its hooks (issue 19): the documentation's security gate in the
// agent's base environment, through the official SDK against the emulator started as `npm start`
// starts it, with real Docker sandboxes. An interaction that names the agent and brings no hooks of
// its own has `rm -rf` denied by the gate; a second interaction with the agent starts in a clean copy
// of the base environment (what the first left behind is not there).

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";
import { SEED_GATE_SCRIPT, SEED_HOOKS_FILES } from "../support/seed-hooks-files.js";

const KEY = "custom-agents-e2e-key";

type Step = Record<string, any> & { type: string };
type Interaction = { id: string; status: string; environment_id?: string; steps: Step[]; errors?: unknown[] };

let emulator: EmulatorProcess;
let ai: GoogleGenAI;

before(async () => {
  emulator = await startEmulatorProcess({});
  ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
});
after(async () => {
  await emulator?.destroy();
});

const script = (calls: unknown[]): string => `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``;
const bash = (code: string) => ({ name: "code_execution", args: { code, language: "bash" } });
const results = (interaction: Interaction) => interaction.steps.filter((step) => step.type === "code_execution_result");

describe("a custom agent with the documentation's security gate in its base environment", () => {
  it("denies rm -rf for an interaction that names the agent and brings no hooks, and starts the next one clean", async () => {
    await ai.agents.create({
      id: "guarded-coder",
      base_agent: "antigravity-preview-05-2026",
      description: "Runs code behind the security gate.",
      base_environment: {
        type: "remote",
        sources: [
          { type: "inline", target: ".agents/hooks.json", content: SEED_HOOKS_FILES["security-gate"] },
          { type: "inline", target: ".agents/hooks-scripts/gate.py", content: SEED_GATE_SCRIPT },
        ],
      },
    } as never);

    const first = (await ai.interactions.create({
      agent: "guarded-coder",
      input: script([bash("mkdir -p /tmp/forbidden && touch /workspace/left-behind"), bash("rm -rf /tmp/forbidden")]),
    } as never)) as unknown as Interaction;
    assert.equal(first.status, "completed", JSON.stringify(first.errors));
    const [made, removed] = results(first);
    assert.equal(made?.is_error, false, made?.result);
    assert.equal(removed?.is_error, true);
    assert.match(removed?.result ?? "", /Tool call denied by hook "security-gate": Destructive command blocked by security gate\./);
    const hooks = (await (
      await fetch(`${emulator.url}/emulator/interactions/${first.id}/hooks`, { headers: { "x-goog-api-key": KEY } })
    ).json()) as { tool_calls: Array<{ pre: { decision: string } }> };
    assert.deepEqual(
      hooks.tool_calls.map((call) => call.pre.decision),
      ["allow", "deny"],
    );

    const second = (await ai.interactions.create({
      agent: "guarded-coder",
      input: script([bash("test -e /workspace/left-behind || test -d /tmp/forbidden && echo dirty || echo clean")]),
    } as never)) as unknown as Interaction;
    assert.equal(second.status, "completed", JSON.stringify(second.errors));
    assert.notEqual(second.environment_id, first.environment_id, "a fresh copy of the base environment");
    assert.equal(results(second)[0]?.result, "clean\n", "nothing of the first interaction is in the second's sandbox");
  });
});
