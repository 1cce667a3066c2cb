// The Environment resource (docs/wire-protocol.md#environment-and-file-resources). Counts are int64
// strings; sources are shown without content, and the network setting with its injected header values
// redacted. Variables (env) are not part of the resource and are never shown.

import { redactNetwork } from "../egress/redact-network.js";
import type { EnvironmentRecord } from "./environment-store.js";

export interface EnvironmentResource {
  id: string;
  status: "active" | "expired";
  created: string;
  updated: string;
  last_accessed: string;
  file_count: string;
  size_bytes: string;
  sources: Array<{ type: string; target: string; source?: string; encoding?: string }>;
  network?: unknown;
  /** Emulator-only: "lost" when the machine holding its files went down (status then reads "expired"). */
  emulator_status?: "lost";
  emulator_status_reason?: string;
}

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
