// Hooks as a user meets them through interactions: an agent rewriting its own hook config, post hooks
// seeing each call (with `error` only when there was one), and an unreachable HTTP hook failing open
// with the reason visible in the trace.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";

const AGENT = "antigravity-preview-05-2026";
const KEY = "hooks-e2e-key";
let emulator: EmulatorProcess;
let ai: GoogleGenAI;

before(async () => {
  // hooks.example.com goes to a closed loopback port: the hook's server is down, and no DNS is asked.
  emulator = await startEmulatorProcess({ EMULATOR_EGRESS_HOST_MAP: "hooks.example.com=127.0.0.1:9" });
  ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
});
after(async () => {
  await emulator?.destroy();
});

const script = (calls: unknown[]): string => `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``;

async function trace(id: string): Promise<Array<Record<string, any>>> {
  const response = await fetch(`${emulator.url}/emulator/interactions/${id}/hooks`, { headers: { "x-goog-api-key": KEY } });
  assert.equal(response.status, 200);
  return ((await response.json()) as { tool_calls: Array<Record<string, any>> }).tool_calls;
}

function results(steps: unknown): Array<{ result: string; is_error: boolean }> {
  return (steps as Array<Record<string, any>>).filter((step) => step.type.endsWith("_result")) as Array<{
    result: string;
    is_error: boolean;
  }>;
}

describe("hooks inside interactions", () => {
  it("apply a hooks.json the agent itself rewrote earlier in the same interaction", async () => {
    const denyAll = JSON.stringify({
      lockdown: {
        pre_tool_execution: [
          { matcher: "code_execution", hooks: [{ type: "command", command: `echo '{"decision":"deny","reason":"locked down"}'` }] },
        ],
      },
    });
    const interaction = await ai.interactions.create({
      agent: AGENT,
      input: script([
        { name: "code_execution", args: { code: "echo before" } },
        { name: "write_file", args: { path: "/.agents/hooks.json", content: denyAll } },
        { name: "code_execution", args: { code: "echo after" } },
        { name: "read_file", args: { path: "/.agents/hooks.json" } },
      ]),
      environment: { type: "remote" },
    });
    const [before, wrote, after, read] = results(interaction.steps);
    assert.deepEqual([before!.result, before!.is_error], ["before\n", false]);
    assert.equal(wrote!.is_error, false);
    assert.equal(after!.is_error, true);
    assert.equal(after!.result, 'Tool call denied by hook "lockdown": locked down');
    assert.equal(read!.is_error, false, "the lockdown matches code_execution only");
    assert.match(interaction.output_text ?? "", /denied by hook "lockdown": locked down/);
  });

  it("run every post hook after each call, with error only when the tool wrote to stderr or failed", async () => {
    const hooks = JSON.stringify({
      audit: {
        post_tool_execution: [
          { matcher: ".*", hooks: [{ type: "command", command: "cat >> /tmp/post-events.jsonl; echo >> /tmp/post-events.jsonl" }] },
          { matcher: "code_execution", hooks: [{ type: "command", command: `echo '{"decision":"deny"}'` }] },
        ],
      },
    });
    const interaction = await ai.interactions.create({
      agent: AGENT,
      input: script([
        { name: "code_execution", args: { code: "echo clean" } },
        { name: "code_execution", args: { code: "echo oops >&2" } },
        { name: "read_file", args: { path: "/workspace/missing.txt" } },
        { name: "read_file", args: { path: "/tmp/post-events.jsonl" } },
      ]),
      environment: { type: "remote", sources: [{ type: "inline", target: ".agents/hooks.json", content: hooks }] },
    });
    const all = results(interaction.steps);
    assert.equal(all[1]!.is_error, false, "stderr alone is not a failed command, and a post deny changes nothing");
    const events = all[3]!.result
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.equal(events.length, 3);
    assert.deepEqual(Object.keys(events[0]!), ["tool_call", "environment_id"]);
    assert.equal(events[0]!.environment_id, interaction.environment_id);
    assert.equal(events[1]!.error, "oops\n");
    assert.match(String(events[2]!.error), /missing\.txt/);
    const calls = await trace(interaction.id!);
    assert.equal(calls[0]!.post.handlers.length, 2, "both post rules ran for code_execution");
    assert.equal(calls[0]!.post.handlers[1].decision, "ignored");
  });

  it("let an HTTP hook that cannot reach its server allow the call, and say why in the trace", async () => {
    const hooks = JSON.stringify({
      remote: {
        pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "http", url: "https://hooks.example.com/gate", timeout: 5 }] }],
      },
    });
    const interaction = await ai.interactions.create({
      agent: AGENT,
      input: "Run `echo allowed`",
      environment: { type: "remote", sources: [{ type: "inline", target: ".agents/hooks.json", content: hooks }] },
    });
    assert.equal(results(interaction.steps)[0]!.result, "allowed\n");
    const handler = (await trace(interaction.id!))[0]!.pre.handlers[0];
    assert.equal(handler.kind, "http");
    assert.equal(handler.decision, "allow");
    assert.ok(handler.fail_open, "the allow is marked as fail-open");
    assert.match(JSON.stringify(handler.fail_open), /proxy|connect|refused/);
  });
});
