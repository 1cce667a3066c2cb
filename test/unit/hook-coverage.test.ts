// Hook coverage's pure parts: the counts an evaluation adds (from real engine traces, run on an
// in-memory host) and the report made of them: every rule listed at its line, the counts, the states.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { countsOfTrace } from "../../server/coverage/coverage-counts.js";
import { CoverageService } from "../../server/coverage/coverage-service.js";
import { CoverageStore } from "../../server/coverage/coverage-store.js";
import { coverageReport, type ScopedCount } from "../../server/coverage/coverage-report.js";
import { runPostToolHooks, runPreToolHooks } from "../../server/hooks/engine.js";
import type { HookCommandRequest, HookCommandResult, HookHost } from "../../server/hooks/hook-host.js";
import { sha256Of } from "../../server/hooks/parsed-files.js";
import type { HookTrace } from "../../server/hooks/trace.js";
import { openMemoryDatabase } from "../../server/store/database.js";
import { WriteBehind } from "../../server/store/write-behind.js";

const PATH = "/.agents/hooks.json";

// Line numbers matter below: the gate's handler is on line 7, the audit's on 15, the disabled one on 23.
const HOOKS = `{
  "security-gate": {
    "pre_tool_execution": [
      {
        "matcher": "code_execution",
        "hooks": [
          { "type": "command", "command": "gate", "timeout": 10 },
          { "type": "command", "command": "second" }
        ]
      }
    ],
    "post_tool_execution": [
      {
        "matcher": ".*_file",
        "hooks": [{ "type": "command", "command": "audit" }]
      }
    ]
  },
  "off": {
    "enabled": false,
    "pre_tool_execution": [
      {
        "hooks": [{ "type": "http", "url": "https://hooks.example.test/x" }]
      }
    ]
  }
}
`;

function result(stdout: string, extra: Partial<HookCommandResult> = {}): HookCommandResult {
  const out = Buffer.from(stdout);
  return {
    exitCode: 0,
    signal: null,
    timedOut: false,
    stdout: out,
    stderr: Buffer.alloc(0),
    stdoutBytes: out.length,
    stderrBytes: 0,
    durationMs: 1,
    ...extra,
  };
}

/** A host whose one hooks.json is HOOKS and whose commands answer as `answer` says. */
function hostAnswering(answer: (request: HookCommandRequest) => HookCommandResult): HookHost {
  return {
    readConfig: async (path) =>
      path === PATH
        ? { status: "found", realPath: PATH, text: HOOKS, bytes: Buffer.byteLength(HOOKS), readOnly: false }
        : { status: "missing" },
    runCommand: async (request) => answer(request),
    postJson: async () => {
      throw new Error("no HTTP hook should run: its group is disabled");
    },
  };
}

const codeOf = (request: HookCommandRequest) => request.command;

async function pre(code: string, answer: (request: HookCommandRequest) => HookCommandResult): Promise<HookTrace> {
  return (await runPreToolHooks(hostAnswering(answer), { name: "code_execution", args: { code } }, "env-1")).trace;
}

/** Counts of several traces, summed as the store would. */
function summed(traces: HookTrace[]): ScopedCount[] {
  const totals = new Map<string, ScopedCount>();
  for (const trace of traces) {
    for (const key of countsOfTrace(trace)) {
      const id = JSON.stringify(key);
      const known = totals.get(id);
      if (known) known.count += 1;
      else totals.set(id, { ...key, count: 1 });
    }
  }
  return [...totals.values()];
}

const allow = () => result('{"decision": "allow"}');
const deny = (request: HookCommandRequest) => (codeOf(request) === "gate" ? result('{"decision": "deny", "reason": "no"}') : allow());

const report = (traces: HookTrace[]) => coverageReport([{ path: PATH, sha256: sha256Of(HOOKS), text: HOOKS }], summed(traces));

