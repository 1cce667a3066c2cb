// The hooks engine: before and after every built-in tool call, discover hooks.json afresh, pick the
// handlers whose rules match the tool, run them one at a time in declaration order, and decide.
//
// Order: files (/.agents first), groups in file order, rules in array order, handlers in array
// order; every matching rule of every enabled group runs. pre: the first deny stops the chain (later
// handlers are recorded as not run). post: everything runs, output ignored. Every step is recorded in
// a HookTrace. The only thing that throws is the host (sandbox gone, call cancelled): that is not a
// hook failing open, it is the interaction failing, and the caller decides what to do with it.

import { SandboxFilesChangedError, type FreshRead } from "../sandbox/runtime.js";
import type { ToolCall } from "../tools/tool-call.js";
import {
  DEFAULT_CONFIG_PATHS,
  DEFAULT_MAX_CONFIG_BYTES,
  discoveryFrom,
  readConfigs,
  type Discovery,
  type LoadedConfig,
} from "./discovery.js";
import { interpretPostOutcome, interpretPreOutcome, type HandlerOutcome, type HandlerRun } from "./handler-outcome.js";
import type { FaultSite } from "../faults/fault-rules.js";
import { injectedHandlerRun, type HookFaults } from "./handler-faults.js";
import type { HookCommandRequest, HookHost } from "./hook-host.js";
import type { HookHandler } from "./hooks-file.js";
import { explainMatch, matchesTool } from "./matcher.js";
import { HookPayload } from "./payload.js";
import {
  excerpt,
  type DeniedBy,
  type HookDiagnostic,
  type HookEvent,
  type HookHandlerTrace,
  type HookRuleTrace,
  type HookTrace,
} from "./trace.js";

export interface HookRunOptions {
  /** Output kept per handler (stdout, stderr, response body). More is counted and dropped, and a pre
   *  handler that prints more allows (fail-open). Default 1 MiB. */
  maxOutputBytes?: number;
  /** Largest hooks.json read. Default 1 MiB. */
  maxConfigBytes?: number;
  /** Where hooks.json is looked for, in order. Default /.agents/hooks.json, /workspace/.agents/hooks.json. */
  configPaths?: readonly string[];
  /** Cancels the hooks (a running handler is killed); the call then rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * The candidates as the tool's own request read them once it ended (CommandResult.readsAfter), for the
   * post hooks: taken instead of reading them again (HookHost.takeConfigReads).
   */
  toolReads?: readonly FreshRead[];
  /** Read the files before anything else, even where the host could have a handler confirm them. */
  readFirst?: boolean;
  /** Told of every evaluation once its trace is done (hook coverage records them); never changes the decision. */
  observer?: HookEvaluationObserver;
  /**
   * Asked before each handler runs (docs/faults.md#hooks): an injected fault stands in for the run.
   * Given, the files are read first (readFirst): a handler a fault replaces confirms nothing.
   */
  faults?: HookFaults;
}

/** A hooks.json as one evaluation read it: where, its text and the text's SHA-256. */
export interface HookConfigContent {
  path: string;
  sha256: string;
  text: string;
}

/**
 * Called with each finished trace and the contents of the files it decided on. The engine stays pure
 * policy: what is done with an evaluation (counted, stored) is the observer's business.
 */
export type HookEvaluationObserver = (trace: HookTrace, configs: readonly HookConfigContent[]) => void;

/** An observer's failure is logged: it must never turn a hook decision into an error. */
function tellObserver(observer: HookEvaluationObserver | undefined, trace: HookTrace, discovery: Discovery): HookTrace {
  if (!observer) return trace;
  try {
    observer(
      trace,
      discovery.configs.map(({ file, sha256, text }) => ({ path: file, sha256, text })),
    );
  } catch (error) {
    console.error("a hook evaluation observer failed:", error);
  }
  return trace;
}

/** The hooks.json candidates and how much of each is read: what a tool's own request may read for the hooks. */
export function hookConfigFiles(options: HookRunOptions = {}): { paths: string[]; maxBytes: number } {
  return { paths: [...(options.configPaths ?? DEFAULT_CONFIG_PATHS)], maxBytes: options.maxConfigBytes ?? DEFAULT_MAX_CONFIG_BYTES };
}

