// The hook trace: what the hooks engine did for one tool call, recorded so a user can see why a hook
// fired, did not fire, or allowed only because it failed. Stored as JSON and served by the emulator's
// own debug API, so keys are snake_case and every value is plain JSON (no Buffers, no undefined).

import type { InjectedFault } from "../faults/fault-plan.js";

export type HookEvent = "pre_tool_execution" | "post_tool_execution";

export const HOOK_EVENTS: readonly HookEvent[] = ["pre_tool_execution", "post_tool_execution"];

export type DiagnosticSeverity = "error" | "warning" | "info";

/** Where in which hooks.json a diagnostic points; only the parts that apply are present. */
export interface DiagnosticLocation {
  file: string;
  group?: string;
  event?: HookEvent;
  rule_index?: number;
  handler_index?: number;
  /** The key the problem is about, e.g. "timeout" or "matchers". */
  field?: string;
}

export interface HookDiagnostic {
  severity: DiagnosticSeverity;
  /** Stable, machine-readable: e.g. "invalid_json", "matcher_invalid_regex", "decision_block". */
  code: string;
  /** One sentence for a person: what is wrong and what to write instead. */
  message: string;
  location: DiagnosticLocation | null;
}

export type ConfigFileStatus =
  | "loaded"
  | "missing"
  | "invalid_json"
  | "unreadable"
  /** Resolves to the same real path as a file read earlier in this discovery: not read twice. */
  | "duplicate";

export interface HookFileTrace {
  path: string;
  real_path: string | null;
  status: ConfigFileStatus;
  /** Groups that fit the schema (disabled ones included). */
  groups: number;
  bytes: number | null;
  /** For "unreadable": why; for "duplicate": the path it duplicates. */
  detail: string | null;
  /**
   * Whether the file lies on a read-only mount (a repository source); its handlers then run as the
   * hooks user, out of sandbox code's reach (docs/hooks.md#running-handlers). null when not read.
   */
  read_only: boolean | null;
  /**
   * SHA-256 (hex) of the file's content as read, for "loaded" and "invalid_json": names the content,
   * so hook coverage (docs/hooks-coverage.md) can count per distinct file. null when not read.
   */
  sha256: string | null;
}

export type RuleMatch =
  | "matched"
  | "not_matched"
  /** The group has `"enabled": false`: its rules are never evaluated. */
  | "group_disabled"
  /** The matcher is not valid RE2 and matches nothing. */
  | "invalid_matcher";

export interface HookRuleTrace {
  file: string;
  group: string;
  group_enabled: boolean;
  event: HookEvent;
  rule_index: number;
  /** The matcher as written; null when the rule has none. */
  matcher: string | null;
  match: RuleMatch;
  /** Why it matched or not, for a person. */
  why: string;
  /** Handlers of the rule that fit the schema (those are what would run). */
  handler_count: number;
}

export type HandlerKind = "command" | "http";

export type HandlerDecision = "allow" | "deny" | "ignored" | "not_run";

/** Why a pre hook's handler allowed although it did not say "allow" (the documented fail-open). */
export type FailOpenCode =
  | "nonzero_exit"
  | "signal"
  | "timeout"
  | "output_too_large"
  | "empty_output"
  | "plain_text"
  | "invalid_json"
  | "not_an_object"
  | "no_decision"
  | "unrecognized_decision"
  | "http_status"
  | "connection_error"
  | "proxy_refused";

/** What went wrong running a handler, whatever the event (a post hook cannot fail open, but can fail). */
export type HandlerFailureCode = Extract<
  FailOpenCode,
  "nonzero_exit" | "signal" | "timeout" | "output_too_large" | "http_status" | "connection_error" | "proxy_refused"
>;

export interface HandlerProblem<Code extends string> {
  code: Code;
  reason: string;
}

export interface HookHandlerTrace {
  file: string;
  group: string;
  event: HookEvent;
  rule_index: number;
  handler_index: number;
  kind: HandlerKind;
  /** The command line (command hooks) or null. */
  command: string | null;
  /** The URL (http hooks) or null. */
  url: string | null;
  timeout_s: number;
  decision: HandlerDecision;
  /** For "deny": the reason the model sees. */
  deny_reason: string | null;
  /** For "not_run": why it did not run. */
  not_run_reason: string | null;
  /** Set (pre only) when the handler allowed only because of fail-open. */
  fail_open: HandlerProblem<FailOpenCode> | null;
  /** Set when running the handler went wrong (exit status, signal, timeout, HTTP status, connection). */
  failure: HandlerProblem<HandlerFailureCode> | null;
  /** Set when a fault rule made this result instead of the handler (docs/faults.md#hooks); null otherwise. */
  injected_fault: InjectedFault | null;
  duration_ms: number | null;
  exit_code: number | null;
  signal: string | null;
  http_status: number | null;
  timed_out: boolean;
  /** Ended by a signal that was not our deadline. */
  crashed: boolean;
  /** The start of stdout (command) or the response body (http), decoded as UTF-8. */
  stdout_excerpt: string;
  stderr_excerpt: string;
  /** Everything written, including what was dropped past the output cap. */
  stdout_bytes: number;
  stderr_bytes: number;
}

export interface DeniedBy {
  file: string;
  group: string;
  rule_index: number;
  handler_index: number;
}

export interface HookTrace {
  event: HookEvent;
  tool_name: string;
  environment_id: string;
  started_at: string;
  duration_ms: number;
  /** The exact bytes every handler received, counted. */
  payload_bytes: number;
  files: HookFileTrace[];
  diagnostics: HookDiagnostic[];
  rules: HookRuleTrace[];
  handlers: HookHandlerTrace[];
  /** pre: "allow" or "deny"; post: "none" (post hooks cannot decide). */
  decision: "allow" | "deny" | "none";
  denied_by: DeniedBy | null;
  deny_reason: string | null;
  /** One line for a person: what ran and what it decided, including "nothing matched". */
  summary: string;
}

/** Excerpts in the trace stay small whatever a hook prints. */
export const TRACE_EXCERPT_BYTES = 2048;

/** The first `limit` bytes as UTF-8, never ending in half a character. */
export function excerpt(bytes: Buffer, limit = TRACE_EXCERPT_BYTES): string {
  if (bytes.length <= limit) return bytes.toString("utf8");
  let end = limit;
  // Step back over continuation bytes (10xxxxxx) so a multi-byte character is not cut in half.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return `${bytes.subarray(0, end).toString("utf8")}…`;
}
