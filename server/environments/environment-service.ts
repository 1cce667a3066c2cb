// Environments: creating a sandbox for a request, reusing one by ID, and keeping one executor channel
// open per live sandbox.

import type { EnvironmentInput } from "../api/create-interaction.js";
import { environmentRef, idOf } from "../api/resource-names.js";
import { ApiError, FailedPreconditionError, InvalidArgumentError, NotFoundError, UnavailableError } from "../common/errors.js";
import { newEnvironmentId } from "../common/ids.js";
import { RuntimeUnreachableError, SandboxLostError, SandboxUnavailableError } from "../sandbox/runtime.js";
import type { SandboxChannel, SandboxFile, SandboxHandle, SandboxRuntime } from "../sandbox/runtime.js";
import type { CredentialStore } from "../credentials/credential-store.js";
import type { EgressGateway } from "../egress/egress-gateway.js";
import { checkNetwork, egressPolicy, type EgressPolicy } from "../egress/network-config.js";
import {
  checkEnvCredentials,
  envSubstitutions,
  nextEnvCredentials,
  placeholderValues,
  renewPlaceholders,
  type EnvCredentials,
} from "../egress/env-credentials.js";
import { prepareEnvVars } from "../sources/environment-variables.js";
import { prepareSources } from "../sources/inline-sources.js";
import { fetchRemoteSources, type RemoteSourceSettings } from "../sources/remote-sources.js";
import { EnvironmentQuota, type EnvironmentLimits } from "./environment-quota.js";
import type { EnvironmentRecord, EnvironmentStore } from "./environment-store.js";
import { nowTimestamp, timestampOf } from "../common/timestamps.js";
import type { OwnerClock } from "../common/test-clocks.js";
import { resolveTarget } from "../sources/target-path.js";
import { isWithin } from "../common/paths.js";
import { PSEUDO_FOLDERS, USAGE_ROOTS } from "../sandbox/layout.js";
import type { PooledSandbox, SandboxPool } from "../sandbox/sandbox-pool.js";

/** The stored form: no field at all while no variable is backed by a credential. */
function withEnvCredentials(entries: EnvCredentials): { envCredentials?: EnvCredentials } {
  return Object.keys(entries).length > 0 ? { envCredentials: entries } : {};
}

/** Upload destinations remembered per environment beyond USAGE_ROOTS (the oldest are forgotten first). */
const MAX_RECORDED_UPLOADS = 1000;

export interface EnvironmentServiceOptions {
  maxSourcesBytes: number;
  credentials: CredentialStore;
  remoteSources: RemoteSourceSettings;
  /** Routes each sandbox's egress to the proxy; without it sandboxes have no network at all. */
  egress?: EgressGateway;
  /** An environment idle longer than this is removed and becomes "expired". */
  idleTtlMs: number;
  /** How many environments may have a sandbox at once, per API key and in total; unlimited when absent. */
  limits?: EnvironmentLimits;
  /** Warm sandboxes new environments are taken from when they can be (docs/environments-and-files.md#the-warm-pool). */
  pool?: SandboxPool;
  /** Each owner's clock (docs/clock.md): an environment's idle time is on its owner's; default the wall clock. */
  clock?: OwnerClock;
}

export class EnvironmentService {
  private readonly channels = new Map<string, Promise<SandboxChannel>>();
  /**
   * What a record create() just returned holds, known without asking its sandbox (a pooled one taken
   * without sources): the create's answer uses it once. Keyed by that record object, which no other
   * request sees: every other one reads its record from the store.
   */
  private readonly measuredUsage = new WeakMap<EnvironmentRecord, { files: number; bytes: number }>();
  /** Environments an interaction is using right now: never expired under its feet. */
  private readonly inUse = new Map<string, number>();

  private readonly quota: EnvironmentQuota;

  constructor(
    private readonly store: EnvironmentStore,
    private readonly runtime: SandboxRuntime,
    private readonly options: EnvironmentServiceOptions,
  ) {
    this.quota = new EnvironmentQuota(store, options.limits ?? { perKey: Number.POSITIVE_INFINITY, total: Number.POSITIVE_INFINITY });
    runtime.onSandboxLost?.((handle, reason) => this.markLost(handle, reason));
  }