/**
 * The pre hooks of a call decided on the candidates as last read, without reading them: when those
 * files would have the hooks run no handler for this call, the tool's own request is to confirm them
 * unchanged right before it starts (`check`: CommandRequest's or FileOperationReads' unlessChanged), and once it did, the pre
 * hooks allowed, with `trace`. Reading before every call still holds; the read rides on the tool's start.
 */
export interface PreToolHooksToConfirm {
  check: { paths: string[]; maxBytes: number; tokens: string[] };
  /** The trace, once the files were confirmed: started when the check was sent, done when it was confirmed. */
  trace(startedAt: Date, durationMs: number): HookTrace;
}

/** Null when the host has no last reads to go on, or they would have handlers run (then run the pre hooks). */
export function preToolHooksToConfirm(
  host: HookHost,
  call: ToolCall,
  environmentId: string,
  options: HookRunOptions = {},
): PreToolHooksToConfirm | null {
  const { paths, maxBytes } = hookConfigFiles(options);
  const last = host.lastConfigReads?.(paths, maxBytes) ?? null;
  if (last === null) return null;
  const discovery = discoveryFrom(paths, last.reads);
  const { rules, planned } = planHandlers(discovery.configs, "pre_tool_execution", call.name);
  if (planned.length > 0) return null;
  const payload = new HookPayload(call, environmentId);
  return {
    check: { paths, maxBytes, tokens: last.tokens },
    trace: (startedAt, durationMs) =>
      tellObserver(
        options.observer,
        assembleTrace("pre_tool_execution", call, environmentId, payload, discovery, rules, {
          startedAt,
          durationMs,
          diagnostics: [...discovery.diagnostics],
          handlers: [],
          deniedBy: null,
          denyReason: null,
        }),
        discovery,
      ),
  };
}

export type PreToolHookResult =
  | { decision: "allow"; trace: HookTrace }
  | { decision: "deny"; group: string; reason: string; trace: HookTrace };

export const DEFAULT_MAX_HOOK_OUTPUT_BYTES = 1024 * 1024;

export async function runPreToolHooks(
  host: HookHost,
  call: ToolCall,
  environmentId: string,
  options: HookRunOptions = {},
): Promise<PreToolHookResult> {
  const trace = await runHooks(host, "pre_tool_execution", call, environmentId, new HookPayload(call, environmentId), options);
  if (trace.decision === "deny" && trace.denied_by && trace.deny_reason !== null) {
    return { decision: "deny", group: trace.denied_by.group, reason: trace.deny_reason, trace };
  }
  return { decision: "allow", trace };
}

/** `error`: the tool's stderr text or failed file operation's message; undefined on a clean run. */
export async function runPostToolHooks(
  host: HookHost,
  call: ToolCall,
  environmentId: string,
  error: string | undefined,
  options: HookRunOptions = {},
): Promise<HookTrace> {
  return runHooks(host, "post_tool_execution", call, environmentId, new HookPayload(call, environmentId, error), options);
}

interface PlannedHandler {
  file: string;
  fromReadOnlyConfig: boolean;
  group: string;
  ruleIndex: number;
  handlerIndex: number;
  /** The rule's matcher as written (null when it has none): what a fault rule's target names. */
  matcher: string | null;
  handler: HookHandler;
}

