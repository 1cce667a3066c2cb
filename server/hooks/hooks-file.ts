// Parsing one hooks.json, tolerant per element: a file that is not JSON contributes nothing, and a
// group, rule or handler that does not fit the schema is skipped with a diagnostic naming where it is
// and what is wrong, while the rest of the file still applies. Nothing here throws on bad input: a
// broken config must never break a tool call, and a user must be able to see why a hook never fired.

import { z } from "zod";
import {
  commandHandlerSchema,
  groupSchema,
  handlerListOf,
  httpHandlerSchema,
  isPlainObject,
  ruleListOf,
  ruleSchema,
  SCHEMA_KEY,
} from "./hooks-schema.js";
import { compileMatcher, type CompiledMatcher } from "./matcher.js";
import { HOOK_EVENTS, type DiagnosticLocation, type DiagnosticSeverity, type HookDiagnostic, type HookEvent } from "./trace.js";

export const DEFAULT_HANDLER_TIMEOUT_S = 30;

export interface CommandHandler {
  type: "command";
  command: string;
  timeoutS: number;
}

export interface HttpHandler {
  type: "http";
  url: string;
  headers: Record<string, string>;
  timeoutS: number;
}

export type HookHandler = CommandHandler | HttpHandler;

export interface HookRule {
  /** Position in the file's array (skipped rules leave gaps, so traces point at what the user wrote). */
  index: number;
  /** As written; null when the rule has no matcher. */
  matcherSource: string | null;
  matcher: CompiledMatcher;
  handlers: Array<{ index: number; handler: HookHandler }>;
}

export interface HookGroup {
  name: string;
  enabled: boolean;
  events: Record<HookEvent, HookRule[]>;
}

export interface ParsedHooksFile {
  /** "invalid_json" when the text is not JSON at all; the file then contributes no groups. */
  status: "loaded" | "invalid_json";
  /** In file order. */
  groups: HookGroup[];
  diagnostics: HookDiagnostic[];
}

// ---- Schemas, one per element, so one bad element never takes its neighbours down. ----
// They are the whole-file schema's own parts (hooks-schema.ts), with arrays of "anything" where the
// whole-file schema has arrays of rules or handlers: each element is then checked on its own.

const groupFieldsSchema = groupSchema.pick({ enabled: true });

const rulesSchema = ruleListOf(z.unknown());

const ruleFieldsSchema = ruleSchema.extend({ hooks: handlerListOf(z.unknown()) });

// ---- Keys we read, and the keys people write instead. ----

const GROUP_KEYS = ["enabled", ...HOOK_EVENTS];
const RULE_KEYS = ["matcher", "hooks"];
const HANDLER_KEYS: Record<HookHandler["type"], string[]> = {
  command: ["type", "command", "timeout"],
  http: ["type", "url", "headers", "timeout"],
};

const ANY_HANDLER_KEYS = [...new Set([...HANDLER_KEYS.command, ...HANDLER_KEYS.http])];

/** Every key the schema reads somewhere: one found at the wrong level is misplaced, not unknown. */
const ALL_KEYS: ReadonlySet<string> = new Set([...GROUP_KEYS, ...RULE_KEYS, ...HANDLER_KEYS.command, ...HANDLER_KEYS.http]);

/** Spellings from other hook systems and slips of the keyboard, normalised (lower case, letters only). */
const LIKELY_MEANT: Record<string, string> = {
  pretooluse: "pre_tool_execution",
  pretool: "pre_tool_execution",
  pretoolexecution: "pre_tool_execution",
  pretoolcall: "pre_tool_execution",
  beforetool: "pre_tool_execution",
  beforetoolexecution: "pre_tool_execution",
  pre: "pre_tool_execution",
  posttooluse: "post_tool_execution",
  posttool: "post_tool_execution",
  posttoolexecution: "post_tool_execution",
  posttoolcall: "post_tool_execution",
  aftertool: "post_tool_execution",
  aftertoolexecution: "post_tool_execution",
  post: "post_tool_execution",
  enable: "enabled",
  isenabled: "enabled",
  matchers: "matcher",
  match: "matcher",
  pattern: "matcher",
  tool: "matcher",
  tools: "matcher",
  toolname: "matcher",
  hook: "hooks",
  handlers: "hooks",
  handler: "hooks",
  commands: "hooks",
  actions: "hooks",
  timeoutms: "timeout",
  timeoutmillis: "timeout",
  timeoutmilliseconds: "timeout",
  timeoutsec: "timeout",
  timeoutsecs: "timeout",
  timeoutseconds: "timeout",
  timeouts: "timeout",
  cmd: "command",
  run: "command",
  script: "command",
  header: "headers",
  uri: "url",
  endpoint: "url",
  href: "url",
};

