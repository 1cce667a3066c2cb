// `interactions-emulator hooks coverage --emulator URL --key K [--environment ID] [--since T]
// [--fail-on-unexercised] [--fail-on-unmatched-tools] [--json]`: the emulator's hook coverage
// (GET /emulator/hooks/coverage, docs/hooks-coverage.md) as a table, and a gate for CI: with
// --fail-on-unexercised it exits 1 naming each rule left unexercised at its file:line.

import { UNEXERCISED_STATES, type CoverageReport, type CoverageRule, type RuleState } from "../coverage/coverage-report.js";
import { emulatorRequest } from "./emulator-request.js";
import type { CliIo } from "./hooks-try.js";
import { EXIT, UsageError } from "./usage.js";

export interface HooksCoverageOptions {
  emulator: string | undefined;
  key: string | undefined;
  environment?: string | undefined;
  since?: string | undefined;
  failOnUnexercised: boolean;
  failOnUnmatchedTools: boolean;
  json: boolean;
}

/** What each state means for a person, in the table and the gate's lines. */
const STATE_TEXT: Record<RuleState, string> = {
  exercised: "exercised",
  never_matched: "never matched",
  never_ran: "matched, never ran",
  only_failed_open: "only failed open",
  only_errors: "only failed",
  deny_never_taken: "deny never taken",
  disabled: "disabled",
};

export async function hooksCoverage(options: HooksCoverageOptions, io: CliIo): Promise<number> {
  if (!options.emulator) throw new UsageError("hooks coverage needs --emulator URL (the emulator whose coverage to read)");
  const key = options.key ?? process.env.GEMINI_API_KEY ?? process.env.GOOGLE_API_KEY;
  if (!key) throw new UsageError("hooks coverage needs --key KEY (or GEMINI_API_KEY): coverage is per API key");
  const report = await fetchCoverage(options.emulator, key, options);
  if (options.json) io.out(`${JSON.stringify(report, null, 2)}\n`);
  else io.out(formatCoverage(report));
  const unexercised = unexercisedRules(report);
  let status: number = EXIT.ok;
  if (options.failOnUnexercised && unexercised.length > 0) {
    for (const { path, rule } of unexercised)
      io.err(`unexercised: ${path}:${rule.line}: ${describeRule(rule)}: ${STATE_TEXT[rule.state]}\n`);
    status = EXIT.failed;
  }
  if (options.failOnUnmatchedTools && report.unmatched_tools.length > 0) {
    io.err(`unmatched tools: ${report.unmatched_tools.join(", ")} (no rule matched them)\n`);
    status = EXIT.failed;
  }
  return status;
}

/** The rules `--fail-on-unexercised` fails on, with the file each is in. */
export function unexercisedRules(report: CoverageReport): Array<{ path: string; rule: CoverageRule }> {
  return report.configs.flatMap((config) =>
    config.rules.filter((rule) => UNEXERCISED_STATES.has(rule.state)).map((rule) => ({ path: config.path, rule })),
  );
}

async function fetchCoverage(emulator: string, key: string, options: HooksCoverageOptions): Promise<CoverageReport> {
  const query = new URLSearchParams();
  if (options.environment !== undefined) query.set("environment", options.environment);
  if (options.since !== undefined) query.set("since", options.since);
  const base = emulator.replace(/\/+$/, "");
  const url = `${base}/emulator/hooks/coverage${query.size > 0 ? `?${query}` : ""}`;
  const parsed = await emulatorRequest(url, { emulator, apiKey: key, method: "GET", label: "GET /emulator/hooks/coverage" });
  if (parsed === null || !Array.isArray((parsed as CoverageReport).configs)) {
    throw new Error(`the answer of ${url} is not a coverage report (is ${emulator} an interactions emulator?)`);
  }
  return parsed as CoverageReport;
}

function describeRule(rule: CoverageRule): string {
  const matcher = rule.matcher === null ? "(no matcher)" : JSON.stringify(rule.matcher);
  return `${rule.group} ${rule.event} ${matcher} → ${rule.handler ?? "(no valid handler)"}`;
}

/** One block per hooks.json: a line per rule with its state and counts; then the tools. */
export function formatCoverage(report: CoverageReport): string {
  const lines: string[] = [];
  if (report.configs.length === 0) lines.push("No hooks.json was evaluated in this scope.");
  for (const config of report.configs) {
    lines.push(`${config.path} (sha256 ${config.sha256.slice(0, 12)})`);
    const rows = config.rules.map((rule) => [
      `${config.path}:${rule.line}`,
      STATE_TEXT[rule.state],
      describeRule(rule),
      `matched ${rule.matched}, allowed ${rule.allowed}, denied ${rule.denied}, failed open ${rule.failed_open}, errors ${rule.errors}`,
    ]);
    const widths = [0, 1].map((column) => Math.max(0, ...rows.map((row) => row[column]!.length)));
    for (const row of rows) lines.push(`  ${row[0]!.padEnd(widths[0]!)}  ${row[1]!.padEnd(widths[1]!)}  ${row[2]}  (${row[3]})`);
    if (rows.length === 0) lines.push("  (no rules)");
  }
  const tools = report.tools.map(
    (tool) => `${tool.name} ${tool.calls} call${tool.calls === 1 ? "" : "s"}${tool.matched === 0 ? ", never matched" : ""}`,
  );
  lines.push(`tools: ${tools.join("; ")}`);
  const { summary } = report;
  lines.push(`${summary.exercised} of ${summary.rules} rules exercised, ${summary.unexercised} unexercised, ${summary.disabled} disabled`);
  return `${lines.join("\n")}\n`;
}