  /**
   * The runtime lost the environment's sandbox with its files (its machine went down): the environment
   * is "lost" for good, its channel dropped, and what is left of the sandbox removed (a node that comes
   * back then has nothing of it to start again).
   */
  private markLost(handle: SandboxHandle, reason: string): void {
    const record = this.store.getById(handle.environmentId);
    if (!record || record.sandboxId !== handle.sandboxId || (record.status !== "active" && record.status !== "creating")) return;
    this.store.update(record.id, { status: "lost", config: { ...record.config, lostReason: reason }, updated: nowTimestamp() });
    const pending = this.channels.get(record.id);
    this.channels.delete(record.id);
    void pending?.then(
      (channel) => channel.close(),
      () => undefined,
    );
    // The service and its secret; should the manager not answer now, the start-up sweep removes them later.
    void this.runtime.remove(handle).catch(() => undefined);
  }

  /** Looks up an environment the owner may use; another owner's environment does not exist for them. */
  getUsable(id: string, owner: string): EnvironmentRecord {
    const record = this.store.get(id, owner);
    if (!record || record.status === "deleted") {
      throw new NotFoundError(`Environment ${id} not found. Pass the environment_id of an earlier interaction made with the same API key.`);
    }
    if (record.status === "lost") {
      throw new FailedPreconditionError(`Environment ${id} is lost: ${record.config.lostReason ?? "its sandbox's machine went down"}.`);
    }
    if (record.status !== "active") {
      throw new FailedPreconditionError(`Environment ${id} is ${record.status}; create a new environment instead.`);
    }
    return record;
  }

  /**
   * Validates the request's environment before anything is created, so a refusal leaves nothing behind.
   * Returns a function that then creates or updates the environment.
   */
  async plan(owner: string, given: string | EnvironmentInput | undefined): Promise<() => Promise<EnvironmentRecord>> {
    // "remote" is a fresh sandbox, as {"type": "remote"} is; any other string names an environment to reuse.
    const ref = typeof given === "string" ? environmentRef(given) : null;
    if (ref && !ref.fresh) {
      const record = this.getUsable(ref.id, owner);
      return async () => this.touch(record);
    }
    const input = typeof given === "string" ? undefined : given;
    const prepared = prepareSources(input?.sources, this.options.maxSourcesBytes);
    const { values: env, credentials: envReferences } = prepareEnvVars(input?.env);
    checkEnvCredentials(envReferences, owner, this.options.credentials);
    const network = input?.network;
    checkNetwork(network, owner, this.options.credentials);
    const existing = input?.environment_id ? this.getUsable(idOf("environments", input.environment_id), owner) : null;
    // A new environment needs room (refused before any source is fetched); checked again when it is made.
    if (!existing) this.quota.check(owner);
    if (existing && prepared.remote.some((source) => source.type === "repository")) {
      throw new InvalidArgumentError(
        "repository sources are mounted read-only when an environment is created; add them in a new environment, not an update",
      );
    }
    // Fetched now, before anything is created or changed: a source that cannot be fetched is a 400.
    const sources = await fetchRemoteSources(prepared, this.options.remoteSources, this.options.maxSourcesBytes);
    if (existing) {
      const record = existing;
      return async () => {
        if (sources.files.length > 0) {
          const channel = await this.channel(record);
          for (const file of sources.files) await channel.writeFile(file.path, file.content, file.mode);
        }
        if (sources.files.length > 0 || Object.keys(env).length > 0 || Object.keys(envReferences).length > 0 || network !== undefined) {
          const { envCredentials: previous, ...config } = record.config;
          const envCredentials = nextEnvCredentials(previous, env, envReferences);
          record.config = {
            ...config,
            sources: [...record.config.sources, ...sources.summary],
            env: { ...record.config.env, ...env, ...placeholderValues(envCredentials) },
            ...withEnvCredentials(envCredentials),
            // A later interaction's network replaces the old policy; the next connection uses it.
            ...(network !== undefined ? { network } : {}),
          };
          this.store.update(record.id, { config: record.config, updated: nowTimestamp() });
        }
        return this.touch(record);
      };
    }
    const envCredentials = nextEnvCredentials(undefined, env, envReferences);
    return this.withRoom(owner, async () => {
      // Repository sources are volumes mounted when a container is created: those need a cold create. A
      // pooled sandbox comes with the ID of its environment (its container is labelled with it).
      const pooled = sources.readOnlyTrees.length === 0 ? await this.fromPool(owner, sources.files) : null;
      const id = pooled?.handle.environmentId ?? newEnvironmentId();
      let handle: SandboxHandle;
      if (pooled) {
        handle = pooled.handle;
      } else {
        try {
          handle = await this.runtime.create({ environmentId: id, owner, files: sources.files, readOnlyTrees: sources.readOnlyTrees });
        } catch (error) {
          // A refusal the runtime words itself (what the swarm runtime cannot do yet) is not a failure to retry.
          if (error instanceof ApiError) throw error;
          throw new UnavailableError(
            `Could not create the sandbox container (${(error as Error).message}); no environment was created. Retry in a moment.`,
          );
        }
      }
      const now = nowTimestamp();
      const record: EnvironmentRecord = {
        id,
        owner,
        status: "active",
        sandboxId: handle.sandboxId,
        config: {
          sources: sources.summary,
          env: { ...env, ...placeholderValues(envCredentials) },
          ...withEnvCredentials(envCredentials),
          ...(network !== undefined ? { network } : {}),
        },
        created: now,
        updated: now,
        lastAccessed: this.clockTimestamp(owner),
      };
      try {
        await this.insertOrRemove(record, handle);
      } catch (error) {
        pooled?.channel.close();
        throw error;
      }
      if (pooled) this.keepChannel(record.id, pooled.channel);
      // Measured while it waited; sources written at the take would add to it.
      if (pooled && sources.files.length === 0) this.measuredUsage.set(record, pooled.usage);
      return record;
    });
  }

