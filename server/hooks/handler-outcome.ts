// What one handler's result means. Pure: no I/O, so the whole documented table (and every habit from
// other hook systems that this service treats as allow) is unit-tested directly.
//
// pre_tool_execution denies only when the handler succeeded (exit status 0, or an HTTP 2xx answer)
// AND its whole output is a JSON object whose "decision" is exactly "deny". Everything else allows,
// and when it allows because something went wrong, the cause is recorded (fail-open must never be
// silent). post_tool_execution output is ignored entirely; failures are still recorded.

import type { HookCommandResult, HookHttpResult } from "./hook-host.js";
import type { DiagnosticSeverity, FailOpenCode, HandlerFailureCode, HandlerProblem } from "./trace.js";

export type HandlerRun = { kind: "command"; result: HookCommandResult } | { kind: "http"; result: HookHttpResult };

/** A diagnostic without its location (the engine knows which handler it is about). */
export interface OutcomeProblem {
  severity: DiagnosticSeverity;
  code: string;
  message: string;
}

export interface HandlerOutcome {
  decision: "allow" | "deny" | "ignored";
  /** For "deny": the text the model sees. */
  denyReason: string | null;
  /** pre only: set when the handler allowed because it failed or said nothing usable. */
  failOpen: HandlerProblem<FailOpenCode> | null;
  /** Set when running it went wrong, whatever the event. */
  failure: HandlerProblem<HandlerFailureCode> | null;
  problems: OutcomeProblem[];
}

export const NO_REASON_GIVEN = "no reason given";

export function interpretPreOutcome(run: HandlerRun, maxOutputBytes: number): HandlerOutcome {
  const failure = classifyFailure(run, maxOutputBytes);
  const output = readDecision(outputOf(run));
  const problems = habitProblems(run, output);
  if (failure) {
    if (output.kind === "decision" && output.decision === "deny") {
      const success = run.kind === "command" ? "exit status 0" : "an HTTP 2xx answer";
      problems.push({
        severity: "warning",
        code: run.kind === "command" ? "deny_ignored_after_failure" : "deny_ignored_after_http_error",
        message: `the handler printed a deny, but it ${failure.reason}; only a successful handler (${success}) can deny, so the tool call was allowed.`,
      });
    }
    return { decision: "allow", denyReason: null, failOpen: failure, failure, problems };
  }
  if (output.kind === "decision" && output.decision === "deny") {
    return { decision: "deny", denyReason: output.reason, failOpen: null, failure: null, problems };
  }
  if (output.kind === "decision" && output.decision === "allow") {
    return { decision: "allow", denyReason: null, failOpen: null, failure: null, problems };
  }
  return { decision: "allow", denyReason: null, failOpen: failOpenFromOutput(output, run.kind), failure: null, problems };
}

export function interpretPostOutcome(run: HandlerRun, maxOutputBytes: number): HandlerOutcome {
  const classified = classifyFailure(run, maxOutputBytes);
  // Post output is ignored, so printing a lot of it is not a failure (it was capped all the same).
  const failure = classified?.code === "output_too_large" ? null : classified;
  const problems: OutcomeProblem[] = [];
  const output = classified?.code === "output_too_large" ? null : readDecision(outputOf(run));
  if (output?.kind === "decision" && output.decision === "deny") {
    problems.push({
      severity: "info",
      code: "post_decision_ignored",
      message: "a post_tool_execution handler printed a deny; post hooks run after the tool and cannot block it, so the output is ignored.",
    });
  }
  if (run.kind === "command" && run.result.exitCode === 127) problems.push(commandNotFound(run.result));
  return { decision: "ignored", denyReason: null, failOpen: null, failure, problems };
}

// ---- Did the handler run successfully? ----

