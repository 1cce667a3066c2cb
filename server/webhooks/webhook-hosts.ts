// Where deliveries may go. They leave from the emulator itself (never from a sandbox), so a webhook's
// URI is a request the emulator's host makes for whoever holds an API key: loopback receivers are the
// normal case and always allowed; other hosts only when EMULATOR_WEBHOOK_HOSTS names them (the same
// entry forms as EMULATOR_MCP_HOSTS: "host", "host:port", "[v6]:port", or "*" for any).

import { hostAllowed } from "../common/host-allowlist.js";

const LOOPBACK_NAMES = new Set(["localhost", "[::1]"]);

function isLoopback(hostname: string): boolean {
  return LOOPBACK_NAMES.has(hostname) || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/** Null when the emulator may POST to `uri`; else the sentence that says why not and what to change. */
export function whyNotDeliverable(uri: string, allowedHosts: readonly string[]): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `"${uri}" is not a URL; write it in full, like http://127.0.0.1:8080/webhook`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `webhook URIs must start with http:// or https://, not ${url.protocol}//`;
  }
  if (url.username !== "" || url.password !== "") return "a webhook URI may not carry a user name or password";
  if (isLoopback(url.hostname.toLowerCase()) || hostAllowed(url, allowedHosts)) return null;
  return `this emulator delivers webhooks to loopback addresses (127.0.0.1, localhost, [::1])${
    allowedHosts.length > 0 ? ` and ${allowedHosts.join(", ")}` : ""
  } only (EMULATOR_WEBHOOK_HOSTS), not to ${url.host}; run the receiver on loopback or ask the emulator's operator to add the host`;
}
