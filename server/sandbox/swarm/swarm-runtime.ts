// The Swarm implementation of the sandbox runtime (EMULATOR_SANDBOX_RUNTIME=swarm; docs/scale-out.md):
// each environment is a Swarm service of one task, placed by the manager on a node labelled for
// sandboxes, on an internal overlay network. The emulator reaches the task's keep-alive over that
// overlay (the channel over TCP, socket-channel.ts's openNetworkChannel), with a secret per sandbox that
// Swarm mounts for root alone and the emulator keeps in its data folder (Swarm never gives one back).
//
// A node watcher (node-watcher.ts) turns a node that leaves `ready` into lost sandboxes: their channels
// fail at once with SandboxLostError naming the node, and onSandboxLost's listeners are told.
//
// First cut: create, connect, remove, list, isAlive/ensureRunning, health, the warm pool (createPooled,
// claimPooled). Files the sandbox user cannot place (forks, snapshots, system files, repository sources)
// go through the channel to the executor's root side (swarm-files.ts).

import { createHash, randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import type Docker from "dockerode";
import { PROTOCOL_VERSION } from "../../../sandbox-image/executor/protocol.js";
import { FailedPreconditionError } from "../../common/errors.js";
import { EMULATOR_CA_PATH, SYSTEM_CA_BUNDLE } from "../egress-settings.js";
import { ExecutorClient } from "../executor-client.js";
import type { RuntimeHealth, SandboxHandle, SandboxRuntime, SandboxSpec } from "../runtime.js";
import { SandboxFilesTooLargeError, SandboxLostError, SandboxUnavailableError } from "../runtime.js";
// The engine's bounds and /health's wait: the manager's engine is gated as the Docker runtime's engine is.
import { EXECUTOR_ARGV, gatedEngine, HEALTH_WAIT_MS, type SandboxSettings } from "../docker/docker-runtime.js";
import { engineUnreachable, isGone, withEngineTimeout } from "../docker/engine-errors.js";
import type { EngineGate } from "../docker/engine-gate.js";
import { ensureSandboxImage } from "../docker/image.js";
import { LABEL_ENVIRONMENT, LABEL_INSTANCE, LABEL_MANAGED, LABEL_OWNER, LABEL_POOLED } from "../docker/labels.js";
import { readImageFile } from "../docker/read-image-file.js";
import { ChannelFolders, type ChannelSocket, openNetworkChannel, openPreambled } from "../docker/socket-channel.js";
import { nodesLackingImage } from "./image-check.js";
import { keepPinging } from "./channel-heartbeat.js";
import { removeLeftovers } from "./leftovers.js";
import { relabelService } from "./service-labels.js";
import {
  exportSandboxFiles,
  foldersOfLabel,
  foldersOfSandbox,
  LABEL_SAVED_FOLDERS,
  placeAsRoot,
  restoreTar,
  rootTars,
  SWARM_FILES_MAX_BYTES,
} from "./swarm-files.js";
import { type DownNode, NodeWatcher } from "./node-watcher.js";
import { type ConfigMount, SANDBOX_NODE_LABEL, sandboxServiceSpec, SWARM_CHANNEL_PORT } from "./service-spec.js";
import { type SwarmTask, type TaskState, taskState } from "./task-state.js";

/** The value of EMULATOR_SANDBOX_RUNTIME that selects this runtime. */
export const SWARM_RUNTIME = "swarm";

export interface SwarmRuntimeOptions extends SandboxSettings {
  /** EMULATOR_SWARM_NETWORK: the internal overlay; prepare() creates it when missing. */
  network: string;
  /** EMULATOR_SWARM_CONSTRAINTS: placement constraints beyond the sandbox node label. */
  constraints?: readonly string[];
  /** EMULATOR_SWARM_TASK_START_SECONDS in ms: how long create() waits for the task to run. */
  taskStartMs: number;
  /** EMULATOR_SWARM_NODE_POLL_SECONDS in ms: how often the nodes are looked at for one that went down. */
  nodePollMs?: number;
  /**
   * EMULATOR_SWARM_NODE_DOWN_SECONDS in ms: how long a call on a channel its peer ended waits for the
   * manager to call the sandbox's node down (the call then fails as lost) before it fails as broken.
   */
  nodeDownWaitMs?: number;
  /** EMULATOR_SWARM_CHANNEL_PING_SECONDS in ms: how often an open channel is pinged (channel-heartbeat.ts). */
  channelPingMs?: number;
  /** EMULATOR_STATE_MAX_BYTES: the most a fork copies (and never more than SWARM_FILES_MAX_BYTES). */
  forkMaxBytes?: number;
  /** EMULATOR_DATA_DIR/channels: where each sandbox's channel secret is kept. */
  channelsFolder: string;
  /**
   * How the channel reaches host:port on the overlay; default a TCP connection (the emulator runs on the
   * overlay, deploy/swarm.yml). Tests outside the overlay pass a relay (test/docker/swarm-runtime.test.ts).
   */
  dial?: (address: { host: string; port: number }) => Promise<ChannelSocket>;
}

/** Between two looks at a task that is on its way. */
const TASK_POLL_MS = 250;
/** How long a channel waits for a running task's keep-alive to listen. */
const CHANNEL_WAIT_MS = 10_000;
/** Removing a secret right after its service: tried this many times, TASK_POLL_MS apart, while Swarm still counts it used. */
const SECRET_REMOVE_ATTEMPTS = 20;
const NODE_POLL_MS = 2000;
const NODE_DOWN_WAIT_MS = 25_000;
const CHANNEL_PING_MS = 5000;

/** What a lost sandbox's calls and environment say. */
export function lostReason(node: DownNode): string {
  return `the machine holding this environment's files, Swarm node ${node.name}, is ${node.state}: the files were on it and are lost with it. Create a new environment`;
}

/** What a new sandbox is filled with through its channel (fill()): the tars root places, the sandbox user's files, saved files. */
interface SandboxContents {
  asRoot: Buffer[];
  userFiles: SandboxSpec["files"];
  restore: Buffer | null;
}

const EMPTY: SandboxContents = { asRoot: [], userFiles: [], restore: null };

export class SwarmRuntime implements SandboxRuntime {
  readonly name = "swarm";
  private readonly docker: Docker;
  private readonly gate: EngineGate;
  private readonly engineTimeoutMs: number;
  private readonly channels: ChannelFolders;
  private image: string | null = null;
  /** The emulator's CA as Swarm configs, mounted in every new sandbox (trustCertificate). */
  private configs: ConfigMount[] = [];
  private readonly watcher: NodeWatcher;
  /** Open channels by sandbox (service ID), with the node their task runs on. */
  private readonly open = new Map<string, { handle: SandboxHandle; nodeId: string; clients: Set<ExecutorClient> }>();
  /** Sandboxes lost with their node, and why; forgotten on remove(). */
  private readonly lost = new Map<string, string>();
  private readonly lostListeners: Array<(handle: SandboxHandle, reason: string) => void> = [];
  /** What is older than this on the swarm was left by an earlier run (leftovers.ts). */
  private readonly startedAt = Date.now();

  constructor(private readonly options: SwarmRuntimeOptions) {
    ({ docker: this.docker, engineTimeoutMs: this.engineTimeoutMs, gate: this.gate } = gatedEngine(options));
    this.channels = new ChannelFolders(`${options.channelsFolder}/${options.instance}`);
    this.watcher = new NodeWatcher({
      docker: this.docker,
      pollMs: options.nodePollMs ?? NODE_POLL_MS,
      engineTimeoutMs: this.engineTimeoutMs,
      onDown: (node) => this.nodeDown(node),
      onError: (error) => process.stderr.write(`[swarm] looking at the nodes failed: ${(error as Error).message}\n`),
    });
  }

  onSandboxLost(listener: (handle: SandboxHandle, reason: string) => void): void {
    this.lostListeners.push(listener);
  }

  /** Stops watching the nodes (the sandboxes keep running). */
  close(): void {
    this.watcher.stop();
  }

  /**
   * A node left `ready`: the channels of sandboxes on it fail now (a dead machine sends no FIN, so
   * waiting on TCP could take minutes), then every sandbox of this instance whose task is there is
   * lost, and the listeners are told.
   */
  private async nodeDown(node: DownNode): Promise<void> {
    const reason = lostReason(node);
    const lose = (handle: SandboxHandle) => {
      if (this.lost.has(handle.sandboxId)) return;
      this.lost.set(handle.sandboxId, reason);
      // The environment is marked first: whoever sees a call fail then finds it lost.
      for (const listener of this.lostListeners) listener(handle, reason);
    };
    for (const open of this.open.values()) {
      if (open.nodeId !== node.id) continue;
      lose(open.handle);
      for (const client of open.clients) client.lose(reason);
    }
    const [tasks, services] = await Promise.all([
      withEngineTimeout(
        this.docker.listTasks({ filters: { node: [node.id] } }),
        this.engineTimeoutMs,
        "listing a lost node's tasks",
      ) as Promise<SwarmTask[]>,
      this.list(),
    ]);
    const onNode = new Set(tasks.map((task) => task.ServiceID));
    for (const handle of services) if (onNode.has(handle.sandboxId)) lose(handle);
  }

  /** The manager's engine, as DockerRuntime reports its engine. */
  async health(): Promise<RuntimeHealth> {
    return this.gate.health(Math.min(HEALTH_WAIT_MS, this.engineTimeoutMs));
  }

  /**
   * The engine must be a Swarm manager; the overlay is made when missing; the image present on the
   * manager (built there if need be) and able to run on every node that takes sandboxes (image-check.ts).
   */
  async prepare(progress: (line: string) => void): Promise<void> {
    const info = (await withEngineTimeout(this.docker.info(), this.engineTimeoutMs, "asking the engine about its swarm")) as {
      Swarm?: { ControlAvailable?: boolean; LocalNodeState?: string };
    };
    if (!info.Swarm?.ControlAvailable) {
      throw new Error(
        `EMULATOR_SANDBOX_RUNTIME=swarm needs a Swarm manager's engine, and this one is ${info.Swarm?.LocalNodeState === "active" ? "a worker" : "not in a swarm"}: point DOCKER_HOST at a manager (docs/scale-out.md)`,
      );
    }
    await this.ensureNetwork(progress);
    const image = await ensureSandboxImage(this.docker, this.options.image, progress);
    const lacking = await nodesLackingImage(this.docker, {
      image,
      constraints: this.options.constraints ?? [],
      labels: this.instanceLabels(),
      timeoutMs: this.options.taskStartMs,
      engineTimeoutMs: this.engineTimeoutMs,
    });
    if (lacking.length > 0)
      throw new Error(
        `the sandbox image ${image} cannot run on every node that takes sandboxes: ${lacking.map(({ node, why }) => `${node} (${why})`).join("; ")}. Load it there (\`docker save ${image} | docker -H <node> load\`), or remove the node's ${SANDBOX_NODE_LABEL} label`,
      );
    this.image = image;
    this.watcher.start();
    progress(`swarm: sandboxes are services of ${image} on ${this.options.network}`);
  }

  private async ensureNetwork(progress: (line: string) => void): Promise<void> {
    const name = this.options.network;
    try {
      const network = (await withEngineTimeout(this.docker.getNetwork(name).inspect(), this.engineTimeoutMs, "looking up the overlay")) as {
        Driver?: string;
        Internal?: boolean;
        Attachable?: boolean;
      };
      if (network.Driver !== "overlay" || !network.Internal || !network.Attachable)
        throw new Error(
          `EMULATOR_SWARM_NETWORK=${name} is a ${network.Driver} network${network.Internal ? "" : " with a route out"}; sandboxes need an internal, attachable overlay: name another, or remove it and let the emulator make it`,
        );
      return;
    } catch (error) {
      if (!isGone(error)) throw error;
    }
    progress(`swarm: creating the internal overlay ${name}`);
    await this.docker.createNetwork({ Name: name, Driver: "overlay", Internal: true, Attachable: true, Labels: this.instanceLabels() });
  }

  /** Every new sandbox trusts `caPem`: the image's bundle with it appended, and the CA alone, as two Swarm configs. */
  async trustCertificate(caPem: string): Promise<void> {
    const image = this.image;
    if (!image) throw new Error("SwarmRuntime.prepare() must run before trustCertificate()");
    const systemBundle = await readImageFile(this.docker, image, SYSTEM_CA_BUNDLE, this.instanceLabels());
    const ca = Buffer.from(caPem.endsWith("\n") ? caPem : `${caPem}\n`);
    const bundle = Buffer.concat([systemBundle, Buffer.from("\n"), ca]);
    this.configs = [await this.config("ca-bundle", bundle, SYSTEM_CA_BUNDLE), await this.config("ca", ca, EMULATOR_CA_PATH)];
    // Called once at start, after the reconcile removed the services no environment owns: what an
    // earlier run left besides them goes now, before this run makes any sandbox (leftovers.ts).
    const swept = await removeLeftovers(this.docker, {
      instance: this.options.instance,
      channels: this.channels,
      keepConfigs: this.configs.map((config) => config.id),
      since: this.startedAt,
      engineTimeoutMs: this.engineTimeoutMs,
    });
    if (swept.secrets + swept.configs + swept.folders > 0)
      process.stdout.write(
        `swarm: removed what an earlier run left: ${swept.secrets} secret(s), ${swept.configs} config(s), ${swept.folders} channel folder(s)\n`,
      );
    for (const failure of swept.failures)
      process.stderr.write(`[swarm] could not remove an earlier run's ${failure}; trying again at the next start\n`);
  }

  /** A config named by its content's hash (configs cannot change), made once and reused. */
  private async config(kind: string, content: Buffer, path: string): Promise<ConfigMount> {
    const name = `iemu-${this.options.instance}-${kind}-${createHash("sha256").update(content).digest("hex").slice(0, 16)}`;
    try {
      const made = (await this.docker.createConfig({ Name: name, Labels: this.instanceLabels(), Data: content.toString("base64") })) as {
        id?: string;
        ID?: string;
      };
      return { id: made.id ?? made.ID ?? "", name, path };
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode !== 409) throw error;
      const existing = (await this.docker.getConfig(name).inspect()) as { ID: string };
      return { id: existing.ID, name, path };
    }
  }

  private instanceLabels(): Record<string, string> {
    return { [LABEL_MANAGED]: "true", [LABEL_INSTANCE]: this.options.instance };
  }

  private labels(spec: Pick<SandboxSpec, "environmentId" | "owner">): Record<string, string> {
    return { ...this.instanceLabels(), [LABEL_ENVIRONMENT]: spec.environmentId, [LABEL_OWNER]: spec.owner, [LABEL_POOLED]: "false" };
  }

  private get guardsDisk(): boolean {
    return this.options.diskMb !== undefined;
  }

  private executorArgv(): string[] {
    return [...EXECUTOR_ARGV.slice(1), ...(this.guardsDisk ? ["--disk-limit-mb", String(this.options.diskMb)] : [])];
  }

  /**
   * The secret (kept in the data folder first: without it the sandbox could never be reached), the
   * service, a bounded wait for its task to run, then spec.files through the channel, as the sandbox
   * user, before anything of the user's has run. On failure nothing is left behind.
   */
  async create(spec: SandboxSpec): Promise<SandboxHandle> {
    return this.createWith(spec, []);
  }

  /**
   * create(), with the folders a fork's source kept files in (foldersOfSandbox). Read before the service
   * is made: a restore too large to move fails with nothing made.
   */
  private async createWith(spec: SandboxSpec, inheritedFolders: readonly string[]): Promise<SandboxHandle> {
    if (!this.image) throw new Error("SwarmRuntime.prepare() must run before create()");
    const trees = spec.readOnlyTrees ?? [];
    const contents: SandboxContents = {
      asRoot: await rootTars(spec.files, trees),
      userFiles: spec.files.filter((file) => !file.system),
      restore: spec.restore ? await restoreTar(spec.restore) : null,
    };
    const labels = { ...this.labels(spec), [LABEL_SAVED_FOLDERS]: JSON.stringify(foldersOfSandbox(spec.files, trees, inheritedFolders)) };
    return this.place(spec.environmentId, labels, contents);
  }

  /** create()'s work once the contents are read: a warm pool service (createPooled) is placed alike, empty. */
  private async place(environmentId: string, labels: Record<string, string>, contents: SandboxContents): Promise<SandboxHandle> {
    if (!this.image) throw new Error("SwarmRuntime.prepare() must run before create()");
    const spec = { environmentId };
    this.channels.create(spec.environmentId);
    const secretValue = this.channels.secretOf(spec.environmentId)!;
    const name = `iemu-${this.options.instance}-${randomBytes(6).toString("hex")}`;
    let secretId: string | null = null;
    let handle: SandboxHandle | null = null;
    try {
      const secret = (await withEngineTimeout(
        this.docker.createSecret({ Name: `${name}-channel`, Labels: labels, Data: Buffer.from(secretValue).toString("base64") }),
        this.engineTimeoutMs,
        "creating a sandbox's channel secret",
      )) as { id?: string; ID?: string };
      secretId = secret.id ?? secret.ID ?? `${name}-channel`;
      const service = await withEngineTimeout(
        this.docker.createService(
          sandboxServiceSpec({
            name,
            image: this.image,
            labels,
            network: this.options.network,
            secret: { id: secretId, name: `${name}-channel` },
            configs: this.configs,
            memoryMb: this.options.memoryMb,
            cpus: this.options.cpus,
            pids: this.options.pids,
            guardsDisk: this.guardsDisk,
            constraints: this.options.constraints ?? [],
          }),
        ),
        this.engineTimeoutMs,
        "creating a sandbox service",
      );
      handle = { sandboxId: service.id, environmentId: spec.environmentId };
      await this.waitForTask(handle);
      await this.fill(handle, contents);
      return handle;
    } catch (error) {
      if (handle) await this.remove(handle).catch(() => undefined);
      else {
        if (secretId)
          await this.docker
            .getSecret(secretId)
            .remove()
            .catch(() => undefined);
        this.channels.remove(spec.environmentId);
      }
      throw error;
    }
  }

  /**
   * What a sandbox starts with, through its channel, before anything of its users has run (no link of
   * theirs to redirect a write): root's trees and system files, the files as the sandbox user, then a
   * snapshot's or a fork's saved files.
   */
  private async fill(handle: SandboxHandle, { asRoot, userFiles, restore }: SandboxContents): Promise<void> {
    if (asRoot.length === 0 && userFiles.length === 0 && !restore) return;
    const channel = await this.connect(handle);
    try {
      await placeAsRoot(channel, asRoot);
      for (const file of userFiles) await channel.writeFile(file.path, file.content, file.mode);
      if (restore) await placeAsRoot(channel, [restore]);
    } finally {
      channel.close();
    }
  }

  /**
   * A warm sandbox for the pool (sandbox-pool.ts): the service create() makes, running, with the
   * emulator's CA and nothing else of anyone's, labelled at once for the environment that will take it
   * (its channel secret is kept under that ID) and as pooled, without an owner: nobody owns it yet.
   */
  async createPooled(environmentId: string): Promise<SandboxHandle> {
    return this.place(environmentId, { ...this.instanceLabels(), [LABEL_ENVIRONMENT]: environmentId, [LABEL_POOLED]: "true" }, EMPTY);
  }

  /**
   * Takes a pooled service for its environment: the sources through the channel as create() writes
   * them (nothing of any user's has run in it), and, at once, the service's own labels set to the
   * environment's owner and not pooled (service-labels.ts: Swarm restarts nothing for that).
   */
  async claimPooled(pooled: SandboxHandle, spec: SandboxSpec): Promise<SandboxHandle> {
    if (spec.environmentId !== pooled.environmentId)
      throw new Error(`pooled sandbox ${pooled.sandboxId} is labelled for ${pooled.environmentId}, not ${spec.environmentId}`);
    if ((spec.readOnlyTrees ?? []).length > 0) throw new Error("a pooled sandbox cannot take read-only trees");
    if (spec.restore) throw new Error("a pooled sandbox cannot restore saved files");
    const handle = { sandboxId: pooled.sandboxId, environmentId: spec.environmentId };
    const contents = { asRoot: await rootTars(spec.files, []), userFiles: spec.files.filter((file) => !file.system), restore: null };
    await Promise.all([
      relabelService(
        this.docker,
        pooled.sandboxId,
        { [LABEL_OWNER]: spec.owner, [LABEL_POOLED]: "false", [LABEL_SAVED_FOLDERS]: JSON.stringify(foldersOfSandbox(spec.files, [], [])) },
        this.engineTimeoutMs,
      ),
      this.fill(handle, contents),
    ]);
    return handle;
  }

  /** Waits, at most taskStartMs, for the service's task to run; one that fails (no image on its node, …) says why. */
  private async waitForTask(handle: SandboxHandle): Promise<void> {
    const deadline = Date.now() + this.options.taskStartMs;
    let last: TaskState = { kind: "starting", state: "new" };
    while (Date.now() < deadline) {
      last = await this.taskOf(handle);
      if (last.kind === "running" && last.address) return;
      // The orchestrator makes a new service's task a moment after the service: none yet is not a failure.
      if (last.kind === "gone" && !last.noTask) throw new Error(`the sandbox's Swarm task did not start: ${last.why}`);
      await new Promise((resolve) => setTimeout(resolve, TASK_POLL_MS));
    }
    throw new Error(
      `the sandbox's Swarm task was still ${last.kind === "starting" ? last.state : last.kind === "gone" ? "not made" : "without an overlay address"} after ${Math.round(this.options.taskStartMs / 1000)} s (EMULATOR_SWARM_TASK_START_SECONDS): is a node labelled for sandboxes free, and does it hold the image?`,
    );
  }

  /** The service's task as the manager sees it. */
  private async taskOf(handle: SandboxHandle): Promise<TaskState> {
    let tasks: SwarmTask[];
    try {
      tasks = (await withEngineTimeout(
        this.docker.listTasks({ filters: { service: [handle.sandboxId] } }),
        this.engineTimeoutMs,
        "looking up a sandbox's task",
      )) as SwarmTask[];
    } catch (error) {
      // The manager answered that the service does not exist.
      if (isGone(error)) return { kind: "gone", why: "its service is gone" };
      throw engineUnreachable(error, `looking up the sandbox of ${handle.environmentId}`);
    }
    return taskState(tasks, this.options.network);
  }

  async connect(handle: SandboxHandle): Promise<ExecutorClient> {
    const lost = this.lost.get(handle.sandboxId);
    if (lost !== undefined) throw new SandboxLostError(`the sandbox of ${handle.environmentId} is lost: ${lost}`);
    const task = await this.taskOf(handle);
    if (task.kind !== "running" || !task.address)
      throw new SandboxUnavailableError(
        `the sandbox of ${handle.environmentId} does not run: ${task.kind === "gone" ? task.why : `its task is ${task.kind === "starting" ? task.state : "without an address"}`}`,
      );
    const secret = this.channels.secretOf(handle.environmentId);
    if (secret === null)
      throw new SandboxUnavailableError(`the channel secret of sandbox ${handle.environmentId} is gone from the emulator's data folder`);
    const address = { host: task.address, port: SWARM_CHANNEL_PORT };
    let connected: ChannelSocket;
    try {
      connected = this.options.dial
        ? await openPreambled(() => this.options.dial!(address), secret, this.executorArgv(), CHANNEL_WAIT_MS)
        : await openNetworkChannel(address, secret, this.executorArgv(), CHANNEL_WAIT_MS);
    } catch (error) {
      throw new SandboxUnavailableError(
        `the channel of sandbox ${handle.environmentId} at ${task.address}:${SWARM_CHANNEL_PORT} did not answer: ${(error as Error).message}`,
        { cause: error },
      );
    }
    const client = new ExecutorClient(connected.socket, connected.socket, {
      transientInput: connected,
      deadlines: this.options.executorDeadlines,
      onBroken: (reason) => process.stderr.write(`[executor ${handle.environmentId}] channel closed: ${reason}\n`),
      // A node's engine that stops ends its containers' connections some 10-15 s before the manager
      // calls the node down: the calls wait that long for nodeDown() to lose() the channel.
      beforePeerEnd: () => this.untilNodeDownOrTimeout(),
    });
    this.track(handle, task.nodeId, client);
    const pong = await client.ping().catch((error: Error) => {
      client.close();
      throw new SandboxUnavailableError(`the executor of sandbox ${handle.environmentId} did not answer: ${error.message}`, {
        cause: error,
      });
    });
    if (pong.version !== PROTOCOL_VERSION) {
      client.close();
      throw new SandboxUnavailableError(
        `the executor in sandbox ${handle.environmentId} speaks protocol version ${pong.version}, this emulator ${PROTOCOL_VERSION}`,
      );
    }
    // A peer that vanished without a FIN, its node still called ready, breaks the channel within
    // EMULATOR_SWARM_NODE_DOWN_SECONDS (channel-heartbeat.ts).
    keepPinging(client, {
      intervalMs: this.options.channelPingMs ?? CHANNEL_PING_MS,
      silenceMs: this.options.nodeDownWaitMs ?? NODE_DOWN_WAIT_MS,
    });
    return client;
  }

  private untilNodeDownOrTimeout(): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, this.options.nodeDownWaitMs ?? NODE_DOWN_WAIT_MS).unref());
  }

  /** Keeps the channel where nodeDown() finds it, until it closes. */
  private track(handle: SandboxHandle, nodeId: string, client: ExecutorClient): void {
    const sandboxId = handle.sandboxId;
    const open = this.open.get(sandboxId) ?? { handle, nodeId, clients: new Set<ExecutorClient>() };
    open.nodeId = nodeId;
    open.clients.add(client);
    this.open.set(sandboxId, open);
    void client.closed.then(() => {
      open.clients.delete(client);
      if (open.clients.size === 0 && this.open.get(sandboxId) === open) this.open.delete(sandboxId);
    });
  }

  async isAlive(handle: SandboxHandle): Promise<boolean> {
    if (this.lost.has(handle.sandboxId)) return false;
    return (await this.taskOf(handle)).kind === "running";
  }

  /** A task that ended is gone for good (RestartPolicy none): its files were on its node. One on its way counts as there. */
  async ensureRunning(handle: SandboxHandle): Promise<boolean> {
    if (this.lost.has(handle.sandboxId)) return false;
    return (await this.taskOf(handle)).kind !== "gone";
  }

  /** The service, then its secret (Swarm refuses to remove a secret a service still names). */
  async remove(handle: SandboxHandle): Promise<void> {
    await this.removeService(handle);
    const secrets = (await withEngineTimeout(
      this.docker.listSecrets({
        filters: { label: [`${LABEL_INSTANCE}=${this.options.instance}`, `${LABEL_ENVIRONMENT}=${handle.environmentId}`] },
      }),
      this.engineTimeoutMs,
      "listing a sandbox's secrets",
    )) as Array<{ ID: string }>;
    for (const secret of secrets) await this.removeSecret(secret.ID);
    if (handle.environmentId) this.channels.remove(handle.environmentId);
    this.lost.delete(handle.sandboxId);
  }

  private async removeService(handle: SandboxHandle): Promise<void> {
    try {
      await withEngineTimeout(this.docker.getService(handle.sandboxId).remove(), this.engineTimeoutMs, "removing a sandbox service");
    } catch (error) {
      if (!isGone(error)) throw engineUnreachable(error, `removing the sandbox of ${handle.environmentId}`);
    }
  }

  private async removeSecret(id: string): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await withEngineTimeout(this.docker.getSecret(id).remove(), this.engineTimeoutMs, "removing a sandbox's channel secret");
        return;
      } catch (error) {
        if (isGone(error)) return;
        if (attempt >= SECRET_REMOVE_ATTEMPTS) throw engineUnreachable(error, "removing a sandbox's channel secret");
        await new Promise((resolve) => setTimeout(resolve, TASK_POLL_MS));
      }
    }
  }

  async list(): Promise<SandboxHandle[]> {
    let services: Array<{ ID: string; Spec?: { Labels?: Record<string, string> } }>;
    try {
      services = (await withEngineTimeout(
        this.docker.listServices({ filters: { label: [`${LABEL_MANAGED}=true`, `${LABEL_INSTANCE}=${this.options.instance}`] } }),
        this.engineTimeoutMs,
        "listing sandboxes",
      )) as typeof services;
    } catch (error) {
      throw engineUnreachable(error, "listing sandboxes");
    }
    return services.map((service) => {
      const handle = { sandboxId: service.ID, environmentId: service.Spec?.Labels?.[LABEL_ENVIRONMENT] ?? "" };
      // A warm pool service that no environment has taken yet (claimPooled relabels it).
      return service.Spec?.Labels?.[LABEL_POOLED] === "true" ? { ...handle, pooled: true } : handle;
    });
  }

  /**
   * The source's saved folders (SAVED_FOLDERS and those of its sources and trees, its service's label)
   * through its channel, put back in a new sandbox as create() puts a snapshot's. Not paused as `docker
   * commit` pauses the source: a file written meanwhile may be copied half-way. At most forkMaxBytes.
   */
  async fork(source: SandboxHandle, spec: SandboxSpec): Promise<SandboxHandle> {
    const folders = foldersOfLabel(await this.labelOf(source, LABEL_SAVED_FOLDERS));
    const maxBytes = Math.min(this.options.forkMaxBytes ?? SWARM_FILES_MAX_BYTES, SWARM_FILES_MAX_BYTES);
    const tar = await this.exportFiles(source, foldersOfSandbox([], [], folders), maxBytes).catch((error: unknown) => {
      if (error instanceof SandboxFilesTooLargeError)
        throw new FailedPreconditionError(
          `The files of environment ${source.environmentId} pass ${maxBytes} bytes, the most a fork copies (EMULATOR_STATE_MAX_BYTES, at most ${SWARM_FILES_MAX_BYTES} with EMULATOR_SANDBOX_RUNTIME=swarm); delete files first.`,
        );
      throw error;
    });
    return this.createWith({ ...spec, restore: () => Readable.from([tar]) }, folders);
  }

  /** A tar of the sandbox's files under `folders`, through its channel (swarm-files.ts). */
  async exportFiles(handle: SandboxHandle, folders: readonly string[], maxBytes: number): Promise<Buffer> {
    const channel = await this.connect(handle);
    try {
      return await exportSandboxFiles(channel, folders, maxBytes);
    } finally {
      channel.close();
    }
  }

  /** A label of the sandbox's service; undefined when it has none. */
  private async labelOf(handle: SandboxHandle, label: string): Promise<string | undefined> {
    try {
      const service = (await withEngineTimeout(
        this.docker.getService(handle.sandboxId).inspect(),
        this.engineTimeoutMs,
        "looking up a sandbox's service",
      )) as { Spec?: { Labels?: Record<string, string> } };
      return service.Spec?.Labels?.[label];
    } catch (error) {
      if (isGone(error)) throw new SandboxUnavailableError(`the sandbox of ${handle.environmentId} is gone`);
      throw engineUnreachable(error, `looking up the sandbox of ${handle.environmentId}`);
    }
  }
}
