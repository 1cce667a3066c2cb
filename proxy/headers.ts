// The request headers sent upstream: hop-by-hop and proxy headers removed (they concern the hop from
// the sandbox to us, and Proxy-Authorization would leak the sandbox's proxy credentials upstream), the
// Host header set from the request target, and the policy's headers injected. An injected header
// replaces every header of the same name the sandbox sent, whatever its case: the sandbox can neither
// read the injected value nor smuggle its own alongside it.

import type { IncomingHttpHeaders } from "node:http";
import { ANSWERED_BY_THE_PROXY, FRAMING_HEADERS, HOP_BY_HOP_HEADERS as HOP_BY_HOP, isProxyHeader } from "./header-rules.js";

// "100-continue" was already answered to the sandbox by Node's server; the body follows regardless.
// Node re-frames the body it forwards; a Connection token may not remove the framing headers.
const NEVER_REMOVED_BY_CONNECTION = FRAMING_HEADERS;

export function connectionTokens(headers: IncomingHttpHeaders): string[] {
  const value = headers.connection;
  if (value === undefined) return [];
  return value
    .split(",")
    .map((token) => token.trim().toLowerCase())
    .filter((token) => token !== "" && !NEVER_REMOVED_BY_CONNECTION.has(token));
}

export function prepareUpstreamHeaders(
  incoming: IncomingHttpHeaders,
  authority: string,
  injected: Record<string, string>,
): { headers: IncomingHttpHeaders; injectedNames: string[] } {
  const removed = new Set([...HOP_BY_HOP, ...ANSWERED_BY_THE_PROXY, ...connectionTokens(incoming)]);
  const headers: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(incoming)) {
    const lower = name.toLowerCase();
    if (value === undefined || removed.has(lower) || isProxyHeader(lower)) continue;
    headers[lower] = value;
  }
  headers.host = authority;
  const injectedNames: string[] = [];
  for (const [name, value] of Object.entries(injected)) {
    headers[name.toLowerCase()] = value;
    injectedNames.push(name);
  }
  return { headers, injectedNames };
}

/**
 * The upstream response's hop-by-hop headers concern the proxy's upstream connection, not the
 * sandbox's: an upstream `Connection: close` (always sent, since each upstream connection serves one
 * request) must not close the sandbox's keep-alive connection. Connection is restated for the
 * sandbox's own hop.
 */
export function prepareDownstreamHeaders(upstream: IncomingHttpHeaders, keepAlive: boolean): void {
  const removed = [...HOP_BY_HOP, "proxy-connection", "proxy-authenticate", ...connectionTokens(upstream)];
  for (const name of removed) delete upstream[name];
  upstream.connection = keepAlive ? "keep-alive" : "close";
}