function classifyFailure(run: HandlerRun, maxOutputBytes: number): HandlerProblem<HandlerFailureCode> | null {
  if (run.kind === "command") {
    const result = run.result;
    if (result.timedOut) return { code: "timeout", reason: "timed out (its process tree was killed)" };
    if (result.signal !== null) return { code: "signal", reason: `crashed (killed by ${result.signal})` };
    if (result.exitCode !== 0) return { code: "nonzero_exit", reason: `exited with status ${result.exitCode ?? "unknown"}` };
    if (result.stdoutBytes > maxOutputBytes) return tooLarge(result.stdoutBytes, maxOutputBytes, "printed");
    return null;
  }
  const result = run.result;
  if (!result.ok) {
    if (result.timedOut) return { code: "timeout", reason: `timed out (${result.reason})` };
    if (result.proxyRefused) return { code: "proxy_refused", reason: `was refused by the egress proxy (${result.reason})` };
    return { code: "connection_error", reason: `got no HTTP answer (${result.reason})` };
  }
  if (result.proxyRefusal !== undefined) {
    return { code: "proxy_refused", reason: `was refused by the egress proxy (HTTP ${result.status}: ${result.proxyRefusal})` };
  }
  if (result.status < 200 || result.status > 299) return { code: "http_status", reason: `answered HTTP ${result.status}` };
  if (result.bodyBytes > maxOutputBytes) return tooLarge(result.bodyBytes, maxOutputBytes, "answered");
  return null;
}

function tooLarge(bytes: number, cap: number, verb: string): HandlerProblem<HandlerFailureCode> {
  return { code: "output_too_large", reason: `${verb} ${bytes} bytes, more than the ${cap}-byte cap on hook output` };
}

// ---- What did it say? ----

type DecisionOutput =
  | { kind: "empty" }
  | { kind: "plain_text" }
  | { kind: "invalid_json"; error: string }
  | { kind: "not_an_object"; description: string }
  | { kind: "no_decision"; object: Record<string, unknown> }
  | { kind: "decision"; decision: unknown; reason: string; object: Record<string, unknown> };

function outputOf(run: HandlerRun): Buffer {
  if (run.kind === "command") return run.result.stdout;
  return run.result.ok ? run.result.body : Buffer.alloc(0);
}

