// The Docker implementation of the sandbox runtime: one container per environment, its sources placed
// in one tar upload before it starts, and one long-lived executor channel per container.

import path from "node:path";
import { PassThrough, type Readable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";
import type Docker from "dockerode";
import { DockerClient } from "./dockerode.js";
import { CHANNEL_FOLDER, HOLD_PORT_FLAG, PROTOCOL_VERSION } from "../../../sandbox-image/executor/protocol.js";
import { ExecutorClient, type ExecutorDeadlines } from "../executor-client.js";
import type { RuntimeHealth, SandboxChannel, SandboxFile, SandboxHandle, SandboxRuntime, SandboxSpec } from "../runtime.js";
import { SandboxFilesTooLargeError, SandboxUnavailableError } from "../runtime.js";
import { engineUnreachable, isGone, withEngineTimeout } from "./engine-errors.js";
import { type EngineGate, gateEngine } from "./engine-gate.js";
import { removeAbandoned, type AbandonedSweep } from "./abandoned-sandboxes.js";
import { InstanceLease, ownershipLabels, type LeaseSettings } from "./lease.js";
import { EMULATOR_CA_PATH, SANDBOX_CA_ENV, SANDBOX_PROXY_ENV, SANDBOX_PROXY_PORT, SYSTEM_CA_BUNDLE } from "../egress-settings.js";
import { diskLimitHostConfig, probeStorageQuota, type StorageQuota } from "./disk-limit.js";
import { statxShimFiles } from "./gvisor-statx-shim.js";
import { checkEngineHasRuntime, type EngineRuntime, processLimitHostConfig, runtimeHostConfig } from "./container-runtime.js";
import { ensureSandboxImage, EXECUTOR_PATH, executorArchive, type ImageOptions } from "./image.js";
import { readImageFile } from "./read-image-file.js";
import { BackgroundStep } from "./background-step.js";
import { demuxDockerStream } from "./stream-demux.js";
import { savedFilesTar } from "./saved-files.js";
import { LABEL_ENVIRONMENT, LABEL_INSTANCE, LABEL_MANAGED, LABEL_OWNER, LABEL_POOLED } from "./labels.js";
import { HOOKS_GID, HOOKS_UID, SANDBOX_GID, SANDBOX_UID, sourcesTar } from "./tar.js";
import { writeTrustFolder } from "./trust-folder.js";
import { ChannelFolders, type ChannelMode, type ChannelSocket, isMissingBindSource, whySocketCannotWork } from "./socket-channel.js";

/** What every sandbox runtime on a Docker engine takes alike (the Docker and the Swarm runtimes). */
export interface SandboxSettings {
  instance: string;
  image: ImageOptions;
  memoryMb: number;
  cpus: number;
  pids: number;
  /** Disk limit per sandbox, MiB (disk-limit.ts; under Swarm the executor's disk guard alone). */
  diskMb?: number;
  /** How long an executor may take to answer before its channel is declared broken. */
  executorDeadlines?: Partial<ExecutorDeadlines>;
  /** The engine (under Swarm: a manager's); default DOCKER_HOST. */
  docker?: Docker;
  /**
   * How long a look-up or an exec may take before the engine counts as not answering (ENGINE_TIMEOUT_MS
   * by default). Calls that move data (create, commit, archives, builds) wait for the engine.
   */
  engineTimeoutMs?: number;
  /** Engine calls in flight at once (EMULATOR_ENGINE_MAX_CALLS; engine-gate.ts). */
  engineMaxCalls?: number;
  /** Of those, container creates, starts and removals at once (EMULATOR_ENGINE_MAX_CONTAINER_CHANGES). */
  engineMaxChanges?: number;
}

/**
 * The engine a runtime talks to, every call of it through the engine gate (engine-gate.ts) with the
 * settings' bounds. No client given: dockerode follows DOCKER_HOST (and DOCKER_TLS_VERIFY /
 * DOCKER_CERT_PATH) like the CLI.
 */
export function gatedEngine(settings: SandboxSettings): { docker: Docker; engineTimeoutMs: number; gate: EngineGate } {
  const docker = settings.docker ?? new DockerClient();
  const engineTimeoutMs = settings.engineTimeoutMs ?? ENGINE_TIMEOUT_MS;
  const gate = gateEngine(docker, {
    timeoutMs: engineTimeoutMs,
    maxCalls: settings.engineMaxCalls ?? ENGINE_MAX_CALLS,
    maxChanges: settings.engineMaxChanges ?? ENGINE_MAX_CHANGES,
  });
  return { docker, engineTimeoutMs, gate };
}

export interface DockerRuntimeOptions extends SandboxSettings {
  /** The engine runtime sandbox containers run under (container-runtime.ts); unset: the engine's default. */
  containerRuntime?: string;

  /**
   * Keep a lease on the engine and tie every object to this data folder, so that another emulator can
   * remove them once this one is gone for good (abandoned-sandboxes.ts). Without it (tests that drive
   * the runtime directly) objects carry no ownership and are never removed by another emulator.
   */
  lease?: LeaseSettings;
  /**
   * prepare() and trustCertificate() return before their probe containers have run (what the engine can
   * grant, the image's CA bundle); every sandbox waits for them instead (background-step.ts). The
   * emulator sets it, so that its start does not wait seconds for steps only sandboxes need; tests that
   * read what prepare() found leave it unset.
   */
  probeInBackground?: boolean;
  /**
   * The executor's channel (EMULATOR_CHANNEL; socket-channel.ts): over a Unix socket in
   * `channelsFolder` (EMULATOR_DATA_DIR/channels), or the engine's exec stream. Without a folder: exec.
   */
  channel?: ChannelMode;
  channelsFolder?: string;
  /**
   * Where the CA files every sandbox trusts are written once (EMULATOR_DATA_DIR/trust), to be mounted
   * read-only into sandboxes that get a socket channel (the engine sees the data folder): no tar upload
   * per container. Without it, or without the socket, they are written into each container.
   */
  trustFolder?: string;
}

/**
 * The executor runs as root and acts as these identities (sandbox-image/executor-go/identities.go; the
 * image creates the users): sandbox code can neither signal nor trace it (docs/security.md#who-runs-what-in-a-sandbox).
 * A static binary: it needs nothing of the image's, so any Linux image with a shell can be a sandbox.
 */
export const EXECUTOR_ARGV = [
  EXECUTOR_PATH,
  "--identity",
  `sandbox=${SANDBOX_UID}:${SANDBOX_GID}:/home/sandbox`,
  "--identity",
  `hooks=${HOOKS_UID}:${HOOKS_GID}:/home/hooks`,
];
/**
 * The container's processes (tini, the keep-alive, the executor) are root's, out of the sandbox user's
 * reach, with only the capabilities the executor needs: SETUID and SETGID to start commands as its
 * identities, and, where the engine can grant it, SYS_RESOURCE to pin their OOM adjustment where sandbox
 * code cannot lower it (sandbox-image/executor-go/oom_score.go). Every command and file operation of the
 * sandbox user's runs with none: the kernel clears them as the uid leaves 0, and no-new-privileges
 * keeps setuid files and file capabilities from granting any back.
 */
const CONTAINER_USER = "0:0";
const REQUIRED_CAPABILITIES = ["SETUID", "SETGID"];
const OOM_PIN_CAPABILITY = "SYS_RESOURCE";
/**
 * For the executor's disk guard (engines without storage quotas): reads every folder of the sandbox's,
 * one its user locked with a chmod included, so that nothing written can hide from the measurement.
 * CAP_DAC_OVERRIDE (in Docker's default set) lets root read and search any folder; never
 * CAP_DAC_READ_SEARCH, which would do the same and also lets open_by_handle_at() open any file of the
 * host's through a bind-mounted file such as /etc/hostname ("shocker"; docs/security.md#capabilities).
 */
const DISK_GUARD_CAPABILITY = "DAC_OVERRIDE";
/**
 * Ends an executor whose channel was declared broken (it missed a deadline), so that it cannot hold
 * the egress port or a command forever: TERM (it kills its commands and exits), KILL if it is still
 * there 2 s later. Only the executor itself is touched: the pid must still run its binary with --identity
 * (its file worker, the same binary, starts with --file-worker).
 */
const REAP_EXECUTOR_SCRIPT = `
is_executor() { tr '\\0' ' ' < /proc/$1/cmdline 2>/dev/null | grep -q '^${EXECUTOR_PATH} --identity'; }
is_executor "$1" || exit 0
kill -CONT "$1"; kill -TERM "$1"
for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do is_executor "$1" || exit 0; sleep 0.1; done
kill -KILL "$1"`;
/**
 * The container's keep-alive: the executor's binary holding the egress port bound as root for the
 * container's life, so that no sandbox process can bind it, even between two executors
 * (sandbox-image/executor-go/egress_port_holder.go; docs/security.md#network). Not under gVisor, whose
 * kernel lets any user join a port bound with SO_REUSEPORT: there the keep-alive is `sleep infinity`
 * and the executor's listener takes the port alone, as it did before.
 */
const KEEP_ALIVE_CMD = [EXECUTOR_PATH, HOLD_PORT_FLAG, `127.0.0.1:${SANDBOX_PROXY_PORT}`];
const GVISOR_KEEP_ALIVE_CMD = ["sleep", "infinity"];
/**
 * How long a new channel waits for the keep-alive to listen on the socket (a container that just
 * started), at most; past it, the exec stream (EMULATOR_CHANNEL=auto) or an error (socket).
 */
const SOCKET_WAIT_MS = 5_000;
/** Temporary images of forks, tagged <instance>-<new environment id>; removed as soon as the fork's container exists. */
const FORK_REPOSITORY = "iemu-fork";

/** How long a look-up (inspect, list, exec) may take before the engine counts as not answering, by default. */
export const ENGINE_TIMEOUT_MS = 10_000;
/** Starting a stopped container takes longer on a busy engine: this many look-ups' time. */
const START_TIMEOUT_FACTOR = 3;
/** Engine calls in flight at once, and of those creates, starts and removals, by default (engine-gate.ts). */
export const ENGINE_MAX_CALLS = 16;
export const ENGINE_MAX_CHANGES = 4;
/** How long /health waits for the engine's answer before it reports the engine not answering (at most the engine timeout). */
export const HEALTH_WAIT_MS = 3000;

/** The pauses between tries to rename a taken pool container (nameTaken()). */
const NAMING_FIRST_PAUSE_MS = 1000;
const NAMING_MAX_PAUSE_MS = 60_000;

type Mount =
  | { Type: "volume"; Source: string; Target: string; ReadOnly: true }
  | { Type: "bind"; Source: string; Target: string; ReadOnly?: true };

export class DockerRuntime implements SandboxRuntime {
  readonly name = "docker";
  private readonly docker: Docker;
  private readonly lease: InstanceLease | null;
  private readonly engineTimeoutMs: number;
  /** Every call to the engine passes it: deadlines, bounds, and the engine's state (engine-gate.ts). */
  private readonly gate: EngineGate;
  private image: string | null = null;
  /** Whether the engine enforces a storage quota per container; probed in prepare(). */
  private storageQuota: StorageQuota = "unsupported";

  /** Whether sandboxes run under gVisor (container-runtime.ts); known after prepare(). */
  private engineRuntime: EngineRuntime = { gvisor: false };

  /** What sandbox containers get added after dropping all (see REQUIRED_CAPABILITIES); set by prepare(). */
  private capabilities = REQUIRED_CAPABILITIES;
  /** Under gVisor, its statx fix (gvisor-statx-shim.ts), placed in every new sandbox. */
  private gvisorFiles: SandboxFile[] = [];
  /** The emulator's CA, installed in every new sandbox's trust store (see trustCertificate). */
  private trustFiles: SandboxFile[] = [];
  /** trustFiles as read-only bind mounts of the copies in options.trustFolder, once written there. */
  private trustMounts: Mount[] = [];
  /** prepare()'s and trustCertificate()'s probes, which every new sandbox or executor waits for. */
  private readonly probes: BackgroundStep[] = [];
  /** Taken pool containers being given their environment's name, by container ID (nameTaken()). */
  private readonly namings = new Map<string, { done: Promise<void>; stop: AbortController }>();
  /**
   * The sandboxes' socket folders, while new sandboxes get one (socket-channel.ts); null: the exec
   * stream for every new sandbox (EMULATOR_CHANNEL=exec, an engine on another machine, gVisor).
   */
  private channels: ChannelFolders | null = null;
  /** The socket folders of sandboxes made before, which keep theirs whatever `channels` became. */
  private readonly channelFolders: ChannelFolders | null;
  /** Whether a channel over a socket has worked once: until then, one that fails turns the socket off (auto). */
  private socketWorked = false;
  /** Set when it failed before it ever worked (auto): every channel then takes the exec stream. */
  private socketOff = false;

  constructor(private readonly options: DockerRuntimeOptions) {
    ({ docker: this.docker, engineTimeoutMs: this.engineTimeoutMs, gate: this.gate } = gatedEngine(options));
    this.lease = options.lease ? new InstanceLease(this.docker, options.instance, options.lease) : null;
    this.channelFolders =
      options.channelsFolder && options.channel !== "exec" ? new ChannelFolders(`${options.channelsFolder}/${options.instance}`) : null;
  }

  /** Which channel new sandboxes get, said once at start when it is not the socket the setting asks for. */
  private chooseChannel(progress: (line: string) => void): void {
    const mode = this.options.channel ?? "auto";
    if (mode === "exec" || !this.channelFolders) return;
    const why = this.engineRuntime.gvisor
      ? "sandboxes run under gVisor, whose keep-alive does not serve the socket (docs/setup.md#gvisor)"
      : whySocketCannotWork(this.docker);
    if (why === null) {
      this.channels = this.channelFolders;
      return;
    }
    if (mode === "socket") throw new Error(`EMULATOR_CHANNEL=socket, but ${why}; set EMULATOR_CHANNEL=auto or exec`);
    progress(`executor channel: the engine's exec stream, not a socket: ${why}`);
  }

  /** Where the sandbox's socket folder is on this machine, if the runtime makes them (tests read it). */
  channelFolderOf(environmentId: string): string | null {
    return this.channelFolders?.folderOf(environmentId) ?? null;
  }

  /**
   * Socket folders whose container is gone without this emulator removing it (removed by hand, or while
   * it was stopped): one listing of the engine, only when there are folders at all.
   */
  private async removeStaleChannelFolders(): Promise<void> {
    const folders = this.channelFolders;
    if (!folders || folders.environments().length === 0) return;
    const live = new Set((await this.list()).map((handle) => handle.environmentId));
    for (const environmentId of folders.environments()) if (!live.has(environmentId)) folders.remove(environmentId);
  }

  /** The transport the next new sandbox's channel uses (tests read it). */
  get channelTransport(): "socket" | "exec" {
    return this.channels ? "socket" : "exec";
  }

  /**
   * The engine's version and an inspect of a container it answered for before (which takes the locks a
   * deadlocked engine holds, where /_ping and /version do not): "not answering" when no answer comes
   * within a few seconds.
   */
  async health(): Promise<RuntimeHealth> {
    return this.gate.health(Math.min(HEALTH_WAIT_MS, this.engineTimeoutMs));
  }

  async prepare(progress: (line: string) => void): Promise<void> {
    // Before the image, which may take minutes to build: a runtime the engine lacks is a setting to fix.
    this.engineRuntime = await checkEngineHasRuntime(this.docker, this.options.containerRuntime, this.engineTimeoutMs);
    if (this.engineRuntime.gvisor) {
      const shim = statxShimFiles();
      if ("files" in shim) this.gvisorFiles = shim.files;
      else
        progress(
          `gVisor: no C compiler to build the statx fix (${shim.missing}); \`ls\` and \`stat\` will fail with EINVAL in sandboxes under bookworm's runsc (docs/security.md#gvisor)`,
        );
    }
    this.chooseChannel(progress);
    await this.removeStaleChannelFolders();
    this.image = await ensureSandboxImage(this.docker, this.options.image, progress);
    await this.probe(() => this.probeEngine(this.image!, progress));
    // Fork images without their container (an emulator that stopped half-way through a fork, a container
    // removed by hand): without force, an image a container or another image still uses is kept.
    const forks = await this.docker.listImages({ filters: { reference: [`${FORK_REPOSITORY}:${this.options.instance}-*`] } });
    for (const fork of forks) {
      for (const tag of fork.RepoTags ?? [])
        await this.docker
          .getImage(tag)
          .remove()
          .catch(() => undefined);
    }
  }

  /** What containers of the image may have: a storage quota, the capabilities beyond the required ones. */
  private async probeEngine(image: string, progress: (line: string) => void): Promise<void> {
    if (this.options.diskMb !== undefined) {
      const probe = await probeStorageQuota(this.docker, image, this.helperLabels());
      this.storageQuota = probe.quota;
      if (probe.quota === "unsupported") {
        progress(
          `sandbox disk limit: ${this.options.diskMb} MiB per file only; this engine has no storage quotas (${probe.detail}); see docs/security.md#disk`,
        );
      }
    }
    const wanted = [OOM_PIN_CAPABILITY, ...(this.guardsDisk ? [DISK_GUARD_CAPABILITY] : [])];
    const granted = await this.grantable(wanted);
    this.capabilities = [...REQUIRED_CAPABILITIES, ...granted];
    if (!granted.includes(OOM_PIN_CAPABILITY))
      progress(`the Docker engine cannot grant CAP_${OOM_PIN_CAPABILITY}: sandbox code will be able to lower its OOM adjustment`);
    if (this.guardsDisk && !granted.includes(DISK_GUARD_CAPABILITY))
      progress(`the Docker engine cannot grant CAP_${DISK_GUARD_CAPABILITY}: the disk guard will not see into folders sandbox code locks`);
  }

  /** Runs a probe now, or (probeInBackground) keeps it for startBackground(), or the first sandbox, to run. */
  private async probe(run: () => Promise<void>): Promise<void> {
    if (!this.options.probeInBackground) return run();
    this.probes.push(new BackgroundStep(run));
  }

  startBackground(): void {
    for (const step of this.probes) step.start();
  }

  async backgroundSettled(): Promise<void> {
    for (const step of this.probes) await step.ended();
    // No rename is tried again after this (a shutdown): the one under way ends within the engine timeout.
    for (const naming of this.namings.values()) naming.stop.abort();
    await Promise.all([...this.namings.values()].map((naming) => naming.done));
  }

  /** Before a sandbox or an executor: every probe done (what they found goes into its settings). */
  private async probesDone(): Promise<void> {
    try {
      for (const step of this.probes) await step.settled();
    } catch (error) {
      throw engineUnreachable(error, "probing what the Docker engine grants sandboxes");
    }
  }

  /** The engine runtime of every container that runs sandbox code or reads its files (container-runtime.ts). */
  private get runtimeHostConfig(): Pick<Docker.HostConfig, "Runtime"> {
    return runtimeHostConfig(this.options.containerRuntime);
  }

  /**
   * Root's files a new sandbox gets before it starts: the emulator's CA (unless `trustMounted`: the
   * container has it mounted), gVisor's statx fix.
   */
  private systemFiles(trustMounted: boolean): SandboxFile[] {
    return [...(trustMounted ? [] : this.trustFiles), ...this.gvisorFiles];
  }

  /** The sandbox's process-count and disk limits, their resource limits (Ulimits) together. */
  private limitsHostConfig(): Pick<Docker.HostConfig, "PidsLimit" | "StorageOpt" | "Ulimits"> {
    const processes = processLimitHostConfig(this.options.pids, this.engineRuntime.gvisor);
    const disk = this.options.diskMb !== undefined ? diskLimitHostConfig(this.options.diskMb, this.storageQuota) : {};
    const ulimits = [...(disk.Ulimits ?? []), ...(processes.Ulimits ?? [])];
    return { ...disk, PidsLimit: processes.PidsLimit, ...(ulimits.length > 0 ? { Ulimits: ulimits } : {}) };
  }

  /** Whether sandboxes run under gVisor (EMULATOR_SANDBOX_RUNTIME names a runsc); known after prepare(). */
  get underGvisor(): boolean {
    return this.engineRuntime.gvisor;
  }

  /** Whether the executor's disk guard runs and may read folders sandbox code locked (CAP_DAC_OVERRIDE). */
  get guardSeesLockedFolders(): boolean {
    return this.capabilities.includes(DISK_GUARD_CAPABILITY);
  }

  /** Whether the capabilities sandbox containers get added, after dropping all, include CAP_SYS_RESOURCE. */
  get pinsOomAdjustment(): boolean {
    return this.capabilities.includes(OOM_PIN_CAPABILITY);
  }

  /**
   * Whether the executor guards the sandbox's disk use in total: a limit is set and the engine cannot
   * enforce it with a storage quota (sandbox-image/executor-go/disk_guard.go). Known after prepare().
   */
  private get guardsDisk(): boolean {
    return this.options.diskMb !== undefined && this.storageQuota === "unsupported";
  }

  /** The executor's command line: its identities, and the disk limit it guards when it must. */
  private executorArgv(): string[] {
    return [...EXECUTOR_ARGV, ...(this.guardsDisk ? ["--disk-limit-mb", String(this.options.diskMb)] : [])];
  }

  /** Which of `capabilities` containers may hold: all of them asked at once, each alone only if that fails. */
  private async grantable(capabilities: string[]): Promise<string[]> {
    if (await this.canGrant(capabilities)) return capabilities;
    if (capabilities.length === 1) return [];
    const granted: string[] = [];
    for (const capability of capabilities) if (await this.canGrant([capability])) granted.push(capability);
    return granted;
  }

  /**
   * Whether a container may hold `capabilities`: an engine that lacks one itself (one running in a
   * restricted container) refuses to start such containers. Asked once, with a container that only runs `true`.
   */
  private async canGrant(capabilities: string[]): Promise<boolean> {
    const probe = await this.docker.createContainer({
      Image: this.image!,
      // Labelled as ours: should we stop before removing it, the next start removes it as an orphan.
      Labels: this.helperLabels(),
      User: CONTAINER_USER,
      Cmd: ["true"],
      // Under the sandboxes' runtime: what it can grant is what they get.
      HostConfig: {
        ...this.runtimeHostConfig,
        NetworkMode: "none",
        CapDrop: ["ALL"],
        CapAdd: capabilities,
        LogConfig: { Type: "none", Config: {} },
      },
    });
    try {
      await probe.start();
      return true;
    } catch {
      return false;
    } finally {
      await probe.remove({ force: true }).catch(() => undefined);
    }
  }

  /**
   * Makes every sandbox created from now on trust `caPem` (the egress proxy's CA): appended to the
   * image's system bundle and placed on its own for Node. The private key never leaves the host.
   */
  async trustCertificate(caPem: string): Promise<void> {
    const image = this.image;
    if (!image) throw new Error("DockerRuntime.prepare() must run before trustCertificate()");
    await this.probe(async () => {
      const systemBundle = await readImageFile(this.docker, image, SYSTEM_CA_BUNDLE, this.helperLabels());
      const ca = Buffer.from(caPem.endsWith("\n") ? caPem : `${caPem}\n`);
      this.trustFiles = [
        { path: SYSTEM_CA_BUNDLE, content: Buffer.concat([systemBundle, Buffer.from("\n"), ca]), mode: 0o644, system: true },
        { path: EMULATOR_CA_PATH, content: ca, mode: 0o644, system: true },
      ];
      if (this.options.trustFolder && this.channelFolders) {
        try {
          this.trustMounts = writeTrustFolder(path.join(this.options.trustFolder, this.options.instance), this.trustFiles);
        } catch (error) {
          // Not a reason to fail sandboxes: they get the files written into them, as without a socket.
          process.stderr.write(`sandbox CA files: written into each sandbox (${(error as Error).message})\n`);
        }
      }
    });
  }

  private labels(spec: Pick<SandboxSpec, "environmentId" | "owner">): Record<string, string> {
    return {
      ...this.helperLabels(),
      [LABEL_ENVIRONMENT]: spec.environmentId,
      [LABEL_OWNER]: spec.owner,
      // Explicit, since a fork's container inherits the labels of the image committed from its source.
      [LABEL_POOLED]: "false",
    };
  }

  /**
   * The labels of short-lived containers (filling or copying a volume): an emulator that dies while one
   * exists leaves it behind, and these let its next start (an orphan) or another emulator find it.
   */
  private helperLabels(): Record<string, string> {
    return {
      [LABEL_MANAGED]: "true",
      [LABEL_INSTANCE]: this.options.instance,
      ...(this.options.lease ? ownershipLabels(this.options.lease) : {}),
    };
  }

  /** Extends this emulator's lease (see DockerRuntimeOptions.lease); a no-op without one. */
  async renewLease(): Promise<void> {
    await this.lease?.renew();
  }

  /** Ends the lease at a clean shutdown. */
  async dropLease(): Promise<void> {
    await this.lease?.drop();
  }

  /** Removes what emulators that are gone for good left on the engine; null without a lease. */
  async removeAbandoned(): Promise<AbandonedSweep | null> {
    if (!this.options.lease) return null;
    return removeAbandoned(this.docker, this.options.instance, this.options.lease);
  }

  /**
   * One volume per read-only tree, filled through a container that never runs (the engine's archive
   * API works on created containers), then mounted read-only: writes fail with EROFS and the mount
   * point cannot even be renamed away (EBUSY). Volumes work on any engine, a remote one included.
   */
  private async readOnlyVolumes(spec: SandboxSpec): Promise<Mount[]> {
    const mounts: Mount[] = [];
    for (const [index, tree] of (spec.readOnlyTrees ?? []).entries()) {
      const name = `iemu-${this.options.instance}-${spec.environmentId}-ro${index}`;
      await this.docker.createVolume({ Name: name, Labels: this.labels(spec) });
      mounts.push({ Type: "volume", Source: name, Target: tree.path, ReadOnly: true });
      const filler = await this.docker.createContainer({
        Image: this.image!,
        Labels: this.helperLabels(),
        Cmd: ["true"],
        HostConfig: { NetworkMode: "none", Mounts: [{ Type: "volume", Source: name, Target: "/fill" }] },
      });
      try {
        await filler.putArchive(tree.tar, { path: "/fill" });
      } finally {
        await filler.remove({ force: true }).catch(() => undefined);
      }
    }
    return mounts;
  }

  private async removeVolumes(environmentId: string): Promise<void> {
    const { Volumes } = await this.docker.listVolumes({
      filters: { label: [`${LABEL_INSTANCE}=${this.options.instance}`, `${LABEL_ENVIRONMENT}=${environmentId}`] },
    });
    for (const volume of Volumes ?? [])
      await this.docker
        .getVolume(volume.Name)
        .remove()
        .catch(() => undefined);
  }

  async create(spec: SandboxSpec): Promise<SandboxHandle> {
    if (!this.image) throw new Error("DockerRuntime.prepare() must run before create()");
    return this.createFrom(this.image, spec);
  }

  /**
   * `docker commit` of the source (paused for the moment it takes) to an image of the fork's own, and a
   * new container from it. The image lives as long as that container: the engine cannot commit a
   * container whose image is gone (a fork of the fork needs it), and remove() deletes it with the
   * container. Read-only volumes (repository sources) are not part of a commit: each is copied into a
   * new volume of the fork's own.
   */
  async fork(source: SandboxHandle, spec: SandboxSpec): Promise<SandboxHandle> {
    if (!this.image) throw new Error("DockerRuntime.prepare() must run before fork()");
    const sourceContainer = this.docker.getContainer(source.sandboxId);
    const info = await sourceContainer.inspect();
    const tag = `${this.options.instance}-${spec.environmentId}`;
    await sourceContainer.commit({
      repo: FORK_REPOSITORY,
      tag,
      pause: true,
      comment: `fork of ${source.environmentId} for ${spec.environmentId}`,
    });
    const image = `${FORK_REPOSITORY}:${tag}`;
    try {
      const copies: Mount[] = [];
      try {
        const readOnly = (info.Mounts ?? []).filter((mount) => mount.Type === "volume" && !mount.RW && mount.Name);
        for (const [index, mount] of readOnly.entries()) {
          copies.push(
            await this.copyVolume(mount.Name!, `iemu-${tag}-ro${(spec.readOnlyTrees ?? []).length + index}`, mount.Destination, spec),
          );
        }
      } catch (error) {
        await this.removeVolumes(spec.environmentId).catch(() => undefined);
        throw error;
      }
      return await this.createFrom(image, spec, { extraMounts: copies });
    } catch (error) {
      await this.removeForkImage(spec.environmentId);
      throw error;
    }
  }

  /**
   * Deletes the image a fork was created from (if this environment is a fork). One that a fork of the
   * fork was committed on top of is only untagged; the engine deletes it with that last descendant.
   */
  private async removeForkImage(environmentId: string): Promise<void> {
    await this.docker
      .getImage(`${FORK_REPOSITORY}:${this.options.instance}-${environmentId}`)
      .remove({ force: true })
      .catch(() => undefined);
  }

  /** A new volume of the fork's, labelled like its own, holding a copy of `from` (ownership and modes kept). */
  private async copyVolume(from: string, name: string, target: string, spec: SandboxSpec): Promise<Mount> {
    await this.docker.createVolume({ Name: name, Labels: this.labels(spec) });
    const copier = await this.docker.createContainer({
      Image: this.image!,
      Labels: this.helperLabels(),
      User: "0:0",
      Cmd: ["cp", "-a", "/from/.", "/to/"],
      HostConfig: {
        // It reads the sandbox's files, which sandbox code wrote: behind the same wall as the sandbox.
        ...this.runtimeHostConfig,
        NetworkMode: "none",
        LogConfig: { Type: "none", Config: {} },
        Mounts: [
          { Type: "volume", Source: from, Target: "/from", ReadOnly: true },
          { Type: "volume", Source: name, Target: "/to" },
        ],
      },
    });
    try {
      await copier.start();
      const { StatusCode } = (await copier.wait()) as { StatusCode: number };
      if (StatusCode !== 0) throw new Error(`copying volume ${from} for the fork failed (cp exited with ${StatusCode})`);
    } finally {
      await copier.remove({ force: true }).catch(() => undefined);
    }
    return { Type: "volume", Source: name, Target: target, ReadOnly: true };
  }

  private async createFrom(image: string, spec: SandboxSpec, options: { extraMounts?: Mount[] } = {}): Promise<SandboxHandle> {
    await this.probesDone();
    let mounts: Mount[];
    try {
      mounts = [...(await this.readOnlyVolumes(spec)), ...(options.extraMounts ?? [])];
    } catch (error) {
      await this.removeVolumes(spec.environmentId).catch(() => undefined);
      throw error;
    }
    let container: Docker.Container;
    let trustMounted: boolean;
    try {
      ({ container, trustMounted } = await this.createWithChannel(spec.environmentId, (host) =>
        this.sandboxContainer(image, `iemu-${this.options.instance}-${spec.environmentId}`, this.labels(spec), [...mounts, ...host]),
      ));
    } catch (error) {
      await this.removeVolumes(spec.environmentId).catch(() => undefined);
      this.channelFolders?.remove(spec.environmentId);
      throw error;
    }
    const handle = { sandboxId: container.id, environmentId: spec.environmentId };
    try {
      // Written before start, as the engine (root), with the sandbox user as owner: a fresh container
      // has no user-made symlinks that a target could be redirected through.
      const files = [...this.systemFiles(trustMounted), ...spec.files];
      if (files.length > 0) await container.putArchive(await sourcesTar(files), { path: "/" });
      // A snapshot's saved files, as the engine archived them (owners and modes kept).
      if (spec.restore) await container.putArchive(spec.restore(), { path: "/" });
      await container.start();
      return handle;
    } catch (error) {
      await this.remove(handle).catch(() => undefined);
      throw error;
    }
  }

  /** Every sandbox container's settings, a pooled one's too: only its name, labels and mounts differ. */
  private sandboxContainer(image: string, name: string, labels: Record<string, string>, mounts: Mount[]): Docker.ContainerCreateOptions {
    return {
      name,
      Image: image,
      Labels: labels,
      // The keep-alive: root's, so that no `pkill` of the sandbox user's can end the container.
      User: CONTAINER_USER,
      WorkingDir: "/workspace",
      Cmd: this.engineRuntime.gvisor ? GVISOR_KEEP_ALIVE_CMD : KEEP_ALIVE_CMD,
      Env: Object.entries({ ...SANDBOX_PROXY_ENV, ...(this.trustFiles.length > 0 ? SANDBOX_CA_ENV : {}) }).map(
        ([name, value]) => `${name}=${value}`,
      ),
      HostConfig: {
        ...this.runtimeHostConfig,
        // No network at all: the only way out is the executor's proxy listener, carried over its channel
        // to the egress proxy. Nothing to firewall, on any engine (a remote DOCKER_HOST included).
        NetworkMode: "none",
        // tini as PID 1 reaps orphans, so killed process trees leave no zombies behind.
        Init: true,
        CapDrop: ["ALL"],
        CapAdd: this.capabilities,
        SecurityOpt: ["no-new-privileges"],
        Memory: this.options.memoryMb * 1024 * 1024,
        MemorySwap: this.options.memoryMb * 1024 * 1024,
        NanoCpus: Math.round(this.options.cpus * 1e9),
        ...this.limitsHostConfig(),
        // The executor channel is an exec, never the main process's output; nothing to log.
        LogConfig: { Type: "none", Config: {} },
        Mounts: mounts,
      },
      StopTimeout: 1,
    };
  }

  /**
   * A warm sandbox for the pool: the container create() would make, started, with the emulator's CA and
   * nothing else of anyone's. Labels cannot change once it is taken, so it is labelled at once with the
   * ID of the environment that will take it (no owner: nobody owns it yet) and LABEL_POOLED, and named
   * iemu-<instance>-pool-<environment id> until then. See docs/environments-and-files.md#the-warm-pool.
   */
  async createPooled(environmentId: string): Promise<SandboxHandle> {
    if (!this.image) throw new Error("DockerRuntime.prepare() must run before createPooled()");
    await this.probesDone();
    const labels = { ...this.helperLabels(), [LABEL_ENVIRONMENT]: environmentId, [LABEL_POOLED]: "true" };
    let container: Docker.Container;
    let trustMounted: boolean;
    try {
      const image = this.image;
      ({ container, trustMounted } = await this.createWithChannel(environmentId, (host) =>
        this.sandboxContainer(image, `${this.poolNamePrefix}${environmentId}`, labels, host),
      ));
    } catch (error) {
      this.channelFolders?.remove(environmentId);
      throw error;
    }
    const handle = { sandboxId: container.id, environmentId };
    try {
      const files = this.systemFiles(trustMounted);
      if (files.length > 0) await container.putArchive(await sourcesTar(files), { path: "/" });
      await container.start();
      return handle;
    } catch (error) {
      await this.remove(handle).catch(() => undefined);
      throw error;
    }
  }

  /**
   * Takes a pooled container for its environment: the sources in one root-made tar, exactly as
   * createFrom() writes them (no process of the sandbox user's has run in it, so there is no user-made
   * symlink to redirect them: docs/security.md#the-warm-pool). Its environment's own name, which tells a
   * taken pool container from a waiting one on the engine (list()), is given after: the take waits for
   * no engine call but the sources' (a rename waits behind whatever the engine is doing, such as
   * starting the pool's next container), and nothing of the emulator's finds a sandbox by its name.
   */
  async claimPooled(pooled: SandboxHandle, spec: SandboxSpec): Promise<SandboxHandle> {
    if (spec.environmentId !== pooled.environmentId)
      throw new Error(`pooled sandbox ${pooled.sandboxId} is labelled for ${pooled.environmentId}, not ${spec.environmentId}`);
    if ((spec.readOnlyTrees ?? []).length > 0)
      throw new Error("a pooled sandbox cannot take read-only trees: they are mounted at creation");
    const container = this.docker.getContainer(pooled.sandboxId);
    if (spec.files.length > 0) {
      const tar = await sourcesTar(spec.files);
      await withEngineTimeout(
        container.putArchive(tar, { path: "/" }),
        this.engineTimeoutMs * START_TIMEOUT_FACTOR,
        "taking a pooled sandbox",
      );
    }
    this.nameTaken(container, spec.environmentId);
    return { sandboxId: pooled.sandboxId, environmentId: spec.environmentId };
  }

  claimsUnderway(): number {
    return this.namings.size;
  }

  /**
   * Gives a taken pool container its environment's name, in the background, trying again (after 1 s,
   * 2 s, … up to a minute) while the engine does not answer: a take needs no engine call, so it is
   * served during an engine outage too. Until then the container keeps the pool's name, which only the
   * engine's listing shows: the environment works the same (its record names its container by ID) and
   * a restart keeps it by that record. remove() and a shutdown stop the tries.
   */
  private nameTaken(container: Docker.Container, environmentId: string): void {
    const stop = new AbortController();
    const done = (async () => {
      for (let pauseMs = NAMING_FIRST_PAUSE_MS; ; pauseMs = Math.min(pauseMs * 2, NAMING_MAX_PAUSE_MS)) {
        try {
          await withEngineTimeout(
            container.rename({ name: `iemu-${this.options.instance}-${environmentId}` }),
            this.engineTimeoutMs * START_TIMEOUT_FACTOR,
            "naming a taken pool sandbox",
          );
          return;
        } catch (error) {
          if (isGone(error)) return;
          if (pauseMs === NAMING_FIRST_PAUSE_MS) {
            process.stderr.write(
              `warm pool: sandbox ${container.id} of ${environmentId} keeps the pool's name on the engine until it can be renamed (${(error as Error).message}); the environment is not affected\n`,
            );
          }
        }
        // Background work: the pause never keeps the process alive, and an abort ends it at once.
        const paused = await sleep(pauseMs, true, { signal: stop.signal, ref: false }).catch(() => false);
        if (!paused) return;
      }
    })();
    this.namings.set(container.id, { done, stop });
    void done.finally(() => this.namings.delete(container.id));
  }

  /**
   * Creates a sandbox container with its socket folder mounted, when new sandboxes get one, and then the
   * CA files too (`trustMounted`): both come from the data folder, which an engine that mounts the one
   * can mount the other from. An engine that cannot find the folder on its machine turns the socket off
   * (auto) and gets the container with neither.
   */
  private async createWithChannel(
    environmentId: string,
    settings: (hostMounts: Mount[]) => Docker.ContainerCreateOptions,
  ): Promise<{ container: Docker.Container; trustMounted: boolean }> {
    const channel = this.channelMount(environmentId);
    const trust = channel.length > 0 ? this.trustMounts : [];
    try {
      return { container: await this.docker.createContainer(settings([...channel, ...trust])), trustMounted: trust.length > 0 };
    } catch (error) {
      if (channel.length === 0 || !isMissingBindSource(error) || this.options.channel === "socket") throw error;
      this.channels = null;
      this.socketOff = true;
      this.channelFolders?.remove(environmentId);
      process.stderr.write(
        `executor channel: the engine's exec stream from now on: the Docker engine cannot mount this emulator's data folder (${(error as Error).message})\n`,
      );
      return { container: await this.docker.createContainer(settings([])), trustMounted: false };
    }
  }

  /**
   * The sandbox's socket folder, new, with a new secret, mounted where its keep-alive looks for it
   * (socket-channel.ts); none when new sandboxes use the exec stream.
   */
  private channelMount(environmentId: string): Mount[] {
    const channels = this.channels;
    if (!channels?.folderOf(environmentId)) return [];
    return [{ Type: "bind", Source: channels.create(environmentId), Target: CHANNEL_FOLDER }];
  }

  /** The name of every pool container before it is taken. */
  private get poolNamePrefix(): string {
    return `iemu-${this.options.instance}-pool-`;
  }

  async connect(handle: SandboxHandle): Promise<SandboxChannel> {
    const first = await this.openExecutor(handle);
    const pong = await first.client.ping().catch(() => null);
    if (pong?.version === PROTOCOL_VERSION) return first.ready(pong.pid);
    first.client.close();
    // A sandbox made by another version of the emulator carries that version's executor, from its image:
    // it would misread this version's requests, or refuse its command line and exit before answering.
    // This version's executor takes its place (the sandbox's own files are not touched) and starts again.
    await this.installExecutor(handle);
    const second = await this.openExecutor(handle);
    const again = await second.client.ping();
    if (again.version !== PROTOCOL_VERSION) {
      second.client.close();
      throw new SandboxUnavailableError(
        `the executor in sandbox ${handle.environmentId} speaks protocol version ${again.version}, this emulator ${PROTOCOL_VERSION}, even after this version's executor was put in its place`,
      );
    }
    return second.ready(again.pid);
  }

  /** Puts this version's executor in the sandbox, over whatever executor its image had. */
  private async installExecutor(handle: SandboxHandle): Promise<void> {
    const container = this.docker.getContainer(handle.sandboxId);
    process.stderr.write(
      `[executor ${handle.environmentId}] the sandbox's executor did not answer as this version's does; installing this version's\n`,
    );
    try {
      await withEngineTimeout(
        container.putArchive(await executorArchive(), { path: "/" }),
        this.engineTimeoutMs,
        "installing the executor",
      );
    } catch (error) {
      const status = (error as { statusCode?: number }).statusCode;
      if (status === 404 || status === 409) {
        throw new SandboxUnavailableError(`cannot install the executor in sandbox ${handle.environmentId}: ${(error as Error).message}`, {
          cause: error,
        });
      }
      throw engineUnreachable(error, `installing the executor in the sandbox of ${handle.environmentId}`);
    }
  }

  /**
   * A new executor and its channel: over the sandbox's socket when it has one (socket-channel.ts), else
   * (or, with EMULATOR_CHANNEL=auto, when the socket does not answer) over an exec stream.
   */
  private async openExecutor(handle: SandboxHandle): Promise<{ client: ExecutorClient; ready(pid: number): SandboxChannel }> {
    const secret = this.socketOff ? null : (this.channelFolders?.secretOf(handle.environmentId) ?? null);
    if (secret === null) return this.startExecutor(handle);
    await this.probesDone();
    let connected: ChannelSocket;
    try {
      connected = await this.channelFolders!.open(handle.environmentId, secret, this.executorArgv().slice(1), SOCKET_WAIT_MS);
    } catch (error) {
      const why = `the socket of sandbox ${handle.environmentId} did not answer: ${(error as Error).message}`;
      if (this.options.channel === "socket") throw new SandboxUnavailableError(why, { cause: error });
      if (!this.socketWorked && this.channels) {
        // Never worked here (a mount that cannot hold a socket, an image whose keep-alive does not serve it):
        // new sandboxes go without one.
        this.channels = null;
        this.socketOff = true;
        process.stderr.write(`executor channel: ${why}; the engine's exec stream from now on\n`);
      } else {
        process.stderr.write(`[executor ${handle.environmentId}] ${why}; using the engine's exec stream\n`);
      }
      return this.startExecutor(handle);
    }
    const { socket } = connected;
    const client = new ExecutorClient(socket, socket, {
      transientInput: connected,
      deadlines: this.options.executorDeadlines,
      // The client destroys the socket; the keep-alive ends an executor that does not end by itself.
      onBroken: (reason) => process.stderr.write(`[executor ${handle.environmentId}] channel closed: ${reason}\n`),
    });
    return {
      client,
      ready: () => {
        this.socketWorked = true;
        return client;
      },
    };
  }

  /**
   * Starts an executor in the sandbox and opens its channel; `ready` gives the channel out once its ping
   * answered, with the executor's pid (to end it should the channel break).
   */
  private async startExecutor(handle: SandboxHandle): Promise<{ client: ExecutorClient; ready(pid: number): SandboxChannel }> {
    // Its command line says whether it guards the disk, which the storage probe decides.
    await this.probesDone();
    const container = this.docker.getContainer(handle.sandboxId);
    let stream: NodeJS.ReadWriteStream;
    try {
      const doing = "starting the executor";
      const exec = await withEngineTimeout(
        container.exec({
          Cmd: this.executorArgv(),
          AttachStdin: true,
          AttachStdout: true,
          AttachStderr: true,
          User: CONTAINER_USER,
          WorkingDir: "/workspace",
        }),
        this.engineTimeoutMs,
        doing,
      );
      const starting = exec.start({ hijack: true, stdin: true }) as Promise<NodeJS.ReadWriteStream>;
      stream = await withEngineTimeout(starting, this.engineTimeoutMs, doing).catch((error: unknown) => {
        // A stream that arrives after the deadline has nobody to read it.
        starting.then(
          (late) => (late as unknown as { destroy(): void }).destroy(),
          () => undefined,
        );
        throw error;
      });
    } catch (error) {
      // A container that answers 404 or 409 here vanished or stopped since it was looked up; anything
      // else is the engine failing, which says nothing about the sandbox.
      const status = (error as { statusCode?: number }).statusCode;
      if (status === 404 || status === 409) {
        throw new SandboxUnavailableError(`cannot start the executor in sandbox ${handle.environmentId}: ${(error as Error).message}`, {
          cause: error,
        });
      }
      throw engineUnreachable(error, `starting the executor in the sandbox of ${handle.environmentId}`);
    }
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    demuxDockerStream(stream as unknown as Readable, stdout, stderr);
    stderr.on("data", (chunk: Buffer) => process.stderr.write(`[executor ${handle.environmentId}] ${chunk.toString("utf8")}`));
    stream.on("end", () => {
      stdout.end();
      stderr.end();
    });
    stream.on("error", (error) => stdout.destroy(error));
    let executorPid: number | null = null;
    const client = new ExecutorClient(stdout, stream as unknown as NodeJS.WritableStream & import("node:stream").Writable, {
      deadlines: this.options.executorDeadlines,
      onBroken: (reason) => {
        if (executorPid === null) return;
        process.stderr.write(`[executor ${handle.environmentId}] ending executor ${executorPid}: ${reason}\n`);
        void this.reapExecutor(container, executorPid);
      },
    });
    return {
      client,
      ready: (pid) => {
        executorPid = pid;
        return client;
      },
    };
  }

  /** Best effort: the container may be gone, which ends the executor too. */
  private async reapExecutor(container: Docker.Container, pid: number): Promise<void> {
    try {
      const exec = await container.exec({
        Cmd: ["sh", "-c", REAP_EXECUTOR_SCRIPT, "reap-executor", String(pid)],
        User: CONTAINER_USER,
        AttachStdout: true,
        AttachStderr: true,
      });
      const stream = await exec.start({ hijack: true, stdin: false });
      // The script ends within about 2 s; a stream the engine never ends is given up after a container start's deadline.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => stream.destroy(), this.engineTimeoutMs * START_TIMEOUT_FACTOR);
        const ended = () => {
          clearTimeout(timer);
          resolve();
        };
        stream.on("end", ended);
        stream.on("close", ended);
        stream.on("error", ended);
        stream.resume();
      });
    } catch {
      // Nothing left to end.
    }
  }

  async isAlive(handle: SandboxHandle): Promise<boolean> {
    const info = await this.inspect(handle);
    return info?.State.Running === true;
  }

  async ensureRunning(handle: SandboxHandle): Promise<boolean> {
    const info = await this.inspect(handle);
    if (!info) return false;
    if (info.State.Running) return true;
    // A stopped container keeps its files: start it again rather than lose the environment.
    try {
      await withEngineTimeout(
        this.docker.getContainer(handle.sandboxId).start(),
        this.engineTimeoutMs * START_TIMEOUT_FACTOR,
        "starting a sandbox",
      );
    } catch (error) {
      if (isGone(error)) return false;
      // 304: it was started meanwhile (another request got there first).
      if ((error as { statusCode?: number }).statusCode === 304) return true;
      throw engineUnreachable(error, `starting the sandbox of ${handle.environmentId}`);
    }
    return true;
  }

  /** The container's state; null only when the engine answered that it does not exist. */
  private async inspect(handle: SandboxHandle): Promise<Docker.ContainerInspectInfo | null> {
    if (!handle.sandboxId) return null;
    try {
      return await withEngineTimeout(this.docker.getContainer(handle.sandboxId).inspect(), this.engineTimeoutMs, "looking up a sandbox");
    } catch (error) {
      if (isGone(error)) return null;
      throw engineUnreachable(error, `looking up the sandbox of ${handle.environmentId}`);
    }
  }

  async remove(handle: SandboxHandle): Promise<void> {
    // A rename that came after the removal would fail and say so: no more tries, and the one under way ends first.
    const naming = this.namings.get(handle.sandboxId);
    naming?.stop.abort();
    await naming?.done;
    try {
      await this.docker.getContainer(handle.sandboxId).remove({ force: true, v: true });
    } catch (error) {
      if ((error as { statusCode?: number }).statusCode !== 404) throw error;
    }
    if (handle.environmentId) {
      this.channelFolders?.remove(handle.environmentId);
      await this.removeVolumes(handle.environmentId);
      await this.removeForkImage(handle.environmentId);
    }
  }

  async exportFiles(handle: SandboxHandle, folders: readonly string[], maxBytes: number): Promise<Buffer> {
    try {
      return await savedFilesTar(this.docker.getContainer(handle.sandboxId), folders, maxBytes);
    } catch (error) {
      if (error instanceof SandboxFilesTooLargeError) throw error;
      throw engineUnreachable(error, `archiving the files of ${handle.environmentId}`);
    }
  }

  async list(): Promise<SandboxHandle[]> {
    let containers: Docker.ContainerInfo[];
    try {
      containers = await withEngineTimeout(
        this.docker.listContainers({
          all: true,
          filters: { label: [`${LABEL_MANAGED}=true`, `${LABEL_INSTANCE}=${this.options.instance}`] },
        }),
        this.engineTimeoutMs,
        "listing sandboxes",
      );
    } catch (error) {
      throw engineUnreachable(error, "listing sandboxes");
    }
    return containers.map((info) => this.handleOf(info));
  }

  /** A listed container as a handle; a pool container not yet taken (still named as the pool's) is marked pooled. */
  private handleOf(info: Docker.ContainerInfo): SandboxHandle {
    const handle = { sandboxId: info.Id, environmentId: info.Labels[LABEL_ENVIRONMENT] ?? "" };
    const waiting = info.Labels[LABEL_POOLED] === "true" && (info.Names ?? []).some((name) => name.startsWith(`/${this.poolNamePrefix}`));
    return waiting ? { ...handle, pooled: true } : handle;
  }
}
