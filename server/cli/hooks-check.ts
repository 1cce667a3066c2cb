// `interactions-emulator hooks check [file]`: a hooks.json read and parsed by exactly the code the
// hooks engine runs before every tool call (readConfigs → discoveryFrom → parseHooksFile, the matcher's typo hints and
// "matches no tool" warnings included), on a file of this machine instead of one in a sandbox. Every
// diagnostic is shown at its line and column. Errors (an invalid matcher, which matches nothing, among
// them) fail the check; warnings and notes do not.

import fs from "node:fs";
import { DEFAULT_MAX_CONFIG_BYTES, discoveryFrom, readConfigs } from "../hooks/discovery.js";
import type {
  HookCommandRequest,
  HookCommandResult,
  HookConfigRead,
  HookHost,
  HookHttpRequest,
  HookHttpResult,
} from "../hooks/hook-host.js";
import type { HookGroup } from "../hooks/hooks-file.js";
import { HOOK_EVENTS, type HookDiagnostic } from "../hooks/trace.js";
import { lineAndColumn, nodeAt, parseJsonPositions, type JsonPathStep, type JsonPositions } from "../common/json-positions.js";

export interface PositionedDiagnostic extends HookDiagnostic {
  /** 1-based; null when the file could not be read at all. */
  line: number | null;
  column: number | null;
}

export interface HooksCheckReport {
  file: string;
  /** The file was read (it exists, is a file, fits the engine's size limit). */
  read: boolean;
  groups: number;
  rules: number;
  handlers: number;
  errors: number;
  warnings: number;
  infos: number;
  /** In the order of their positions in the file. */
  diagnostics: PositionedDiagnostic[];
}

/** Diagnostics about a key itself (a typo, a key in the wrong place): shown at the key, not its value. */
const ABOUT_THE_KEY: ReadonlySet<string> = new Set(["likely_typo", "misplaced_key", "unknown_key"]);

export async function checkHooksFile(file: string): Promise<HooksCheckReport> {
  const host = new LocalConfigHost();
  const discovery = discoveryFrom([file], await readConfigs(host, [file], DEFAULT_MAX_CONFIG_BYTES));
  const [trace] = discovery.files;
  const text = host.texts.get(file);
  const diagnostics = [...discovery.diagnostics];
  if (trace?.status === "missing") {
    diagnostics.push({
      severity: "error",
      code: "file_missing",
      message: `${file} does not exist (the emulator reads /.agents/hooks.json and /workspace/.agents/hooks.json in the sandbox).`,
      location: { file },
    });
  }
  const groups = discovery.configs.flatMap((config) => config.groups);
  return report(file, text, diagnostics, groups);
}

function report(file: string, text: string | undefined, diagnostics: HookDiagnostic[], groups: HookGroup[]): HooksCheckReport {
  const positions = text === undefined ? null : parseJsonPositions(text);
  const positioned = diagnostics.map((diagnostic): PositionedDiagnostic => {
    if (text === undefined || positions === null) return { ...diagnostic, line: null, column: null };
    return { ...diagnostic, ...lineAndColumn(text, offsetOf(diagnostic, positions)) };
  });
  // In the file's order, as an editor lists problems (those without a position first: they concern the whole file).
  positioned.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
  const rules = groups.flatMap((group) => HOOK_EVENTS.flatMap((event) => group.events[event]));
  const count = (severity: HookDiagnostic["severity"]) => diagnostics.filter((each) => each.severity === severity).length;
  return {
    file,
    read: text !== undefined,
    groups: groups.length,
    rules: rules.length,
    handlers: rules.reduce((sum, rule) => sum + rule.handlers.length, 0),
    errors: count("error"),
    warnings: count("warning"),
    infos: count("info"),
    diagnostics: positioned,
  };
}

/** Where in the text a diagnostic points: the element its location names, or the key it is about. */
function offsetOf(diagnostic: HookDiagnostic, positions: JsonPositions): number {
  if (!positions.ok) return positions.offset;
  const location = diagnostic.location;
  if (!location) return positions.root.start;
  const path: JsonPathStep[] = [];
  if (location.group !== undefined) path.push(location.group);
  if (location.event !== undefined) path.push(location.event);
  if (location.rule_index !== undefined) path.push(location.rule_index);
  if (location.handler_index !== undefined) path.push("hooks", location.handler_index);
  const { node, member, complete } = nodeAt(positions.root, path);
  if (complete && location.field !== undefined && node.kind === "object") {
    const field = nodeAt(node, [location.field]);
    if (field.complete && field.member) return ABOUT_THE_KEY.has(diagnostic.code) ? field.member.keyStart : field.member.value.start;
  }
  // An object's member is shown at its name ("security-gate": {…), an array item at its start.
  return member ? member.keyStart : node.start;
}

/** Counts like "1 error, 2 warnings". */
function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

/** For a person, one line per diagnostic in the `file:line:column: severity: message [code]` form editors and CI read. */
export function formatCheckReport(report: HooksCheckReport): string {
  const lines = report.diagnostics.map((diagnostic) => {
    const where = diagnostic.line === null ? report.file : `${report.file}:${diagnostic.line}:${diagnostic.column}`;
    return `${where}: ${diagnostic.severity}: ${diagnostic.message} [${diagnostic.code}]`;
  });
  if (!report.read) {
    lines.push(`✗ ${report.file} could not be checked.`);
  } else {
    const contents = `${plural(report.groups, "group")}, ${plural(report.rules, "rule")}, ${plural(report.handlers, "handler")}`;
    const problems = [plural(report.errors, "error"), plural(report.warnings, "warning")];
    if (report.infos > 0) problems.push(plural(report.infos, "note"));
    lines.push(
      report.errors > 0
        ? `✗ ${report.file}: ${problems.join(", ")} (${contents}); what an error names is skipped or never matches.`
        : `✓ ${report.file}: ${contents}; ${problems.join(", ")}.`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/**
 * The engine's host interface over this machine's files, for reading configurations only: the
 * same answers (found, missing, unreadable, too large) a sandbox's executor gives.
 */
class LocalConfigHost implements HookHost {
  readonly texts = new Map<string, string>();

  async readConfig(path: string, maxBytes: number): Promise<HookConfigRead> {
    let realPath: string;
    try {
      realPath = fs.realpathSync(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return { status: "missing" };
      return { status: "unreadable", realPath: null, error: (error as Error).message };
    }
    try {
      const stat = fs.statSync(realPath);
      if (stat.isDirectory()) return { status: "unreadable", realPath, error: "it is a folder, not a file" };
      if (stat.size > maxBytes) {
        return { status: "unreadable", realPath, error: `${stat.size} bytes, more than the ${maxBytes}-byte limit for hooks.json` };
      }
      const content = fs.readFileSync(realPath);
      const text = content.toString("utf8");
      this.texts.set(path, text);
      return { status: "found", realPath, text, bytes: content.length, readOnly: false };
    } catch (error) {
      return { status: "unreadable", realPath, error: (error as Error).message };
    }
  }

  runCommand(_request: HookCommandRequest): Promise<HookCommandResult> {
    return Promise.reject(new Error("hooks check only reads configurations; `hooks try` runs handlers"));
  }

  postJson(_request: HookHttpRequest): Promise<HookHttpResult> {
    return Promise.reject(new Error("hooks check only reads configurations; `hooks try` runs handlers"));
  }
}
