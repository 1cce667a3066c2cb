// EMULATOR_EGRESS_HOST_MAP: `domain=host:port` pairs, comma-separated. A mapped domain is dialled at
// the given host and port instead of its own address. This is how an operator (or a test) points a
// public-looking name at a local service, so mapped targets skip the private-address check: that is the
// operator's decision, made outside any sandbox. The allowlist still applies to the domain.

import { parseHost } from "./address-guard.js";

export type HostMapTarget = { host: string; port: number };
export type HostMap = ReadonlyMap<string, HostMapTarget>;

export class HostMapError extends Error {
  override name = "HostMapError";
}

/** `host:port` or `[v6]:port`. */
export function parseHostPort(text: string): HostMapTarget | null {
  const match = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(text.trim());
  if (!match) return null;
  const [, rawHost = "", rawPort = ""] = match;
  const port = Number(rawPort);
  if (!Number.isInteger(port) || port < 1 || port > 65535) return null;
  const host = parseHost(rawHost);
  if (host.kind === "invalid") return null;
  return { host: host.kind === "address" ? host.address : host.name, port };
}

export function parseHostMap(text: string | undefined): HostMap {
  const map = new Map<string, HostMapTarget>();
  if (text === undefined) return map;
  for (const raw of text.split(",")) {
    const pair = raw.trim();
    if (pair === "") continue;
    const equals = pair.indexOf("=");
    if (equals < 0) throw new HostMapError(`"${pair}": expected domain=host:port`);
    const domain = parseHost(pair.slice(0, equals));
    if (domain.kind === "invalid") throw new HostMapError(`"${pair}": "${pair.slice(0, equals)}" is not a domain`);
    const target = parseHostPort(pair.slice(equals + 1));
    if (target === null) throw new HostMapError(`"${pair}": "${pair.slice(equals + 1)}" is not host:port`);
    map.set(domain.kind === "address" ? domain.address : domain.name, target);
  }
  return map;
}
