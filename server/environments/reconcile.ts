// At start-up, stored environments and the engine's containers are brought back into agreement:
// a restart loses no environment whose container still runs, and no container outlives its record.

import type { SandboxRuntime } from "../sandbox/runtime.js";
import type { EnvironmentStore } from "./environment-store.js";
import { nowTimestamp } from "../common/timestamps.js";

export async function reconcileSandboxes(
  store: EnvironmentStore,
  runtime: SandboxRuntime,
  progress: (line: string) => void,
): Promise<void> {
  const containers = await runtime.list();
  const live = store.listLive();
  const liveIds = new Set(live.map((record) => record.id));
  let removed = 0;
  for (const handle of containers) {
    // A container without a stored environment was left by a request that failed half-way.
    if (!liveIds.has(handle.environmentId)) {
      await runtime.remove(handle).catch(() => undefined);
      removed += 1;
    }
  }
  let expired = 0;
  for (const record of live) {
    const handle = { sandboxId: record.sandboxId ?? "", environmentId: record.id };
    if (!record.sandboxId || !(await runtime.ensureRunning(handle))) {
      if (record.sandboxId) await runtime.remove(handle).catch(() => undefined);
      store.update(record.id, { status: "expired", updated: nowTimestamp() });
      expired += 1;
    }
  }
  const kept = live.length - expired;
  if (containers.length > 0 || live.length > 0) {
    progress(`sandboxes: ${kept} environment(s) found again, ${expired} expired, ${removed} orphaned container(s) removed`);
  }
}
