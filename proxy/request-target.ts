// Where a proxied request goes: the absolute URI of a forwarded request (`GET http://host/path`) or the
// authority of a CONNECT. Never the Host header: a sandbox could send `Host: allowed.example` with a URI
// naming somewhere else (or the reverse), and the proxy must judge and dial the same destination.

import { parseHost } from "./address-guard.js";

export type Scheme = "http" | "https";

export type Destination = {
  /** Normalized host: lowercase name without trailing dot, or canonical IP address. */
  host: string;
  isAddress: boolean;
  port: number;
  /** `host[:port]` as sent upstream in the Host header (IPv6 in brackets, default port omitted). */
  authority: string;
};

export type AbsoluteTarget = Destination & { scheme: Scheme /** origin-form: path and query */; path: string };

export type TargetError = { error: string };

const DEFAULT_PORTS: Record<Scheme, number> = { http: 80, https: 443 };

function parseAuthority(authority: string, defaultPort: number | null): Omit<Destination, "authority"> | TargetError {
  if (authority.includes("@")) return { error: "user information in the authority is not accepted" };
  let rawHost: string;
  let rawPort: string | undefined;
  if (authority.startsWith("[")) {
    const close = authority.indexOf("]");
    if (close < 0) return { error: "unbalanced brackets in the authority" };
    rawHost = authority.slice(0, close + 1);
    const after = authority.slice(close + 1);
    if (after !== "" && !after.startsWith(":")) return { error: "unexpected text after the IPv6 address" };
    rawPort = after === "" ? undefined : after.slice(1);
  } else {
    const parts = authority.split(":");
    if (parts.length > 2) return { error: "an IPv6 address must be in brackets" };
    rawHost = parts[0] ?? "";
    rawPort = parts[1];
  }
  let port: number;
  if (rawPort === undefined || rawPort === "") {
    if (defaultPort === null) return { error: "a port is required" };
    port = defaultPort;
  } else {
    if (!/^\d{1,5}$/.test(rawPort)) return { error: `"${rawPort}" is not a port` };
    port = Number(rawPort);
    if (port < 1 || port > 65535) return { error: `${port} is not a port` };
  }
  const host = parseHost(rawHost);
  if (host.kind === "invalid") return { error: `"${rawHost}" is not a host (${host.why})` };
  return host.kind === "address" ? { host: host.address, isAddress: true, port } : { host: host.name, isAddress: false, port };
}

function hostHeader(host: string, isAddress: boolean, port: number, defaultPort: number): string {
  const shown = isAddress && host.includes(":") ? `[${host}]` : host;
  return port === defaultPort ? shown : `${shown}:${port}`;
}

/** The Host header for a destination reached with `scheme` (the default port is left out). */
export function authorityFor(destination: Destination, scheme: Scheme): string {
  return hostHeader(destination.host, destination.isAddress, destination.port, DEFAULT_PORTS[scheme]);
}

/** `http://host[:port]/path?query` (or https); the fragment, never sent on the wire, is dropped. */
export function parseAbsoluteTarget(url: string): AbsoluteTarget | TargetError {
  const match = /^(https?):\/\/([^/?#]*)([^#]*)/i.exec(url);
  if (!match) return { error: "the proxy needs an absolute http:// or https:// URI (or CONNECT host:port)" };
  const [, rawScheme = "", authority = "", rest = ""] = match;
  const scheme = rawScheme.toLowerCase() as Scheme;
  const parsed = parseAuthority(authority, DEFAULT_PORTS[scheme]);
  if ("error" in parsed) return parsed;
  const path = rest === "" ? "/" : rest.startsWith("/") ? rest : `/${rest}`;
  return { ...parsed, scheme, path, authority: hostHeader(parsed.host, parsed.isAddress, parsed.port, DEFAULT_PORTS[scheme]) };
}

/** `host:port` of a CONNECT; the port is required. */
export function parseConnectTarget(authority: string): Destination | TargetError {
  const parsed = parseAuthority(authority, null);
  if ("error" in parsed) return parsed;
  return { ...parsed, authority: hostHeader(parsed.host, parsed.isAddress, parsed.port, DEFAULT_PORTS.https) };
}
