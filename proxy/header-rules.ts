// Which request headers concern the hop rather than the message, and so which ones a policy may never
// inject. One definition for the proxy (what it strips before forwarding, what a policy may set) and the
// server (which refuses a credential's header_name or a transform naming one at the API's edge, with
// the reason, instead of letting the proxy refuse the whole policy later).

/** Hop-by-hop headers (RFC 9110 §7.6.1): they concern one connection, and the proxy removes them before forwarding. */
export const HOP_BY_HOP_HEADERS: ReadonlySet<string> = new Set(["connection", "keep-alive", "te", "trailer", "upgrade"]);

/** Headers that frame or route the message: the proxy sets them from the request itself. */
export const FRAMING_HEADERS: ReadonlySet<string> = new Set(["host", "content-length", "transfer-encoding"]);

/** "100-continue" is answered to the sandbox by the proxy's own server; the header is never forwarded. */
export const ANSWERED_BY_THE_PROXY: ReadonlySet<string> = new Set(["expect"]);

/** Proxy-Authorization, Proxy-Connection, …: they concern the hop to the proxy and never go upstream. */
export function isProxyHeader(lowerCaseName: string): boolean {
  return lowerCaseName.startsWith("proxy-");
}

const HEADER_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Why a policy may not inject a header of this name, in words for an error message ("Host frames or
 * routes …"); null when it may. "__proto__" is a valid token, but no plain JavaScript object carries it
 * as a key (assigning it sets the prototype), so a policy naming it would lose the header silently.
 */
export function whyNotInjectable(name: string): string | null {
  if (!HEADER_TOKEN.test(name)) return "is not a valid HTTP header name (letters, digits and !#$%&'*+.^_`|~- only)";
  const lower = name.toLowerCase();
  if (FRAMING_HEADERS.has(lower)) {
    return "frames or routes the request (the proxy sets it from the request itself): injecting it would change where the request goes or how its body is delimited";
  }
  if (HOP_BY_HOP_HEADERS.has(lower))
    return "is a hop-by-hop header: it concerns one connection, and the proxy removes it before forwarding";
  if (ANSWERED_BY_THE_PROXY.has(lower)) return "is answered by the proxy itself and never forwarded";
  if (isProxyHeader(lower)) return "is a proxy header: it concerns the hop to the proxy and is never forwarded upstream";
  if (name === "__proto__") return "cannot be the key of a header map";
  return null;
}
