// The agent's turn loop over fakes: a planner whose moves the test computes, a hook host that answers
// as scripted, and an in-memory sandbox channel. What is checked is what the loop owns: the order and
// IDs of the steps, what the planner is shown at each turn, and how each kind of run ends.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  CANCELLED_TEXT,
  denialText,
  newAgentRun,
  runAgent,
  type AgentContext,
  type AgentEnding,
  type AgentRun,
} from "../../server/agent/agent-loop.js";
import type { Planner } from "../../server/agent/planner.js";
import { startScriptedPlanner } from "../../server/planners/scripted/scripted-planner.js";
import type { HookCommandRequest } from "../../server/hooks/hook-host.js";
import { codeOf, FakeSandboxChannel } from "../support/fake-sandbox-channel.js";
import { FakePlanner, movesInOrder } from "../support/fake-planners.js";
import { RecordingStepSink } from "../support/recording-step-sink.js";
import { denyOutput, exited, ROOT_HOOKS, ScriptedHost } from "../support/scripted-hook-host.js";
import { bash, read, remove, write } from "../support/tool-calls.js";

const ENVIRONMENT_ID = "env_loop_test";

interface Harness {
  channel: FakeSandboxChannel;
  host: ScriptedHost;
  steps: RecordingStepSink;
  controller: AbortController;
  context: AgentContext;
  run(planner: Planner, input?: string): Promise<{ run: AgentRun; ending: AgentEnding }>;
}

function harness(overrides: Partial<AgentContext> = {}): Harness {
  const channel = new FakeSandboxChannel();
  const host = new ScriptedHost();
  const steps = new RecordingStepSink();
  const controller = new AbortController();
  let calls = 0;
  const context: AgentContext = {
    sandbox: { environmentId: ENVIRONMENT_ID, channel, hooks: host, limits: { timeoutMs: 5_000, maxOutputBytes: 1024 * 1024 } },
    codeExecutionEnabled: true,
    steps,
    signal: controller.signal,
    newCallId: () => `call_${++calls}`,
    ...overrides,
  };
  return {
    channel,
    host,
    steps,
    controller,
    context,
    run: async (planner, input = "the user's input") => {
      const run = newAgentRun(input);
      const ending = await runAgent(planner, context, run);
      return { run, ending };
    },
  };
}

/** A pre-tool gate on every tool: its command gets the hook payload and answers with `decide`. */
function gateEveryTool(
  host: ScriptedHost,
  group: string,
  decide: (payload: { tool_call: { name: string; args: Record<string, unknown> } }) => string,
): void {
  host.withHooks(ROOT_HOOKS, { [group]: { pre_tool_execution: [{ matcher: "*", hooks: [{ type: "command", command: "gate" }] }] } });
  host.onCommand = async (request: HookCommandRequest) => exited(decide(JSON.parse(request.stdin.toString())));
}

