// `environment.network` as it may be shown back: `transform` header values are credentials (the
// documentation tells users to keep them out of everything the agent can see), so only their names are.

import type { Environment } from "../wire/openapi-types.js";
import type { NetworkInput } from "./network-config.js";

export const REDACTED = "[redacted]";

/**
 * The setting as the document's Environment.network has it (server/wire/openapi-types.ts), or the
 * `{"allowlist": "disabled"}` the emulator also takes (docs/egress-and-credentials.md), which the document lacks.
 */
export type NetworkResource = Environment["network"] | { allowlist: "disabled" };

export function redactNetwork(network: NetworkInput): NetworkResource {
  if (typeof network === "string" || network.allowlist === undefined || network.allowlist === "disabled") {
    return network as NetworkResource;
  }
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
