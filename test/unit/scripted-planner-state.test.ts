// The scripted planner's saved state: what it remembers of each run, that it survives JSON (the store
// keeps it as text) and is resumed by the next interaction, and that resuming never changes how a new
// input is read.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { newAgentRun, runAgent } from "../../server/agent/agent-loop.js";
import type { PlannerState } from "../../server/agent/planner.js";
import { type ScriptedPlanner, startScriptedPlanner } from "../../server/planners/scripted/scripted-planner.js";
import { MAX_REMEMBERED_RUNS, rememberedRuns, type RememberedRun } from "../../server/planners/scripted/scripted-planner-state.js";
import { FakeSandboxChannel } from "../support/fake-sandbox-channel.js";
import { RecordingStepSink } from "../support/recording-step-sink.js";
import { denyOutput, exited, ROOT_HOOKS, ScriptedHost } from "../support/scripted-hook-host.js";

function planner(input: string, previous?: PlannerState | null): ScriptedPlanner {
  const started = startScriptedPlanner(input, previous);
  if (started.kind !== "ready") throw new Error(`not ready: ${started.message}`);
  return started.planner;
}

/** Runs `input` through the loop over fakes (the pre hook denies every delete); returns the saved state. */
async function runScripted(input: string, previous: PlannerState | null, codeExecutionEnabled = true): Promise<PlannerState | undefined> {
  const channel = new FakeSandboxChannel();
  const host = new ScriptedHost().withHooks(ROOT_HOOKS, {
    guard: { pre_tool_execution: [{ matcher: "delete_file", hooks: [{ type: "command", command: "guard" }] }] },
  });
  host.onCommand = async () => exited(denyOutput("no deleting"));
  let calls = 0;
  const run = newAgentRun(input);
  await runAgent(
    planner(input, previous),
    {
      sandbox: { environmentId: "env_state", channel, hooks: host, limits: { timeoutMs: 5_000, maxOutputBytes: 1024 } },
      codeExecutionEnabled,
      steps: new RecordingStepSink(),
      newCallId: () => `call_${++calls}`,
    },
    run,
  );
  return run.plannerState;
}

describe("scripted planner state", () => {
  it("remembers how the input was read and each call's ID and outcome, never arguments or results", async () => {
    const state = await runScripted("create `/workspace/a.txt` containing 'secret', then delete it; then run `ls`", null, false);
    assert.deepEqual(state, {
      planner: "scripted",
      data: {
        runs: [
          {
            read: "phrasing",
            calls: [
              { name: "write_file", call_id: "call_1", status: "ok" },
              { name: "delete_file", call_id: "call_2", status: "denied" },
              { name: "code_execution", call_id: null, status: "skipped" },
            ],
          },
        ],
      },
    });
    assert.equal(JSON.stringify(state).includes("secret"), false);
  });

  it("round-trips through JSON and grows by one run per interaction", async () => {
    const first = await runScripted('```tool_calls\n[{"name": "list_files"}]\n```', null);
    const resumed = JSON.parse(JSON.stringify(first)) as PlannerState;
    assert.deepEqual(resumed, first);
    const second = await runScripted("Hello", resumed);
    assert.deepEqual(second, {
      planner: "scripted",
      data: {
        runs: [
          { read: "script", calls: [{ name: "list_files", call_id: "call_1", status: "ok" }] },
          { read: "none", calls: [] },
        ],
      },
    });
  });

  it("records a sandbox failure", async () => {
    const channel = new FakeSandboxChannel();
    channel.goAway("gone");
    const run = newAgentRun("read /a");
    await runAgent(
      planner("read /a"),
      {
        sandbox: { environmentId: "e", channel, hooks: new ScriptedHost(), limits: { timeoutMs: 1, maxOutputBytes: 1 } },
        codeExecutionEnabled: true,
        steps: new RecordingStepSink(),
      },
      run,
    );
    const runs = rememberedRuns(run.plannerState);
    assert.equal(runs[0]?.failure, "sandbox executor unavailable: gone");
    assert.equal(runs[0]?.calls[0]?.status, "error");
  });

  it("keeps the last runs only", () => {
    const many: RememberedRun[] = Array.from({ length: MAX_REMEMBERED_RUNS }, () => ({ read: "none", calls: [] }));
    const previous: PlannerState = { planner: "scripted", data: { runs: [{ read: "script", calls: [] }, ...many] } };
    const state = planner("Hello", previous).saveState({ input: { text: "Hello" }, turns: [] });
    const runs = rememberedRuns(state);
    assert.equal(runs.length, MAX_REMEMBERED_RUNS);
    assert.ok(runs.every((run) => run.read === "none"));
  });

  it("starts afresh from another planner's state or one it cannot read", () => {
    const unreadable: (PlannerState | null | undefined)[] = [
      null,
      undefined,
      { planner: "model", data: { runs: [] } },
      { planner: "scripted", data: "runs" },
      { planner: "scripted", data: { runs: [{ read: "guessed", calls: [] }] } },
      { planner: "scripted", data: { runs: [{ read: "script", calls: [{ name: "rm", call_id: null, status: "ok" }] }] } },
    ];
    for (const previous of unreadable) assert.deepEqual(rememberedRuns(previous), [], JSON.stringify(previous));
  });

  it("reads a new input exactly as a fresh planner does", async () => {
    const previous: PlannerState = {
      planner: "scripted",
      data: { runs: [{ read: "script", calls: [{ name: "read_file", call_id: "call_x", status: "denied" }] }] },
    };
    const conversation = { input: { text: "" }, turns: [] };
    for (const input of ["read `/workspace/a.txt` then run `ls`", "Hello", '```tool_calls\n[{"name": "list_files"}]\n```']) {
      const fresh = planner(input);
      const resumed = planner(input, previous);
      assert.deepEqual(resumed.plan, fresh.plan);
      assert.equal(resumed.needsSandbox, fresh.needsSandbox);
      assert.deepEqual(await resumed.next(conversation), await fresh.next(conversation));
    }
  });

  it("refuses a malformed script whatever the previous state", () => {
    assert.equal(startScriptedPlanner("```tool_calls\n[]\n```", { planner: "scripted", data: { runs: [] } }).kind, "invalid");
  });
});