  /**
   * A warm sandbox made the sandbox of a new environment of `owner`: its sources written and its egress
   * routed, with its channel (already open) to become the environment's. Null when the pool has none
   * ready, or when taking it fails for any reason (the sandbox is then discarded): the caller creates one
   * cold, so a pool never makes a request fail that a cold create would serve.
   */
  private async fromPool(owner: string, files: SandboxFile[]): Promise<PooledSandbox | null> {
    if (!this.options.pool || !this.runtime.claimPooled) return null;
    const taken: PooledSandbox | null = this.options.pool.take();
    if (!taken) return null;
    const spec = { environmentId: taken.handle.environmentId, owner, files };
    try {
      // At once: the sources go through the engine, the egress listener through the channel.
      const [handle] = await Promise.all([
        this.runtime.claimPooled(taken.handle, spec),
        this.options.egress?.attach(taken.channel, spec.environmentId),
      ]);
      return { handle, channel: taken.channel, usage: taken.usage };
    } catch (error) {
      process.stderr.write(
        `warm pool: could not take sandbox ${taken.handle.sandboxId} (${(error as Error).message}); creating one cold\n`,
      );
      this.options.pool.discard(taken);
      return null;
    }
  }

  /** Makes an open channel the environment's, as channel() would have opened it. */
  private keepChannel(environmentId: string, channel: SandboxChannel): void {
    const kept = Promise.resolve(channel);
    this.channels.set(environmentId, kept);
    void channel.closed.then(() => {
      if (this.channels.get(environmentId) === kept) this.channels.delete(environmentId);
    });
  }

  /** `create`, run while a place for one more environment of `owner` is held (environment-quota.ts). */
  private withRoom(owner: string, create: () => Promise<EnvironmentRecord>): () => Promise<EnvironmentRecord> {
    return async () => {
      const release = this.quota.reserve(owner);
      try {
        return await create();
      } finally {
        release();
      }
    };
  }

  /** Stores a new environment; if that fails, its sandbox goes too, so nothing is left half-created. */
  private async insertOrRemove(record: EnvironmentRecord, handle: SandboxHandle): Promise<EnvironmentRecord> {
    try {
      this.store.insert(record);
    } catch (error) {
      await this.runtime.remove(handle).catch(() => undefined);
      throw error;
    }
    return record;
  }

  /** An environment the owner can see, active or expired; a deleted one, or another owner's, is a 404. */
  getVisible(id: string, owner: string): EnvironmentRecord {
    const record = this.store.get(id, owner);
    if (!record || record.status === "deleted") {
      throw new NotFoundError(`Environment ${id} not found. List yours with GET /{version}/environments.`);
    }
    return record;
  }

