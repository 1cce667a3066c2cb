// End to end: MCP server tools through the official @google/genai SDK against the emulator started as
// `npm start` starts it, and a real MCP server built with the official MCP SDK on loopback. The
// emulator connects to the server itself (not from a sandbox), so a developer's server on their own
// machine works: a call round trip with its steps, allowed_tools, a failing tool, a server that is
// down or too slow, the declared headers reaching the server, a `.*` hook that provably does not run
// for an MCP call, and the same through the event stream.
// covers: CreateAgentInteraction.tools, CreateAgentInteraction.tools(mcp_server), interactions.cancel

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import type { StreamEvent } from "../../server/interactions/events.js";
import { foldEvents } from "../../server/interactions/step-accumulator.js";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";
import { closedLoopbackPort, type McpTestServer, startMcpTestServer } from "../support/mcp-test-server.js";

const AGENT = "antigravity-preview-05-2026";
const KEY = "mcp-e2e-key";
const TIMEOUT_SECONDS = 2;

let emulator: EmulatorProcess;
let ai: GoogleGenAI;
let mcp: McpTestServer;

before(async () => {
  mcp = await startMcpTestServer();
  emulator = await startEmulatorProcess({ EMULATOR_MCP_TIMEOUT_SECONDS: String(TIMEOUT_SECONDS) });
  ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
});
after(async () => {
  await emulator?.destroy();
  await mcp?.close();
});

