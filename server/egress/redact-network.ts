// `environment.network` as it may be shown back: `transform` header values are credentials (the
// documentation tells users to keep them out of everything the agent can see), so only their names are.

import type { NetworkInput } from "./network-config.js";

export const REDACTED = "[redacted]";

export function redactNetwork(network: NetworkInput): unknown {
  if (typeof network === "string" || !Array.isArray(network.allowlist)) return network;
  const redact = (headers: Record<string, string>) => Object.fromEntries(Object.keys(headers).map((name) => [name, REDACTED]));
  return {
    ...network,
    allowlist: network.allowlist.map((entry) =>
      entry.transform === undefined
        ? entry
        : { ...entry, transform: Array.isArray(entry.transform) ? entry.transform.map(redact) : redact(entry.transform) },
    ),
  };
}
