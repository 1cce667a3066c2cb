// `interactions-emulator hooks try --call JSON [--dir DIR] [--at root|workspace] [--emulator URL]`:
// one tool call through a folder's hooks, in a throwaway sandbox, without writing an agent.
//
// It goes through the emulator's public API, exactly as an agent's call would: a background
// interaction whose input is a one-call `tool_calls` script, in a new environment whose inline sources
// are DIR/.agents/**; then the call's hook trace (GET /emulator/interactions/{id}/hooks) and its result
// step; then the environment and the interaction are deleted. So the tool really runs when the pre
// hooks allow it, and the post hooks see its real outcome (the payload's "error" is its real stderr):
// the most faithful answer to "what would my hooks do with this call". Without --emulator, a
// throwaway emulator (server/embed.ts) serves the API and is removed with everything it made, also on
// Ctrl-C. The same path serves a running emulator with --emulator URL, so no extra route is needed.

import { emulatorRequest, EmulatorRequestError } from "./emulator-request.js";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { startEmulator, type EmbeddedEmulator } from "../embed.js";
import type { HookTrace } from "../hooks/trace.js";
import { KNOWN_AGENTS } from "../interactions/agent-or-model.js";
import { parseToolCall, type TypedToolCall } from "../tools/tool-call.js";
import { formatHookTrace, excerptLines } from "./trace-text.js";
import { EXIT, UsageError } from "./usage.js";

export interface TryOptions {
  /** The call as JSON: {"name": "code_execution", "args": {...}}. */
  call: string;
  /** The folder whose .agents/ is tried; default the current folder. */
  dir: string;
  /** Where .agents/ lands in the sandbox: /.agents (root) or /workspace/.agents. */
  at: "root" | "workspace";
  /** A running emulator's URL; unset starts a throwaway one. */
  emulator?: string;
  apiKey?: string;
  json: boolean;
}

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
}

interface InlineSource {
  type: "inline";
  target: string;
  content: string;
  encoding: "base64";
}

export interface TryOutcome {
  emulator: string;
  interaction_id: string;
  environment_id: string | null;
  /** The interaction's end: completed, failed or cancelled. */
  status: string;
  tool_call: { name: string; args: Record<string, unknown> };
  /** The pre hooks' decision; null when they never ran (the interaction failed first). */
  decision: "allow" | "deny" | null;
  deny_reason: string | null;
  pre: HookTrace | null;
  post: HookTrace | null;
  tool: { ran: boolean; is_error: boolean | null; result: string | null };
  errors: Array<{ code?: string; message?: string }>;
}

/** The --call argument, checked as the emulator checks a script's call (defaults filled in). */
export function parseCallArgument(raw: string): TypedToolCall {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    throw new UsageError(`--call must be JSON such as '{"name": "code_execution", "args": {"code": "ls"}}' (${(error as Error).message})`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError(`--call must be one JSON object: {"name": "<tool>", "args": {...}}`);
  }
  const { name, args, ...rest } = value as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0)
    throw new UsageError(`--call has only "name" and "args"; ${extra.map((key) => JSON.stringify(key)).join(", ")} is not read`);
  const parsed = parseToolCall(name, args);
  if (!parsed.ok) throw new UsageError(`--call: ${parsed.message}`);
  return parsed.call;
}

/** DIR/.agents/** as inline sources, at /.agents or /workspace/.agents. */
export function agentsSources(dir: string, at: TryOptions["at"]): InlineSource[] {
  const agents = path.join(dir, ".agents");
  let stat: fs.Stats;
  try {
    stat = fs.statSync(agents);
  } catch {
    throw new UsageError(`${agents} does not exist: give --dir the folder that holds .agents/hooks.json (default: the current folder)`);
  }
  if (!stat.isDirectory()) throw new UsageError(`${agents} is not a folder`);
  const prefix = at === "root" ? ".agents" : "workspace/.agents";
  const sources: InlineSource[] = [];
  const walk = (relative: string) => {
    for (const entry of fs.readdirSync(path.join(agents, relative), { withFileTypes: true })) {
      const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
      const full = path.join(agents, child);
      // Symbolic links are followed, as a copy of the folder would; anything but files and folders is left out.
      const kind = fs.statSync(full);
      if (kind.isDirectory()) walk(child);
      else if (kind.isFile()) {
        sources.push({
          type: "inline",
          target: `${prefix}/${child}`,
          content: fs.readFileSync(full).toString("base64"),
          encoding: "base64",
        });
      }
    }
  };
  walk("");
  return sources;
}