async function runHooks(
  host: HookHost,
  event: HookEvent,
  call: ToolCall,
  environmentId: string,
  payload: HookPayload,
  options: HookRunOptions,
): Promise<HookTrace> {
  const startedAt = new Date();
  const started = performance.now();
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_HOOK_OUTPUT_BYTES;
  options.signal?.throwIfAborted();

  const { paths, maxBytes } = hookConfigFiles(options);
  // When the files as last read would have handlers run, the first handler's own request confirms them
  // unchanged right before it starts (HookCommandRequest.unlessChanged) instead of a read of their own.
  const last = options.toolReads || options.readFirst || options.faults ? null : (host.lastConfigReads?.(paths, maxBytes) ?? null);
  let discovery = last && discoveryFrom(paths, last.reads);
  let plan = discovery && planHandlers(discovery.configs, event, call.name);
  let confirm = last && plan && plan.planned.length > 0 ? { paths, maxBytes, tokens: last.tokens } : undefined;
  if (!discovery || !plan || !confirm) {
    // A thrown error means the sandbox is gone: it propagates, no hook can run anyway.
    const reads =
      options.toolReads && host.takeConfigReads
        ? await host.takeConfigReads(paths, maxBytes, options.toolReads)
        : await readConfigs(host, paths, maxBytes);
    discovery = discoveryFrom(paths, reads);
    plan = planHandlers(discovery.configs, event, call.name);
    confirm = undefined;
  }
  const diagnostics: HookDiagnostic[] = [...discovery.diagnostics];
  const { rules, planned } = plan;

  const handlers: HookHandlerTrace[] = [];
  let deniedBy: DeniedBy | null = null;
  let denyReason: string | null = null;
  for (const step of planned) {
    if (deniedBy !== null) {
      handlers.push(notRunTrace(step, event, `an earlier handler (group ${JSON.stringify(deniedBy.group)}) denied the tool call`));
      continue;
    }
    options.signal?.throwIfAborted();
    let run: HandlerRun;
    const fault = options.faults?.(siteOf(step, event)) ?? null;
    try {
      const injected = fault && (await injectedHandlerRun(fault, handlerOf(step), handlerTimeoutMs(step), options.signal));
      run = injected ?? (await runHandler(host, step, payload, maxOutputBytes, options.signal, confirm));
    } catch (error) {
      // The files changed since they were last read: nothing ran; read them and start over.
      if (confirm && error instanceof SandboxFilesChangedError)
        return runHooks(host, event, call, environmentId, payload, { ...options, readFirst: true });
      throw error;
    }
    confirm = undefined;
    const outcome = event === "pre_tool_execution" ? interpretPreOutcome(run, maxOutputBytes) : interpretPostOutcome(run, maxOutputBytes);
    for (const problem of outcome.problems) {
      diagnostics.push({
        ...problem,
        location: { file: step.file, group: step.group, event, rule_index: step.ruleIndex, handler_index: step.handlerIndex },
      });
    }
    handlers.push({ ...ranTrace(step, event, run, outcome), injected_fault: fault });
    if (outcome.decision === "deny") {
      deniedBy = { file: step.file, group: step.group, rule_index: step.ruleIndex, handler_index: step.handlerIndex };
      denyReason = outcome.denyReason;
    }
  }

  const trace = assembleTrace(event, call, environmentId, payload, discovery, rules, {
    startedAt,
    durationMs: performance.now() - started,
    diagnostics,
    handlers,
    deniedBy,
    denyReason,
  });
  return tellObserver(options.observer, trace, discovery);
}

function assembleTrace(
  event: HookEvent,
  call: ToolCall,
  environmentId: string,
  payload: HookPayload,
  discovery: Discovery,
  rules: HookRuleTrace[],
  ran: {
    startedAt: Date;
    durationMs: number;
    diagnostics: HookDiagnostic[];
    handlers: HookHandlerTrace[];
    deniedBy: DeniedBy | null;
    denyReason: string | null;
  },
): HookTrace {
  const trace: HookTrace = {
    event,
    tool_name: call.name,
    environment_id: environmentId,
    started_at: ran.startedAt.toISOString(),
    duration_ms: Math.round(ran.durationMs),
    payload_bytes: payload.byteLength,
    files: discovery.files,
    diagnostics: ran.diagnostics,
    rules,
    handlers: ran.handlers,
    decision: event === "post_tool_execution" ? "none" : ran.deniedBy ? "deny" : "allow",
    denied_by: ran.deniedBy,
    deny_reason: ran.denyReason,
    summary: "",
  };
  trace.summary = summarize(trace) + injectedNote(trace.handlers);
  return trace;
}

