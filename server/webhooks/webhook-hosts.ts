// Where deliveries may go. They leave from the emulator itself (never from a sandbox), so a webhook's
// URI is a request the emulator's host makes for whoever holds an API key. Loopback receivers are the
// normal case: allowed on the ports EMULATOR_WEBHOOK_LOOPBACK_PORTS names, by default every port when
// the API itself listens on loopback only (whoever can call it can reach those ports anyway) and none
// when it listens on other addresses too (a caller from elsewhere would otherwise POST to, and map, the
// ports of the emulator's host that only the host reaches). Other hosts only when EMULATOR_WEBHOOK_HOSTS
// names them (the same entry forms as EMULATOR_MCP_HOSTS: "host", "host:port", "[v6]:port", or "*").

import dns from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import { hostAllowed } from "../common/host-allowlist.js";

/** Loopback ports deliveries may go to: any, or these inclusive ranges (none when empty). */
export type LoopbackPorts = "any" | readonly (readonly [number, number])[];

export interface DeliveryReach {
  /** Hosts besides loopback (EMULATOR_WEBHOOK_HOSTS). */
  allowedHosts: readonly string[];
  /** EMULATOR_WEBHOOK_LOOPBACK_PORTS, resolved (loopbackPortsFor). */
  loopbackPorts: LoopbackPorts;
}

const LOOPBACK_NAMES = new Set(["localhost", "[::1]", "0.0.0.0", "[::]"]);

/** Loopback as a URL's host is written (the URL parser has already normalized 127.1 and the like). */
function isLoopback(written: string): boolean {
  const hostname = written.endsWith(".") ? written.slice(0, -1) : written;
  return (
    LOOPBACK_NAMES.has(hostname) ||
    hostname.endsWith(".localhost") ||
    /^127(\.\d{1,3}){3}$/.test(hostname) ||
    /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(hostname)
  );
}

/** Whether the API's own address (HOST) is a loopback one. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.trim().toLowerCase();
  return isLoopback(bare.startsWith("[") ? bare : bare.includes(":") ? `[${bare}]` : bare) && bare !== "0.0.0.0" && bare !== "::";
}

/**
 * EMULATOR_WEBHOOK_LOOPBACK_PORTS as written ("auto", "any", "none", or ports and ranges like
 * "9000,9100-9199") resolved for an API listening on `host`; throws on anything else.
 */
export function loopbackPortsFor(setting: string, host: string): LoopbackPorts {
  const value = setting.trim().toLowerCase();
  if (value === "auto") return isLoopbackHost(host) ? "any" : [];
  if (value === "any") return "any";
  if (value === "none" || value === "") return [];
  return value.split(",").map((entry) => {
    const match = /^(\d{1,5})(?:-(\d{1,5}))?$/.exec(entry.trim());
    const low = Number(match?.[1]);
    const high = Number(match?.[2] ?? match?.[1]);
    if (!match || low < 1 || high > 65535 || low > high) {
      throw new RangeError(`"${entry.trim()}" is not a port (1-65535) or a range of ports like 9100-9199`);
    }
    return [low, high] as const;
  });
}

/** An address a name resolved to that is the emulator's own host. */
function isLoopbackAddress(address: string): boolean {
  return isLoopback(isIP(address) === 6 ? `[${address.toLowerCase()}]` : address);
}

function portAllowed(ports: LoopbackPorts, port: number): boolean {
  return ports === "any" || ports.some(([low, high]) => port >= low && port <= high);
}

/**
 * For a delivery to a name (not an address) on `port`: a DNS look-up that fails when the name
 * resolves to a loopback address on a port EMULATOR_WEBHOOK_LOOPBACK_PORTS does not allow, so a name
 * allowed by EMULATOR_WEBHOOK_HOSTS (or "*") cannot lead to the host's own ports. Undefined when any
 * loopback port is allowed.
 */
export function loopbackGuard(ports: LoopbackPorts, port: number): LookupFunction | undefined {
  if (portAllowed(ports, port)) return undefined;
  const guard = (hostname: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error);
      const loopback = addresses.find((entry) => isLoopbackAddress(entry.address));
      if (loopback) {
        return callback(
          new Error(
            `${hostname} resolves to ${loopback.address}, a loopback address, and port ${port} is not in EMULATOR_WEBHOOK_LOOPBACK_PORTS`,
          ),
        );
      }
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0]?.address, addresses[0]?.family);
    });
  };
  return guard as unknown as LookupFunction;
}

export function portOf(url: URL): number {
  if (url.port !== "") return Number(url.port);
  return url.protocol === "https:" ? 443 : 80;
}

function describePorts(ports: readonly (readonly [number, number])[]): string {
  return `ports ${ports.map(([low, high]) => (low === high ? String(low) : `${low}-${high}`)).join(", ")}`;
}

/** Null when the emulator may POST to `uri`; else the sentence that says why not and what to change. */
export function whyNotDeliverable(uri: string, reach: DeliveryReach): string | null {
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
  const { allowedHosts, loopbackPorts } = reach;
  if (isLoopback(url.hostname.toLowerCase())) {
    const port = portOf(url);
    if (loopbackPorts === "any" || portAllowed(loopbackPorts, port)) return null;
    // [choice] Checked before EMULATOR_WEBHOOK_HOSTS: "*" there does not open the host's loopback ports.
    if (loopbackPorts.length === 0) {
      return `this emulator delivers no webhooks to loopback ports of its host (EMULATOR_WEBHOOK_LOOPBACK_PORTS: none, the default when HOST is not a loopback address), so not to port ${port}; ask the emulator's operator to list the receiver's port`;
    }
    return `this emulator delivers webhooks to loopback on ${describePorts(loopbackPorts)} only (EMULATOR_WEBHOOK_LOOPBACK_PORTS), not to port ${port}; run the receiver on one of them or ask the emulator's operator to add its port`;
  }
  if (hostAllowed(url, allowedHosts)) return null;
  const loopback = loopbackPorts === "any" || loopbackPorts.length > 0 ? "loopback addresses (127.0.0.1, localhost, [::1])" : "";
  const others = allowedHosts.length > 0 ? allowedHosts.join(", ") : "";
  const where = [loopback, others].filter((part) => part !== "").join(" and ") || "no host";
  return `this emulator delivers webhooks to ${where} only (EMULATOR_WEBHOOK_HOSTS), not to ${url.host}; run the receiver on loopback or ask the emulator's operator to add the host`;
}
