// What the emulator does with a large tool result, on an emulator in this process with a fake sandbox
// runtime, watched by the stall detector (HOSTILE_INPUT_BOUNDS): the scripted planner's report of a
// result made of a long run of newlines before its last character is written without holding the
// event loop (its trailing newlines were trimmed with a regular expression quadratic in the run's
// length: 150 000 newlines held the event loop about 12 s, a megabyte of them minutes).

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FakeRuntimeEmulator, startFakeRuntimeEmulator } from "../support/fake-runtime.js";
import { postInteraction } from "../support/post-interaction.js";
import { HOSTILE_INPUT_BOUNDS, withoutStalls } from "../support/stall-detector.js";

const KEY = "large-tool-results-key";
const script = (calls: unknown[]): string => `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``;

describe("a large tool result in the scripted planner's report", () => {
  let emulator: FakeRuntimeEmulator;
  let environmentId: string;
  before(async () => {
    emulator = await startFakeRuntimeEmulator({ EMULATOR_POOL_SIZE: "0" });
    const response = await fetch(`${emulator.url}/v1beta/environments`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-goog-api-key": KEY },
      body: JSON.stringify({ sources: [] }),
    });
    environmentId = ((await response.json()) as { id: string }).id;
    const channel = emulator.runtime.channels.get(environmentId);
    assert.ok(channel, "the environment's fake sandbox");
    channel.files.set("/workspace/newlines.txt", `${"\n".repeat(150_000)}x`);
    channel.onRun = async () => ({ stdout: `${"\n".repeat(150_000)}y` });
  });
  after(async () => {
    await emulator?.close();
  });

  for (const [tool, args, last] of [
    ["read_file", { path: "/workspace/newlines.txt" }, "x"],
    ["code_execution", { code: "print newlines" }, "y"],
  ] as const) {
    it(`reports a ${tool} result of 150 000 newlines and one character without stalling, its lines shortened`, async () => {
      const { result } = await withoutStalls(
        emulator.url,
        HOSTILE_INPUT_BOUNDS,
        () => postInteraction(emulator.url, KEY, { input: script([{ name: tool, args }]), environment: environmentId }),
        { inProcess: true, what: `a ${tool} result of newlines` },
      );
      assert.equal(result.status, 200, JSON.stringify(result.body).slice(0, 500));
      const answer = (result.body.steps as Array<{ type: string; content?: Array<{ text?: string }> }>)
        .filter((step) => step.type === "model_output")
        .flatMap((step) => step.content ?? [])
        .map((part) => part.text ?? "")
        .join("");
      assert.match(answer, /\[… 149961 lines left out here; the tool's result step has the full text …\]/);
      assert.ok(answer.includes(`\n${last}\n`), "the result's last line is shown, its trailing newlines trimmed");
    });
  }
});