/** Every rule of the event is recorded, matched or not; the handlers of matching rules run, in order. */
function planHandlers(configs: LoadedConfig[], event: HookEvent, toolName: string): { rules: HookRuleTrace[]; planned: PlannedHandler[] } {
  const rules: HookRuleTrace[] = [];
  const planned: PlannedHandler[] = [];
  for (const { file, groups, readOnly } of configs) {
    for (const group of groups) {
      for (const rule of group.events[event]) {
        const matched = group.enabled && matchesTool(rule.matcher, toolName);
        rules.push({
          file,
          group: group.name,
          group_enabled: group.enabled,
          event,
          rule_index: rule.index,
          matcher: rule.matcherSource,
          match: !group.enabled
            ? "group_disabled"
            : rule.matcher.kind === "invalid"
              ? "invalid_matcher"
              : matched
                ? "matched"
                : "not_matched",
          why: group.enabled ? explainMatch(rule.matcher, toolName) : `group ${JSON.stringify(group.name)} has "enabled": false`,
          handler_count: rule.handlers.length,
        });
        if (!matched) continue;
        for (const { index, handler } of rule.handlers) {
          planned.push({
            file,
            fromReadOnlyConfig: readOnly,
            group: group.name,
            ruleIndex: rule.index,
            handlerIndex: index,
            matcher: rule.matcherSource,
            handler,
          });
        }
      }
    }
  }
  return { rules, planned };
}

function handlerTimeoutMs({ handler }: Pick<PlannedHandler, "handler">): number {
  return Math.max(1, Math.round(handler.timeoutS * 1000));
}

function handlerOf({ handler }: PlannedHandler): { kind: "command" } | { kind: "http"; url: string } {
  return handler.type === "command" ? { kind: "command" } : { kind: "http", url: handler.url };
}

/** The handler as a fault rule's target names it (fault-rules.ts). */
function siteOf(step: PlannedHandler, event: HookEvent): FaultSite {
  const { handler } = step;
  return {
    kind: "hook",
    handler: handler.type,
    command: handler.type === "command" ? handler.command : null,
    url: handler.type === "http" ? handler.url : null,
    group: step.group,
    matcher: step.matcher,
    event,
  };
}

async function runHandler(
  host: HookHost,
  { handler, fromReadOnlyConfig }: PlannedHandler,
  payload: HookPayload,
  maxOutputBytes: number,
  signal: AbortSignal | undefined,
  unlessChanged: HookCommandRequest["unlessChanged"],
): Promise<HandlerRun> {
  const timeoutMs = handlerTimeoutMs({ handler });
  const confirming = unlessChanged ? { unlessChanged } : {};
  if (handler.type === "command") {
    const result = await host.runCommand({
      command: handler.command,
      stdin: payload.bytes(),
      timeoutMs,
      maxOutputBytes,
      signal,
      fromReadOnlyConfig,
      ...confirming,
    });
    return { kind: "command", result };
  }
  const result = await host.postJson({
    url: handler.url,
    headers: handler.headers,
    body: payload.bytes(),
    timeoutMs,
    maxBodyBytes: maxOutputBytes,
    signal,
    fromReadOnlyConfig,
    ...confirming,
  });
  return { kind: "http", result };
}

function baseTrace(
  step: PlannedHandler,
  event: HookEvent,
): Omit<HookHandlerTrace, "decision" | "deny_reason" | "not_run_reason" | "fail_open" | "failure" | "injected_fault"> {
  const { handler } = step;
  return {
    file: step.file,
    group: step.group,
    event,
    rule_index: step.ruleIndex,
    handler_index: step.handlerIndex,
    kind: handler.type,
    command: handler.type === "command" ? handler.command : null,
    url: handler.type === "http" ? handler.url : null,
    timeout_s: handler.timeoutS,
    duration_ms: null,
    exit_code: null,
    signal: null,
    http_status: null,
    timed_out: false,
    crashed: false,
    stdout_excerpt: "",
    stderr_excerpt: "",
    stdout_bytes: 0,
    stderr_bytes: 0,
  };
}

function notRunTrace(step: PlannedHandler, event: HookEvent, reason: string): HookHandlerTrace {
  return {
    ...baseTrace(step, event),
    decision: "not_run",
    deny_reason: null,
    not_run_reason: reason,
    fail_open: null,
    failure: null,
    injected_fault: null,
  };
}

