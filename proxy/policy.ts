// The egress policy of one environment, as the server sends it in the preamble, and the decision it
// makes for a destination host. The server has already resolved `transform` objects or lists and
// `credential` references into plain `headers`, so the proxy never sees the wire format.

import { z } from "zod";
import { parseHost } from "./address-guard.js";
import { whyNotInjectable } from "./header-rules.js";

/** An OAuth2 credential's refresh grant: the proxy gets an access token and injects `Authorization: Bearer …`. */
export type OAuth2Grant = {
  token_url: string;
  client_id: string;
  client_secret: string;
  refresh_token: string;
  scopes?: string[] | undefined;
};

export type AllowlistEntry = { domain: string; headers: Record<string, string>; oauth2?: OAuth2Grant | undefined };

export type InjectionLocation = "header" | "query" | "body";

/**
 * An `environment_variable` credential behind a variable: the sandbox holds `placeholder`, and the proxy
 * puts `value` in its place in the `locations` of requests to `domains` (patterns as in the allowlist;
 * absent: every host the policy allows). Elsewhere the placeholder passes unchanged.
 */
export type Substitution = {
  /** The variable's name, for the egress log (never the value). */
  name: string;
  placeholder: string;
  value: string;
  locations: InjectionLocation[];
  domains?: string[] | undefined;
};

/** What every policy may carry besides its mode. */
export type PolicyExtras = {
  substitutions?: Substitution[] | undefined;
  /** How far the environment owner's clock is ahead of the wall clock (docs/clock.md): OAuth2 token expiry is judged on it. */
  clock_offset_ms?: number | undefined;
};

export type EgressPolicy = ({ mode: "open" } | { mode: "disabled" } | { mode: "allowlist"; entries: AllowlistEntry[] }) & PolicyExtras;

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

const oauth2GrantSchema = z.object({
  token_url: z.string().min(1).max(2048),
  client_id: z.string().min(1).max(4096),
  client_secret: z.string().min(1).max(16384),
  refresh_token: z.string().min(1).max(16384),
  scopes: z.array(z.string().max(1024)).max(100).optional(),
});

export const allowlistEntrySchema = z.object({
  domain: z.string().min(1).max(255),
  headers: headersSchema.default({}),
  oauth2: oauth2GrantSchema.optional(),
});

// A placeholder is random text the server made (letters, digits, "-", "_"): it reads the same in a
// header, a query string and a JSON or form body, so one search finds it in each.
const substitutionSchema = z.object({
  name: z.string().min(1).max(256),
  placeholder: z.string().regex(/^[A-Za-z0-9_-]{16,128}$/),
  value: z.string().max(65536),
  locations: z
    .array(z.enum(["header", "query", "body"]))
    .min(1)
    .max(3),
  domains: z.array(z.string().min(1).max(255)).max(1000).optional(),
});

const extras = {
  substitutions: z.array(substitutionSchema).max(1000).optional(),
  clock_offset_ms: z.number().finite().optional(),
};

export const egressPolicySchema = z.discriminatedUnion("mode", [
  z.object({ mode: z.literal("open"), ...extras }),
  z.object({ mode: z.literal("disabled"), ...extras }),
  z.object({ mode: z.literal("allowlist"), entries: z.array(allowlistEntrySchema).max(1000), ...extras }),
]);

export type PolicyDecision =
  | {
      allowed: true;
      rule: string;
      headers: Record<string, string>;
      /** The matching entry's OAuth2 grant: its token is fetched and injected per request. */
      oauth2: OAuth2Grant | null;
      /** The substitutions this host may receive. */
      substitutions: Substitution[];
    }
  | { allowed: false; reason: "egress-disabled" | "not-allowlisted" };

type Pattern = { kind: "exact"; host: string } | { kind: "suffix"; suffix: string } | { kind: "any" };

type CompiledEntry = Pattern & { domain: string; headers: Record<string, string>; oauth2: OAuth2Grant | null };

/** An allowlist domain in the same normal form as a request host (lowercase, no trailing dot). */
function normalizeDomain(domain: string): string {
  const parsed = parseHost(domain);
  if (parsed.kind === "address") return parsed.address;
  return domain.trim().toLowerCase().replace(/\.$/, "");
}

function compilePattern(pattern: string): Pattern {
  const domain = pattern.trim().toLowerCase().replace(/\.$/, "");
  if (domain === "*") return { kind: "any" };
  if (domain.startsWith("*.")) return { kind: "suffix", suffix: domain.slice(1) };
  // Any other use of "*" ("api.*.com") is not a pattern this service defines; it only matches itself.
  return { kind: "exact", host: normalizeDomain(domain) };
}

function compileEntry(entry: AllowlistEntry): CompiledEntry {
  return { ...compilePattern(entry.domain), domain: entry.domain, headers: entry.headers, oauth2: entry.oauth2 ?? null };
}

type CompiledSubstitution = { substitution: Substitution; domains: Pattern[] | null };

function specificity(entry: Pattern): number {
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
  private readonly substitutions: CompiledSubstitution[];

  constructor(readonly policy: EgressPolicy) {
    this.entries = policy.mode === "allowlist" ? policy.entries.map(compileEntry) : [];
    this.substitutions = (policy.substitutions ?? []).map((substitution) => ({
      substitution,
      domains: substitution.domains === undefined ? null : substitution.domains.map(compilePattern),
    }));
  }

  /** Milliseconds on the environment owner's clock (docs/clock.md). */
  now(): number {
    return Date.now() + (this.policy.clock_offset_ms ?? 0);
  }

  /** The substitutions whose trusted domains include `host` (all of them when they name none). */
  private substitutionsFor(host: string): Substitution[] {
    return this.substitutions
      .filter(({ domains }) => domains === null || domains.some((pattern) => matches(pattern, host)))
      .map(({ substitution }) => substitution);
  }

  /** `host` is the normalized request host (see parseHost): lowercase name or canonical address. */
  decide(host: string): PolicyDecision {
    if (this.policy.mode === "disabled") return { allowed: false, reason: "egress-disabled" };
    if (this.policy.mode === "open")
      return { allowed: true, rule: "open", headers: {}, oauth2: null, substitutions: this.substitutionsFor(host) };
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
    // Entries of the same domain merge: the last one naming an OAuth2 credential sets the grant.
    const oauth2 = best.reduce<OAuth2Grant | null>((grant, entry) => entry.oauth2 ?? grant, null);
    return {
      allowed: true,
      rule: winner.domain,
      headers: mergeHeaders(best.map((entry) => entry.headers)),
      oauth2,
      substitutions: this.substitutionsFor(host),
    };
  }
}

function matches(entry: Pattern, host: string): boolean {
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