async function api<T>(baseUrl: string, apiKey: string, method: string, route: string, body: unknown, signal: AbortSignal): Promise<T> {
  const label = `${method} ${route}`;
  const parsed = await emulatorRequest(new URL(route, baseUrl), { emulator: baseUrl, apiKey, method, label, body, signal });
  if (parsed === null) throw new EmulatorRequestError(`${label}: the answer is not JSON (is ${baseUrl} an interactions emulator?)`);
  return parsed as T;
}

interface InteractionJson {
  id: string;
  status: string;
  environment_id?: string;
  steps?: Array<{ type: string; call_id?: string; result?: unknown; is_error?: boolean }>;
  errors?: Array<{ code?: string; message?: string }>;
}

interface HookTraceEntry {
  call_id: string;
  pre: HookTrace | null;
  post: HookTrace | null;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/**
 * Runs the call against the emulator at baseUrl and cleans up after it (the environment and the
 * interaction are deleted, also when interrupted: `signal` aborts the wait, not the clean-up).
 */
export async function tryOnEmulator(
  baseUrl: string,
  apiKey: string,
  call: TypedToolCall,
  sources: InlineSource[],
  signal: AbortSignal,
): Promise<TryOutcome> {
  const created = await api<InteractionJson>(
    baseUrl,
    apiKey,
    "POST",
    "/v1beta/interactions",
    {
      agent: KNOWN_AGENTS[0],
      input: `\`\`\`tool_calls\n${JSON.stringify([{ name: call.name, args: call.args }])}\n\`\`\``,
      tools: [{ type: "code_execution" }],
      environment: { type: "remote", sources },
      background: true,
    },
    signal,
  );
  const cleanUp = async () => {
    const quick = AbortSignal.timeout(30_000);
    await api(baseUrl, apiKey, "POST", `/v1beta/interactions/${created.id}/cancel`, {}, quick).catch(() => undefined);
    if (created.environment_id) {
      await api(baseUrl, apiKey, "DELETE", `/v1beta/environments/${created.environment_id}`, undefined, quick).catch(() => undefined);
    }
    await api(baseUrl, apiKey, "DELETE", `/v1beta/interactions/${created.id}`, undefined, quick).catch(() => undefined);
  };
  try {
    let interaction = created;
    while (interaction.status === "in_progress" || interaction.status === "queued") {
      await sleep(100, signal);
      interaction = await api<InteractionJson>(baseUrl, apiKey, "GET", `/v1beta/interactions/${created.id}`, undefined, signal);
    }
    const hooks = await api<{ tool_calls: HookTraceEntry[] }>(
      baseUrl,
      apiKey,
      "GET",
      `/emulator/interactions/${created.id}/hooks`,
      undefined,
      signal,
    );
    const entry = hooks.tool_calls[0] ?? null;
    const resultStep =
      entry === null
        ? undefined
        : interaction.steps?.find(
            (step) => step.call_id === entry.call_id && /_result$/.test(step.type) && step.type !== "mcp_server_tool_result",
          );
    const decision = entry?.pre ? (entry.pre.decision === "deny" ? "deny" : "allow") : null;
    return {
      emulator: baseUrl,
      interaction_id: created.id,
      environment_id: interaction.environment_id ?? created.environment_id ?? null,
      status: interaction.status,
      tool_call: { name: call.name, args: call.args },
      decision,
      deny_reason: entry?.pre?.deny_reason ?? null,
      pre: entry?.pre ?? null,
      post: entry?.post ?? null,
      tool: {
        ran: decision === "allow" && resultStep !== undefined,
        is_error: resultStep?.is_error ?? null,
        result:
          resultStep === undefined ? null : typeof resultStep.result === "string" ? resultStep.result : JSON.stringify(resultStep.result),
      },
      errors: interaction.errors ?? [],
    };
  } finally {
    await cleanUp();
  }
}

export function formatTryOutcome(outcome: TryOutcome, where: string): string {
  const lines = [`hooks try: ${outcome.tool_call.name} ${JSON.stringify(outcome.tool_call.args)}`, `  in ${where}`, ""];
  if (outcome.pre) lines.push(...formatHookTrace(outcome.pre), "");
  else lines.push("pre_tool_execution: did not run (the interaction ended first; see the errors below)", "");
  if (outcome.decision === "deny") {
    lines.push(`tool: not run, denied: ${outcome.deny_reason}`);
  } else if (outcome.tool.ran) {
    const status = outcome.tool.is_error ? "ran, with an error (is_error: true)" : "ran (is_error: false)";
    lines.push(`tool: ${status}`, ...excerptLines(outcome.tool.result ?? "", 12).map((line) => `  | ${line}`));
  } else {
    lines.push("tool: not run");
  }
  lines.push("");
  if (outcome.post) lines.push(...formatHookTrace(outcome.post));
  else if (outcome.decision === "deny")
    lines.push("post_tool_execution: not run (post hooks fire only after a tool ran, never after a denied call)");
  else lines.push("post_tool_execution: not run");
  for (const error of outcome.errors) lines.push(`error: ${error.code ?? "ERROR"}: ${error.message ?? ""}`);
  lines.push("", verdict(outcome));
  return `${lines.join("\n")}\n`;
}

function verdict(outcome: TryOutcome): string {
  if (outcome.decision === "deny") return `decision: deny: ${outcome.deny_reason} (exit ${EXIT.denied})`;
  if (outcome.decision === "allow") return `decision: allow (exit ${EXIT.ok})`;
  return `decision: none, the interaction ended ${outcome.status} before the hooks ran (exit ${EXIT.failed})`;
}

export function exitStatusOf(outcome: TryOutcome): number {
  if (outcome.decision === "deny") return EXIT.denied;
  if (outcome.decision === "allow") return EXIT.ok;
  return EXIT.failed;
}

/** The command: set up (a throwaway emulator unless --emulator), run, clean up, print. */
export async function hooksTry(options: TryOptions, io: CliIo): Promise<number> {
  const call = parseCallArgument(options.call);
  const sources = agentsSources(options.dir, options.at);
  const controller = new AbortController();
  let interrupted = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (interrupted) {
      io.err(`${signal} again: leaving now; a throwaway sandbox may be left behind\n`);
      process.exit(EXIT.interrupted);
    }
    interrupted = true;
    io.err(`${signal}: stopping; removing the throwaway sandbox first…\n`);
    controller.abort(new Error(`interrupted by ${signal}`));
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  let emulator: EmbeddedEmulator | null = null;
  try {
    let baseUrl: string;
    let apiKey: string;
    if (options.emulator) {
      baseUrl = options.emulator;
      apiKey = options.apiKey ?? process.env.GEMINI_API_KEY ?? process.env.GOOGLE_API_KEY ?? "hooks-try";
    } else {
      const instance = `hooks-try-${randomBytes(5).toString("hex")}`;
      io.err(`starting a throwaway emulator (instance ${instance}; Docker needed, the sandbox image is built on first use)…\n`);
      emulator = await startEmulator({ settings: { EMULATOR_INSTANCE: instance }, log: (line) => io.err(`  emulator: ${line}\n`) });
      baseUrl = emulator.baseUrl;
      apiKey = emulator.apiKey;
    }
    controller.signal.throwIfAborted();
    const outcome = await tryOnEmulator(baseUrl, apiKey, call, sources, controller.signal);
    const where = options.emulator
      ? `environment ${outcome.environment_id} of the emulator at ${baseUrl} (deleted afterwards)`
      : "a throwaway sandbox (removed afterwards)";
    io.out(
      options.json
        ? `${JSON.stringify(outcome, null, 2)}\n`
        : formatTryOutcome(
            outcome,
            `${where}, .agents/ from ${path.resolve(options.dir)} at ${options.at === "root" ? "/.agents" : "/workspace/.agents"}`,
          ),
    );
    return exitStatusOf(outcome);
  } catch (error) {
    if (interrupted) return EXIT.interrupted;
    if (error instanceof UsageError) throw error;
    io.err(`error: ${(error as Error).message}\n`);
    return EXIT.failed;
  } finally {
    if (emulator) {
      await emulator.stop().catch((error: unknown) => io.err(`error: ${(error as Error).message}\n`));
    }
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}
