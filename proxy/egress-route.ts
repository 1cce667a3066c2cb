// The decision for one destination, in the order that keeps it safe:
//   1. the environment's policy (disabled, allowlist) on the requested host;
//   2. the operator's host map (a mapped domain dials the mapped target, without the address guard);
//   3. the address guard on a literal, on loopback names, or on every address of ONE lookup.
// The returned route carries the checked addresses: the dial goes to one of them and never triggers a
// second lookup, so a DNS answer that changes between check and use (rebinding) cannot redirect it.

import type net from "node:net";
import { canonicalAddress, isLoopbackName, type AddressGuard } from "./address-guard.js";
import type { Dialer } from "./dialer.js";
import { UpstreamError } from "./dialer.js";
import type { HostMap } from "./host-map.js";
import type { CompiledPolicy, OAuth2Grant, Substitution } from "./policy.js";
import type { Destination } from "./request-target.js";
import type { Resolver } from "./resolver.js";

export type Route = {
  destination: Destination;
  /** The allowlist domain that matched, or "open". */
  rule: string;
  headers: Record<string, string>;
  /** An OAuth2 grant whose access token is injected as `Authorization: Bearer …` (fetched per request, cached). */
  oauth2: OAuth2Grant | null;
  /** Placeholders replaced in the requests to this host. */
  substitutions: Substitution[];
  /** Now on the environment owner's clock, for token expiry. */
  now: () => number;
  /** Addresses to dial, all checked (or operator-mapped), tried in order. */
  addresses: string[];
  dialPort: number;
  mapped: boolean;
};

export type Refusal = { reason: string; detail: string; rule: string | null };

export type RouteResult = { ok: true; route: Route } | { ok: false; refusal: Refusal };

export type RouteDependencies = { hostMap: HostMap; resolver: Resolver; guard: AddressGuard };

async function lookup(resolver: Resolver, host: string): Promise<string[] | Refusal> {
  try {
    const answers = await resolver.lookup(host);
    if (answers.length === 0) return { reason: "dns-failure", detail: `${host} has no address`, rule: null };
    return answers;
  } catch (error) {
    return { reason: "dns-failure", detail: `${host} does not resolve (${(error as Error).message})`, rule: null };
  }
}

export async function routeDestination(
  policy: CompiledPolicy,
  destination: Destination,
  dependencies: RouteDependencies,
): Promise<RouteResult> {
  const decision = policy.decide(destination.host);
  if (!decision.allowed) {
    const detail =
      decision.reason === "egress-disabled"
        ? "network is disabled for this environment"
        : `${destination.host} is not in the environment's allowlist`;
    return { ok: false, refusal: { reason: decision.reason, detail, rule: null } };
  }
  const allowed = (addresses: string[], dialPort: number, mapped: boolean): RouteResult => ({
    ok: true,
    route: {
      destination,
      rule: decision.rule,
      headers: decision.headers,
      oauth2: decision.oauth2,
      substitutions: decision.substitutions,
      now: () => policy.now(),
      addresses,
      dialPort,
      mapped,
    },
  });
  const refused = (reason: string, detail: string): RouteResult => ({ ok: false, refusal: { reason, detail, rule: decision.rule } });

  const mappedTarget = dependencies.hostMap.get(destination.host);
  if (mappedTarget) {
    const literal = canonicalAddress(mappedTarget.host);
    if (literal !== null) return allowed([literal], mappedTarget.port, true);
    const answers = await lookup(dependencies.resolver, mappedTarget.host);
    if (!Array.isArray(answers)) return { ok: false, refusal: { ...answers, rule: decision.rule } };
    return allowed(answers, mappedTarget.port, true);
  }

  if (destination.isAddress) {
    const verdict = dependencies.guard.check(destination.host);
    if (!verdict.allowed) return refused(`blocked-address:${verdict.category}`, `${destination.host} is a ${verdict.category} address`);
    return allowed([destination.host], destination.port, false);
  }
  if (isLoopbackName(destination.host)) return refused("blocked-address:loopback", `${destination.host} names the local machine`);

  const answers = await lookup(dependencies.resolver, destination.host);
  if (!Array.isArray(answers)) return { ok: false, refusal: { ...answers, rule: decision.rule } };
  const addresses: string[] = [];
  for (const answer of answers) {
    const address = canonicalAddress(answer);
    const verdict = address === null ? { allowed: false as const, category: "reserved" as const } : dependencies.guard.check(address);
    // One refused address refuses the name: a mixed answer is how rebinding attacks hedge their bets.
    if (!verdict.allowed)
      return refused(`blocked-address:${verdict.category}`, `${destination.host} resolves to ${answer}, a ${verdict.category} address`);
    if (address !== null) addresses.push(address);
  }
  return allowed(addresses, destination.port, false);
}

/**
 * Whether requests to this route must be seen in the clear: headers to inject, a token to fetch and
 * inject, or placeholders to replace. Otherwise a CONNECT is a byte tunnel.
 */
export function needsInterception(route: Route): boolean {
  return Object.keys(route.headers).length > 0 || route.oauth2 !== null || route.substitutions.length > 0;
}

/** Connects to the first address of the route that answers. */
export async function dialRoute(route: Route, dialer: Dialer): Promise<{ socket: net.Socket; address: string }> {
  let lastError: unknown = new UpstreamError("upstream-connect-failed", "no address to dial");
  for (const address of route.addresses) {
    try {
      return { socket: await dialer.connect(address, route.dialPort), address };
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}
