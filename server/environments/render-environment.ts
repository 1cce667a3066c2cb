// The Environment resource (docs/wire-protocol.md#environment-and-file-resources). Counts are int64
// strings; sources are shown without content, and the network setting with its injected header values
// redacted. Variables (env) are not part of the resource and are never shown.

import type { Environment } from "../wire/openapi-types.js";
import { type NetworkResource, redactNetwork } from "../egress/redact-network.js";
import type { EnvironmentRecord } from "./environment-store.js";

/**
 * The Environment as the emulator answers it: the document's (server/wire/openapi-types.ts), plus the
 * emulator's own status fields (docs/fidelity.md), which the document does not have.
 */
export type EnvironmentResource = Omit<Environment, "network"> & {
  network?: NetworkResource;
  /** Emulator-only: "lost" when the machine holding its files went down (status then reads "expired"). */
  emulator_status?: "lost";
  emulator_status_reason?: string;
};

export function renderEnvironment(record: EnvironmentRecord, usage: { files: number; bytes: number }): EnvironmentResource {
  return {
    id: record.id,
    status: record.status === "active" ? "active" : "expired",
    created: record.created,
    updated: record.updated,
    last_accessed: record.lastAccessed,
    file_count: String(usage.files),
    size_bytes: String(usage.bytes),
    sources: record.config.sources.map(({ type, target, source, encoding }) => ({
      type,
      target,
      ...(source !== undefined ? { source } : {}),
      ...(encoding !== undefined ? { encoding } : {}),
    })),
    ...(record.config.network !== undefined ? { network: redactNetwork(record.config.network) } : {}),
    ...(record.status === "lost" ? { emulator_status: "lost" as const, emulator_status_reason: record.config.lostReason ?? "" } : {}),
  };
}
