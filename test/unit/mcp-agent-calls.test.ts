// MCP tool calls in the agent's turn loop, over a fake set of MCP servers: the steps they leave (with
// server_name, and IDs that pair call and result), the hook trace entry that says why no hook fired
// while the hooks guard the sandbox call beside them, a run with no sandbox at all, a cancel during a
// call, the final answer, the planner's saved state, and the step events a stream carries.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type AgentContext, newAgentRun, runAgent } from "../../server/agent/agent-loop.js";
import type { McpToolCall } from "../../server/agent/agent-call.js";
import { startScriptedPlanner } from "../../server/planners/scripted/scripted-planner.js";
import type { Step } from "../../server/agent/steps.js";
import type { InteractionEvent } from "../../server/interactions/events.js";
import { foldEvents } from "../../server/interactions/step-accumulator.js";
import { StepWriter } from "../../server/interactions/step-writer.js";
import type { McpServers, McpToolInfo, McpToolOutcome } from "../../server/mcp/mcp-servers.js";
import { FakeSandboxChannel } from "../support/fake-sandbox-channel.js";
import { movesInOrder } from "../support/fake-planners.js";
import { RecordingStepSink } from "../support/recording-step-sink.js";
import { exited, ROOT_HOOKS, ScriptedHost } from "../support/scripted-hook-host.js";
import { read } from "../support/tool-calls.js";

/** MCP servers that answer from a table, remember each call, and may wait until the call is aborted. */
class FakeMcpServers implements McpServers {
  readonly calls: Array<{ server: string; tool: string; args: Record<string, unknown> }> = [];
  closed = false;

  constructor(
    private readonly names: string[],
    private readonly answer: (tool: string, signal?: AbortSignal) => Promise<McpToolOutcome> = async (tool) => ({
      text: `${tool} ran`,
      isError: false,
    }),
  ) {}

  has(server: string): boolean {
    return this.names.includes(server);
  }

