// Injected hook faults through the engine with an in-memory host (docs/faults.md#hooks): each effect
// gives the result the real failure gives, so the documented fail-open follows, the handler is (or is
// not) run, and the trace carries the mark. The rules come from a real FaultPlan through its port.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FaultPlan } from "../../server/faults/fault-plan.js";
import { faultPortFor } from "../../server/faults/fault-port.js";
import { faultRuleSchema } from "../../server/faults/fault-rules.js";
import { runPostToolHooks, runPreToolHooks } from "../../server/hooks/engine.js";
import { denyOutput, exited, ROOT_HOOKS as ROOT, ScriptedHost } from "../support/scripted-hook-host.js";
import { bash } from "../support/tool-calls.js";

const URL = "https://hooks.example.com/gate";
const hooksOf = (handler: unknown) => ({
  gate: {
    pre_tool_execution: [{ matcher: "code_execution", hooks: [handler] }],
    post_tool_execution: [{ matcher: "*", hooks: [handler] }],
  },
});
const commandGate = hooksOf({ type: "command", command: "gate", timeout: 0.05 });
const httpGate = hooksOf({ type: "http", url: URL, timeout: 0.05 });

function armed(rule: unknown): { faults: (site: any) => any; plan: FaultPlan } {
  const plan = new FaultPlan();
  const added = plan.add("owner", faultRuleSchema.parse(rule));
  assert.ok(added);
  const port = faultPortFor(plan, "owner", "env_1");
  return { faults: (site) => port.take(site), plan };
}

describe("injected hook faults", () => {
  it("timeout: the command is never run, the result is a kill at its own timeout, and the pre hook fails open", async () => {
    const host = new ScriptedHost().withHooks(ROOT, commandGate);
    host.onCommand = async () => exited(denyOutput("never"));
    const { faults, plan } = armed({ target: { kind: "hook", command: "gate" }, effect: { kind: "timeout" }, times: 1 });
    const started = performance.now();
    const pre = await runPreToolHooks(host, bash("rm -rf /"), "env_1", { faults });
    assert.ok(performance.now() - started >= 45, "waited the handler's 50 ms");
    assert.equal(pre.decision, "allow");
    const [handler] = pre.trace.handlers;
    assert.equal(handler?.timed_out, true);
    assert.equal(handler?.signal, "SIGKILL");
    assert.equal(handler?.fail_open?.code, "timeout");
    assert.equal(handler?.injected_fault?.rule_id, plan.list("owner")[0]?.id);
    assert.equal(host.commands.length, 0);
    // Spent: the next call runs the handler, which denies.
    const next = await runPreToolHooks(host, bash("rm -rf /"), "env_1", { faults });
    assert.equal(next.decision, "deny");
    assert.equal(next.trace.handlers[0]?.injected_fault, null);
  });

  it("error: a command hook exits 1 with the message on stderr; a post hook records the failure", async () => {
    const host = new ScriptedHost().withHooks(ROOT, commandGate);
    const { faults } = armed({
      target: { kind: "hook", group: "gate", event: "post_tool_execution" },
      effect: { kind: "error", message: "boom" },
    });
    const post = await runPostToolHooks(host, bash("ls"), "env_1", undefined, { faults });
    const [handler] = post.handlers;
    assert.equal(handler?.exit_code, 1);
    assert.equal(handler?.stderr_excerpt, "boom\n");
    assert.equal(handler?.failure?.code, "nonzero_exit");
    assert.match(post.summary, /1 fault injected \(error by fault_/);
    assert.equal(host.commands.length, 0);
    // The pre event is not targeted: its handler runs for real.
    await runPreToolHooks(host, bash("ls"), "env_1", { faults });
    assert.equal(host.commands.length, 1);
  });

  it("http_status, refuse, reset on an http hook: the answer a real 503, refused or reset connection gives", async () => {
    const cases = [
      [{ kind: "http_status", status: 503 }, "http_status", /answered HTTP 503/],
      [{ kind: "refuse" }, "connection_error", /Connection refused/],
      [{ kind: "reset" }, "connection_error", /Connection reset by peer/],
    ] as const;
    for (const [effect, code, reason] of cases) {
      const host = new ScriptedHost().withHooks(ROOT, httpGate);
      const { faults } = armed({ target: { kind: "hook", url: URL }, effect, times: 1 });
      const pre = await runPreToolHooks(host, bash("ls"), "env_1", { faults });
      const [handler] = pre.trace.handlers;
      assert.equal(pre.decision, "allow");
      assert.equal(handler?.fail_open?.code, code, effect.kind);
      assert.match(handler?.fail_open?.reason ?? "", reason);
      assert.equal(handler?.injected_fault?.effect.kind, effect.kind);
      assert.equal(host.posts.length, 0, "the receiver was never asked");
    }
  });

  it("latency below the timeout runs the handler after it; at or past the timeout it is that timeout", async () => {
    const host = new ScriptedHost().withHooks(ROOT, httpGate);
    host.onPost = async () => ({ ok: true, status: 200, body: Buffer.from(denyOutput("slow no")), bodyBytes: 30, durationMs: 1 });
    const slow = armed({ target: { kind: "hook", url: URL }, effect: { kind: "latency", ms: 10 }, times: 1 });
    assert.equal((await runPreToolHooks(host, bash("ls"), "env_1", { faults: slow.faults })).decision, "deny");
    assert.equal(host.posts.length, 1);
    const late = armed({ target: { kind: "hook", url: URL }, effect: { kind: "http_status", status: 503, latency_ms: 5000 }, times: 1 });
    const pre = await runPreToolHooks(host, bash("ls"), "env_1", { faults: late.faults });
    assert.equal(pre.trace.handlers[0]?.fail_open?.code, "timeout");
    assert.equal(host.posts.length, 1);
  });

  it("a cancelled call stops an injected wait at once", async () => {
    const host = new ScriptedHost().withHooks(ROOT, hooksOf({ type: "command", command: "gate", timeout: 60 }));
    const { faults } = armed({ target: { kind: "hook", command: "gate" }, effect: { kind: "timeout" } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error("cancelled by the test")), 20);
    await assert.rejects(runPreToolHooks(host, bash("ls"), "env_1", { faults, signal: controller.signal }), /cancelled by the test/);
  });
});
