// The model-backed planner in the real turn loop (hooks, a fake sandbox channel, MCP), with a model
// backend scripted per test: what the model is told each turn, how its calls become the loop's moves,
// what it is told back (a hook's denial included), malformed calls, client function calls across two
// interactions, the token budget and a failing backend. The backends' wire protocols are tested against
// loopback servers in openai-backend.test.ts and gemini-backend.test.ts.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newAgentRun, runAgent, type AgentContext } from "../../server/agent/agent-loop.js";
import type { PlannerOutput, ReportedUsage } from "../../server/agent/planner.js";
import type { McpServers, McpToolInfo, McpToolOutcome } from "../../server/mcp/mcp-servers.js";
import {
  ModelBackendError,
  type ModelAnswer,
  type ModelBackend,
  type ModelRequest,
  type ModelStreamSink,
} from "../../server/planners/model/model-backend.js";
import { ModelPlanner, type ModelPlannerOptions } from "../../server/planners/model/model-planner.js";
import { readModelPlannerState } from "../../server/planners/model/model-planner-state.js";
import { FakeSandboxChannel } from "../support/fake-sandbox-channel.js";
import { RecordingStepSink } from "../support/recording-step-sink.js";
import { denyOutput, exited, ROOT_HOOKS, ScriptedHost } from "../support/scripted-hook-host.js";

type Answer = Partial<ModelAnswer> | ModelBackendError;

/** A backend that answers from a list, streaming each text in two pieces, and keeps every request. */
class ScriptedBackend implements ModelBackend {
  readonly name = "openai";
  readonly requests: ModelRequest[] = [];
  constructor(private readonly answers: Answer[]) {}

  async turn(request: ModelRequest, sink: ModelStreamSink): Promise<ModelAnswer> {
    this.requests.push(structuredClone(request));
    const next = this.answers.shift();
    if (next === undefined) throw new Error(`no answer scripted for turn ${this.requests.length}`);
    if (next instanceof ModelBackendError) throw next;
    if (next.thought) sink.thought(next.thought);
    const text = next.text ?? "";
    if (text !== "") {
      sink.text(text.slice(0, 3));
      sink.text(text.slice(3));
    }
    return { text, calls: next.calls ?? [], usage: next.usage ?? { input: 10, output: 5, thought: 0 } };
  }
}

const call = (id: string, name: string, args: unknown) => ({ id, name, arguments: typeof args === "string" ? args : JSON.stringify(args) });

/** A PlannerOutput that keeps what the planner wrote. */
function recordingOutput(): PlannerOutput & { texts: string[][]; thoughts: string[]; usage: ReportedUsage[] } {
  const texts: string[][] = [];
  const thoughts: string[] = [];
  const usage: ReportedUsage[] = [];
  return {
    texts,
    thoughts,
    usage,
    startText: () => {
      const pieces: string[] = [];
      texts.push(pieces);
      return { append: (text) => pieces.push(text), finish: () => undefined };
    },
    thought: (text) => thoughts.push(text),
    reportUsage: (turn) => usage.push(turn),
  };
}

function harness(answers: Answer[], options: Partial<ModelPlannerOptions> = {}) {
  const backend = new ScriptedBackend(answers);
  const channel = new FakeSandboxChannel();
  const host = new ScriptedHost();
  const steps = new RecordingStepSink();
  const output = recordingOutput();
  let ids = 0;
  const planner = new ModelPlanner({
    backend,
    model: "qwen3",
    tools: { codeExecution: true, fileTools: true, functions: [] },
    mcp: null,
    mcpServers: [],
    ...options,
  });
  const context: AgentContext = {
    sandbox: { environmentId: "env_model", channel, hooks: host, limits: { timeoutMs: 5000, maxOutputBytes: 1 << 20 } },
    codeExecutionEnabled: true,
    steps,
    output,
    newCallId: () => `call_${++ids}`,
    ...(options.mcp ? { mcp: options.mcp } : {}),
  };
  return { backend, channel, host, steps, output, planner, context };
}