  call(server: string, tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<McpToolOutcome> {
    this.calls.push({ server, tool, args });
    return this.answer(tool, signal);
  }

  async tools(server: string): Promise<{ tools: McpToolInfo[] } | { error: string }> {
    return this.has(server) ? { tools: [] } : { error: `no server ${server}` };
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

const mcp = (server: string, name: string, args: Record<string, unknown> = {}): McpToolCall => ({ server, name, args });

function context(overrides: Partial<AgentContext>): { context: AgentContext; steps: RecordingStepSink; host: ScriptedHost } {
  const steps = new RecordingStepSink();
  const host = new ScriptedHost();
  const channel = new FakeSandboxChannel();
  channel.files.set("/workspace/a.txt", "alpha");
  let ids = 0;
  return {
    steps,
    host,
    context: {
      sandbox: { environmentId: "env_mcp", channel, hooks: host, limits: { timeoutMs: 5000, maxOutputBytes: 1 << 20 } },
      codeExecutionEnabled: true,
      steps,
      newCallId: () => `call_${++ids}`,
      ...overrides,
    },
  };
}

describe("MCP calls in the turn loop", () => {
  it("record call and result steps with server_name, and fire no hook for them while hooks guard the sandbox call", async () => {
    const servers = new FakeMcpServers(["docs"]);
    const { context: ctx, steps, host } = context({ mcp: servers });
    host.withHooks(ROOT_HOOKS, { audit: { pre_tool_execution: [{ matcher: ".*", hooks: [{ type: "command", command: "audit" }] }] } });
    host.onCommand = async () => exited("");
    const run = newAgentRun("input");
    const ending = await runAgent(
      movesInOrder({ kind: "call_tools", calls: [mcp("docs", "search", { q: "x" }), read("/workspace/a.txt")] }),
      ctx,
      run,
    );
    assert.deepEqual(ending, { kind: "answered", text: "done" });
    assert.deepEqual(steps.steps, [
      { type: "mcp_server_tool_call", id: "call_1", name: "search", server_name: "docs", arguments: { q: "x" } },
      { type: "mcp_server_tool_result", call_id: "call_1", name: "search", server_name: "docs", result: "search ran", is_error: false },
      { type: "function_call", id: "call_2", name: "read_file", arguments: { path: "/workspace/a.txt" } },
      { type: "function_result", call_id: "call_2", name: "read_file", result: "alpha", is_error: false },
    ]);
    assert.deepEqual(servers.calls, [{ server: "docs", tool: "search", args: { q: "x" } }]);
    assert.equal(host.commands.length, 1, "the .* hook ran for read_file only");
    assert.deepEqual(run.trace[0], {
      call_id: "call_1",
      tool_call: { name: "search", server_name: "docs", args: { q: "x" } },
      pre: null,
      post: null,
      hooks_not_run: {
        code: "not_a_sandbox_tool",
        tool_type: "mcp_server",
        reason:
          'search is a tool of the MCP server "docs", which the emulator calls from outside the sandbox, not a sandbox tool: hooks fire only for code_execution, read_file, write_file, list_files, delete_file, so no hooks.json was read and no matcher (".*" included) was tried for this call.',
      },
      injected_fault: null,
    });
    assert.equal(run.trace[1], run.hooks[0], "the guarded call's entry, in the order the calls were made");
    assert.equal(run.hooks.length, 1);
    assert.equal(run.hooks[0]?.pre.handlers.length, 1);
    const turn = run.conversation.turns[0];
    assert.equal(turn?.kind, "tool_calls");
    assert.deepEqual(turn?.kind === "tool_calls" ? turn.outcomes.map(({ callId, status, output }) => ({ callId, status, output })) : [], [
      { callId: "call_1", status: "ok", output: "search ran" },
      { callId: "call_2", status: "ok", output: "alpha" },
    ]);
  });

  it("run without a sandbox, and record an error result as an error outcome", async () => {
    const servers = new FakeMcpServers(["docs"], async (tool) => ({ text: `${tool} broke`, isError: true }));
    const { context: ctx, steps } = context({ sandbox: null, mcp: servers });
    const run = newAgentRun("input");
    await runAgent(movesInOrder({ kind: "call_tools", calls: [mcp("docs", "fail")] }), ctx, run);
    assert.deepEqual(steps.steps.at(-1), {
      type: "mcp_server_tool_result",
      call_id: "call_1",
      name: "fail",
      server_name: "docs",
      result: "fail broke",
      is_error: true,
    });
  });

  it("turn an undeclared server, or a client that throws, into an error result, not a failed run", async () => {
    const servers = new FakeMcpServers(["docs"], async () => {
      throw new Error("client bug");
    });
    const { context: ctx, steps } = context({ mcp: servers });
    const ending = await runAgent(movesInOrder({ kind: "call_tools", calls: [mcp("wiki", "a"), mcp("docs", "b")] }), ctx, newAgentRun("x"));
    assert.equal(ending.kind, "answered");
    const results = steps.steps.filter((step) => step.type === "mcp_server_tool_result");
    assert.deepEqual(
      results.map((step) => [step.result, step.is_error]),
      [
        ['No MCP server named "wiki" is declared in this interaction\'s tools.', true],
        ["The emulator's MCP client failed: client bug", true],
      ],
    );
  });

  it("stop at a cancel during an MCP call: the result says cancelled and nothing later runs", async () => {
    const controller = new AbortController();
    const servers = new FakeMcpServers(["docs"], (_tool, signal) => {
      controller.abort();
      return Promise.resolve({ text: signal?.aborted ? "given up" : "ran", isError: true });
    });
    const { context: ctx, steps } = context({ mcp: servers, signal: controller.signal });
    const ending = await runAgent(
      movesInOrder({ kind: "call_tools", calls: [mcp("docs", "slow"), read("/workspace/a.txt")] }),
      ctx,
      newAgentRun("x"),
    );
    assert.deepEqual(ending, { kind: "stopped" });
    assert.deepEqual(
      steps.steps.map((step) => step.type),
      ["mcp_server_tool_call", "mcp_server_tool_result"],
    );
    assert.equal((steps.steps[1] as { result: string }).result, "[cancelled]");
  });
});

describe("the scripted planner with MCP calls", () => {
  it("reports each MCP call in the answer and remembers it with its server", async () => {
    const input = `\`\`\`tool_calls\n${JSON.stringify([
      { server: "docs", name: "search", args: { q: "x" } },
      { server: "docs", name: "fail" },
    ])}\n\`\`\``;
    const started = startScriptedPlanner(input, null, { mcpServers: ["docs"] });
    if (started.kind !== "ready") return assert.fail(started.message);
    const servers = new FakeMcpServers(["docs"], async (tool) =>
      tool === "fail" ? { text: "it broke", isError: true } : { text: "3 results", isError: false },
    );
    const { context: ctx } = context({ sandbox: null, mcp: servers });
    const run = newAgentRun(input);
    const ending = await runAgent(started.planner, ctx, run);
    assert.equal(ending.kind, "answered");
    assert.equal(
      ending.kind === "answered" ? ending.text : "",
      'I made 2 tool calls, in order:\n1. Called the MCP tool `search` of server "docs": 3 results\n2. The call of the MCP tool `fail` of server "docs" failed: it broke\n\nIn short: 1 succeeded and 1 failed.',
    );
    assert.deepEqual(run.plannerState?.data, {
      runs: [
        {
          read: "script",
          calls: [
            { server: "docs", name: "search", call_id: "call_1", status: "ok" },
            { server: "docs", name: "fail", call_id: "call_2", status: "error" },
          ],
        },
      ],
    });
    const resumed = startScriptedPlanner("hello", run.plannerState, { mcpServers: [] });
    assert.equal(resumed.kind === "ready" ? resumed.planner.earlierRuns.length : -1, 1, "the saved state is read back");
  });
});

describe("MCP step events", () => {
  it("start the result empty, close it with name, server_name and is_error, and fold back into the steps", () => {
    const events: InteractionEvent[] = [];
    const writer = new StepWriter((event) => events.push(event));
    const call: Step = { type: "mcp_server_tool_call", id: "call_1", name: "search", server_name: "docs", arguments: { q: "x" } };
    writer.complete(call);
    writer
      .startResult({ type: "mcp_server_tool_result", call_id: "call_1", name: "search", server_name: "docs", result: "" })
      .finish("found", false);
    assert.deepEqual(events.slice(2), [
      {
        event_type: "step.start",
        index: 1,
        step: { type: "mcp_server_tool_result", call_id: "call_1", name: "search", server_name: "docs", result: "" },
      },
      {
        event_type: "step.delta",
        index: 1,
        delta: { type: "mcp_server_tool_result", name: "search", server_name: "docs", result: "found", is_error: false },
      },
      { event_type: "step.stop", index: 1 },
    ]);
    assert.deepEqual(foldEvents(events).steps, [
      call,
      { type: "mcp_server_tool_result", call_id: "call_1", name: "search", server_name: "docs", result: "found", is_error: false },
    ]);
  });
});
