// Rule matchers: RE2 regular expressions matched against the whole tool name.
//
// Anchoring is our choice (the documentation calls "code_execution" an exact match and ".*_file" "any
// tool ending in _file", which only holds when the whole name must match). "*", "" and ".*" are the
// documented catch-alls. A pattern that is not valid RE2 matches nothing, as documented for "*_file";
// a valid one that no built-in tool can satisfy is legal but almost certainly a mistake (a tool name
// from another agent, a glob, a prefix), so both come with a diagnostic that suggests what to write.

import RE2 from "re2";
import { TOOL_NAMES } from "../tools/tool-call.js";
import type { DiagnosticSeverity } from "./trace.js";

/** The only tools hooks ever see: the sandbox's built-ins. */
export const BUILT_IN_TOOLS: readonly string[] = TOOL_NAMES;

const CATCH_ALL_PATTERNS: ReadonlySet<string> = new Set(["*", "", ".*"]);

export type CompiledMatcher =
  /** `source` is null when the rule has no matcher at all (treated as "", see hooks-file.ts). */
  | { kind: "catch_all"; source: string | null }
  | { kind: "regex"; source: string; regex: RE2 }
  | { kind: "invalid"; source: string; error: string };

/** A diagnostic without its location (the caller knows which file and rule it is about). */
export interface MatcherProblem {
  severity: DiagnosticSeverity;
  code: "matcher_invalid_regex" | "matcher_matches_no_tool";
  message: string;
}

export function compileMatcher(source: string | null): { matcher: CompiledMatcher; problems: MatcherProblem[] } {
  if (source === null || CATCH_ALL_PATTERNS.has(source)) return { matcher: { kind: "catch_all", source }, problems: [] };
  const compiled = compileAnchored(source);
  if (!compiled.ok) {
    const suggestion = suggestFromGlob(source);
    const hint = suggestion ? ` It looks like a shell glob; the regular expression is ${JSON.stringify(suggestion)}.` : "";
    return {
      matcher: { kind: "invalid", source, error: compiled.error },
      problems: [
        {
          severity: "error",
          code: "matcher_invalid_regex",
          message: `matcher ${JSON.stringify(source)} is not a valid RE2 regular expression (${compiled.error}), so this rule never matches.${hint}`,
        },
      ],
    };
  }
  const matcher: CompiledMatcher = { kind: "regex", source, regex: compiled.regex };
  if (BUILT_IN_TOOLS.some((tool) => compiled.regex.test(tool))) return { matcher, problems: [] };
  return {
    matcher,
    problems: [
      {
        severity: "warning",
        code: "matcher_matches_no_tool",
        message:
          `matcher ${JSON.stringify(source)} matches none of the sandbox's tools (${BUILT_IN_TOOLS.join(", ")}), ` +
          `so this rule never fires. ${adviseNoMatch(source)}`,
      },
    ],
  };
}

export function matchesTool(matcher: CompiledMatcher, toolName: string): boolean {
  switch (matcher.kind) {
    case "catch_all":
      return true;
    case "regex":
      return matcher.regex.test(toolName);
    case "invalid":
      return false;
  }
}

/** Why a matcher did or did not match, for the trace. */
export function explainMatch(matcher: CompiledMatcher, toolName: string): string {
  const tool = JSON.stringify(toolName);
  switch (matcher.kind) {
    case "catch_all":
      return matcher.source === null
        ? `the rule has no matcher, which is treated as "" and matches every tool`
        : `${JSON.stringify(matcher.source)} matches every tool`;
    case "regex":
      return matcher.regex.test(toolName)
        ? `${JSON.stringify(matcher.source)} matches the whole name ${tool}`
        : `${JSON.stringify(matcher.source)} does not match the whole name ${tool}`;
    case "invalid":
      return `${JSON.stringify(matcher.source)} is not valid RE2 (${matcher.error}) and matches nothing`;
  }
}

function compileAnchored(source: string): { ok: true; regex: RE2 } | { ok: false; error: string } {
  try {
    // The group keeps alternation inside the anchors: "read_file|write_file" must not become "^read_file|write_file$".
    return { ok: true, regex: new RE2(`^(?:${source})$`) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

function matchesSomeTool(source: string): boolean {
  const compiled = compileAnchored(source);
  return compiled.ok && BUILT_IN_TOOLS.some((tool) => compiled.regex.test(tool));
}

/** "*_file" → ".*_file", "read_*" → "read_.*": only when the result is valid and matches a tool. */
function suggestFromGlob(source: string): string | null {
  if (!source.includes("*")) return null;
  const converted = source.replace(/(?<![.\\])\*/g, ".*");
  return converted !== source && matchesSomeTool(converted) ? converted : null;
}

/** Tool names other agents use, mapped to the sandbox's tool that does that job. */
const FOREIGN_TOOL_NAMES: Record<string, string> = {
  bash: "code_execution",
  shell: "code_execution",
  sh: "code_execution",
  terminal: "code_execution",
  run_command: "code_execution",
  run_shell_command: "code_execution",
  execute_command: "code_execution",
  exec: "code_execution",
  python: "code_execution",
  code_interpreter: "code_execution",
  read: "read_file",
  view: "read_file",
  cat: "read_file",
  write: "write_file",
  edit: "write_file",
  multiedit: "write_file",
  create_file: "write_file",
  edit_file: "write_file",
  str_replace: "write_file",
  ls: "list_files",
  glob: "list_files",
  list_dir: "list_files",
  list_directory: "list_files",
  delete: "delete_file",
  rm: "delete_file",
  remove_file: "delete_file",
};

function adviseNoMatch(source: string): string {
  const glob = suggestFromGlob(source);
  if (glob) return `It looks like a shell glob; the regular expression is ${JSON.stringify(glob)}.`;
  const caseless = compileAnchored(`(?i:${source})`);
  const sameButCase = caseless.ok ? BUILT_IN_TOOLS.filter((tool) => caseless.regex.test(tool)) : [];
  if (sameButCase.length > 0) {
    return `Matchers are case-sensitive: the tool is named ${sameButCase.map((tool) => JSON.stringify(tool)).join(", ")}.`;
  }
  const foreign = FOREIGN_TOOL_NAMES[source.toLowerCase()];
  if (foreign) return `That is another agent's tool name; here the tool for that job is ${JSON.stringify(foreign)}.`;
  const atom = /^\w+$/.test(source) ? source : `(?:${source})`;
  for (const widened of [`${atom}.*`, `.*${atom}`, `.*${atom}.*`]) {
    if (matchesSomeTool(widened)) {
      return `A matcher must match the whole tool name (not a part of it); to match names containing it, write ${JSON.stringify(widened)}.`;
    }
  }
  return `Use one of those names, an alternation such as "read_file|write_file", or ".*" for every tool.`;
}
