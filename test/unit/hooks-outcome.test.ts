import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { interpretPostOutcome, interpretPreOutcome, type HandlerRun } from "../../server/hooks/handler-outcome.js";

const CAP = 1024;

interface CommandShape {
  stdout?: string;
  stderr?: string;
  exitCode?: number | null;
  signal?: string | null;
  timedOut?: boolean;
  /** Total stdout bytes when more than was kept. */
  stdoutBytes?: number;
}

function command({ stdout = "", stderr = "", exitCode = 0, signal = null, timedOut = false, stdoutBytes }: CommandShape = {}): HandlerRun {
  return {
    kind: "command",
    result: {
      exitCode,
      signal,
      timedOut,
      stdout: Buffer.from(stdout),
      stderr: Buffer.from(stderr),
      stdoutBytes: stdoutBytes ?? Buffer.byteLength(stdout),
      stderrBytes: Buffer.byteLength(stderr),
      durationMs: 5,
    },
  };
}

function http(status: number, body = "", extra: { bodyBytes?: number; proxyRefusal?: string } = {}): HandlerRun {
  return {
    kind: "http",
    result: {
      ok: true,
      status,
      body: Buffer.from(body),
      bodyBytes: extra.bodyBytes ?? Buffer.byteLength(body),
      durationMs: 5,
      ...(extra.proxyRefusal === undefined ? {} : { proxyRefusal: extra.proxyRefusal }),
    },
  };
}

function noAnswer(reason: string, flags: { timedOut?: boolean; proxyRefused?: boolean } = {}): HandlerRun {
  return {
    kind: "http",
    result: { ok: false, reason, timedOut: flags.timedOut ?? false, proxyRefused: flags.proxyRefused ?? false, durationMs: 5 },
  };
}

const DENY = '{"decision": "deny", "reason": "blocked"}';

describe("pre_tool_execution: what denies", () => {
  const table: Array<{ name: string; run: HandlerRun; reason: string }> = [
    { name: "exit 0 with a deny object", run: command({ stdout: DENY }), reason: "blocked" },
    { name: "a deny with surrounding whitespace", run: command({ stdout: `\n  ${DENY}\n\n` }), reason: "blocked" },
    {
      name: "a deny printed by python's json.dumps",
      run: command({ stdout: '{"decision": "deny", "reason": "Destructive command blocked by security gate."}\n' }),
      reason: "Destructive command blocked by security gate.",
    },
    { name: "a deny without a reason", run: command({ stdout: '{"decision":"deny"}' }), reason: "no reason given" },
    {
      name: "a deny whose reason is not a string",
      run: command({ stdout: '{"decision":"deny","reason":{"code":7}}' }),
      reason: "no reason given",
    },
    { name: "a deny whose reason is empty", run: command({ stdout: '{"decision":"deny","reason":"  "}' }), reason: "no reason given" },
    { name: "a deny with extra keys", run: command({ stdout: '{"decision":"deny","reason":"r","extra":[1]}' }), reason: "r" },
    { name: "a deny on stdout with chatter on stderr", run: command({ stdout: DENY, stderr: "checking...\n" }), reason: "blocked" },
    { name: "HTTP 200 with a deny body", run: http(200, DENY), reason: "blocked" },
    { name: "HTTP 204 with a deny body", run: http(204, DENY), reason: "blocked" },
    { name: "HTTP 299 with a deny body", run: http(299, DENY), reason: "blocked" },
  ];
  for (const { name, run, reason } of table) {
    it(`denies on ${name}`, () => {
      const outcome = interpretPreOutcome(run, CAP);
      assert.equal(outcome.decision, "deny");
      assert.equal(outcome.denyReason, reason);
      assert.equal(outcome.failOpen, null);
      assert.equal(outcome.failure, null);
    });
  }
});