describe("agent turn loop: turns", () => {
  it("lets a result decide the next call, shows the planner every outcome, and ends with its answer", async () => {
    const h = harness();
    h.channel.files.set("/workspace/todo.txt", "/workspace/old.log");
    h.channel.files.set("/workspace/old.log", "stale");
    const planner = new FakePlanner((conversation, turn) => {
      if (turn === 1) return { kind: "call_tools", calls: [read("/workspace/todo.txt")] };
      const last = conversation.turns[conversation.turns.length - 1];
      const outcome = last?.kind === "tool_calls" ? last.outcomes[0] : undefined;
      if (turn === 2 && outcome) return { kind: "call_tools", calls: [remove(outcome.output)] };
      return { kind: "answer", text: `Done after ${conversation.turns.length} turns.` };
    });

    const { run, ending } = await h.run(planner);

    assert.deepEqual(ending, { kind: "answered", text: "Done after 2 turns." });
    assert.equal(h.channel.files.has("/workspace/old.log"), false, "the second call, chosen from the first result, ran");
    assert.deepEqual(
      planner.shown.map((conversation) => conversation.turns.length),
      [0, 1, 2],
      "the planner was asked three times, each time with one more turn",
    );
    assert.deepEqual(run.conversation.turns, [
      {
        kind: "tool_calls",
        outcomes: [{ call: read("/workspace/todo.txt"), callId: "call_1", status: "ok", output: "/workspace/old.log" }],
      },
      {
        kind: "tool_calls",
        outcomes: [{ call: remove("/workspace/old.log"), callId: "call_2", status: "ok", output: "Deleted /workspace/old.log." }],
      },
    ]);
    assert.deepEqual(h.steps.steps, [
      { type: "function_call", id: "call_1", name: "read_file", arguments: { path: "/workspace/todo.txt" } },
      { type: "function_result", call_id: "call_1", name: "read_file", result: "/workspace/old.log", is_error: false },
      { type: "function_call", id: "call_2", name: "delete_file", arguments: { path: "/workspace/old.log" } },
      { type: "function_result", call_id: "call_2", name: "delete_file", result: "Deleted /workspace/old.log.", is_error: false },
    ]);
    assert.deepEqual(run.plannerState, { planner: "fake", data: { turns: 2 } });
  });

  it("runs several calls of one move in order, streaming a command's output into its result step", async () => {
    const h = harness();
    h.channel.onRun = async (request) => ({ stdout: `ran ${codeOf(request)}\n` });
    const { run, ending } = await h.run(
      movesInOrder({ kind: "call_tools", calls: [bash("echo a"), write("/workspace/b.txt", "b"), bash("false")] }),
    );

    assert.equal(ending.kind, "answered");
    assert.deepEqual(
      h.steps.events.map((event) =>
        event.kind === "step"
          ? `${event.step.type}`
          : event.kind === "output"
            ? `output ${event.callId}: ${event.text}`
            : `${event.kind} ${event.step.call_id}`,
      ),
      [
        "code_execution_call",
        "result_started call_1",
        "output call_1: ran echo a\n",
        "result_finished call_1",
        "function_call",
        "result_started call_2",
        "result_finished call_2",
        "code_execution_call",
        "result_started call_3",
        "output call_3: ran false\n",
        "result_finished call_3",
      ],
    );
    assert.deepEqual(h.steps.steps[0], { type: "code_execution_call", id: "call_1", arguments: { code: "echo a", language: "bash" } });
    assert.deepEqual(
      run.conversation.turns[0]?.kind === "tool_calls"
        ? run.conversation.turns[0].outcomes.map((outcome) => [outcome.callId, outcome.status])
        : [],
      [
        ["call_1", "ok"],
        ["call_2", "ok"],
        ["call_3", "ok"],
      ],
    );
  });

  it("skips code_execution when it is not enabled: no step, and the planner sees why", async () => {
    const h = harness({ codeExecutionEnabled: false });
    const { run } = await h.run(movesInOrder({ kind: "call_tools", calls: [bash("ls"), read("/workspace/missing.txt")] }));

    assert.deepEqual(
      h.steps.steps.map((step) => step.type),
      ["function_call", "function_result"],
    );
    assert.deepEqual(h.steps.steps[0], {
      type: "function_call",
      id: "call_1",
      name: "read_file",
      arguments: { path: "/workspace/missing.txt" },
    });
    const turn = run.conversation.turns[0];
    assert.ok(turn?.kind === "tool_calls");
    assert.equal(turn.outcomes[0]?.status, "skipped");
    assert.match(turn.outcomes[0]?.skippedReason ?? "", /code_execution is not enabled/);
    assert.equal(turn.outcomes[1]?.status, "error", "a failed file operation is an error result, not a failed run");
    assert.match(turn.outcomes[1]?.output ?? "", /ENOENT/);
    assert.equal(h.channel.commands.length, 0);
  });

  it("skips every tool when the run has no sandbox, and still answers", async () => {
    const h = harness({ sandbox: null });
    const { run, ending } = await h.run(movesInOrder({ kind: "call_tools", calls: [read("/a")] }, { kind: "answer", text: "no sandbox" }));
    assert.deepEqual(ending, { kind: "answered", text: "no sandbox" });
    assert.deepEqual(h.steps.events, []);
    assert.equal(run.conversation.turns[0]?.kind === "tool_calls" && run.conversation.turns[0].outcomes[0]?.status, "skipped");
  });
});

