// The coverage report (docs/hooks-coverage.md): every rule of every hooks.json in scope, matched or
// not, with what came of it. Pure: the stored texts and the counters summed over the scope in, the
// report out. The text is parsed with the engine's own parser, so the report lists exactly the rules
// and handlers the engine would run (a handler that does not fit the schema never runs and is not a
// rule to cover); lines come from the same position reader `hooks check` uses.

import { lineAndColumn, nodeAt, parseJsonPositions, type JsonPathStep } from "../common/json-positions.js";
import { parseHooksFile } from "../hooks/hooks-file.js";
import { HOOK_EVENTS, type HookEvent } from "../hooks/trace.js";
import { BUILTIN_TOOLS, NONE, type CountKey } from "./coverage-counts.js";

export interface StoredConfig {
  path: string;
  sha256: string;
  text: string;
}

/** A counter summed over the scope (every environment and bucket in it). */
export interface ScopedCount extends CountKey {
  count: number;
}

/**
 * exercised: matched, and did all it can (a pre handler denied at least once).
 * never_matched: no call in scope matched its rule. never_ran: matched, but never ran (an earlier
 * handler always denied first, or the rule has no valid handler). only_failed_open: a pre handler
 * that ran only to fail open. only_errors: a post handler that only failed. deny_never_taken: a pre
 * handler that allowed every time (its deny branch untested). disabled: its group has "enabled": false.
 */
export type RuleState = "exercised" | "never_matched" | "never_ran" | "only_failed_open" | "only_errors" | "deny_never_taken" | "disabled";

/** The states `hooks coverage --fail-on-unexercised` fails on: every one but exercised and disabled. */
export const UNEXERCISED_STATES: ReadonlySet<RuleState> = new Set([
  "never_matched",
  "never_ran",
  "only_failed_open",
  "only_errors",
  "deny_never_taken",
]);

export interface CoverageRule {
  group: string;
  event: HookEvent;
  /** As written; null when the rule has none (it matches every tool). */
  matcher: string | null;
  /** The command line or URL; null for a rule with no valid handler (listed so every rule is). */
  handler: string | null;
  /** 1-based line of the handler in the file (of the rule, when it has no handler). */
  line: number;
  /** Evaluations in which the handler's rule matched. */
  matched: number;
  /** Runs that allowed by saying so (fail-open not included). */
  allowed: number;
  denied: number;
  /** Pre runs that allowed only because they failed (failed_open_reasons says why). */
  failed_open: number;
  /** Post runs that failed (error_reasons says why). */
  errors: number;
  rule_index: number;
  handler_index: number | null;
  kind: "command" | "http" | null;
  enabled: boolean;
  /** Evaluations in which the rule was considered and did not match. */
  not_matched: number;
  /** Times the rule matched but the handler did not run (an earlier handler denied). */
  not_run: number;
  /** Post runs that went fine. */
  ran: number;
  failed_open_reasons: Record<string, number>;
  error_reasons: Record<string, number>;
  state: RuleState;
}

export interface CoverageConfig {
  path: string;
  sha256: string;
  rules: CoverageRule[];
  /** The file as stored, when asked for (include_text=true). */
  text?: string;
}

export interface ToolCoverage {
  name: string;
  /** Pre-hook evaluations: the calls of the tool. */
  calls: number;
  /** Evaluations (pre or post) in which some rule matched it. */
  matched: number;
}

export interface CoverageReport {
  configs: CoverageConfig[];
  /** Built-in tools no rule matched in scope (called or not). */
  unmatched_tools: string[];
  tools: ToolCoverage[];
  summary: { rules: number; exercised: number; unexercised: number; disabled: number };
}

type Totals = Map<string, number>;

function key(...parts: Array<string | number>): string {
  return JSON.stringify(parts);
}

export function coverageReport(configs: readonly StoredConfig[], counts: readonly ScopedCount[], includeText = false): CoverageReport {
  const totals: Totals = new Map();
  const reasons = new Map<string, Record<string, number>>();
  for (const count of counts) {
    const at = key(
      count.sha256,
      count.path,
      count.group,
      count.event,
      count.ruleIndex,
      count.handlerIndex,
      count.toolName === "" ? "" : "*",
    );
    const [outcome, reason] = splitOutcome(count.outcome);
    const totalKey = key(at, outcome);
    totals.set(totalKey, (totals.get(totalKey) ?? 0) + count.count);
    if (reason !== null) {
      const reasonKey = key(at, outcome);
      const byReason = reasons.get(reasonKey) ?? {};
      byReason[reason] = (byReason[reason] ?? 0) + count.count;
      reasons.set(reasonKey, byReason);
    }
  }
  const total = (at: string, outcome: string) => totals.get(key(at, outcome)) ?? 0;
  const reportConfigs = configs.map((config) =>
    configCoverage(config, total, (at, outcome) => reasons.get(key(at, outcome)) ?? {}, includeText),
  );
  const tools = BUILTIN_TOOLS.map((name) => toolCoverage(name, counts));
  const rules = reportConfigs.flatMap((config) => config.rules);
  return {
    configs: reportConfigs,
    unmatched_tools: tools.filter((tool) => tool.matched === 0).map((tool) => tool.name),
    tools,
    summary: {
      rules: rules.length,
      exercised: rules.filter((rule) => rule.state === "exercised").length,
      unexercised: rules.filter((rule) => UNEXERCISED_STATES.has(rule.state)).length,
      disabled: rules.filter((rule) => rule.state === "disabled").length,
    },
  };
}

