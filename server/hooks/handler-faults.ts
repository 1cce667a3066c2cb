// What a handler gives when a fault rule fires on it (docs/faults.md#hooks): the very result a real
// handler failing that way hands the engine, so fail-open, diagnostics and the trace follow as they
// would in production. A timeout is waited out for real (the handler's own timeout), as a hung hook
// holds its tool call; a latency past the handler's timeout is that timeout, since the real handler
// would have been killed at it.

import { faultDelay } from "../faults/fault-delay.js";
import type { InjectedFault } from "../faults/fault-plan.js";
import type { FaultSite } from "../faults/fault-rules.js";
import type { HandlerRun } from "./handler-outcome.js";
import type { HookCommandResult, HookHttpResult } from "./hook-host.js";

/** Asks whether a fault is injected at this handler now; bound to the call's owner and environment. */
export type HookFaults = (site: FaultSite) => InjectedFault | null;

/**
 * The run the fault stands in for, or null when the handler is to run for real (after the latency
 * was waited). Rejects with the signal's reason when the call is cancelled while waiting.
 */
export async function injectedHandlerRun(
  fault: InjectedFault,
  handler: { kind: "command" } | { kind: "http"; url: string },
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<HandlerRun | null> {
  const effect = fault.effect;
  const timedOut = async (): Promise<HandlerRun> => {
    await faultDelay(timeoutMs, signal);
    return handler.kind === "command" ? commandRun(timedOutCommand(timeoutMs)) : httpRun(timedOutRequest(timeoutMs));
  };
  switch (effect.kind) {
    case "timeout":
      return timedOut();
    case "latency":
      if (effect.ms >= timeoutMs) return timedOut();
      await faultDelay(effect.ms, signal);
      return null;
    case "error": {
      if (handler.kind !== "command") return null;
      // As if the command had printed the message and exited 1: it never ran.
      const stderr = Buffer.from(`${effect.message}\n`, "utf8");
      return commandRun({ ...emptyCommand(0), exitCode: 1, stderr, stderrBytes: stderr.length });
    }
    case "http_status": {
      if (handler.kind !== "http") return null;
      const latency = effect.latency_ms ?? 0;
      if (latency >= timeoutMs) return timedOut();
      await faultDelay(latency, signal);
      return httpRun({ ok: true, status: effect.status, body: Buffer.alloc(0), bodyBytes: 0, durationMs: latency });
    }
    case "refuse":
      if (handler.kind !== "http") return null;
      return httpRun(
        noAnswer(
          `could not connect (refused or unreachable); curl exit 7: curl: (7) Failed to connect to ${hostOf(handler.url)}: Connection refused`,
        ),
      );
    case "reset":
      if (handler.kind !== "http") return null;
      return httpRun(noAnswer("receiving the answer failed; curl exit 56: curl: (56) Recv failure: Connection reset by peer"));
    case "drop":
    case "incomplete":
    case "queued":
    case "requires_continuation":
      return null;
  }
}

function commandRun(result: HookCommandResult): HandlerRun {
  return { kind: "command", result };
}

function httpRun(result: HookHttpResult): HandlerRun {
  return { kind: "http", result };
}

function emptyCommand(durationMs: number): HookCommandResult {
  return {
    exitCode: 0,
    signal: null,
    timedOut: false,
    stdout: Buffer.alloc(0),
    stderr: Buffer.alloc(0),
    stdoutBytes: 0,
    stderrBytes: 0,
    durationMs,
  };
}

/** What the executor reports for a command killed at its deadline. */
function timedOutCommand(timeoutMs: number): HookCommandResult {
  return { ...emptyCommand(timeoutMs), exitCode: null, signal: "SIGKILL", timedOut: true };
}

/** What curl reports when --max-time ends a request that got no answer (exit 28). */
function timedOutRequest(timeoutMs: number): HookHttpResult {
  return {
    ok: false,
    reason: `timed out; curl exit 28: curl: (28) Operation timed out after ${timeoutMs} milliseconds with 0 bytes received`,
    timedOut: true,
    proxyRefused: false,
    durationMs: timeoutMs,
  };
}

function noAnswer(reason: string): HookHttpResult {
  return { ok: false, reason, timedOut: false, proxyRefused: false, durationMs: 0 };
}

function hostOf(url: string): string {
  try {
    const parsed = new URL(url);
    const port = parsed.port || (parsed.protocol === "https:" ? "443" : "80");
    return `${parsed.hostname} port ${port}`;
  } catch {
    return url;
  }
}