describe("agent turn loop: hooks", () => {
  it("feeds a denial back to the planner, which then chooses another call", async () => {
    const h = harness();
    h.channel.files.set("/workspace/public/summary.json", '{"team_size": 42}');
    const reason = "Access to confidential /private/ records is blocked.";
    gateEveryTool(h.host, "privacy-gate", (payload) =>
      String(payload.tool_call.args.path).includes("/private/") ? denyOutput(reason) : "",
    );
    const planner = new FakePlanner((conversation, turn) => {
      if (turn === 1) return { kind: "call_tools", calls: [read("/workspace/private/employees.json")] };
      const last = conversation.turns[conversation.turns.length - 1];
      const denied = last?.kind === "tool_calls" && last.outcomes.some((outcome) => outcome.status === "denied");
      if (turn === 2 && denied) return { kind: "call_tools", calls: [read("/workspace/public/summary.json")] };
      return { kind: "answer", text: "recovered" };
    });

    const { run, ending } = await h.run(planner);

    assert.deepEqual(ending, { kind: "answered", text: "recovered" });
    assert.deepEqual(planner.shown[1]?.turns, [
      {
        kind: "tool_calls",
        outcomes: [
          {
            call: read("/workspace/private/employees.json"),
            callId: "call_1",
            status: "denied",
            output: denialText("privacy-gate", reason),
            denial: { group: "privacy-gate", reason },
          },
        ],
      },
    ]);
    assert.deepEqual(h.steps.steps, [
      { type: "function_call", id: "call_1", name: "read_file", arguments: { path: "/workspace/private/employees.json" } },
      {
        type: "function_result",
        call_id: "call_1",
        name: "read_file",
        result: `Tool call denied by hook "privacy-gate": ${reason}`,
        is_error: true,
      },
      { type: "function_call", id: "call_2", name: "read_file", arguments: { path: "/workspace/public/summary.json" } },
      { type: "function_result", call_id: "call_2", name: "read_file", result: '{"team_size": 42}', is_error: false },
    ]);
    assert.deepEqual(
      run.hooks.map((trace) => [trace.call_id, trace.pre.decision, trace.post === null]),
      [
        ["call_1", "deny", true],
        ["call_2", "allow", false],
      ],
      "post hooks ran only for the call that ran",
    );
  });
});

describe("agent turn loop: asking the client", () => {
  it("records a function_call step per call, ends the run, and runs no hook", async () => {
    const h = harness();
    gateEveryTool(h.host, "gate", () => denyOutput("never"));
    const planner = movesInOrder(
      { kind: "call_tools", calls: [write("/workspace/city.txt", "Paris")] },
      {
        kind: "ask_client",
        calls: [
          { name: "get_weather", arguments: { city: "Paris" } },
          { name: "get_time", arguments: {} },
        ],
      },
      { kind: "answer", text: "must not be reached" },
    );
    h.host.onCommand = async () => exited(); // allows the sandbox tool

    const { run, ending } = await h.run(planner);

    assert.deepEqual(ending, {
      kind: "asked_client",
      calls: [
        { id: "call_2", name: "get_weather", arguments: { city: "Paris" } },
        { id: "call_3", name: "get_time", arguments: {} },
      ],
    });
    assert.equal(planner.shown.length, 2, "the planner is not asked again once the client has the turn");
    assert.deepEqual(h.steps.steps.slice(2), [
      { type: "function_call", id: "call_2", name: "get_weather", arguments: { city: "Paris" } },
      { type: "function_call", id: "call_3", name: "get_time", arguments: {} },
    ]);
    assert.equal(h.host.commands.length, 1, "the gate matches every tool, yet ran only for the sandbox tool");
    assert.deepEqual(run.conversation.turns[1], { kind: "ask_client", calls: ending.kind === "asked_client" ? ending.calls : [] });
    assert.deepEqual(run.plannerState, { planner: "fake", data: { turns: 2 } });
  });

  it("refuses an ask_client move without calls, as a planner bug", async () => {
    const h = harness();
    await assert.rejects(h.run(movesInOrder({ kind: "ask_client", calls: [] })), /asked the client for nothing/);
  });
});

