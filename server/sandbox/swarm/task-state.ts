// What the manager says of a sandbox service's one task: whether it runs, is still on its way, or is
// gone for good (RestartPolicy none: a task that ended is never replaced), and its address on the overlay.

/** The fields of a task (GET /tasks) read here. */
export interface SwarmTask {
  ID?: string;
  NodeID?: string;
  ServiceID?: string;
  CreatedAt?: string;
  DesiredState?: string;
  Status?: { State?: string; Err?: string; Message?: string };
  NetworksAttachments?: Array<{ Network?: { ID?: string; Spec?: { Name?: string } }; Addresses?: string[] }>;
}

export type TaskState =
  | { kind: "running"; address: string | null; nodeId: string }
  | { kind: "starting"; state: string }
  | { kind: "gone"; why: string; noTask?: true };

/** States a task passes before it runs. */
const ON_ITS_WAY = new Set(["new", "allocated", "pending", "assigned", "accepted", "preparing", "ready", "starting"]);

/**
 * The service's task as one state: its newest task (a service of one replica with no restarts has one),
 * or gone when it has none. `network` is the overlay's name or ID, whose address is the channel's.
 */
export function taskState(tasks: readonly SwarmTask[], network: string): TaskState {
  const newest = [...tasks].sort((a, b) => String(b.CreatedAt ?? "").localeCompare(String(a.CreatedAt ?? "")))[0];
  // Gone for a service that ran (its one task removed); a new service has none for a moment (waitForTask).
  if (!newest) return { kind: "gone", why: "the service has no task", noTask: true };
  const state = newest.Status?.State ?? "unknown";
  if (state === "running" && newest.DesiredState !== "shutdown") {
    return { kind: "running", address: overlayAddress(newest, network), nodeId: newest.NodeID ?? "" };
  }
  if (ON_ITS_WAY.has(state) && newest.DesiredState !== "shutdown") return { kind: "starting", state };
  const detail = newest.Status?.Err || newest.Status?.Message || "";
  return { kind: "gone", why: `its task is ${state}${detail ? ` (${detail})` : ""}` };
}

/** The task's address on the overlay, without its prefix length; null when it has none there (yet). */
function overlayAddress(task: SwarmTask, network: string): string | null {
  for (const attachment of task.NetworksAttachments ?? []) {
    if (attachment.Network?.Spec?.Name !== network && attachment.Network?.ID !== network) continue;
    const address = attachment.Addresses?.[0];
    if (address) return address.split("/")[0] ?? null;
  }
  return null;
}
