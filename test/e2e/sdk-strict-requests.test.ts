// End to end, the official SDK against the emulator as `npm start` runs it (issue 17, case 7): the
// issue's misspelt request is refused at once with the service's 400, naming both fields, and makes no
// sandbox; a create answer holds only the run's steps while GET gives the whole timeline, and the SDK's
// output_text reads the same from both.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";

const AGENT = "antigravity-preview-05-2026";
const KEY = "strict-e2e-key";

let emulator: EmulatorProcess;
let ai: GoogleGenAI;

before(async () => {
  // Strict whatever the environment says: the suite also runs with EMULATOR_LOOSE=true.
  emulator = await startEmulatorProcess({ EMULATOR_LOOSE: "false" });
  ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
});

after(async () => {
  await emulator?.destroy();
});

describe("strict requests through the official SDK", () => {
  it("refuses the issue's misspelt request at once with a 400 naming both fields, and makes no sandbox", async () => {
    const started = performance.now();
    await assert.rejects(
      ai.interactions.create({
        agent: AGENT,
        input: "Run `ls` using code_execution.",
        toolz: [{ type: "code_execution" }],
        enviroment: { type: "remote", sources: [{ type: "inline", target: "workspace/a.txt", content: "a" }] },
      } as never),
      (error: unknown) => {
        assert.equal((error as { status?: number }).status, 400);
        const message = (error as Error).message;
        assert.match(message, /Invalid JSON payload received\. Unknown name \\?"toolz\\?": Cannot find field\./);
        assert.match(message, /Invalid JSON payload received\. Unknown name \\?"enviroment\\?": Cannot find field\./);
        return true;
      },
    );
    // "At once": no sandbox was started for it (a generous bound for a loaded machine, not a speed test).
    assert.ok(performance.now() - started < 5_000);
    assert.equal(await emulator.sandboxCount(), 0);
  });

  it("answers create with the run's steps only, and GET with the input first; output_text reads both", async () => {
    const created = await ai.interactions.create({
      agent: AGENT,
      input: "Run `echo strict` using code_execution.",
      environment: { type: "remote" },
    });
    assert.equal(created.status, "completed");
    assert.deepEqual(
      created.steps?.map((step) => step.type),
      ["code_execution_call", "code_execution_result", "model_output"],
    );
    assert.match(created.output_text ?? "", /strict/);
    const got = await ai.interactions.get(created.id);
    assert.deepEqual(
      got.steps?.map((step) => step.type),
      ["user_input", "code_execution_call", "code_execution_result", "model_output"],
    );
    assert.deepEqual(got.steps?.slice(1), created.steps);
    assert.equal(got.output_text, created.output_text);
  });
});
