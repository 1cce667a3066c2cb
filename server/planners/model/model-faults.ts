// Faults at the model (docs/faults.md#the-model): a rule stands in for the model's server for one turn.
// The effect is played on the turn's own deadline (EMULATOR_MODEL_TIMEOUT_SECONDS) and signal, and the
// failure is the backend's own for that failure of its server (ModelBackend.injectedFailure), so the
// interaction's error reads as a real one's; the planner adds the mark and records the turn.
//   error       → the server's error answer (500) with that message
//   http_status → the server's answer with that status (429 rate limit, 5xx server, 4xx refused…)
//   timeout     → held for the model timeout, then the backend's timeout
//   latency     → held, then the real turn (a latency past the timeout is that timeout)

import { faultDelay } from "../../faults/fault-delay.js";
import type { FaultEffect } from "../../faults/fault-rules.js";
import {
  type InjectedModelFailure,
  type ModelAnswer,
  type ModelBackend,
  ModelBackendError,
  type ModelFailureKind,
  type ModelRequest,
  type ModelStreamSink,
} from "./model-backend.js";

/** The backends' own default, for a backend that does not say (a replaying cassette). */
const DEFAULT_TIMEOUT_MS = 120_000;

export async function turnWithFault(
  backend: ModelBackend,
  effect: FaultEffect,
  request: ModelRequest,
  sink: ModelStreamSink,
  signal: AbortSignal,
): Promise<ModelAnswer> {
  const timeoutMs = backend.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const fail = (failure: InjectedModelFailure) => backend.injectedFailure?.(failure, request.model) ?? genericFailure(backend, failure);
  const hold = async (ms: number) => {
    await faultDelay(Math.min(ms, timeoutMs), signal);
    if (ms >= timeoutMs) throw fail({ kind: "timeout" });
  };
  switch (effect.kind) {
    case "latency":
      await hold(effect.ms);
      return backend.turn(request, sink, signal);
    case "timeout":
      await hold(timeoutMs);
      throw fail({ kind: "timeout" });
    case "http_status":
      if (effect.latency_ms !== undefined) await hold(effect.latency_ms);
      throw fail({ kind: "status", status: effect.status, message: `injected HTTP ${effect.status}` });
    case "error":
      throw fail({ kind: "status", status: 500, message: effect.message });
    default:
      return backend.turn(request, sink, signal);
  }
}

function genericFailure(backend: ModelBackend, failure: InjectedModelFailure): ModelBackendError {
  if (failure.kind === "timeout") {
    return new ModelBackendError(
      "timeout",
      `${backend.name} backend: no complete answer within the model timeout (EMULATOR_MODEL_TIMEOUT_SECONDS)`,
    );
  }
  const { status } = failure;
  const kind: ModelFailureKind =
    status === 401 || status === 403 ? "auth" : status === 429 ? "rate_limit" : status >= 500 ? "server" : "refused";
  return new ModelBackendError(kind, `${backend.name} backend: the model's server answered ${status}: ${failure.message}`);
}