describe("agent turn loop: limits and failures", () => {
  it("stops a planner that never answers after the configured number of turns", async () => {
    const h = harness({ maxTurns: 3 });
    const planner = new FakePlanner(() => ({ kind: "call_tools", calls: [bash("true")] }));
    const { run, ending } = await h.run(planner);

    assert.equal(planner.shown.length, 3);
    assert.equal(ending.kind, "turn_limit");
    assert.match(ending.kind === "turn_limit" ? ending.text : "", /stopped after 3 turns without reaching an answer/);
    assert.equal(h.channel.commands.length, 3);
    assert.equal(run.conversation.turns.length, 3);
    assert.deepEqual(run.plannerState, { planner: "fake", data: { turns: 3 } });
  });

  it("stops a planner that asks for more tool calls than one run may make, before the move that would pass the limit (issue 9, defect 11)", async () => {
    const h = harness({ maxToolCalls: 5 });
    const planner = new FakePlanner(() => ({ kind: "call_tools", calls: [bash("true"), bash("true")] }));
    const { ending } = await h.run(planner);

    assert.equal(ending.kind, "call_limit");
    assert.match(
      ending.kind === "call_limit" ? ending.text : "",
      /asked for 2 more tool calls after 4, more than the 5 one interaction may make \(EMULATOR_MAX_TOOL_CALLS\)/,
    );
    assert.equal(h.channel.commands.length, 4, "the move that would pass the limit did not start");
  });

  it("ends with the sandbox failure mid-turn: the failed call's result says so, later calls do not run, the planner has the last word", async () => {
    const h = harness();
    h.channel.onRun = async () => {
      h.channel.goAway("the container was removed");
      return {};
    };
    const planner = new FakePlanner((conversation, turn) =>
      turn === 1
        ? { kind: "call_tools", calls: [write("/workspace/a.txt", "a"), bash("make"), read("/workspace/a.txt")] }
        : { kind: "answer", text: `failure seen: ${conversation.failure}` },
    );

    const { run, ending } = await h.run(planner);

    const message = "sandbox executor unavailable: the container was removed";
    assert.deepEqual(ending, { kind: "sandbox_failed", message, text: `failure seen: ${message}`, lost: false });
    assert.equal(run.conversation.failure, message);
    assert.deepEqual(h.steps.steps, [
      { type: "function_call", id: "call_1", name: "write_file", arguments: { path: "/workspace/a.txt", content: "a" } },
      { type: "function_result", call_id: "call_1", name: "write_file", result: "Wrote 1 bytes to /workspace/a.txt.", is_error: false },
      { type: "code_execution_call", id: "call_2", arguments: { code: "make", language: "bash" } },
      { type: "code_execution_result", call_id: "call_2", result: `The sandbox stopped answering: ${message}`, is_error: true },
    ]);
    assert.deepEqual(
      run.conversation.turns[0]?.kind === "tool_calls"
        ? run.conversation.turns[0].outcomes.map((outcome) => [outcome.callId, outcome.status, outcome.output])
        : [],
      [
        ["call_1", "ok", "Wrote 1 bytes to /workspace/a.txt."],
        ["call_2", "error", message],
      ],
    );
  });

  it("answers with the failure alone when the planner makes another move after the sandbox failed", async () => {
    const h = harness();
    h.channel.goAway("gone");
    const { ending } = await h.run(new FakePlanner(() => ({ kind: "call_tools", calls: [read("/a")] })));
    assert.deepEqual(ending, {
      kind: "sandbox_failed",
      message: "sandbox executor unavailable: gone",
      text: "The sandbox stopped answering, so the run could not go on: sandbox executor unavailable: gone",
      lost: false,
    });
  });

  it("says the sandbox was lost for good when its machine went with it (SandboxLostError)", async () => {
    const h = harness();
    h.channel.lose("Swarm node n3 is down");
    const { ending } = await h.run(new FakePlanner(() => ({ kind: "call_tools", calls: [read("/a")] })));
    assert.deepEqual(ending, {
      kind: "sandbox_failed",
      message: "sandbox executor unavailable: Swarm node n3 is down",
      text: "The sandbox stopped answering, so the run could not go on: sandbox executor unavailable: Swarm node n3 is down",
      lost: true,
    });
  });

  it("lets any other error of a tool or planner through, with the planner's state saved", async () => {
    const h = harness();
    h.channel.onRun = async () => {
      throw new Error("a bug");
    };
    const run = newAgentRun("x");
    await assert.rejects(runAgent(movesInOrder({ kind: "call_tools", calls: [bash("ls")] }), h.context, run), /a bug/);
    assert.deepEqual(run.plannerState, { planner: "fake", data: { turns: 1 } });
    const broken = new FakePlanner(() => {
      throw new Error("planner bug");
    });
    await assert.rejects(h.run(broken), /planner bug/);
  });
});