  /**
   * A new environment whose sandbox is a copy of `fromId`'s files as they are now, with its variables,
   * sources and network policy (or `network` instead, when given).
   */
  async fork(owner: string, fromId: string, network: EnvironmentInput["network"]): Promise<EnvironmentRecord> {
    const source = this.getUsable(fromId, owner);
    checkNetwork(network, owner, this.options.credentials);
    // Held from here, so a fork counts before its container exists (environment-quota.ts).
    const release = this.quota.reserve(owner);
    return this.using(source.id, async () => {
      // Refuses (and marks expired) a source whose container is gone, before anything is created.
      await this.channel(source);
      const id = newEnvironmentId();
      let handle: SandboxHandle;
      try {
        handle = await this.runtime.fork(
          { sandboxId: source.sandboxId ?? "", environmentId: source.id },
          { environmentId: id, owner, files: [] },
        );
      } catch (error) {
        if (error instanceof ApiError) throw error;
        throw new UnavailableError(`Could not copy the sandbox of environment ${source.id}: ${(error as Error).message}`);
      }
      const now = nowTimestamp();
      const config = structuredClone(source.config);
      // Each environment has its own placeholders: the fork's variables get new ones.
      if (config.envCredentials) {
        config.envCredentials = renewPlaceholders(config.envCredentials);
        config.env = { ...config.env, ...placeholderValues(config.envCredentials) };
      }
      if (network !== undefined) config.network = network;
      const record: EnvironmentRecord = {
        id,
        owner,
        status: "active",
        sandboxId: handle.sandboxId,
        config,
        created: now,
        updated: now,
        lastAccessed: this.clockTimestamp(owner),
      };
      return this.insertOrRemove(record, handle);
    }).finally(release);
  }

  /** A tar of the environment's files under `folders` (a state snapshot's), paths from "/"; refused past maxBytes. */
  async exportFiles(record: EnvironmentRecord, folders: readonly string[], maxBytes: number): Promise<Buffer> {
    if (!this.runtime.exportFiles) throw new UnavailableError(`The ${this.runtime.name} sandbox runtime cannot export a sandbox's files.`);
    if (!record.sandboxId) throw new FailedPreconditionError(`Environment ${record.id} has no sandbox to export.`);
    return this.using(record.id, () =>
      this.runtime.exportFiles!({ sandboxId: record.sandboxId!, environmentId: record.id }, folders, maxBytes),
    );
  }

  /**
   * Fresh sandboxes for environments of a state snapshot, each with its saved files put back, then
   * `store` (which stores their records, given each one's new sandbox ID) while their places in the
   * quota are held. Every place is taken before any sandbox is made, so a key without room is refused
   * with nothing made; a sandbox that cannot be made, or a store that fails, removes every one made.
   */
  async restoreSandboxes(
    owner: string,
    saved: ReadonlyArray<{ id: string; restore: () => import("node:stream").Readable }>,
    store: (sandboxIds: ReadonlyMap<string, string>) => void,
  ): Promise<void> {
    const releases: Array<() => void> = [];
    const made: SandboxHandle[] = [];
    try {
      for (const _ of saved) releases.push(this.quota.reserve(owner));
      for (const environment of saved) {
        try {
          made.push(await this.runtime.create({ environmentId: environment.id, owner, files: [], restore: environment.restore }));
        } catch (error) {
          if (error instanceof ApiError) throw error;
          throw new UnavailableError(
            `Could not create the sandbox of environment ${environment.id} (${(error as Error).message}); nothing was imported. Retry in a moment.`,
          );
        }
      }
      store(new Map(made.map((handle) => [handle.environmentId, handle.sandboxId])));
    } catch (error) {
      for (const handle of made) await this.runtime.remove(handle).catch(() => undefined);
      throw error;
    } finally {
      for (const release of releases) release();
    }
  }

  /** The record as stored now (its status may have changed meanwhile, e.g. to expired). */
  reload(record: EnvironmentRecord): EnvironmentRecord {
    return this.store.getById(record.id) ?? record;
  }

