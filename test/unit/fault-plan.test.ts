import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FaultPlan, MAX_FAULT_RULES_PER_KEY } from "../../server/faults/fault-plan.js";
import { type FaultRuleInput, type FaultSite, faultRuleSchema } from "../../server/faults/fault-rules.js";

const gateSite: FaultSite = {
  kind: "hook",
  handler: "command",
  command: "python3 /.agents/hooks-scripts/gate.py",
  url: null,
  group: "security-gate",
  matcher: "code_execution",
  event: "pre_tool_execution",
};

function rule(input: unknown): FaultRuleInput {
  return faultRuleSchema.parse(input);
}

function refusal(input: unknown): string {
  const result = faultRuleSchema.safeParse(input);
  assert.equal(result.success, false, `expected ${JSON.stringify(input)} to be refused`);
  return result.error?.issues.map((issue) => issue.message).join("; ") ?? "";
}

describe("fault rules: what is refused", () => {
  it("refuses an effect that cannot happen at the target, naming why", () => {
    assert.match(
      refusal({ target: { kind: "hook", command: "x" }, effect: { kind: "http_status", status: 503 } }),
      /command hook makes no HTTP request/,
    );
    assert.match(
      refusal({ target: { kind: "egress", host: "example.test" }, effect: { kind: "drop" } }),
      /"drop" effect cannot happen at a "egress" target/,
    );
    assert.match(refusal({ target: { kind: "sandbox_channel" }, effect: { kind: "error", message: "x" } }), /takes "drop", "latency"/);
    assert.match(
      refusal({ target: { kind: "hook", url: "https://h.test/" }, effect: { kind: "error", message: "x" } }),
      /http hook fails by its answer/,
    );
    assert.match(refusal({ target: { kind: "hook", command: "a", url: "https://h.test/" }, effect: { kind: "timeout" } }), /never both/);
  });

  it("refuses times with probability, a seed alone, unknown fields and a webhook scoped to an environment", () => {
    assert.match(
      refusal({ target: { kind: "tool", name: "read_file" }, effect: { kind: "timeout" }, times: 1, probability: 0.5 }),
      /not both/,
    );
    assert.match(refusal({ target: { kind: "tool", name: "read_file" }, effect: { kind: "timeout" }, seed: 3 }), /seeds "probability"/);
    refusal({ target: { kind: "tool", name: "read_file", colour: "red" }, effect: { kind: "timeout" } });
    refusal({ target: { kind: "webhook", uri: "http://127.0.0.1:1/", environment: "env_x" }, effect: { kind: "refuse" } });
    refusal({ target: { kind: "tool", name: "read_file" }, effect: { kind: "http_status", status: 200 } });
    refusal({ target: { kind: "tool", name: "run_shell" }, effect: { kind: "timeout" } });
  });
});

