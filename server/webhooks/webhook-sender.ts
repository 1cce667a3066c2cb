// One POST of a delivery, bounded: a deadline for the whole exchange (connect, headers and body), a
// cap on the answer's bytes that are read (the rest is dropped with the connection), and no redirects
// (a 3xx is a failed attempt, as Standard Webhooks senders treat it, and no redirect can lead a
// delivery to a host it may not reach).

import { faultDelay } from "../faults/fault-delay.js";
import type { FaultEffect } from "../faults/fault-rules.js";

export interface SendBounds {
  timeoutMs: number;
  maxResponseBytes: number;
}

export interface SendOutcome {
  ok: boolean;
  responseCode: number | null;
  latencyMs: number;
  error?: string;
}

export async function sendDelivery(
  uri: string,
  headers: Record<string, string>,
  body: string,
  bounds: SendBounds,
  stop: AbortSignal,
  /** An injected fault (docs/faults.md#webhooks): it takes the receiver's place inside the same deadline. */
  fault: FaultEffect | null = null,
): Promise<SendOutcome> {
  const started = performance.now();
  const signal = AbortSignal.any([stop, AbortSignal.timeout(bounds.timeoutMs)]);
  const latency = () => Math.round(performance.now() - started);
  try {
    const injectedStatus = fault === null ? null : await standInForReceiver(fault, bounds, signal);
    const status = injectedStatus ?? (await post(uri, headers, body, bounds, signal));
    const ok = status >= 200 && status < 300;
    return {
      ok,
      responseCode: status,
      latencyMs: latency(),
      ...(ok ? {} : { error: `the receiver answered ${status}; any 2xx counts as delivered` }),
    };
  } catch (error) {
    const timedOut = signal.aborted && !stop.aborted;
    return {
      ok: false,
      responseCode: null,
      latencyMs: latency(),
      error: timedOut
        ? `no answer within ${bounds.timeoutMs} ms (EMULATOR_WEBHOOK_TIMEOUT_SECONDS)`
        : `could not reach the receiver: ${describe(error)}`,
    };
  }
}

async function post(uri: string, headers: Record<string, string>, body: string, bounds: SendBounds, signal: AbortSignal): Promise<number> {
  const response = await fetch(uri, { method: "POST", headers, body, redirect: "manual", signal });
  await drain(response, bounds.maxResponseBytes);
  return response.status;
}

/**
 * What a failing receiver does, waited for on the attempt's own deadline, so a timeout or a latency
 * longer than EMULATOR_WEBHOOK_TIMEOUT_SECONDS ends as a real one does. A status to record, or null to
 * go on and POST for real (latency); a refused or reset connection throws as fetch does.
 */
async function standInForReceiver(fault: FaultEffect, bounds: SendBounds, signal: AbortSignal): Promise<number | null> {
  switch (fault.kind) {
    case "latency":
      await faultDelay(fault.ms, signal);
      return null;
    case "timeout":
      // Never answers: the deadline's abort ends the wait, and the catch reports it as a timeout.
      await faultDelay(bounds.timeoutMs * 2, signal);
      throw new Error("the receiver never answered");
    case "http_status":
      if (fault.latency_ms !== undefined) await faultDelay(fault.latency_ms, signal);
      return fault.status;
    case "refuse":
      throw new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } });
    case "reset":
      throw new TypeError("fetch failed", { cause: { code: "ECONNRESET" } });
    default:
      return null;
  }
}

/** Reads at most `maxBytes` of the answer (its content is not used), then lets the connection go. */
async function drain(response: Response, maxBytes: number): Promise<void> {
  if (!response.body) return;
  const reader = response.body.getReader();
  let seen = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      seen += value.byteLength;
      if (seen > maxBytes) {
        await reader.cancel();
        return;
      }
    }
  } catch {
    // An answer cut short still gave its status, which is what decides the attempt.
  }
}

function describe(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code) return cause.code;
  return error instanceof Error ? error.message : String(error);
}