  /** A page of the owner's environments, newest first, after the cursor of the previous page's last one. */
  listPage(owner: string, limit: number, after: { created: string; id: string } | null): EnvironmentRecord[] {
    return this.store.listByOwner(owner, limit, after);
  }

  /** Removes the environment's sandbox; the environment is then gone (404) for every request. */
  async remove(owner: string, id: string): Promise<void> {
    const record = this.getVisible(id, owner);
    const pending = this.channels.get(record.id);
    this.channels.delete(record.id);
    void pending?.then(
      (channel) => channel.close(),
      () => undefined,
    );
    if (record.sandboxId) {
      try {
        await this.runtime.remove({ sandboxId: record.sandboxId, environmentId: record.id });
      } catch (error) {
        throw new UnavailableError(`Could not remove the sandbox of environment ${record.id}: ${(error as Error).message}`);
      }
    }
    // The row stays (interactions refer to it) but is never shown or usable again.
    this.store.update(record.id, { status: "deleted", sandboxId: null, updated: nowTimestamp() });
  }

  /**
   * What the environment holds: regular files (and their bytes) under /workspace and /.agents, its source
   * targets and its upload destinations, each file once. An expired environment holds nothing.
   */
  async usage(record: EnvironmentRecord): Promise<{ files: number; bytes: number }> {
    if (record.status !== "active") return { files: 0, bytes: 0 };
    const measured = this.measuredUsage.get(record);
    if (measured) {
      this.measuredUsage.delete(record);
      return measured;
    }
    const targets = record.config.sources.flatMap((source) => {
      const target = resolveTarget(source.target);
      return target.ok ? [target.path] : [];
    });
    const channel = await this.channel(record);
    return channel.usage([...USAGE_ROOTS, ...targets, ...(record.config.uploads ?? [])], PSEUDO_FOLDERS);
  }

  /** Remembers where an upload placed files, when that is outside the folders usage() always counts. */
  recordUpload(id: string, absolute: string): void {
    const record = this.store.getById(id);
    if (record?.status !== "active") return;
    const covered = [...USAGE_ROOTS, ...(record.config.uploads ?? [])];
    if (covered.some((folder) => isWithin(absolute, folder))) return;
    const uploads = [...(record.config.uploads ?? []), absolute].slice(-MAX_RECORDED_UPLOADS);
    // Bookkeeping, not a change of settings: `updated` stays.
    this.store.update(id, { config: { ...record.config, uploads } });
  }

  /** Now on the owner's clock: idle time is measured on it, so a test that moves its key's clock expires its environments. */
  private clockTimestamp(owner: string): string {
    return timestampOf(this.nowOf(owner));
  }

  private nowOf(owner: string): number {
    return this.options.clock?.now(owner) ?? Date.now();
  }

  private touch(record: EnvironmentRecord): EnvironmentRecord {
    record.lastAccessed = this.clockTimestamp(record.owner);
    this.store.update(record.id, { lastAccessed: record.lastAccessed });
    return record;
  }

  /**
   * The environment's executor channel, opened once and reopened if it closed. The environment expires
   * here only when the runtime positively reports its container gone; an engine that does not answer is
   * a 503 (retried by the SDK) and leaves the environment as it is.
   */
  async channel(record: EnvironmentRecord): Promise<SandboxChannel> {
    const cached = this.channels.get(record.id);
    if (cached) return cached;
    const handle = { sandboxId: record.sandboxId ?? "", environmentId: record.id };
    const opening = (async () => {
      if (!(await this.sandboxExists(record, handle))) {
        const current = this.store.getById(record.id);
        if (current?.status === "lost")
          throw new FailedPreconditionError(`Environment ${record.id} is lost: ${current.config.lostReason}.`);
        this.store.update(record.id, { status: "expired", updated: nowTimestamp() });
        throw new FailedPreconditionError(
          `Environment ${record.id} has expired: its sandbox container is gone (the Docker engine reports it removed). Create a new environment.`,
        );
      }
      let channel: SandboxChannel;
      try {
        channel = await this.runtime.connect(handle);
      } catch (error) {
        throw unavailable(record.id, error);
      }
      void channel.closed.then(() => this.channels.delete(record.id));
      if (this.options.egress) {
        try {
          await this.options.egress.attach(channel, record.id);
        } catch (error) {
          channel.close();
          throw error;
        }
      }
      return channel;
    })();
    this.channels.set(record.id, opening);
    opening.catch(() => this.channels.delete(record.id));
    return opening;
  }

