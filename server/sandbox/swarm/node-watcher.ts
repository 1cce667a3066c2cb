// Watches the swarm's nodes for the swarm runtime (docs/scale-out.md#losing-a-machine): one `node ls`
// on the manager every pollMs (never two at once, each bounded by the engine timeout); a node that
// leaves `ready` (down, disconnected, unknown) is reported once, until it is ready again. A node already
// down at the first look is reported too: whatever the emulator placed there is as lost.

import type Docker from "dockerode";
import { withEngineTimeout } from "../docker/engine-errors.js";

/** The fields of a node (GET /nodes) read here. */
interface SwarmNodeInfo {
  ID?: string;
  Description?: { Hostname?: string };
  Status?: { State?: string };
}

export interface DownNode {
  id: string;
  /** Its hostname, or its ID when the manager does not know it. */
  name: string;
  /** What the manager says of it: down, disconnected, unknown. */
  state: string;
}

export interface NodeWatcherOptions {
  docker: Docker;
  pollMs: number;
  engineTimeoutMs: number;
  onDown(node: DownNode): void | Promise<void>;
  /** A look that failed (the manager did not answer): nothing is concluded from it. */
  onError(error: unknown): void;
}

export class NodeWatcher {
  private readonly down = new Set<string>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly options: NodeWatcherOptions) {}

  start(): void {
    if (this.timer || this.stopped) return;
    this.schedule(0);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.look()
        .catch((error) => this.options.onError(error))
        .finally(() => this.schedule(this.options.pollMs));
    }, delayMs);
    this.timer.unref();
  }

  /** One look at the nodes. */
  private async look(): Promise<void> {
    const nodes = (await withEngineTimeout(
      this.options.docker.listNodes(),
      this.options.engineTimeoutMs,
      "listing the swarm's nodes",
    )) as SwarmNodeInfo[];
    for (const node of nodes) {
      const id = node.ID;
      if (!id) continue;
      const state = node.Status?.State ?? "unknown";
      if (state === "ready") {
        this.down.delete(id);
        continue;
      }
      if (this.down.has(id)) continue;
      this.down.add(id);
      try {
        await this.options.onDown({ id, name: node.Description?.Hostname || id, state });
      } catch (error) {
        // Reported again at the next look, so that what could not be done now is retried.
        this.down.delete(id);
        throw error;
      }
    }
  }
}
