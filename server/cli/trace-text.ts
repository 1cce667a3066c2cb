// A hook trace (server/hooks/trace.ts, as GET /emulator/interactions/{id}/hooks serves it) as a person
// reads it: what was read, which rules matched and why, each handler with its decision, deny reason,
// fail-open cause and timing, and the diagnostics. Plain text, one fact per line.

import type { HookDiagnostic, HookFileTrace, HookHandlerTrace, HookRuleTrace, HookTrace } from "../hooks/trace.js";

const EXCERPT_LINES = 4;
const EXCERPT_LINE_CHARS = 200;

export function formatHookTrace(trace: HookTrace): string[] {
  const lines = [`${trace.event}: ${trace.summary} [${trace.duration_ms} ms]`];
  lines.push("  files:", ...trace.files.map((file) => `    ${describeFile(file)}`));
  if (trace.rules.length > 0) lines.push("  rules:", ...trace.rules.map((rule) => `    ${describeRule(rule)}`));
  if (trace.handlers.length > 0) {
    lines.push("  handlers:");
    for (const handler of trace.handlers) lines.push(...describeHandler(handler, trace.event).map((line) => `    ${line}`));
  }
  if (trace.diagnostics.length > 0) {
    lines.push("  diagnostics:", ...trace.diagnostics.map((diagnostic) => `    ${describeDiagnostic(diagnostic)}`));
  }
  return lines;
}

function describeFile(file: HookFileTrace): string {
  switch (file.status) {
    case "loaded": {
      const readOnly = file.read_only ? ", read-only: its handlers run as the hooks user" : "";
      return `${file.path}: read, ${file.groups} group${file.groups === 1 ? "" : "s"} (${file.bytes} bytes${readOnly})`;
    }
    case "missing":
      return `${file.path}: none`;
    case "duplicate":
      return `${file.path}: ${file.detail}`;
    case "invalid_json":
      return `${file.path}: not valid JSON, none of its hooks apply`;
    case "unreadable":
      return `${file.path}: cannot be read (${file.detail})`;
  }
}

function ruleName(item: { group: string; event: string; rule_index: number }): string {
  return `${JSON.stringify(item.group)} ${item.event}[${item.rule_index}]`;
}

function describeRule(rule: HookRuleTrace): string {
  const mark = rule.match === "matched" ? "✓" : "·";
  const matcher = rule.matcher === null ? "(no matcher)" : JSON.stringify(rule.matcher);
  const handlers = rule.match === "matched" ? `, ${rule.handler_count} handler${rule.handler_count === 1 ? "" : "s"}` : "";
  return `${mark} ${ruleName(rule)} matcher ${matcher}: ${rule.match.replace("_", " ")} (${rule.why})${handlers}`;
}

function describeHandler(handler: HookHandlerTrace, event: HookTrace["event"]): string[] {
  const what = handler.kind === "command" ? `command ${JSON.stringify(handler.command)}` : `http POST ${handler.url}`;
  const where = `${ruleName(handler)}.hooks[${handler.handler_index}]`;
  if (handler.decision === "not_run") return [`– NOT RUN  ${where} ${what}`, `             why: ${handler.not_run_reason}`];

  const outcome: string[] = [];
  if (handler.exit_code !== null) outcome.push(`exit ${handler.exit_code}`);
  if (handler.signal !== null) outcome.push(`signal ${handler.signal}`);
  if (handler.http_status !== null) outcome.push(`HTTP ${handler.http_status}`);
  if (handler.timed_out) outcome.push("timed out");
  outcome.push(`${handler.duration_ms ?? "?"} ms of ${handler.timeout_s} s allowed`);

  let label: string;
  if (event === "pre_tool_execution") {
    label = handler.decision === "deny" ? "✗ DENY   " : handler.fail_open ? "! ALLOW  " : "✓ ALLOW  ";
  } else {
    label = handler.failure ? "! FAILED " : "✓ RAN    ";
  }
  const lines = [`${label}  ${where} ${what} (${outcome.join(", ")})`];
  const detail = (name: string, text: string) => lines.push(`             ${name}: ${text}`);
  if (handler.decision === "deny") detail("reason", handler.deny_reason ?? "");
  if (handler.fail_open) detail("fail-open", `${handler.fail_open.code}: ${handler.fail_open.reason}`);
  else if (handler.failure) detail("failure", `${handler.failure.code}: ${handler.failure.reason}`);
  // Traces stored before faults existed have no such field.
  if (handler.injected_fault) detail("injected", `${handler.injected_fault.effect.kind} by fault rule ${handler.injected_fault.rule_id}`);
  for (const [name, text, bytes] of [
    ["stdout", handler.stdout_excerpt, handler.stdout_bytes],
    ["stderr", handler.stderr_excerpt, handler.stderr_bytes],
  ] as const) {
    const shown = excerptLines(text);
    if (shown.length === 0) continue;
    detail(`${name} (${bytes} bytes)`, shown[0]!);
    for (const line of shown.slice(1)) lines.push(`               ${line}`);
  }
  return lines;
}

function describeDiagnostic(diagnostic: HookDiagnostic): string {
  const location = diagnostic.location;
  const where = location ? ` (${location.file}${location.group !== undefined ? ` group ${JSON.stringify(location.group)}` : ""})` : "";
  return `${diagnostic.severity} ${diagnostic.code}${where}: ${diagnostic.message}`;
}

/** The first few lines of an output excerpt, each cut to a readable length. */
export function excerptLines(text: string, maxLines = EXCERPT_LINES): string[] {
  const all = text.trimEnd().split("\n");
  if (all.length === 1 && all[0] === "") return [];
  const shown = all.slice(0, maxLines).map((line) => (line.length > EXCERPT_LINE_CHARS ? `${line.slice(0, EXCERPT_LINE_CHARS)}…` : line));
  if (all.length > maxLines) shown.push(`… (${all.length - maxLines} more line${all.length - maxLines === 1 ? "" : "s"})`);
  return shown;
}
