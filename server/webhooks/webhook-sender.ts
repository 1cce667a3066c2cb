// One POST of a delivery, bounded: a deadline for the whole exchange (connect, headers and body), a
// cap on the answer's bytes that are read (the rest is dropped with the connection), and no redirects
// (a 3xx is a failed attempt, as Standard Webhooks senders treat it, and no redirect can lead a
// delivery to a host it may not reach).

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
): Promise<SendOutcome> {
  const started = performance.now();
  const signal = AbortSignal.any([stop, AbortSignal.timeout(bounds.timeoutMs)]);
  const latency = () => Math.round(performance.now() - started);
  try {
    const response = await fetch(uri, { method: "POST", headers, body, redirect: "manual", signal });
    await drain(response, bounds.maxResponseBytes);
    const ok = response.status >= 200 && response.status < 300;
    return {
      ok,
      responseCode: response.status,
      latencyMs: latency(),
      ...(ok ? {} : { error: `the receiver answered ${response.status}; any 2xx counts as delivered` }),
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