function readDecision(bytes: Buffer): DecisionOutput {
  const text = bytes.toString("utf8").trim();
  if (text === "") return { kind: "empty" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // Something that starts like JSON was meant as JSON; anything else is prose.
    if (!/^[[{"]/.test(text)) return { kind: "plain_text" };
    return { kind: "invalid_json", error: error instanceof Error ? error.message : String(error) };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { kind: "not_an_object", description: value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}` };
  }
  const object = value as Record<string, unknown>;
  if (!Object.hasOwn(object, "decision")) return { kind: "no_decision", object };
  const reason = object["reason"];
  return {
    kind: "decision",
    decision: object["decision"],
    reason: typeof reason === "string" && reason.trim() !== "" ? reason : NO_REASON_GIVEN,
    object,
  };
}

function failOpenFromOutput(output: DecisionOutput, kind: HandlerRun["kind"]): HandlerProblem<FailOpenCode> {
  const where = kind === "command" ? "stdout" : "the response body";
  switch (output.kind) {
    case "empty":
      return { code: "empty_output", reason: `${where} was empty` };
    case "plain_text":
      return { code: "plain_text", reason: `${where} was plain text, not a JSON object` };
    case "invalid_json":
      return { code: "invalid_json", reason: `${where} was not valid JSON (${output.error})` };
    case "not_an_object":
      return { code: "not_an_object", reason: `${where} was JSON but ${output.description}, not an object` };
    case "no_decision":
      return { code: "no_decision", reason: `${where} was a JSON object without "decision"` };
    case "decision":
      return {
        code: "unrecognized_decision",
        reason: `"decision" was ${JSON.stringify(output.decision)}; only "deny" denies`,
      };
  }
}

// ---- Habits from other hook systems, and near misses, that this service treats as allow. ----

function habitProblems(run: HandlerRun, output: DecisionOutput): OutcomeProblem[] {
  const problems: OutcomeProblem[] = [];
  if (run.kind === "command" && run.result.exitCode === 2) {
    problems.push({
      severity: "warning",
      code: "exit_status_2",
      message:
        "the handler exited with status 2, which denies in Claude Code; here a non-zero exit status allows (fail-open). " +
        'To deny, exit 0 and print {"decision": "deny", "reason": "..."}.',
    });
  }
  if (run.kind === "command" && run.result.exitCode === 127) problems.push(commandNotFound(run.result));
  if (output.kind === "decision" && output.decision !== "deny" && output.decision !== "allow") {
    const said = output.decision;
    if (typeof said === "string" && said.toLowerCase() === "deny") {
      problems.push({
        severity: "warning",
        code: "decision_case",
        message: `"decision" was ${JSON.stringify(said)}; the value is case-sensitive and only "deny" (lower case) denies, so the tool call was allowed.`,
      });
    } else if (said === "block") {
      problems.push({
        severity: "warning",
        code: "decision_block",
        message:
          '"decision": "block" (another hook system\'s spelling) does not deny here; only "decision": "deny" does, so the tool call was allowed.',
      });
    }
  }
  if (output.kind === "decision" || output.kind === "no_decision") {
    const object = output.object;
    if (object["continue"] === false) {
      problems.push({
        severity: "warning",
        code: "continue_false",
        message:
          '{"continue": false} (Claude Code\'s way to stop) is not read here; only "decision": "deny" denies, so the tool call was allowed.',
      });
    }
    const nested = object["hookSpecificOutput"];
    const nestedDecision =
      typeof nested === "object" && nested !== null ? (nested as Record<string, unknown>)["permissionDecision"] : undefined;
    if (Object.hasOwn(object, "permissionDecision") || nestedDecision !== undefined) {
      problems.push({
        severity: "warning",
        code: "permission_decision",
        message:
          '"permissionDecision" (Claude Code\'s hookSpecificOutput) is not read here; print {"decision": "deny", "reason": "..."} at the top level instead.',
      });
    }
  }
  if (run.kind === "command" && !(output.kind === "decision" && output.decision === "deny")) {
    if (looksLikeDeny(run.result.stderr.toString("utf8"))) {
      problems.push({
        severity: "warning",
        code: "deny_on_stderr",
        message: "the handler wrote a deny decision to stderr; only stdout is read, so the tool call was allowed.",
      });
    } else if ((output.kind === "invalid_json" || output.kind === "plain_text") && lastLineIsDeny(run.result.stdout)) {
      problems.push({
        severity: "warning",
        code: "deny_mixed_with_other_output",
        message:
          "stdout ends with a deny decision but also holds other text; the whole of stdout must be the one JSON object " +
          "(send logs to stderr), so the tool call was allowed.",
      });
    }
  }
  return problems;
}

function commandNotFound(result: HookCommandResult): OutcomeProblem {
  const said = result.stderr.toString("utf8").trim().split("\n").at(-1) ?? "";
  return {
    severity: "warning",
    code: "command_not_found",
    message: `the handler's command was not found (exit status 127${said ? `: ${said}` : ""}); check the path and the interpreter.`,
  };
}

function looksLikeDeny(text: string): boolean {
  // Cheap filter first: stderr may hold a megabyte of logs.
  return text.split("\n").some((line) => {
    if (!line.includes("deny") || !line.trimStart().startsWith("{")) return false;
    const output = readDecision(Buffer.from(line));
    return output.kind === "decision" && output.decision === "deny";
  });
}

function lastLineIsDeny(stdout: Buffer): boolean {
  const last = stdout.toString("utf8").trim().split("\n").at(-1) ?? "";
  const output = readDecision(Buffer.from(last));
  return output.kind === "decision" && output.decision === "deny";
}