export function parseHooksFile(text: string, file: string): ParsedHooksFile {
  const diagnostics: HookDiagnostic[] = [];
  const report = (severity: DiagnosticSeverity, code: string, message: string, location: Omit<DiagnosticLocation, "file"> = {}): void => {
    diagnostics.push({ severity, code, message, location: { file, ...location } });
  };

  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    const bom = text.startsWith("\uFEFF") ? " The file starts with a byte order mark (BOM); save it as UTF-8 without one." : "";
    report("error", "invalid_json", `${file} is not valid JSON (${detail}), so none of its hooks apply.${bom}`);
    return { status: "invalid_json", groups: [], diagnostics };
  }
  if (!isPlainObject(document)) {
    report(
      "error",
      "top_level_not_object",
      `${file} must hold a JSON object of named groups ({"<group name>": {"pre_tool_execution": [...]}}), not ${describeKind(document)}; none of its hooks apply.`,
    );
    return { status: "loaded", groups: [], diagnostics };
  }

  const groups: HookGroup[] = [];
  const keys = objectKeysInFileOrder(text);
  for (const name of new Set(keys)) {
    if (name === SCHEMA_KEY) {
      reportSchemaKey(Object.getOwnPropertyDescriptor(document, name)?.value, report);
      continue;
    }
    if (keys.indexOf(name) !== keys.lastIndexOf(name)) {
      report("warning", "duplicate_group", `group ${JSON.stringify(name)} is defined more than once; only the last definition applies.`, {
        group: name,
      });
    }
    const group = parseGroup(name, Object.getOwnPropertyDescriptor(document, name)?.value, report);
    if (group) groups.push(group);
  }
  return { status: "loaded", groups, diagnostics };
}

type Report = (severity: DiagnosticSeverity, code: string, message: string, location?: Omit<DiagnosticLocation, "file">) => void;

/**
 * A top-level "$schema" is how editors find hooks.json's JSON Schema (docs/hooks.md#the-json-schema):
 * never a group. A string is accepted and ignored; anything else is skipped with an error, like a group
 * that does not fit.
 */
function reportSchemaKey(value: unknown, report: Report): void {
  if (typeof value === "string") return;
  report(
    "error",
    "schema_key_not_string",
    `"${SCHEMA_KEY}" is where editors look for the URL of hooks.json's JSON Schema, so it must be a string, not ${describeKind(value)}; it is not a group, and it is skipped.`,
    { group: SCHEMA_KEY },
  );
}