describe("pre_tool_execution: everything else allows, and says why", () => {
  const table: Array<{ name: string; run: HandlerRun; failOpen: string | null; failure?: string; problems?: string[] }> = [
    { name: "an explicit allow", run: command({ stdout: '{"decision":"allow"}' }), failOpen: null },
    { name: "HTTP 200 with an explicit allow", run: http(200, '{"decision":"allow"}'), failOpen: null },
    { name: "empty output", run: command(), failOpen: "empty_output" },
    { name: "whitespace only", run: command({ stdout: " \n\t\n" }), failOpen: "empty_output" },
    { name: "plain text", run: command({ stdout: "deny\n" }), failOpen: "plain_text" },
    { name: "invalid JSON", run: command({ stdout: '{"decision": "deny",' }), failOpen: "invalid_json" },
    {
      name: "two JSON objects",
      run: command({ stdout: '{"decision":"allow"}\n{"decision":"deny"}' }),
      failOpen: "invalid_json",
      problems: ["deny_mixed_with_other_output"],
    },
    { name: "a JSON array", run: command({ stdout: '[{"decision":"deny"}]' }), failOpen: "not_an_object" },
    { name: "a JSON string", run: command({ stdout: '"deny"' }), failOpen: "not_an_object" },
    { name: "JSON null", run: command({ stdout: "null" }), failOpen: "not_an_object" },
    { name: "an object without decision", run: command({ stdout: '{"reason":"no"}' }), failOpen: "no_decision" },
    { name: "an empty object", run: command({ stdout: "{}" }), failOpen: "no_decision" },
    { name: "decision null", run: command({ stdout: '{"decision":null}' }), failOpen: "unrecognized_decision" },
    { name: "decision true", run: command({ stdout: '{"decision":true}' }), failOpen: "unrecognized_decision" },
    {
      name: '"block" (another system\'s deny)',
      run: command({ stdout: '{"decision":"block","reason":"r"}' }),
      failOpen: "unrecognized_decision",
      problems: ["decision_block"],
    },
    {
      name: '"Deny" in another case',
      run: command({ stdout: '{"decision":"Deny"}' }),
      failOpen: "unrecognized_decision",
      problems: ["decision_case"],
    },
    {
      name: '"DENY" in capitals',
      run: command({ stdout: '{"decision":"DENY"}' }),
      failOpen: "unrecognized_decision",
      problems: ["decision_case"],
    },
    {
      name: '{"continue": false}',
      run: command({ stdout: '{"continue":false,"stopReason":"x"}' }),
      failOpen: "no_decision",
      problems: ["continue_false"],
    },
    {
      name: "Claude Code's permissionDecision",
      run: command({ stdout: '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}' }),
      failOpen: "no_decision",
      problems: ["permission_decision"],
    },
    {
      name: "a top-level permissionDecision",
      run: command({ stdout: '{"permissionDecision":"deny"}' }),
      failOpen: "no_decision",
      problems: ["permission_decision"],
    },
    {
      name: "a non-zero exit with a deny printed",
      run: command({ stdout: DENY, exitCode: 1 }),
      failOpen: "nonzero_exit",
      failure: "nonzero_exit",
      problems: ["deny_ignored_after_failure"],
    },
    {
      name: "exit status 2 (Claude Code's deny) with a deny printed",
      run: command({ stdout: DENY, exitCode: 2, stderr: "blocked" }),
      failOpen: "nonzero_exit",
      failure: "nonzero_exit",
      problems: ["exit_status_2", "deny_ignored_after_failure"],
    },
    {
      name: "exit status 2 alone",
      run: command({ exitCode: 2 }),
      failOpen: "nonzero_exit",
      failure: "nonzero_exit",
      problems: ["exit_status_2"],
    },
    {
      name: "a missing command",
      run: command({ exitCode: 127, stderr: "bash: line 1: /.agents/gate.py: No such file or directory\n" }),
      failOpen: "nonzero_exit",
      failure: "nonzero_exit",
      problems: ["command_not_found"],
    },
    {
      name: "a crash by signal",
      run: command({ stdout: DENY, exitCode: null, signal: "SIGSEGV" }),
      failOpen: "signal",
      failure: "signal",
      problems: ["deny_ignored_after_failure"],
    },
    {
      name: "a timeout",
      run: command({ stdout: DENY, exitCode: null, signal: "SIGKILL", timedOut: true }),
      failOpen: "timeout",
      failure: "timeout",
      problems: ["deny_ignored_after_failure"],
    },
    {
      name: "output over the cap",
      run: command({ stdout: "x".repeat(CAP), stdoutBytes: 5 * CAP }),
      failOpen: "output_too_large",
      failure: "output_too_large",
    },
    {
      name: "a deny over the cap",
      run: command({ stdout: DENY, stdoutBytes: CAP + 1 }),
      failOpen: "output_too_large",
      failure: "output_too_large",
      problems: ["deny_ignored_after_failure"],
    },
    { name: "a deny on stderr", run: command({ stderr: `${DENY}\n` }), failOpen: "empty_output", problems: ["deny_on_stderr"] },
    {
      name: "a deny after log lines",
      run: command({ stdout: `checking the command\n${DENY}\n` }),
      failOpen: "plain_text",
      problems: ["deny_mixed_with_other_output"],
    },
    {
      name: "HTTP 403 with a deny body",
      run: http(403, DENY),
      failOpen: "http_status",
      failure: "http_status",
      problems: ["deny_ignored_after_http_error"],
    },
    { name: "HTTP 500", run: http(500, "oops"), failOpen: "http_status", failure: "http_status" },
    { name: "HTTP 302", run: http(302), failOpen: "http_status", failure: "http_status" },
    { name: "HTTP 200 with an empty body", run: http(200), failOpen: "empty_output" },
    {
      name: "HTTP 200 with a body over the cap",
      run: http(200, DENY, { bodyBytes: CAP + 1 }),
      failOpen: "output_too_large",
      failure: "output_too_large",
      problems: ["deny_ignored_after_http_error"],
    },
    { name: "connection refused", run: noAnswer("could not connect"), failOpen: "connection_error", failure: "connection_error" },
    { name: "an HTTP timeout", run: noAnswer("timed out", { timedOut: true }), failOpen: "timeout", failure: "timeout" },
    {
      name: "a tunnel refused by the egress proxy",
      run: noAnswer("CONNECT 403", { proxyRefused: true }),
      failOpen: "proxy_refused",
      failure: "proxy_refused",
    },
    {
      name: "a request the egress proxy answered with a refusal",
      run: http(403, "refused", { proxyRefusal: "destination not in allowlist" }),
      failOpen: "proxy_refused",
      failure: "proxy_refused",
    },
  ];
  for (const { name, run, failOpen, failure = null, problems = [] } of table) {
    it(`allows on ${name}`, () => {
      const outcome = interpretPreOutcome(run, CAP);
      assert.equal(outcome.decision, "allow");
      assert.equal(outcome.denyReason, null);
      assert.equal(outcome.failOpen?.code ?? null, failOpen);
      assert.equal(outcome.failure?.code ?? null, failure);
      assert.deepEqual(outcome.problems.map((problem) => problem.code).sort(), [...problems].sort());
      if (outcome.failOpen) assert.ok(outcome.failOpen.reason.length > 0);
    });
  }

  it("names the exit status, the signal and the HTTP status in the fail-open reason", () => {
    assert.match(interpretPreOutcome(command({ exitCode: 3 }), CAP).failOpen?.reason ?? "", /status 3/);
    assert.match(interpretPreOutcome(command({ exitCode: null, signal: "SIGABRT" }), CAP).failOpen?.reason ?? "", /SIGABRT/);
    assert.match(interpretPreOutcome(http(503), CAP).failOpen?.reason ?? "", /HTTP 503/);
    assert.match(interpretPreOutcome(noAnswer("could not connect (refused)"), CAP).failOpen?.reason ?? "", /refused/);
  });
});

