// At start-up, stored environments and the engine's containers are brought back into agreement:
// a restart loses no environment whose container still runs, and no container outlives its record.
// Only what the engine positively answered counts: when it could not list the containers none is
// removed, and an environment whose container it could not look up is left as it is (checked again
// when it is next used), so an engine that hiccups at start-up destroys nothing.

import type { SandboxHandle, SandboxRuntime } from "../sandbox/runtime.js";
import type { EnvironmentStore } from "./environment-store.js";
import { nowTimestamp } from "../common/timestamps.js";

export async function reconcileSandboxes(
  store: EnvironmentStore,
  runtime: SandboxRuntime,
  progress: (line: string) => void,
): Promise<void> {
  const live = store.listLive();
  const liveIds = new Set(live.map((record) => record.id));
  // Records name their containers too: a container is never removed while a live record names it.
  const liveSandboxIds = new Set(live.flatMap((record) => (record.sandboxId ? [record.sandboxId] : [])));
  let containers: SandboxHandle[] | null = null;
  try {
    containers = await runtime.list();
  } catch (error) {
    progress(`sandboxes: could not list them (${(error as Error).message}); no container is removed this time`);
  }
  let removed = 0;
  for (const handle of containers ?? []) {
    // A container without a stored environment was left by a request that failed half-way; a warm pool
    // container nobody took (labelled for an environment that was never stored) is cleared too, and the
    // pool starts new ones: one that a crash caught mid-take may hold a request's sources.
    if (!liveIds.has(handle.environmentId) && !liveSandboxIds.has(handle.sandboxId)) {
      await runtime.remove(handle).catch(() => undefined);
      removed += 1;
    }
  }
  let expired = 0;
  let unchecked = 0;
  for (const record of live) {
    const handle = { sandboxId: record.sandboxId ?? "", environmentId: record.id };
    let exists: boolean;
    try {
      exists = record.sandboxId !== null && (await runtime.ensureRunning(handle));
    } catch {
      unchecked += 1;
      continue;
    }
    if (!exists) {
      if (record.sandboxId) await runtime.remove(handle).catch(() => undefined);
      store.update(record.id, { status: "expired", updated: nowTimestamp() });
      expired += 1;
    }
  }
  const kept = live.length - expired - unchecked;
  if ((containers?.length ?? 0) > 0 || live.length > 0) {
    const notChecked = unchecked > 0 ? `, ${unchecked} not checked (the engine did not answer; kept)` : "";
    progress(`sandboxes: ${kept} environment(s) found again, ${expired} expired${notChecked}, ${removed} orphaned container(s) removed`);
  }
}