describe("the model-backed planner", () => {
  it("declares the sandbox tools, runs the model's calls through the loop, tells it the results and ends with its streamed answer", async () => {
    const h = harness([
      {
        text: "Let me look.",
        calls: [call("c1", "read_file", { path: "/workspace/a.txt" })],
        usage: { input: 100, output: 20, thought: 3 },
      },
      { text: "The file says alpha.", usage: { input: 140, output: 8, thought: 0 } },
    ]);
    h.channel.files.set("/workspace/a.txt", "alpha");
    const run = newAgentRun("What does a.txt say?");
    const ending = await runAgent(h.planner, h.context, run);
    assert.deepEqual(ending, { kind: "answered", text: "The file says alpha.", written: true });

    const [first, second] = h.backend.requests;
    assert.deepEqual(
      first?.tools.map((tool) => tool.name),
      ["code_execution", "read_file", "write_file", "list_files", "delete_file"],
    );
    assert.deepEqual(first?.tools[0]?.parameters, {
      type: "object",
      properties: {
        code: { type: "string", minLength: 1, description: "the program text to run inside the sandbox" },
        language: {
          default: "bash",
          type: "string",
          enum: ["bash", "python"],
          description: 'the interpreter: "bash" (default) or "python"',
        },
      },
      required: ["code"],
      additionalProperties: false,
    });
    assert.deepEqual(first?.messages, [{ role: "user", text: "What does a.txt say?" }]);
    assert.deepEqual(second?.messages.slice(1), [
      { role: "model", text: "Let me look.", calls: [call("c1", "read_file", { path: "/workspace/a.txt" })] },
      { role: "tool", results: [{ id: "c1", name: "read_file", output: "alpha", isError: false }] },
    ]);
    // The text of each turn streamed into its own model_output step, in the pieces the model sent.
    assert.deepEqual(h.output.texts, [
      ["Let", " me look."],
      ["The", " file says alpha."],
    ]);
    assert.deepEqual(h.output.usage, [
      { input: 100, output: 20, thought: 3 },
      { input: 140, output: 8, thought: 0 },
    ]);
    assert.deepEqual(
      h.steps.steps.map((step) => step.type),
      ["function_call", "function_result"],
    );
    const state = readModelPlannerState(h.planner.saveState(run.conversation));
    assert.equal(state?.messages.length, 4);
    assert.deepEqual(
      state?.turns.map((turn) => [turn.backend, turn.model, turn.source, turn.usage.input]),
      [
        ["openai", "qwen3", "live", 100],
        ["openai", "qwen3", "live", 140],
      ],
    );
  });

  it("gives a hook's denial back to the model as the call's error result, and the model adapts", async () => {
    const h = harness([
      { calls: [call("c1", "code_execution", { code: "rm -rf /workspace/data", language: "bash" })] },
      { calls: [call("c2", "list_files", { path: "/workspace" })] },
      { text: "I was not allowed to delete; here is the listing instead." },
    ]);
    h.host.withHooks(ROOT_HOOKS, {
      guard: { pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "command", command: "gate" }] }] },
    });
    h.host.onCommand = async () => exited(denyOutput("no deleting in this sandbox"));
    const ending = await runAgent(h.planner, h.context, newAgentRun("clean up"));
    assert.equal(ending.kind, "answered");
    assert.deepEqual(h.backend.requests[1]?.messages.at(-1), {
      role: "tool",
      results: [
        { id: "c1", name: "code_execution", output: 'Tool call denied by hook "guard": no deleting in this sandbox', isError: true },
      ],
    });
    assert.equal(h.backend.requests[2]?.messages.at(-1)?.role, "tool");
    assert.ok(!h.channel.commands.some((command) => command.argv.join(" ").includes("rm -rf")), "the denied command never ran");
    assert.equal(h.host.commands.length, 1, "the gate ran for code_execution only");
  });

  it("gives a malformed call back once, with what was wrong; a second in a row ends the run", async () => {
    const recovered = harness([{ calls: [call("c1", "read_fil", { path: "a" })] }, { calls: [call("c2", "read_file", "{not json")] }]);
    const ending = await runAgent(recovered.planner, recovered.context, newAgentRun("read a"));
    assert.equal(ending.kind, "planner_failed");
    assert.equal(ending.kind === "planner_failed" && ending.error.code, "malformed_function_call");
    assert.match(
      ending.kind === "planner_failed" ? ending.error.message : "",
      /openai:qwen3\) made a malformed tool call twice in a row \(read_file: the arguments of read_file are not JSON/,
    );
    assert.deepEqual(recovered.backend.requests[1]?.messages.at(-1), {
      role: "tool",
      results: [
        {
          id: "c1",
          name: "read_fil",
          output: 'Error: there is no tool "read_fil"; the tools are code_execution, read_file, write_file, list_files, delete_file',
          isError: true,
        },
      ],
    });

    const fine = harness([
      { calls: [call("c1", "write_file", { path: "/workspace/x" })] },
      { calls: [call("c2", "write_file", { path: "/workspace/x", content: "hi" })] },
      { text: "Written." },
    ]);
    assert.equal((await runAgent(fine.planner, fine.context, newAgentRun("write x"))).kind, "answered");
    const told = fine.backend.requests[1]?.messages.at(-1);
    assert.equal(told?.role, "tool");
    assert.match(told?.role === "tool" ? (told.results[0]?.output ?? "") : "", /^Error: write_file argument "content" is missing/);
    assert.equal(fine.channel.files.get("/workspace/x"), "hi");
  });

  it("hands a declared function to the client, and gives its result back under the model's call ID in the next interaction", async () => {
    const functions = [
      {
        name: "get_weather",
        description: "Weather of a city",
        parameters: { type: "object", properties: { city: { type: "string" } } },
        toolIndex: 0,
      },
    ];
    const first = harness([{ calls: [call("w1", "get_weather", { city: "Paris" })] }], {
      tools: { codeExecution: false, fileTools: true, functions },
    });
    const run = newAgentRun("weather in Paris?");
    const ending = await runAgent(first.planner, first.context, run);
    assert.equal(ending.kind, "asked_client");
    const handed = ending.kind === "asked_client" ? ending.calls : [];
    assert.deepEqual(handed, [{ id: "call_1", name: "get_weather", arguments: { city: "Paris" } }]);
    assert.deepEqual(
      first.backend.requests[0]?.tools.map((tool) => tool.name),
      ["read_file", "write_file", "list_files", "delete_file", "get_weather"],
    );
    const saved = first.planner.saveState(run.conversation);

    const second = harness([{ text: "Sunny in Paris." }], {
      tools: { codeExecution: false, fileTools: true, functions },
      previous: readModelPlannerState(saved),
      continuing: true,
    });
    const answering = newAgentRun("", [], [{ callId: "call_1", name: "get_weather", result: { sky: "sunny" }, isError: false }]);
    assert.equal((await runAgent(second.planner, second.context, answering)).kind, "answered");
    assert.deepEqual(second.backend.requests[0]?.messages, [
      { role: "user", text: "weather in Paris?" },
      { role: "model", text: "", calls: [call("w1", "get_weather", { city: "Paris" })] },
      { role: "tool", results: [{ id: "w1", name: "get_weather", output: '{"sky":"sunny"}', isError: false }] },
    ]);
  });

  it("declares an MCP server's tools and calls them through the run's servers", async () => {
    const calls: string[] = [];
    const mcp: McpServers = {
      has: (server) => server === "docs",
      call: async (server, tool, args): Promise<McpToolOutcome> => {
        calls.push(`${server}/${tool}:${JSON.stringify(args)}`);
        return { text: "found it", isError: false };
      },
      tools: async (): Promise<{ tools: McpToolInfo[] }> => ({
        tools: [
          { name: "search", description: "Searches the docs.", inputSchema: { type: "object", properties: { q: { type: "string" } } } },
        ],
      }),
      close: async () => undefined,
    };
    const h = harness([{ calls: [call("m1", "mcp__docs__search", { q: "hooks" })] }, { text: "Found." }], { mcp, mcpServers: ["docs"] });
    assert.equal((await runAgent(h.planner, h.context, newAgentRun("search the docs"))).kind, "answered");
    assert.deepEqual(h.backend.requests[0]?.tools.at(-1), {
      name: "mcp__docs__search",
      description: 'Searches the docs. (tool "search" of the MCP server "docs")',
      parameters: { type: "object", properties: { q: { type: "string" } } },
    });
    assert.deepEqual(calls, ['docs/search:{"q":"hooks"}']);
    assert.deepEqual(
      h.steps.steps.map((step) => step.type),
      ["mcp_server_tool_call", "mcp_server_tool_result"],
    );
  });

  it("ends a run past agent_config.max_total_tokens incomplete, before its calls run", async () => {
    const h = harness([{ calls: [call("c1", "list_files", {})], usage: { input: 900, output: 200, thought: 0 } }], {
      maxTotalTokens: 1000,
    });
    const ending = await runAgent(h.planner, h.context, newAgentRun("list"));
    assert.equal(ending.kind, "planner_failed");
    assert.equal(ending.kind === "planner_failed" && ending.status, "incomplete");
    assert.match(
      ending.kind === "planner_failed" ? ending.error.message : "",
      /used 1100 tokens, more than agent_config.max_total_tokens \(1000\)/,
    );
    assert.equal(h.channel.commands.length, 0);
  });

  it("ends the run failed with the backend's reason when the model cannot answer", async () => {
    const h = harness([
      new ModelBackendError("unreachable", "openai: no server answers at http://127.0.0.1:9/v1; start it or set EMULATOR_OPENAI_BASE_URL"),
    ]);
    const ending = await runAgent(h.planner, h.context, newAgentRun("hello"));
    assert.deepEqual(ending, {
      kind: "planner_failed",
      status: "failed",
      error: {
        code: "service_unavailable",
        message:
          "The agent's model (openai:qwen3) failed at turn 1: openai: no server answers at http://127.0.0.1:9/v1; start it or set EMULATOR_OPENAI_BASE_URL",
      },
    });
  });

  it("writes the model's thought before the text it led to", async () => {
    const h = harness([{ thought: "The user greets me.", text: "Hello!" }]);
    await runAgent(h.planner, h.context, newAgentRun("hi"));
    assert.deepEqual(h.output.thoughts, ["The user greets me."]);
    assert.deepEqual(h.output.texts, [["Hel", "lo!"]]);
  });
});