function ranTrace(
  step: PlannedHandler,
  event: HookEvent,
  run: HandlerRun,
  outcome: HandlerOutcome,
): Omit<HookHandlerTrace, "injected_fault"> {
  const trace: Omit<HookHandlerTrace, "injected_fault"> = {
    ...baseTrace(step, event),
    decision: outcome.decision,
    deny_reason: outcome.denyReason,
    not_run_reason: null,
    fail_open: outcome.failOpen,
    failure: outcome.failure,
  };
  if (run.kind === "command") {
    const result = run.result;
    return {
      ...trace,
      duration_ms: result.durationMs,
      exit_code: result.exitCode,
      signal: result.signal,
      timed_out: result.timedOut,
      crashed: result.signal !== null && !result.timedOut,
      stdout_excerpt: excerpt(result.stdout),
      stderr_excerpt: excerpt(result.stderr),
      stdout_bytes: result.stdoutBytes,
      stderr_bytes: result.stderrBytes,
    };
  }
  const result = run.result;
  if (!result.ok) {
    // No answer: what went wrong (curl's own message included) is in failure.reason.
    return { ...trace, duration_ms: result.durationMs, timed_out: result.timedOut };
  }
  return {
    ...trace,
    duration_ms: result.durationMs,
    http_status: result.status,
    stdout_excerpt: excerpt(result.body),
    stdout_bytes: result.bodyBytes,
  };
}

/** Says which handlers' results a fault rule made, so an injected failure never reads as a real one. */
function injectedNote(handlers: readonly HookHandlerTrace[]): string {
  const injected = handlers.filter((handler) => handler.injected_fault !== null);
  if (injected.length === 0) return "";
  const which = injected.map((handler) => `${handler.injected_fault?.effect.kind} by ${handler.injected_fault?.rule_id}`).join(", ");
  return `; ${injected.length === 1 ? "1 fault" : `${injected.length} faults`} injected (${which})`;
}

function summarize(trace: HookTrace): string {
  const found = trace.files.filter((file) => file.status === "loaded");
  const errors = trace.diagnostics.filter((diagnostic) => diagnostic.severity === "error").length;
  const errorNote = errors > 0 ? `; ${errors} error${errors === 1 ? "" : "s"} in the configuration or its handlers (see diagnostics)` : "";
  if (found.length === 0) {
    const broken = trace.files.filter((file) => file.status === "invalid_json" || file.status === "unreadable");
    const paths = trace.files.map((file) => file.path).join(" or ");
    return broken.length > 0
      ? `no usable hooks.json: ${broken.map((file) => `${file.path} is ${file.status.replace("_", " ")}`).join(", ")}${errorNote}`
      : `no hooks.json at ${paths}`;
  }
  const tool = JSON.stringify(trace.tool_name);
  const ran = trace.handlers.filter((handler) => handler.decision !== "not_run");
  if (ran.length === 0) {
    const matched = trace.rules.filter((rule) => rule.match === "matched").length;
    const considered = `${trace.rules.length} ${trace.event} rule${trace.rules.length === 1 ? "" : "s"} considered`;
    return matched > 0
      ? `${matched} rule${matched === 1 ? "" : "s"} matched ${tool} but had no valid handlers (${considered})${errorNote}`
      : `no ${trace.event} rule matched ${tool} (${considered})${errorNote}`;
  }
  const ranText = `${ran.length} handler${ran.length === 1 ? "" : "s"} ran`;
  if (trace.decision === "deny" && trace.denied_by) {
    const skipped = trace.handlers.length - ran.length;
    const skippedText = skipped > 0 ? `; ${skipped} later handler${skipped === 1 ? "" : "s"} not run` : "";
    const { group, rule_index: rule, handler_index: handler } = trace.denied_by;
    const who = `group ${JSON.stringify(group)} (rule ${rule}, handler ${handler})`;
    return `denied ${tool} by ${who}: ${trace.deny_reason}; ${ranText}${skippedText}${errorNote}`;
  }
  if (trace.decision === "allow") {
    const failedOpen = ran.filter((handler) => handler.fail_open !== null);
    const causes = [...new Set(failedOpen.map((handler) => handler.fail_open?.code))].join(", ");
    const failOpenText = failedOpen.length > 0 ? `, ${failedOpen.length} of them only by fail-open (${causes})` : "";
    return `allowed ${tool}: ${ranText}${failOpenText}${errorNote}`;
  }
  const failed = ran.filter((handler) => handler.failure !== null);
  const causes = [...new Set(failed.map((handler) => handler.failure?.code))].join(", ");
  return `${ranText} after ${tool}${failed.length > 0 ? `, ${failed.length} failed (${causes})` : ""}${errorNote}`;
}
