// One POST of a delivery, bounded: a deadline for the whole exchange (connect, headers and body), a
// cap on the answer's bytes that are read (the rest is dropped with the connection), and no redirects
// (a 3xx is a failed attempt, as Standard Webhooks senders treat it, and no redirect can lead a
// delivery to a host it may not reach).
//
// The deadline is a timer held here and cleared when the attempt ends: not AbortSignal.timeout()
// inside AbortSignal.any(), whose timer Node 20 lets go once the garbage collector runs, after which
// a receiver that never answers held an attempt for undici's 300 s and one that trickled its body
// held it for ever. Each attempt has a connection of its own (no keep-alive pool), closed when the
// attempt ends, so open sockets never outnumber the attempts in flight (webhook-deliveries.ts bounds those).

import http from "node:http";
import https from "node:https";
import type { LookupFunction } from "node:net";
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
  /** The DNS look-up of the receiver's name (webhook-hosts.ts loopbackGuard); Node's own when absent. */
  lookup?: LookupFunction,
): Promise<SendOutcome> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  const attempt = new AbortController();
  let timedOut = false;
  const deadline = setTimeout(() => {
    timedOut = true;
    attempt.abort(new Error(`no answer within ${bounds.timeoutMs} ms`));
  }, bounds.timeoutMs);
  const onStop = () => attempt.abort(stop.reason);
  if (stop.aborted) onStop();
  else stop.addEventListener("abort", onStop, { once: true });
  const signal = attempt.signal;
  try {
    const injectedStatus = fault === null ? null : await standInForReceiver(fault, bounds, signal);
    const status = injectedStatus ?? (await post(uri, headers, body, bounds, signal, lookup));
    const ok = status >= 200 && status < 300;
    return {
      ok,
      responseCode: status,
      latencyMs: latency(),
      ...(ok ? {} : { error: `the receiver answered ${status}; any 2xx counts as delivered` }),
    };
  } catch (error) {
    return {
      ok: false,
      responseCode: null,
      latencyMs: latency(),
      error:
        timedOut && !stop.aborted
          ? `no answer within ${bounds.timeoutMs} ms (EMULATOR_WEBHOOK_TIMEOUT_SECONDS)`
          : `could not reach the receiver: ${describe(error)}`,
    };
  } finally {
    clearTimeout(deadline);
    stop.removeEventListener("abort", onStop);
    // Whatever is still open of this attempt (a connection, an answer being read) goes now.
    attempt.abort(new Error("the attempt is over"));
  }
}

/**
 * The POST on a connection of its own; resolves with the status once the answer's body has ended (or
 * `maxResponseBytes` of it were read, the rest dropped with the connection). The signal's abort (the
 * deadline, the shutdown) destroys the connection at any stage, and rejects.
 */
function post(
  uri: string,
  headers: Record<string, string>,
  body: string,
  bounds: SendBounds,
  signal: AbortSignal,
  lookup: LookupFunction | undefined,
): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const url = new URL(uri);
    const payload = Buffer.from(body, "utf8");
    const client = url.protocol === "https:" ? https : http;
    const request = client.request(
      url,
      {
        method: "POST",
        headers: { ...headers, "content-length": String(payload.length) },
        agent: false,
        signal,
        ...(lookup ? { lookup } : {}),
      },
      (response) => {
        const status = response.statusCode ?? 0;
        let seen = 0;
        response.on("data", (chunk: Buffer) => {
          seen += chunk.length;
          if (seen > bounds.maxResponseBytes) {
            resolve(status);
            request.destroy();
          }
        });
        response.on("end", () => resolve(status));
        // Closed before its end: by the deadline (a failed attempt), or by the receiver after its
        // status, which is what decides the attempt.
        response.on("close", () => (signal.aborted ? reject(signal.reason) : resolve(status)));
        response.on("error", () => undefined);
      },
    );
    request.on("error", reject);
    request.end(payload);
  });
}

/**
 * What a failing receiver does, waited for on the attempt's own deadline, so a timeout or a latency
 * longer than EMULATOR_WEBHOOK_TIMEOUT_SECONDS ends as a real one does. A status to record, or null to
 * go on and POST for real (latency); a refused or reset connection throws as a real one does.
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
      throw Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    case "reset":
      throw Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
    default:
      return null;
  }
}

function describe(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && code !== "ABORT_ERR") return code;
  return error instanceof Error ? error.message : String(error);
}
