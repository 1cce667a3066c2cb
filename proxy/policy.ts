// The egress policy of one environment, as the server sends it in the preamble, and the decision it
// makes for a destination host. The server has already resolved `transform` objects or lists and
// `credential` references into plain `headers`, so the proxy never sees the wire format.

import { z } from "zod";
import { parseHost } from "./address-guard.js";
import { whyNotInjectable } from "./header-rules.js";

export type AllowlistEntry = { domain: string; headers: Record<string, string> };

export type EgressPolicy = { mode: "open" } | { mode: "disabled" } | { mode: "allowlist"; entries: AllowlistEntry[] };

// CR or LF in a value would split the upstream request (header injection, request smuggling); the
// other control characters are refused by Node's HTTP client. Same set as Node's own check.
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Whether a policy may inject a header of this name (the server can validate `transform` and credentials
 * early): not a framing, hop-by-hop or proxy header, a valid token, not "__proto__" (header-rules.ts).
 */
export function isInjectableHeaderName(name: string): boolean {
  return whyNotInjectable(name) === null;
}

const MAX_HEADER_VALUE_LENGTH = 16384;

/** Whether a policy may inject this header value (no CR, LF, NUL or other control characters). */
export function isInjectableHeaderValue(value: string): boolean {
  return value.length <= MAX_HEADER_VALUE_LENGTH && HEADER_VALUE.test(value);
}

// Checked on the object as written, entry by entry: zod's record skips a "__proto__" key without
// checking it or keeping it, which would drop an injected header silently (header-rules.ts).
const headersSchema = z
  .custom<Record<string, unknown>>((value) => typeof value === "object" && value !== null && !Array.isArray(value), {
    error: "must be an object of header names to strings",
  })
  .superRefine((headers, context) => {
    for (const [name, value] of Object.entries(headers)) {
      const notInjectable = whyNotInjectable(name);
      if (notInjectable !== null) {
        context.addIssue({ code: "custom", path: [name], message: `not an injectable header name: it ${notInjectable}` });
      } else if (typeof value !== "string") {
        context.addIssue({ code: "custom", path: [name], message: "header values must be strings" });
      } else if (!isInjectableHeaderValue(value)) {
        context.addIssue({
          code: "custom",
          path: [name],
          message: `header values may not contain control characters (CR, LF, NUL…) nor exceed ${MAX_HEADER_VALUE_LENGTH} characters`,
        });
      }
    }
  })
  .transform((headers) => Object.fromEntries(Object.entries(headers)) as Record<string, string>);

export const allowlistEntrySchema = z.object({
  domain: z.string().min(1).max(255),
  headers: headersSchema.default({}),
});

export const egressPolicySchema = z.discriminatedUnion("mode", [
  z.object({ mode: z.literal("open") }),
  z.object({ mode: z.literal("disabled") }),
  z.object({ mode: z.literal("allowlist"), entries: z.array(allowlistEntrySchema).max(1000) }),
]);

export type PolicyDecision =
  | { allowed: true; rule: string; headers: Record<string, string> }
  | { allowed: false; reason: "egress-disabled" | "not-allowlisted" };

type CompiledEntry =
  | { kind: "exact"; host: string; domain: string; headers: Record<string, string> }
  | { kind: "suffix"; suffix: string; domain: string; headers: Record<string, string> }
  | { kind: "any"; domain: string; headers: Record<string, string> };

/** An allowlist domain in the same normal form as a request host (lowercase, no trailing dot). */
function normalizeDomain(domain: string): string {
  const parsed = parseHost(domain);
  if (parsed.kind === "address") return parsed.address;
  return domain.trim().toLowerCase().replace(/\.$/, "");
}

function compileEntry(entry: AllowlistEntry): CompiledEntry {
  const domain = entry.domain.trim().toLowerCase().replace(/\.$/, "");
  if (domain === "*") return { kind: "any", domain: entry.domain, headers: entry.headers };
  if (domain.startsWith("*.")) return { kind: "suffix", suffix: domain.slice(1), domain: entry.domain, headers: entry.headers };
  // Any other use of "*" ("api.*.com") is not a pattern this service defines; it only matches itself.
  return { kind: "exact", host: normalizeDomain(domain), domain: entry.domain, headers: entry.headers };
}

function specificity(entry: CompiledEntry): number {
  if (entry.kind === "exact") return Number.MAX_SAFE_INTEGER;
  if (entry.kind === "suffix") return entry.suffix.length;
  return -1;
}

/**
 * A policy ready for per-request decisions. Among the entries matching a host, the most specific wins
 * (exact, then the longest `*.suffix`, then `*`); entries with the very same domain are merged, later
 * header values replacing earlier ones, so splitting one domain over two entries does what it says.
 */
export class CompiledPolicy {
  private readonly entries: CompiledEntry[];

  constructor(readonly policy: EgressPolicy) {
    this.entries = policy.mode === "allowlist" ? policy.entries.map(compileEntry) : [];
  }

  /** `host` is the normalized request host (see parseHost): lowercase name or canonical address. */
  decide(host: string): PolicyDecision {
    if (this.policy.mode === "disabled") return { allowed: false, reason: "egress-disabled" };
    if (this.policy.mode === "open") return { allowed: true, rule: "open", headers: {} };
    let best: CompiledEntry[] = [];
    let bestScore = -Infinity;
    for (const entry of this.entries) {
      if (!matches(entry, host)) continue;
      const score = specificity(entry);
      if (score > bestScore) {
        best = [entry];
        bestScore = score;
      } else if (score === bestScore) {
        best.push(entry);
      }
    }
    const winner = best[0];
    if (winner === undefined) return { allowed: false, reason: "not-allowlisted" };
    return { allowed: true, rule: winner.domain, headers: mergeHeaders(best.map((entry) => entry.headers)) };
  }
}

function matches(entry: CompiledEntry, host: string): boolean {
  switch (entry.kind) {
    case "any":
      return true;
    case "exact":
      return entry.host === host;
    case "suffix":
      return host.endsWith(entry.suffix) && host.length > entry.suffix.length;
  }
}

function mergeHeaders(all: Array<Record<string, string>>): Record<string, string> {
  const merged = new Map<string, [string, string]>();
  for (const headers of all) {
    for (const [name, value] of Object.entries(headers)) merged.set(name.toLowerCase(), [name, value]);
  }
  return Object.fromEntries(merged.values());
}
