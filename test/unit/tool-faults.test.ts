// A tool call's injected faults (docs/faults.md#tools, #the-sandbox-channel), on an in-memory channel:
// a tool timeout is the real timeout's result after the tool's deadline, a latency runs the tool after
// it, and a channel drop really closes the channel and fails the call as a lost channel does.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runToolWithFaults } from "../../server/agent/tool-faults.js";
import { FaultPlan } from "../../server/faults/fault-plan.js";
import { faultPortFor } from "../../server/faults/fault-port.js";
import { faultRuleSchema } from "../../server/faults/fault-rules.js";
import { SandboxUnavailableError } from "../../server/sandbox/runtime.js";
import { runTool } from "../../server/tools/tool-runner.js";
import { FakeSandboxChannel } from "../support/fake-sandbox-channel.js";
import { bash, read } from "../support/tool-calls.js";

const LIMITS = { timeoutMs: 40, maxOutputBytes: 1024 };

function portWith(rule: unknown) {
  const plan = new FaultPlan();
  const added = plan.add("owner", faultRuleSchema.parse(rule))!;
  return { port: faultPortFor(plan, "owner", "env_1"), id: added.id };
}

describe("injected tool and channel faults", () => {
  it("no rule: the tool runs as usual", async () => {
    const channel = new FakeSandboxChannel();
    channel.onRun = async () => ({ stdout: "hi\n" });
    const plan = new FaultPlan();
    const execution = await runToolWithFaults(faultPortFor(plan, "owner", "env_1"), bash("echo hi"), channel, LIMITS, undefined, () =>
      runTool(channel, bash("echo hi"), LIMITS),
    );
    assert.equal(execution.result, "hi\n");
  });

  it("timeout on code_execution: after the tool's deadline, the real timeout's result with the mark; nothing ran", async () => {
    const channel = new FakeSandboxChannel();
    const { port, id } = portWith({ target: { kind: "tool", name: "code_execution" }, effect: { kind: "timeout" } });
    const started = performance.now();
    const execution = await runToolWithFaults(port, bash("sleep 1"), channel, LIMITS, undefined, () =>
      runTool(channel, bash("sleep 1"), LIMITS),
    );
    assert.ok(performance.now() - started >= 35);
    assert.equal(execution.isError, true);
    assert.equal(execution.exitCode, null);
    assert.equal(execution.result, `\n[killed: the command ran longer than 0 s] (injected by fault rule ${id})`);
    assert.equal(channel.commands.length, 0);
  });

  it("timeout on a file tool: an is_error result naming the deadline", async () => {
    const channel = new FakeSandboxChannel();
    const { port, id } = portWith({ target: { kind: "tool", name: "read_file" }, effect: { kind: "timeout" } });
    const execution = await runToolWithFaults(port, read("/a"), channel, { ...LIMITS, timeoutMs: 1000 }, undefined, () =>
      runTool(channel, read("/a"), LIMITS),
    );
    assert.equal(execution.result, `read_file did not finish within 1 s (injected by fault rule ${id})`);
    assert.equal(execution.errorText, "read_file did not finish within 1 s");
  });

  it("sandbox_channel drop: the channel is closed for real and the call fails UNAVAILABLE with the mark", async () => {
    const channel = new FakeSandboxChannel();
    channel.onRun = async () => ({ stdout: "too late\n" });
    const { port, id } = portWith({ target: { kind: "sandbox_channel" }, effect: { kind: "drop" }, times: 1 });
    await assert.rejects(
      runToolWithFaults(port, bash("echo x"), channel, LIMITS, undefined, () => runTool(channel, bash("echo x"), LIMITS)),
      (error: unknown) => error instanceof SandboxUnavailableError && error.message.endsWith(`(injected by fault rule ${id})`),
    );
    let closed = false;
    await Promise.race([channel.closed.then(() => (closed = true)), new Promise((resolve) => setTimeout(resolve, 50))]);
    assert.ok(closed, "the channel was closed");
  });

  it("a cancelled call ends an injected latency at once", async () => {
    const channel = new FakeSandboxChannel();
    const { port } = portWith({ target: { kind: "sandbox_channel" }, effect: { kind: "latency", ms: 60_000 } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("cancelled")), 10);
    await assert.rejects(
      runToolWithFaults(port, bash("ls"), channel, LIMITS, controller.signal, () => runTool(channel, bash("ls"), LIMITS)),
      /cancelled/,
    );
    assert.equal(channel.commands.length, 0);
  });
});