  /** Whether the environment's container exists (started again if it had stopped); a 503 when the engine cannot tell. */
  private async sandboxExists(record: EnvironmentRecord, handle: SandboxHandle): Promise<boolean> {
    if (!record.sandboxId) return false;
    try {
      return await this.runtime.ensureRunning(handle);
    } catch (error) {
      throw unavailable(record.id, error);
    }
  }

  /** The egress policy of a live environment, as of now (network setting and credentials). */
  egressPolicyOf(id: string): EgressPolicy {
    const record = this.store.getById(id);
    if (record?.status !== "active") throw new Error(`environment ${id} is not active`);
    const substitutions = envSubstitutions(record.config.envCredentials, record.owner, this.options.credentials);
    // OAuth2 tokens expire on the owner's clock (docs/clock.md), which the proxy knows only from here.
    const clockOffsetMs = (this.options.clock?.now(record.owner) ?? Date.now()) - Date.now();
    return {
      ...egressPolicy(record.config.network, record.owner, this.options.credentials),
      ...(substitutions.length > 0 ? { substitutions } : {}),
      ...(clockOffsetMs !== 0 ? { clock_offset_ms: clockOffsetMs } : {}),
    };
  }

  /** Marks the environment busy for the duration of `work`, so the idle sweep leaves it alone. */
  async using<T>(id: string, work: () => Promise<T>): Promise<T> {
    this.inUse.set(id, (this.inUse.get(id) ?? 0) + 1);
    try {
      return await work();
    } finally {
      const left = (this.inUse.get(id) ?? 1) - 1;
      if (left > 0) this.inUse.set(id, left);
      else this.inUse.delete(id);
      const record = this.store.getById(id);
      if (record && record.status === "active") this.touch(record);
    }
  }

  /**
   * Removes the sandboxes of environments idle longer than the TTL, each judged on its owner's clock;
   * only `owner`'s when given (after a move of that owner's clock). Returns how many expired.
   */
  async expireIdle(owner?: string): Promise<number> {
    let expired = 0;
    for (const record of this.store.listLive()) {
      if (owner !== undefined && record.owner !== owner) continue;
      if (this.inUse.has(record.id)) continue;
      if (this.nowOf(record.owner) - Date.parse(record.lastAccessed) <= this.options.idleTtlMs) continue;
      if (record.sandboxId) {
        try {
          await this.runtime.remove({ sandboxId: record.sandboxId, environmentId: record.id });
        } catch {
          // The engine did not answer: the sandbox is still there, so the record stays; the next sweep retries.
          continue;
        }
      }
      const pending = this.channels.get(record.id);
      this.channels.delete(record.id);
      void pending?.then(
        (channel) => channel.close(),
        () => undefined,
      );
      this.store.update(record.id, { status: "expired", updated: nowTimestamp() });
      expired += 1;
    }
    return expired;
  }

  /** Runs expireIdle periodically until the returned function is called. */
  startIdleSweep(onError: (error: unknown) => void): () => void {
    const interval = Math.min(60_000, Math.max(200, this.options.idleTtlMs / 4));
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      this.expireIdle()
        .catch(onError)
        .finally(() => (running = false));
    }, interval);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** Closes every open channel (at shutdown); the sandboxes themselves keep running. */
  closeChannels(): void {
    for (const pending of this.channels.values())
      void pending.then(
        (channel) => channel.close(),
        () => undefined,
      );
    this.channels.clear();
  }
}

/** A sandbox that cannot be reached right now, as the 503 a client may retry; the environment is kept. */
function unavailable(environmentId: string, error: unknown): unknown {
  if (error instanceof SandboxLostError) return new FailedPreconditionError(`Environment ${environmentId} is lost: ${error.message}.`);
  if (error instanceof RuntimeUnreachableError) {
    return new UnavailableError(
      `Environment ${environmentId} cannot be reached right now: ${error.message}. The environment and its files are kept; retry in a moment.`,
    );
  }
  if (error instanceof SandboxUnavailableError) {
    return new UnavailableError(`The sandbox of environment ${environmentId} is not answering (${error.message}); retry in a moment.`);
  }
  return error;
}