type AnyStep = Record<string, any>;
const script = (calls: unknown[]): string => `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``;
const local = (extra: Record<string, unknown> = {}) => ({ type: "mcp_server" as const, name: "local", url: mcp.url, ...extra });
const statusOf = (error: unknown) => (error as { status?: number }).status;
const stepsOf = (interaction: { steps?: unknown }) => (interaction.steps ?? []) as AnyStep[];
const mcpResults = (interaction: { steps?: unknown }) => stepsOf(interaction).filter((step) => step.type === "mcp_server_tool_result");

async function hookTrace(id: string): Promise<AnyStep[]> {
  const response = await fetch(`${emulator.url}/emulator/interactions/${id}/hooks`, { headers: { "x-goog-api-key": KEY } });
  assert.equal(response.status, 200);
  return ((await response.json()) as { tool_calls: AnyStep[] }).tool_calls;
}

async function waitFor(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe("MCP server tools", () => {
  it("call a tool of a loopback MCP server, with no sandbox, the headers sent and the connection closed", async () => {
    const requestsBefore = mcp.requests.length;
    const sandboxesBefore = await emulator.sandboxCount();
    const interaction = await ai.interactions.create({
      agent: AGENT,
      input: script([{ server: "local", name: "echo", args: { text: "hello from the emulator" } }]),
      tools: [local({ headers: { "X-Api-Token": "s3cret" } })],
    });
    assert.equal(interaction.status, "completed");
    // The create answer holds the run's steps only (the user_input step is GET's).
    const [call, result, answer] = stepsOf(interaction);
    assert.deepEqual(call, {
      type: "mcp_server_tool_call",
      id: call?.id,
      name: "echo",
      server_name: "local",
      arguments: { text: "hello from the emulator" },
    });
    assert.match(String(call?.id), /^call_/);
    assert.deepEqual(result, {
      type: "mcp_server_tool_result",
      call_id: call?.id,
      name: "echo",
      server_name: "local",
      result: "echo: hello from the emulator",
      is_error: false,
    });
    assert.equal(answer?.type, "model_output");
    assert.equal(interaction.output_text, 'Called the MCP tool `echo` of server "local": echo: hello from the emulator');
    assert.equal(interaction.environment_id, undefined, "MCP calls alone need no environment");
    assert.equal(await emulator.sandboxCount(), sandboxesBefore, "and no sandbox was made");
    const sent = mcp.requests.slice(requestsBefore);
    assert.ok(sent.length > 0 && sent.every((request) => request.headers["x-api-token"] === "s3cret"), "the header reached the server");
    assert.deepEqual(
      (interaction.tools as AnyStep[] | undefined)?.[0]?.headers,
      { "X-Api-Token": "[redacted]" },
      "header values are not echoed",
    );
    await waitFor(() => mcp.openSessions() === 0, "the emulator ended its MCP session");
  });

  it("let the server's tool read the declared headers", async () => {
    const interaction = await ai.interactions.create({
      agent: AGENT,
      input: script([{ server: "local", name: "header", args: { name: "Authorization" } }]),
      tools: [local({ headers: { Authorization: "Bearer token-for-mcp" } })],
    });
    assert.equal(mcpResults(interaction)[0]?.result, "Bearer token-for-mcp");
  });

  it("refuse a tool outside allowed_tools in its result, without calling it", async () => {
    const callsBefore = mcp.calls.length;
    const interaction = await ai.interactions.create({
      agent: AGENT,
      input: script([
        { server: "local", name: "echo", args: { text: "allowed" } },
        { server: "local", name: "add", args: { a: 1, b: 2 } },
      ]),
      tools: [local({ allowed_tools: [{ mode: "auto", tools: ["echo"] }] })],
    });
    assert.equal(interaction.status, "completed");
    const [allowed, refused] = mcpResults(interaction);
    assert.deepEqual([allowed?.result, allowed?.is_error], ["echo: allowed", false]);
    assert.equal(refused?.is_error, true);
    assert.equal(
      refused?.result,
      'The tool "add" of the MCP server "local" is not in its allowed_tools (allowed: echo), so it was not called.',
    );
    assert.deepEqual(
      mcp.calls.slice(callsBefore).map((call) => call.name),
      ["echo"],
      "add never reached the server",
    );
  });

  it("record a failing tool as an error result, and go on with the next call", async () => {
    const interaction = await ai.interactions.create({
      agent: AGENT,
      input: script([
        { server: "local", name: "fail" },
        { server: "local", name: "throws" },
        { server: "local", name: "add", args: { a: 20, b: 22 } },
      ]),
      tools: [local()],
    });
    assert.equal(interaction.status, "completed");
    assert.deepEqual(
      mcpResults(interaction).map((step) => [step.result, step.is_error]),
      [
        ["failed on purpose", true],
        ["boom", true],
        ["42", false],
      ],
    );
    assert.match(interaction.output_text ?? "", /In short: 1 succeeded and 2 failed\./);
  });

  it("turn a server that is down into an error result, never a 500 or a failed interaction", async () => {
    const port = await closedLoopbackPort();
    const interaction = await ai.interactions.create({
      agent: AGENT,
      input: script([{ server: "gone", name: "echo", args: { text: "x" } }]),
      tools: [{ type: "mcp_server", name: "gone", url: `http://127.0.0.1:${port}/mcp` }],
    });
    assert.equal(interaction.status, "completed");
    const [result] = mcpResults(interaction);
    assert.equal(result?.is_error, true);
    assert.equal(result?.server_name, "gone");
    assert.equal(
      result?.result,
      `Could not connect to the MCP server "gone" at http://127.0.0.1:${port}/mcp: connect ECONNREFUSED 127.0.0.1:${port}.`,
    );
  });

  it("bound a tool that never answers by EMULATOR_MCP_TIMEOUT_SECONDS", async () => {
    const started = Date.now();
    const interaction = await ai.interactions.create({
      agent: AGENT,
      input: script([{ server: "local", name: "wait" }]),
      tools: [local()],
    });
    const elapsed = Date.now() - started;
    assert.equal(interaction.status, "completed");
    assert.match(
      mcpResults(interaction)[0]?.result ?? "",
      new RegExp(`failed: no answer within ${TIMEOUT_SECONDS} s \\(EMULATOR_MCP_TIMEOUT_SECONDS\\)\\.$`),
    );
    assert.ok(elapsed >= TIMEOUT_SECONDS * 1000 && elapsed < TIMEOUT_SECONDS * 1000 + 8000, `took ${elapsed} ms`);
  });

  it("stop an MCP call at a cancel: the result says so and the session is ended", async () => {
    const callsBefore = mcp.calls.length;
    const started = await ai.interactions.create({
      agent: AGENT,
      input: script([
        { server: "local", name: "wait" },
        { server: "local", name: "echo", args: { text: "never" } },
      ]),
      tools: [local()],
      background: true,
    });
    await waitFor(() => mcp.calls.slice(callsBefore).some((call) => call.name === "wait"), "the server runs the tool");
    const cancelled = await ai.interactions.cancel(started.id!);
    assert.equal(cancelled.status, "cancelled");
    const results = mcpResults(cancelled);
    assert.deepEqual(
      results.map((step) => [step.result, step.is_error]),
      [["[cancelled]", true]],
    );
    assert.deepEqual(
      mcp.calls.slice(callsBefore).map((call) => call.name),
      ["wait"],
      "nothing after the cancel reached the server",
    );
    await waitFor(() => mcp.openSessions() === 0, "the emulator ended its MCP session");
  });

  it("fire no hook for an MCP call, while a .* hook guards the sandbox call beside it, and say why in the trace", async () => {
    const hooks = JSON.stringify({
      audit: {
        pre_tool_execution: [{ matcher: ".*", hooks: [{ type: "command", command: "cat >> /tmp/pre.jsonl; echo >> /tmp/pre.jsonl" }] }],
        post_tool_execution: [{ matcher: ".*", hooks: [{ type: "command", command: "cat >> /tmp/post.jsonl; echo >> /tmp/post.jsonl" }] }],
      },
    });
    const interaction = await ai.interactions.create({
      agent: AGENT,
      input: script([
        { server: "local", name: "echo", args: { text: "unguarded" } },
        { name: "code_execution", args: { code: "cat /tmp/pre.jsonl; echo ---; cat /tmp/post.jsonl 2>/dev/null || echo 'no post yet'" } },
      ]),
      tools: [{ type: "code_execution" }, local()],
      environment: { type: "remote", sources: [{ type: "inline", target: ".agents/hooks.json", content: hooks }] },
    });
    assert.equal(interaction.status, "completed");
    const steps = stepsOf(interaction);
    assert.equal(mcpResults(interaction)[0]?.result, "echo: unguarded", "the MCP call ran");
    const shown = String(steps.find((step) => step.type === "code_execution_result")?.result);
    const [pre, post] = shown.split("---\n");
    const preEvents = (pre ?? "")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { tool_call: { name: string } });
    assert.deepEqual(
      preEvents.map((event) => event.tool_call.name),
      ["code_execution"],
      "the .* pre hook ran once, for the sandbox call, and never for the MCP call",
    );
    assert.equal(post?.trim(), "no post yet", "no post hook ran after the MCP call either");
    const trace = await hookTrace(interaction.id!);
    const mcpCallId = steps.find((step) => step.type === "mcp_server_tool_call")?.id;
    assert.deepEqual(trace[0], {
      call_id: mcpCallId,
      tool_call: { name: "echo", server_name: "local", args: { text: "unguarded" } },
      pre: null,
      post: null,
      hooks_not_run: {
        code: "not_a_sandbox_tool",
        tool_type: "mcp_server",
        reason:
          'echo is a tool of the MCP server "local", which the emulator calls from outside the sandbox, not a sandbox tool: hooks fire only for code_execution, read_file, write_file, list_files, delete_file, so no hooks.json was read and no matcher (".*" included) was tried for this call.',
      },
      injected_fault: null,
    });
    assert.equal(trace[1]?.pre.handlers.length, 1, "the same .* rule did run for the sandbox call");
  });

  it("read the plain phrasing of an MCP call", async () => {
    const interaction = await ai.interactions.create({
      agent: AGENT,
      input: 'Call the MCP tool `echo` on `local` with {"text": "phrased"}.',
      tools: [local()],
    });
    assert.equal(mcpResults(interaction)[0]?.result, "echo: phrased");
  });

  it("refuse, with a 400 naming the item, a script that calls a server the request does not declare", async () => {
    await assert.rejects(
      ai.interactions.create({ agent: AGENT, input: script([{ server: "wiki", name: "search" }]), tools: [local()] }),
      (error: unknown) => {
        assert.equal(statusOf(error), 400);
        assert.match(
          String((error as Error).message),
          /tool_calls item 1: no mcp_server named "wiki" in the request's tools; declared: "local"/,
        );
        return true;
      },
    );
  });

  it("refuse, with a 400 naming the field, an mcp_server without a URL", async () => {
    await assert.rejects(
      ai.interactions.create({ agent: AGENT, input: "hi", tools: [{ type: "mcp_server", name: "nowhere" }] }),
      (error: unknown) => {
        assert.equal(statusOf(error), 400);
        assert.match(String((error as Error).message), /tools\[0\]\.url: an mcp_server needs the URL of its streamable HTTP endpoint/);
        return true;
      },
    );
  });

  it("stream the MCP steps: the call whole, the result empty then closed by a delta with server_name and is_error", async () => {
    const stream = await ai.interactions.create({
      agent: AGENT,
      input: script([{ server: "local", name: "add", args: { a: 1, b: 1 } }]),
      tools: [local()],
      stream: true,
    });
    const events: Array<Record<string, any>> = [];
    for await (const event of stream) events.push(event as Record<string, any>);
    const types = events.map(
      (event) => `${event.event_type}${event.step ? `:${event.step.type}` : ""}${event.delta ? `:${event.delta.type}` : ""}`,
    );
    assert.deepEqual(types, [
      "interaction.created",
      "interaction.status_update",
      "step.start:mcp_server_tool_call",
      "step.stop",
      "step.start:mcp_server_tool_result",
      "step.delta:mcp_server_tool_result",
      "step.stop",
      "step.start:model_output",
      "step.delta:text",
      "step.stop",
      "interaction.completed",
    ]);
    const callId = events[2]?.step.id;
    assert.deepEqual(events[2]?.step, {
      type: "mcp_server_tool_call",
      id: callId,
      name: "add",
      server_name: "local",
      arguments: { a: 1, b: 1 },
    });
    assert.deepEqual(events[4]?.step, { type: "mcp_server_tool_result", call_id: callId, name: "add", server_name: "local", result: "" });
    assert.deepEqual(events[5]?.delta, { type: "mcp_server_tool_result", name: "add", server_name: "local", result: "2", is_error: false });
    const id = events[0]?.interaction.id as string;
    const stored = await ai.interactions.get(id);
    // The stream leaves the input's user_input step out (docs/fidelity.md#streams).
    assert.deepEqual(
      foldEvents(events as unknown as StreamEvent[]).steps,
      stored.steps?.slice(1),
      "the stream folds into the stored steps after the input",
    );
  });
});