describe("agent turn loop: stopping", () => {
  it("stops between turns: nothing of the next move runs", async () => {
    const h = harness();
    const planner = new FakePlanner((_conversation, turn) => {
      if (turn === 2) h.controller.abort(new Error("cancelled"));
      return { kind: "call_tools", calls: [write(`/workspace/${turn}.txt`, "x")] };
    });
    const { run, ending } = await h.run(planner);

    assert.deepEqual(ending, { kind: "stopped" });
    assert.deepEqual([...h.channel.files.keys()], ["/workspace/1.txt"]);
    assert.equal(h.steps.steps.length, 2);
    assert.equal(run.conversation.turns.length, 1);
    assert.deepEqual(run.plannerState, { planner: "fake", data: { turns: 1 } });
  });

  it("stops when the signal ends the planner's own work (a model call, say)", async () => {
    const h = harness();
    const planner = new FakePlanner(
      (_conversation, _turn, signal) =>
        new Promise((_resolve, reject) => {
          signal?.addEventListener("abort", () => reject(signal.reason));
          h.controller.abort(new Error("cancelled"));
        }),
    );
    assert.deepEqual((await h.run(planner)).ending, { kind: "stopped" });
  });

  it("does not ask the planner at all when stopped before the first turn", async () => {
    const h = harness();
    h.controller.abort(new Error("cancelled"));
    const planner = movesInOrder({ kind: "answer", text: "x" });
    assert.deepEqual((await h.run(planner)).ending, { kind: "stopped" });
    assert.equal(planner.shown.length, 0);
  });

  it("stops during a tool: the command is cancelled, its result says so, no post hook and no later call", async () => {
    const h = harness();
    h.host.withHooks(ROOT_HOOKS, { audit: { post_tool_execution: [{ matcher: "*", hooks: [{ type: "command", command: "audit" }] }] } });
    h.channel.onRun = (request) =>
      new Promise((resolve) => {
        request.onOutput?.("stdout", Buffer.from("started\n"));
        request.signal?.addEventListener("abort", () => resolve({}));
        h.controller.abort(new Error("cancelled"));
      });
    const planner = movesInOrder({ kind: "call_tools", calls: [bash("sleep 100"), read("/workspace/a.txt")] });

    const { run, ending } = await h.run(planner);

    assert.deepEqual(ending, { kind: "stopped" });
    assert.equal(planner.shown.length, 1);
    assert.deepEqual(h.steps.steps, [
      { type: "code_execution_call", id: "call_1", arguments: { code: "sleep 100", language: "bash" } },
      { type: "code_execution_result", call_id: "call_1", result: `started\n\n${CANCELLED_TEXT}`, is_error: true },
    ]);
    assert.equal(h.host.commands.length, 0, "the post hook did not run");
    assert.equal(run.hooks[0]?.post, null);
  });

  it("stops during a pre hook: the call's result is [cancelled]", async () => {
    const h = harness();
    gateEveryTool(h.host, "slow-gate", () => "");
    h.host.onCommand = (request) =>
      new Promise((_resolve, reject) => {
        request.signal?.addEventListener("abort", () => reject(request.signal?.reason));
        h.controller.abort(new Error("cancelled"));
      });
    const { run, ending } = await h.run(movesInOrder({ kind: "call_tools", calls: [read("/workspace/a.txt")] }));

    assert.deepEqual(ending, { kind: "stopped" });
    assert.deepEqual(h.steps.steps[1], {
      type: "function_result",
      call_id: "call_1",
      name: "read_file",
      result: CANCELLED_TEXT,
      is_error: true,
    });
    assert.deepEqual(run.conversation.turns[0]?.kind === "tool_calls" ? run.conversation.turns[0].outcomes : [], [
      { call: read("/workspace/a.txt"), callId: "call_1", status: "error", output: CANCELLED_TEXT },
    ]);
  });
});