function parseGroup(name: string, value: unknown, report: Report): HookGroup | null {
  const at = { group: name };
  if (!isPlainObject(value)) {
    report("error", "group_not_object", `group ${JSON.stringify(name)} must be an object, not ${describeKind(value)}; it is skipped.`, at);
    return null;
  }
  const fields = groupFieldsSchema.safeParse(value);
  if (!fields.success) {
    report(
      "error",
      "group_invalid",
      `group ${JSON.stringify(name)}: ${describeIssues(fields.error)}; the group is skipped (its enabled state is unknown).`,
      { ...at, field: "enabled" },
    );
    return null;
  }
  reportUnknownKeys(value, GROUP_KEYS, `group ${JSON.stringify(name)}`, at, report);
  const enabled = fields.data.enabled ?? true;
  if (!HOOK_EVENTS.some((event) => Object.hasOwn(value, event))) {
    report(
      "warning",
      "group_has_no_events",
      `group ${JSON.stringify(name)} has neither "pre_tool_execution" nor "post_tool_execution", so it never runs anything.`,
      at,
    );
  }
  const events = { pre_tool_execution: [], post_tool_execution: [] } as Record<HookEvent, HookRule[]>;
  for (const event of HOOK_EVENTS) {
    const raw = value[event];
    if (raw === undefined || raw === null) continue;
    const rules = rulesSchema.safeParse(raw);
    if (!rules.success) {
      report(
        "error",
        "event_not_array",
        `group ${JSON.stringify(name)}: "${event}" must be an array of rules, not ${describeKind(raw)}; it is skipped.`,
        {
          ...at,
          event,
        },
      );
      continue;
    }
    rules.data.forEach((rule, index) => {
      const parsed = parseRule(rule, { group: name, event, rule_index: index }, report);
      if (parsed) events[event].push(parsed);
    });
  }
  return { name, enabled, events };
}

function parseRule(value: unknown, at: { group: string; event: HookEvent; rule_index: number }, report: Report): HookRule | null {
  const where = `group ${JSON.stringify(at.group)} ${at.event}[${at.rule_index}]`;
  if (!isPlainObject(value)) {
    report(
      "error",
      "rule_not_object",
      `${where} must be an object ({"matcher": ..., "hooks": [...]}), not ${describeKind(value)}; it is skipped.`,
      at,
    );
    return null;
  }
  const parsed = ruleFieldsSchema.safeParse(value);
  if (!parsed.success) {
    report("error", "rule_invalid", `${where}: ${describeIssues(parsed.error)}; the rule is skipped.`, at);
    reportUnknownKeys(value, RULE_KEYS, where, at, report);
    return null;
  }
  reportUnknownKeys(value, RULE_KEYS, where, at, report);
  const matcherSource = parsed.data.matcher ?? null;
  if (matcherSource === null) {
    report(
      "warning",
      "rule_without_matcher",
      `${where} has no "matcher"; it is treated as "" and matches every tool. Write "matcher": "*" to say so, or name the tools.`,
      { ...at, field: "matcher" },
    );
  }
  const { matcher, problems } = compileMatcher(matcherSource);
  for (const problem of problems) report(problem.severity, problem.code, `${where}: ${problem.message}`, { ...at, field: "matcher" });
  if (parsed.data.hooks.length === 0) {
    report("warning", "rule_has_no_handlers", `${where} has an empty "hooks" array, so it runs nothing.`, at);
  }
  const handlers: HookRule["handlers"] = [];
  parsed.data.hooks.forEach((handler, index) => {
    const result = parseHandler(handler, { ...at, handler_index: index }, `${where}.hooks[${index}]`, report);
    if (result) handlers.push({ index, handler: result });
  });
  return { index: at.rule_index, matcherSource, matcher, handlers };
}

