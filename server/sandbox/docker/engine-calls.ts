// What one call to the Docker engine is, read from its method and path as dockerode dials it: how long
// the engine may take to answer it, whether it creates, starts or removes something (those are the
// calls that take libnetwork's and the container's locks, and that Debian's Docker 20.10 deadlocked on
// under churn: docs/security.md#availability-faults-of-docker-are-never-the-users-loss), and words
// for a message that says what was being done.

/**
 * - lookup: answered from the engine's memory (inspect, list, version, an exec's creation and start);
 * - change: creates, starts, stops or removes a container, a volume or an image;
 * - transfer: moves data or waits for a command (archives, commit, wait), as long as the data takes;
 * - build: an image build or pull, as long as the network and the build's steps take.
 */
export type EngineCallKind = "lookup" | "change" | "transfer" | "build";

/** Each kind's deadline, in engine timeouts (EMULATOR_ENGINE_TIMEOUT_SECONDS): 10 s, 30 s, 5 min and 10 min by default. */
const DEADLINE_FACTOR: Readonly<Record<EngineCallKind, number>> = { lookup: 1, change: 3, transfer: 30, build: 60 };
/** A build or pull fetches packages and layers from the network: never given less than this, however short the engine timeout. */
const BUILD_FLOOR_MS = 30 * 60 * 1000;

/** How long a call of `kind` may take, given the engine timeout. */
export function deadlineOf(kind: EngineCallKind, timeoutMs: number): number {
  const deadline = timeoutMs * DEADLINE_FACTOR[kind];
  return kind === "build" ? Math.max(deadline, BUILD_FLOOR_MS) : deadline;
}

export interface EngineCall {
  kind: EngineCallKind;
  /** What the emulator was doing, for messages ("creating a container"). */
  doing: string;
  /** The container the call named (an ID or a name), if any. */
  container?: string;
}

const CONTAINER_ACTIONS: Record<string, [EngineCallKind, string]> = {
  start: ["change", "starting a container"],
  stop: ["change", "stopping a container"],
  kill: ["change", "killing a container"],
  restart: ["change", "restarting a container"],
  pause: ["change", "pausing a container"],
  unpause: ["change", "unpausing a container"],
  rename: ["change", "renaming a container"],
  wait: ["transfer", "waiting for a container's command"],
  archive: ["transfer", "copying files in or out of a container"],
  export: ["transfer", "exporting a container"],
  json: ["lookup", "looking up a container"],
  exec: ["lookup", "starting an exec"],
};

const SWARM_OBJECTS: Record<string, string> = { services: "a service", secrets: "a secret", configs: "a config", networks: "a network" };

/** The call dockerode dials with `method` on `rawPath` (an API version prefix and a query allowed). */
export function engineCall(method: string, rawPath: string): EngineCall {
  const path = (rawPath.split("?")[0] ?? "").replace(/^\/v\d+(\.\d+)?(?=\/)/, "");
  const parts = path.split("/").filter((part) => part.length > 0);
  const [resource, id, action] = parts;
  const verb = method.toUpperCase();
  if (resource === "containers") {
    if (id === "create" && parts.length === 2) return { kind: "change", doing: "creating a container" };
    if (id === "json" && parts.length === 2) return { kind: "lookup", doing: "listing containers" };
    if (id === undefined) return { kind: "lookup", doing: "asking about containers" };
    if (action === undefined) {
      return verb === "DELETE"
        ? { kind: "change", doing: "removing a container", container: decodeURIComponent(id) }
        : { kind: "lookup", doing: "asking about a container", container: decodeURIComponent(id) };
    }
    const [kind, doing] = CONTAINER_ACTIONS[action] ?? ["lookup", `asking a container (${action})`];
    return { kind, doing, container: decodeURIComponent(id) };
  }
  if (resource === "exec") return { kind: "lookup", doing: action === "start" ? "starting an exec" : "asking about an exec" };
  if (resource === "build") return { kind: "build", doing: "building an image" };
  if (resource === "images" && id === "create") return { kind: "build", doing: "pulling an image" };
  if (resource === "commit") return { kind: "transfer", doing: "committing a container to an image" };
  if ((resource === "volumes" || resource === "images") && (verb === "DELETE" || id === "create")) {
    return { kind: "change", doing: `${verb === "DELETE" ? "removing" : "creating"} ${resource === "volumes" ? "a volume" : "an image"}` };
  }
  // The swarm runtime's objects (swarm-runtime.ts): a service per sandbox, its secret, the CA's configs, the overlay.
  const swarmObject = SWARM_OBJECTS[resource ?? ""];
  if (swarmObject && (verb === "DELETE" || id === "create")) {
    return { kind: "change", doing: `${verb === "DELETE" ? "removing" : "creating"} ${swarmObject}` };
  }
  return { kind: "lookup", doing: `asking ${verb} ${path || "/"}` };
}