describe("agent turn loop: the scripted planner gives today's answers", () => {
  function scripted(input: string) {
    const started = startScriptedPlanner(input);
    assert.equal(started.kind, "ready");
    if (started.kind !== "ready") throw new Error("unreachable");
    return started.planner;
  }

  it("the seed's audit log: written, read back, reported in order", async () => {
    const h = harness();
    const input =
      "Use your filesystem tool to create `/workspace/audit.log` containing 'event 1', then immediately read it back using your filesystem read tool.";
    const { ending } = await h.run(scripted(input), input);

    assert.deepEqual(ending, {
      kind: "answered",
      text: "I made 2 tool calls, in order:\n1. Wrote 7 bytes to /workspace/audit.log.\n2. Read /workspace/audit.log: event 1",
    });
    assert.deepEqual(h.steps.steps, [
      { type: "function_call", id: "call_1", name: "write_file", arguments: { path: "/workspace/audit.log", content: "event 1" } },
      { type: "function_result", call_id: "call_1", name: "write_file", result: "Wrote 7 bytes to /workspace/audit.log.", is_error: false },
      { type: "function_call", id: "call_2", name: "read_file", arguments: { path: "/workspace/audit.log" } },
      { type: "function_result", call_id: "call_2", name: "read_file", result: "event 1", is_error: false },
    ]);
  });

  it("the seed's security gate: the denial is reported with its group and reason", async () => {
    const h = harness();
    gateEveryTool(h.host, "security-gate", (payload) =>
      String(payload.tool_call.args.code).includes("rm -rf") ? denyOutput("Destructive command blocked by security gate.") : "",
    );
    const input = "Run `rm -rf /tmp/forbidden` using code_execution.";
    const { ending } = await h.run(scripted(input), input);

    assert.deepEqual(ending, {
      kind: "answered",
      text: 'The code_execution call `rm -rf /tmp/forbidden` (bash) was denied by hook "security-gate": Destructive command blocked by security gate. I did not retry it.',
    });
    assert.equal(h.channel.commands.length, 0);
  });

  it("steps it could not read are named after the calls", async () => {
    const h = harness();
    h.channel.files.set("/workspace/a.txt", "alpha");
    const input = "Run the tests, then read `/workspace/a.txt`";
    const { ending } = await h.run(scripted(input), input);
    assert.equal(ending.kind, "answered");
    assert.match(
      ending.kind === "answered" ? ending.text : "",
      /^Read \/workspace\/a\.txt: alpha\n\nI skipped part of your request\. I took "Run the tests" as a request to run code/,
    );
  });

  it("input with nothing to run is answered at once, without a sandbox", async () => {
    const h = harness({ sandbox: null });
    const planner = scripted("Hello there");
    assert.equal(planner.needsSandbox, false);
    const { ending } = await h.run(planner, "Hello there");
    assert.equal(ending.kind, "answered");
    assert.match(
      ending.kind === "answered" ? ending.text : "",
      /^I read your message \("Hello there"\) but found no request .* No tool call was made\.\n\n/,
    );
    assert.deepEqual(h.steps.events, []);
  });

  it("a sandbox that stops answering is reported after what did run", async () => {
    const h = harness();
    h.channel.onRun = async () => {
      h.channel.goAway("gone");
      return {};
    };
    const input = "Run `echo one` then read /workspace/a.txt";
    const { ending } = await h.run(scripted(input), input);
    assert.deepEqual(ending, {
      kind: "sandbox_failed",
      message: "sandbox executor unavailable: gone",
      text: "Ran `echo one` (bash); it failed. Output: sandbox executor unavailable: gone\n\nThe sandbox stopped answering, so the remaining steps did not run: sandbox executor unavailable: gone",
      lost: false,
    });
  });

  it("code_execution not enabled: the call is named as not run", async () => {
    const h = harness({ codeExecutionEnabled: false });
    const input = "Run `ls`";
    const { ending } = await h.run(scripted(input), input);
    assert.deepEqual(ending, {
      kind: "answered",
      text: 'The code_execution call `ls` (bash) was not run: code_execution is not enabled for this interaction; add {"type":"code_execution"} to tools.',
    });
  });
});
