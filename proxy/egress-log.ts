// One record per egress attempt, handed to the `onEgress` callback (the server stores them with the
// environment; the standalone process prints them as JSON lines). Header NAMES only, never values:
// the values are the secrets the proxy exists to keep out of sandboxes, and out of logs.

import type { EgressFaultMark } from "./egress-fault.js";
import type { SubstitutionMade } from "./substitution.js";

export type EgressEntry = {
  /** ISO-8601 time the attempt started. */
  time: string;
  environment_id: string;
  /** The HTTP method; "CONNECT" for the tunnel itself, the inner method for intercepted requests. */
  method: string;
  /** The requested host (normalized), not a mapped or resolved one. */
  host: string;
  port: number;
  decision: "allowed" | "refused";
  /** Why it was refused or failed (the x-proxy-error value); null when it went through. */
  reason: string | null;
  /** The allowlist domain that matched, "open", or null when nothing matched. */
  rule: string | null;
  /** The status the sandbox saw; null when it went away before any response. */
  status: number | null;
  /** Body bytes sent upstream (raw tunnel bytes for CONNECT). */
  bytes_up: number;
  /** Body bytes received from upstream (raw tunnel bytes for CONNECT). */
  bytes_down: number;
  /** Whether TLS was terminated by the proxy (headers injected into HTTPS). */
  intercepted: boolean;
  injected_header_names: string[];
  /** The address actually dialled, or null when none was. */
  address: string | null;
  duration_ms: number;
  /** The fault rule that stood in for the upstream of this attempt (docs/faults.md#egress); null for a real one. */
  injected_fault: EgressFaultMark | null;
  /** Credential placeholders replaced in this request: the variable and where (never the value). */
  substituted: SubstitutionMade[];
  /** Why a body that may hold a placeholder went unchanged (too large, content-encoded); null otherwise. */
  substitution_note: string | null;
};

export type EgressListener = (entry: EgressEntry) => void;

/** Calls the listener without letting its failure break a connection. */
export function safeEmitter(listener: EgressListener | undefined, onListenerError: (error: unknown) => void): EgressListener {
  return (entry) => {
    if (!listener) return;
    try {
      listener(entry);
    } catch (error) {
      onListenerError(error);
    }
  };
}

/** Fills the fields common to every entry of one attempt. */
export class AttemptClock {
  readonly startedAt = Date.now();
  readonly time = new Date(this.startedAt).toISOString();

  elapsed(): number {
    return Date.now() - this.startedAt;
  }
}

/** Who made an attempt and where to: the fields every entry of it repeats. */
export type Attempt = { environmentId: string; method: string; host: string; port: number };

/** One entry of an attempt: the defaults are those of an allowed attempt that moved no bytes yet. */
export function attemptEntry(clock: AttemptClock, attempt: Attempt, fields: Partial<EgressEntry>): EgressEntry {
  return {
    time: clock.time,
    environment_id: attempt.environmentId,
    method: attempt.method,
    host: attempt.host,
    port: attempt.port,
    decision: "allowed",
    reason: null,
    rule: null,
    status: null,
    bytes_up: 0,
    bytes_down: 0,
    intercepted: false,
    injected_header_names: [],
    address: null,
    duration_ms: clock.elapsed(),
    injected_fault: null,
    substituted: [],
    substitution_note: null,
    ...fields,
  };
}