describe("post_tool_execution: output is ignored, failures are recorded", () => {
  const table: Array<{ name: string; run: HandlerRun; failure: string | null; problems?: string[] }> = [
    { name: "a clean run", run: command({ stdout: "{}" }), failure: null },
    { name: "a deny printed", run: command({ stdout: DENY }), failure: null, problems: ["post_decision_ignored"] },
    { name: "a non-zero exit", run: command({ exitCode: 1 }), failure: "nonzero_exit" },
    { name: "a missing command", run: command({ exitCode: 127 }), failure: "nonzero_exit", problems: ["command_not_found"] },
    { name: "a timeout", run: command({ exitCode: null, signal: "SIGKILL", timedOut: true }), failure: "timeout" },
    { name: "a crash", run: command({ exitCode: null, signal: "SIGSEGV" }), failure: "signal" },
    { name: "output over the cap", run: command({ stdout: "x", stdoutBytes: CAP * 10 }), failure: null },
    { name: "HTTP 200", run: http(200, "{}"), failure: null },
    { name: "HTTP 500", run: http(500), failure: "http_status" },
    { name: "no HTTP answer", run: noAnswer("refused"), failure: "connection_error" },
  ];
  for (const { name, run, failure, problems = [] } of table) {
    it(`ignores the output of ${name}`, () => {
      const outcome = interpretPostOutcome(run, CAP);
      assert.equal(outcome.decision, "ignored");
      assert.equal(outcome.denyReason, null);
      assert.equal(outcome.failOpen, null);
      assert.equal(outcome.failure?.code ?? null, failure);
      assert.deepEqual(
        outcome.problems.map((problem) => problem.code),
        problems,
      );
    });
  }
});