function parseHandler(
  value: unknown,
  at: { group: string; event: HookEvent; rule_index: number; handler_index: number },
  where: string,
  report: Report,
): HookHandler | null {
  if (!isPlainObject(value)) {
    report(
      "error",
      "handler_not_object",
      `${where} must be an object ({"type": "command", "command": ...}), not ${describeKind(value)}; it is skipped.`,
      at,
    );
    return null;
  }
  const type = value["type"];
  if (type !== "command" && type !== "http") {
    const missingHint = "command" in value ? '; add "type": "command"' : "url" in value ? '; add "type": "http"' : ' ("command" or "http")';
    const message =
      type === undefined
        ? `${where} has no "type"${missingHint}; it is skipped.`
        : typeof type === "string" && (type.toLowerCase() === "command" || type.toLowerCase() === "http")
          ? `${where} has "type": ${JSON.stringify(type)}; types are lower case ("${type.toLowerCase()}"); it is skipped.`
          : `${where} has an unknown "type" ${JSON.stringify(type)}; the service runs only "command" and "http" handlers; it is skipped.`;
    report("error", type === undefined ? "handler_type_missing" : "handler_type_unknown", message, { ...at, field: "type" });
    reportUnknownKeys(value, ANY_HANDLER_KEYS, where, at, report);
    return null;
  }
  const parsed = (type === "command" ? commandHandlerSchema : httpHandlerSchema).safeParse(value);
  reportUnknownKeys(value, HANDLER_KEYS[type], where, at, report);
  if (!parsed.success) {
    report("error", "handler_invalid", `${where}: ${describeIssues(parsed.error)}; the handler is skipped.`, at);
    return null;
  }
  const timeoutS = parsed.data.timeout ?? DEFAULT_HANDLER_TIMEOUT_S;
  if (parsed.data.type === "command") return { type: "command", command: parsed.data.command, timeoutS };
  if (isLoopbackUrl(parsed.data.url)) {
    report(
      "info",
      "http_loopback_url",
      `${where} posts to a loopback address; the service's egress proxy refuses loopback, so this hook fails open there.`,
      { ...at, field: "url" },
    );
  }
  return { type: "http", url: parsed.data.url, headers: ownHeaders(parsed.data.headers), timeoutS };
}

/** A copy of accepted headers that keeps every name as an own property, "__proto__" included. */
function ownHeaders(headers: Record<string, unknown> | null | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {})) as Record<string, string>;
}

function reportUnknownKeys(
  value: Record<string, unknown>,
  known: readonly string[],
  where: string,
  at: Omit<DiagnosticLocation, "file">,
  report: Report,
): void {
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    const meant = LIKELY_MEANT[key.toLowerCase().replace(/[^a-z]/g, "")] ?? (ALL_KEYS.has(key) ? key : undefined);
    const field = { ...at, field: key };
    const otherType = known === HANDLER_KEYS.command ? "http" : known === HANDLER_KEYS.http ? "command" : null;
    if (otherType !== null && HANDLER_KEYS[otherType].includes(key)) {
      report(
        "warning",
        "misplaced_key",
        `${where}: ${JSON.stringify(key)} is only read for "type": "${otherType}" handlers and is ignored here.`,
        field,
      );
    } else if (meant && known.includes(meant)) {
      const unit = meant === "timeout" ? " (in seconds)" : "";
      report(
        "warning",
        "likely_typo",
        `${where}: unknown key ${JSON.stringify(key)} is ignored; did you mean ${JSON.stringify(meant)}${unit}?`,
        field,
      );
    } else if (meant) {
      report(
        "warning",
        "misplaced_key",
        `${where}: ${JSON.stringify(key)} is ignored here; ${JSON.stringify(meant)} belongs at another level of hooks.json.`,
        field,
      );
    } else {
      report("info", "unknown_key", `${where}: unknown key ${JSON.stringify(key)} is ignored.`, field);
    }
  }
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.map(String).join(".");
      return path ? `"${path}" ${issue.message}` : issue.message;
    })
    .join("; ");
}

/**
 * The top-level keys in the order the file writes them. JSON.parse builds an object, and JavaScript
 * objects list integer-like keys ("1", "42") first, so a group named "10" would jump the queue; the
 * documented order is the file's. Only called on text JSON.parse accepted, whose top level is an object.
 */
export function objectKeysInFileOrder(text: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      if (depth === 1 && expectKey) {
        keys.push(JSON.parse(text.slice(i, end + 1)) as string);
        expectKey = false;
      }
      i = end;
    } else if (char === "{" || char === "[") {
      depth++;
      if (depth === 1) expectKey = true;
    } else if (char === "}" || char === "]") {
      depth--;
    } else if (char === "," && depth === 1) {
      expectKey = true;
    }
  }
  return keys;
}

function describeKind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return `a ${typeof value} (${JSON.stringify(value)})`;
}

function isLoopbackUrl(text: string): boolean {
  const host = new URL(text).hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host.endsWith(".localhost") || host === "::1" || /^127\./.test(host);
}