describe("FaultPlan", () => {
  it("fires a times rule on exactly the next N matches, then is spent", () => {
    const plan = new FaultPlan();
    const added = plan.add("alice", rule({ target: { kind: "hook", command: gateSite.command }, effect: { kind: "timeout" }, times: 2 }));
    assert.ok(added);
    assert.equal(plan.activeCount(), 1);
    const hits = [0, 1, 2].map(() => plan.take({ owner: "alice", environmentId: "env_a", site: gateSite }));
    assert.deepEqual(
      hits.map((hit) => hit?.rule_id ?? null),
      [added.id, added.id, null],
    );
    assert.deepEqual(hits[0]?.effect, { kind: "timeout" });
    const [view] = plan.list("alice");
    assert.equal(view?.remaining, 0);
    assert.equal(view?.injected, 2);
    assert.equal(plan.activeCount(), 0, "a spent rule is not active");
  });

  it("keeps keys apart and honours the environment scope", () => {
    const plan = new FaultPlan();
    plan.add(
      "alice",
      rule({ target: { kind: "tool", name: "read_file", environment: "env_a" }, effect: { kind: "error", message: "disk on fire" } }),
    );
    const site: FaultSite = { kind: "tool", name: "read_file" };
    assert.equal(plan.take({ owner: "bob", environmentId: "env_a", site }), null, "another key's rule never fires");
    assert.equal(plan.take({ owner: "alice", environmentId: "env_b", site }), null, "another environment is out of scope");
    assert.equal(plan.take({ owner: "alice", environmentId: "env_a", site: { kind: "tool", name: "write_file" } }), null);
    assert.deepEqual(plan.take({ owner: "alice", environmentId: "env_a", site })?.effect, { kind: "error", message: "disk on fire" });
  });

  it("matches every field a hook target gives, and skips a handler kind its effect cannot happen to", () => {
    const plan = new FaultPlan();
    plan.add("alice", rule({ target: { kind: "hook", group: "security-gate" }, effect: { kind: "http_status", status: 503 } }));
    assert.equal(plan.take({ owner: "alice", site: gateSite }), null, "a 503 cannot happen to a command handler");
    const httpSite: FaultSite = { ...gateSite, handler: "http", command: null, url: "https://audit.test/" };
    assert.ok(plan.take({ owner: "alice", site: httpSite }));
    plan.clear("alice");
    plan.add("alice", rule({ target: { kind: "hook", group: "security-gate", matcher: "read_file" }, effect: { kind: "timeout" } }));
    assert.equal(plan.take({ owner: "alice", site: gateSite }), null, "the matcher differs");
  });

  it("draws the same hits from the same seed, and different ones from another", () => {
    const sequence = (seed: number): boolean[] => {
      const plan = new FaultPlan();
      plan.add("alice", rule({ target: { kind: "egress", host: "Example.TEST" }, effect: { kind: "reset" }, probability: 0.3, seed }));
      return Array.from({ length: 200 }, () => plan.take({ owner: "alice", site: { kind: "egress", host: "example.test" } }) !== null);
    };
    const first = sequence(7);
    assert.deepEqual(sequence(7), first);
    assert.notDeepEqual(sequence(8), first);
    const rate = first.filter(Boolean).length / first.length;
    assert.ok(rate > 0.15 && rate < 0.45, `about 30% of draws fire, got ${rate}`);
  });

  it("removes one rule or all, bounds the rules per key and tells listeners", () => {
    const plan = new FaultPlan();
    let changes = 0;
    plan.onChange(() => changes++);
    const input = rule({ target: { kind: "sandbox_channel" }, effect: { kind: "drop" }, times: 1 });
    const first = plan.add("alice", input);
    assert.ok(first);
    assert.equal(plan.remove("alice", "fault_nope"), false);
    assert.equal(plan.remove("alice", first.id), true);
    for (let index = 0; index < MAX_FAULT_RULES_PER_KEY; index++) assert.ok(plan.add("alice", input));
    assert.throws(() => plan.add("alice", input), /already has 100 fault rules/, "past the bound nothing is added");
    assert.ok(plan.add("bob", input), "the bound is per key");
    assert.equal(plan.clear("alice"), MAX_FAULT_RULES_PER_KEY);
    assert.equal(plan.hasRules("alice"), false);
    assert.equal(plan.activeCount(), 1);
    assert.ok(changes >= MAX_FAULT_RULES_PER_KEY + 3);
  });

  it("bounds the rules of all keys together and each rule's size", () => {
    const plan = new FaultPlan({ perKey: 100, total: 150, ruleBytes: 300 });
    const input = rule({ target: { kind: "sandbox_channel" }, effect: { kind: "drop" }, times: 1 });
    for (let index = 0; index < 100; index++) plan.add("alice", input);
    for (let index = 0; index < 50; index++) plan.add(`key-${index}`, input);
    assert.throws(() => plan.add("bob", input), /holds 150 fault rules over all API keys.*\(EMULATOR_MAX_FAULT_RULES\)/);
    // Deleting frees room: a cleared key's rules no longer count.
    plan.clear("alice");
    assert.ok(plan.add("bob", input));
    const long = rule({ target: { kind: "tool", name: "read_file" }, effect: { kind: "error", message: "x".repeat(400) } });
    assert.throws(() => plan.add("bob", long), /bytes as JSON, more than the 300 a rule may have \(EMULATOR_FAULT_RULE_MAX_BYTES\)/);
  });
});