describe("hook coverage: counts and report", () => {
  it("names the file by the SHA-256 of its text in the trace", async () => {
    const trace = await pre("ls", allow);
    assert.equal(trace.files[0]?.sha256, sha256Of(HOOKS));
    assert.equal(trace.files[1]?.sha256, null);
  });

  it("lists every handler of the file at its line, matched or not, in file order", () => {
    const { configs } = report([]);
    assert.deepEqual(
      configs[0]!.rules.map((rule) => [rule.group, rule.event, rule.matcher, rule.handler, rule.line, rule.state]),
      [
        ["security-gate", "pre_tool_execution", "code_execution", "gate", 7, "never_matched"],
        ["security-gate", "pre_tool_execution", "code_execution", "second", 8, "never_matched"],
        ["security-gate", "post_tool_execution", ".*_file", "audit", 15, "never_matched"],
        ["off", "pre_tool_execution", null, "https://hooks.example.test/x", 23, "disabled"],
      ],
    );
  });

  it("only allowed: the deny branch was never taken, and the tools no rule matched are named", async () => {
    const coverage = report([await pre("ls", allow), await pre("pwd", allow)]);
    const gate = coverage.configs[0]!.rules[0]!;
    assert.deepEqual(
      [gate.matched, gate.allowed, gate.denied, gate.failed_open, gate.errors, gate.state],
      [2, 2, 0, 0, 0, "deny_never_taken"],
    );
    assert.deepEqual(coverage.unmatched_tools, ["read_file", "write_file", "list_files", "delete_file"]);
    assert.deepEqual(coverage.tools[0], { name: "code_execution", calls: 2, matched: 2 });
    assert.equal(coverage.summary.unexercised, 3);
    assert.equal(coverage.summary.disabled, 1);
  });

  it("a deny makes the rule exercised, and the handler after it is counted as not run", async () => {
    const coverage = report([await pre("ls", allow), await pre("rm -rf /", deny)]);
    const [gate, second] = coverage.configs[0]!.rules;
    assert.deepEqual([gate!.matched, gate!.allowed, gate!.denied, gate!.state], [2, 1, 1, "exercised"]);
    assert.deepEqual([second!.matched, second!.allowed, second!.not_run, second!.state], [2, 1, 1, "deny_never_taken"]);
  });

  it("failing open is counted with its reason, apart from allowing; only failing open is a state of its own", async () => {
    const timedOut = () => result("", { exitCode: null, signal: "SIGKILL", timedOut: true });
    const coverage = report([await pre("ls", timedOut), await pre("ls", timedOut)]);
    const gate = coverage.configs[0]!.rules[0]!;
    assert.deepEqual([gate.allowed, gate.failed_open, gate.failed_open_reasons, gate.state], [0, 2, { timeout: 2 }, "only_failed_open"]);
  });

  it("post hooks: errors with their reasons, and a rule that only failed is not exercised", async () => {
    const host = hostAnswering(() => result("", { exitCode: 3 }));
    const trace = await runPostToolHooks(host, { name: "read_file", args: { path: "a" } }, "env-1", undefined);
    const coverage = report([trace]);
    const audit = coverage.configs[0]!.rules[2]!;
    assert.deepEqual(
      [audit.matched, audit.errors, audit.error_reasons, audit.ran, audit.state],
      [1, 1, { nonzero_exit: 1 }, 0, "only_errors"],
    );
    assert.ok(!coverage.unmatched_tools.includes("read_file"));
    assert.deepEqual(coverage.tools[1], { name: "read_file", calls: 0, matched: 1 });
  });

  it("a file that is not JSON is reported with no rules rather than failing the report", () => {
    const text = "{ not json";
    const coverage = coverageReport([{ path: PATH, sha256: sha256Of(text), text }], []);
    assert.deepEqual(coverage.configs[0]!.rules, []);
  });
});

describe("hook coverage: held in memory, added up, then stored", () => {
  const NOW = Date.UTC(2026, 0, 1);
  const CONFIG = { path: PATH, sha256: sha256Of(HOOKS), text: HOOKS };
  const rows = (db: ReturnType<typeof openMemoryDatabase>) =>
    db.prepare("SELECT outcome, count FROM hook_coverage_counts ORDER BY outcome").all() as Array<{ outcome: string; count: number }>;
  const files = (db: ReturnType<typeof openMemoryDatabase>) =>
    (db.prepare("SELECT COUNT(*) AS n FROM hook_coverage_files").get() as { n: number }).n;
  /** The service as the emulator wires it (a write-behind), on an in-memory store, holding for `holdMs` (default: the service's). */
  const heldCoverage = (holdMs?: number) => {
    const db = openMemoryDatabase();
    const writes = new WriteBehind(db);
    const service = new CoverageService(new CoverageStore(db), { now: () => NOW }, () => true, writes, holdMs);
    return { db, writes, service };
  };

  it("a report asked for in the same turn as an evaluation counts it, though nothing was stored before", async () => {
    const { db, writes, service } = heldCoverage();
    service.record("owner-1", await pre("ls", allow), [CONFIG]);
    assert.equal(writes.pending, 0, "held by the service, not yet handed to the writes");
    assert.deepEqual(rows(db), []);
    const counted = service.report("owner-1", {});
    const gate = counted.configs[0]?.rules.find((rule) => rule.handler === "gate");
    assert.equal(gate?.state, "deny_never_taken", "matched and allowed once (never_matched had it not been counted)");
    assert.equal(writes.pending, 0);
    assert.ok(rows(db).length > 0);
    db.close();
  });

  it("adds up the evaluations of one configuration into one update of each of their rows", async () => {
    const { db, writes, service } = heldCoverage();
    const trace = await pre("ls", allow);
    const keys = countsOfTrace(trace).length;
    for (let call = 0; call < 100; call++) service.record("owner-1", trace, [CONFIG]);
    service.release();
    assert.equal(writes.pending, 1, "one write for the hundred");
    writes.flush();
    const stored = rows(db);
    assert.equal(stored.length, keys);
    for (const row of stored) assert.equal(row.count, 100, `${row.outcome}: ${row.count}`);
    assert.equal(files(db), 1);
    db.close();
  });

  it("stores what it holds once its time is up, without a report", async () => {
    const { db, writes, service } = heldCoverage(20);
    service.record("owner-1", await pre("ls", allow), [CONFIG]);
    await new Promise((resolve) => setTimeout(resolve, 60));
    // The write-behind stores at the end of the turn the hold ended in: one more turn, should both timers
    // have come due in the same one.
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(writes.pending, 0, "handed to the writes and stored at the end of that turn");
    assert.ok(rows(db).length > 0, "stored without a report");
    db.close();
  });

  it("stores at once when it would hold more than a few hooks.json contents", async () => {
    const { db, writes, service } = heldCoverage();
    const trace = await pre("ls", allow);
    for (let index = 0; writes.pending === 0; index++) {
      assert.ok(index < 64, "never handed to the writes");
      const text = `${HOOKS}\n${" ".repeat(index)}`;
      service.record("owner-1", trace, [{ path: PATH, sha256: sha256Of(text), text }]);
    }
    writes.flush();
    assert.ok(files(db) > 1 && files(db) <= 16, `${files(db)} contents stored at once`);
    db.close();
  });
});