/** "failed_open:timeout" → ["failed_open", "timeout"]. */
function splitOutcome(outcome: string): [string, string | null] {
  const colon = outcome.indexOf(":");
  return colon < 0 ? [outcome, null] : [outcome.slice(0, colon), outcome.slice(colon + 1)];
}

function toolCoverage(name: string, counts: readonly ScopedCount[]): ToolCoverage {
  let calls = 0;
  let matched = 0;
  for (const count of counts) {
    if (count.sha256 !== "" || count.toolName !== name) continue;
    if (count.outcome === "call" && count.event === "pre_tool_execution") calls += count.count;
    if (count.outcome === "call_matched") matched += count.count;
  }
  return { name, calls, matched };
}

function configCoverage(
  config: StoredConfig,
  total: (at: string, outcome: string) => number,
  reasonsOf: (at: string, outcome: string) => Record<string, number>,
  includeText: boolean,
): CoverageConfig {
  const parsed = parseHooksFile(config.text, config.path);
  const positions = parseJsonPositions(config.text);
  const lineOf = (path: JsonPathStep[]): number => {
    if (!positions.ok) return 1;
    return lineAndColumn(config.text, nodeAt(positions.root, path).node.start).line;
  };
  const rules: CoverageRule[] = [];
  for (const group of parsed.groups) {
    for (const event of HOOK_EVENTS) {
      for (const rule of group.events[event]) {
        const ruleAt = key(config.sha256, config.path, group.name, event, rule.index, NONE, "*");
        const matched = total(ruleAt, "matched");
        const common = {
          group: group.name,
          event,
          matcher: rule.matcherSource,
          matched,
          rule_index: rule.index,
          enabled: group.enabled,
          not_matched: total(ruleAt, "not_matched") + total(ruleAt, "invalid_matcher"),
        };
        if (rule.handlers.length === 0) {
          rules.push({
            ...common,
            handler: null,
            line: lineOf([group.name, event, rule.index]),
            allowed: 0,
            denied: 0,
            failed_open: 0,
            errors: 0,
            handler_index: null,
            kind: null,
            not_run: 0,
            ran: 0,
            failed_open_reasons: {},
            error_reasons: {},
            state: stateOf(event, group.enabled, matched, { allowed: 0, denied: 0, failedOpen: 0, errors: 0, ran: 0 }),
          });
          continue;
        }
        for (const { index, handler } of rule.handlers) {
          const at = key(config.sha256, config.path, group.name, event, rule.index, index, "*");
          const runs = {
            allowed: total(at, "allowed"),
            denied: total(at, "denied"),
            failedOpen: total(at, "failed_open"),
            errors: total(at, "error"),
            ran: total(at, "ran"),
          };
          rules.push({
            ...common,
            handler: handler.type === "command" ? handler.command : handler.url,
            line: lineOf([group.name, event, rule.index, "hooks", index]),
            allowed: runs.allowed,
            denied: runs.denied,
            failed_open: runs.failedOpen,
            errors: runs.errors,
            handler_index: index,
            kind: handler.type,
            not_run: total(at, "not_run"),
            ran: runs.ran,
            failed_open_reasons: reasonsOf(at, "failed_open"),
            error_reasons: reasonsOf(at, "error"),
            state: stateOf(event, group.enabled, matched, runs),
          });
        }
      }
    }
  }
  // In the order the file writes them, whatever the order of the events within a group.
  rules.sort((a, b) => a.line - b.line);
  return { path: config.path, sha256: config.sha256, rules, ...(includeText ? { text: config.text } : {}) };
}

function stateOf(
  event: HookEvent,
  enabled: boolean,
  matched: number,
  runs: { allowed: number; denied: number; failedOpen: number; errors: number; ran: number },
): RuleState {
  if (!enabled) return "disabled";
  if (matched === 0) return "never_matched";
  if (event === "pre_tool_execution") {
    const decided = runs.allowed + runs.denied;
    if (decided + runs.failedOpen === 0) return "never_ran";
    if (decided === 0) return "only_failed_open";
    return runs.denied === 0 ? "deny_never_taken" : "exercised";
  }
  if (runs.ran + runs.errors === 0) return "never_ran";
  return runs.ran === 0 ? "only_errors" : "exercised";
}
