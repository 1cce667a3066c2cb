// Wires the parts together: store, sandbox runtime, services and the HTTP API. Used by main.ts and by
// the end-to-end tests, which start the emulator exactly as `npm start` does, on a free port.

import path from "node:path";
import { CoverageService } from "./coverage/coverage-service.js";
import { CoverageStore } from "./coverage/coverage-store.js";
import { agentModelFrom } from "./planners/agent-model.js";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Config } from "./common/config.js";
import { CredentialService } from "./credentials/credential-service.js";
import { CredentialStore } from "./credentials/credential-store.js";
import { AgentService } from "./agents/agent-service.js";
import { AgentStore } from "./agents/agent-store.js";
import { EgressGateway } from "./egress/egress-gateway.js";
import { EgressLogStore } from "./egress/egress-log-store.js";
import { parseRepoMap } from "./sources/repository-source.js";
import { connectEgressProxy } from "./egress/egress-proxy-connection.js";
import { egressFaultLookup } from "./egress/egress-faults.js";
import { FaultPlan, MAX_FAULT_RULES_PER_KEY } from "./faults/fault-plan.js";
import { EnvironmentService } from "./environments/environment-service.js";
import { FileService } from "./files/file-service.js";
import { UploadService } from "./files/upload-service.js";
import { addAcceptHandles, type AcceptHandles } from "./http/accept-handles.js";
import { createApp } from "./http/app.js";
import { InteractionService } from "./interactions/interaction-service.js";
import { DockerRuntime, type SandboxSettings } from "./sandbox/docker/docker-runtime.js";
import type { SandboxRuntime } from "./sandbox/runtime.js";
import { openDatabase, storeFilesIn, storeMayExistIn, type Db } from "./store/database.js";
import { startWalCheckpointer } from "./store/wal-checkpointer.js";
import { WriteBehind } from "./store/write-behind.js";
import { secureDataFolder } from "../proxy/index.js";
import { EnvironmentStore } from "./environments/environment-store.js";
import { EventStore } from "./interactions/event-store.js";
import { InteractionStore } from "./interactions/interaction-store.js";
import { recoverInterrupted } from "./interactions/interaction-recovery.js";
import { reconcileSandboxes } from "./environments/reconcile.js";
import { keepLease, type LeaseKeeper } from "./sandbox/lease-keeper.js";
import { hostIdentity } from "./sandbox/docker/host-identity.js";
import { runtimeHasPool, SandboxPool } from "./sandbox/sandbox-pool.js";
import { SWARM_RUNTIME, SwarmRuntime } from "./sandbox/swarm/swarm-runtime.js";
import { TestClocks } from "./common/test-clocks.js";
import { TriggerService } from "./triggers/trigger-service.js";
import { TriggerStore } from "./triggers/trigger-store.js";
import { WebhookStore } from "./webhooks/webhook-store.js";
import { WebhookDeliveries } from "./webhooks/webhook-deliveries.js";
import { loopbackPortsFor } from "./webhooks/webhook-hosts.js";
import { WebhookService } from "./webhooks/webhook-service.js";
import { InteractionWebhooks } from "./webhooks/interaction-events.js";
import { StateService } from "./snapshots/state-service.js";

export interface RunningEmulator {
  url: string;
  port: number;
  runtime: SandboxRuntime;
  /** Each key's test clock and its scheduled work (docs/clock.md): what POST /emulator/clock moves. */
  clocks: TestClocks;
  /** Webhook deliveries; settled() waits until no attempt runs and none is due (for tests that move the clock). */
  webhookDeliveries: Pick<WebhookDeliveries, "settled">;
  /** State snapshots (docs/state-snapshots.md): what `startEmulator({ state })` imports through. */
  state: Pick<StateService, "import" | "export">;
  close(): Promise<void>;
}

/**
 * What every sandbox runtime takes from the configuration alike: the image, the limits, the engine's
 * bounds, the executor's deadlines and where the channels' secrets live.
 */
function sandboxSettingsOf(config: Config): SandboxSettings & { channelsFolder: string; trustFolder: string } {
  return {
    instance: config.EMULATOR_INSTANCE,
    image: {
      ...(config.EMULATOR_SANDBOX_IMAGE ? { fixedImage: config.EMULATOR_SANDBOX_IMAGE } : {}),
      baseImage: config.EMULATOR_BASE_IMAGE,
      offlineBase: config.EMULATOR_OFFLINE_BASE,
    },
    memoryMb: config.EMULATOR_SANDBOX_MEMORY_MB,
    cpus: config.EMULATOR_SANDBOX_CPUS,
    pids: config.EMULATOR_SANDBOX_PIDS,
    diskMb: config.EMULATOR_SANDBOX_DISK_MB,
    engineTimeoutMs: config.EMULATOR_ENGINE_TIMEOUT_SECONDS * 1000,
    engineMaxCalls: config.EMULATOR_ENGINE_MAX_CALLS,
    engineMaxChanges: config.EMULATOR_ENGINE_MAX_CONTAINER_CHANGES,
    channelsFolder: path.join(config.EMULATOR_DATA_DIR, "channels"),
    trustFolder: path.join(config.EMULATOR_DATA_DIR, "trust"),
    executorDeadlines: {
      graceMs: config.EMULATOR_EXECUTOR_GRACE_SECONDS * 1000,
      fileOperationMs: config.EMULATOR_EXECUTOR_FILE_SECONDS * 1000,
    },
  };
}

/**
 * The Docker runtime for this configuration. `lease: true` (the emulator, and tests that stand in for it)
 * ties every object to the data folder and lets the runtime keep a lease, so that another emulator can
 * clean up once this one is gone for good; a runtime used on its own (the docker tests) leaves no such
 * claim, and another emulator never removes what it made.
 */
export function dockerRuntimeFor(config: Config, options: { lease?: boolean; probeInBackground?: boolean } = {}): DockerRuntime {
  return new DockerRuntime({
    ...sandboxSettingsOf(config),
    ...(options.probeInBackground ? { probeInBackground: true } : {}),
    channel: config.EMULATOR_CHANNEL,
    ...(options.lease
      ? {
          lease: {
            dataDir: config.EMULATOR_DATA_DIR,
            hostId: hostIdentity(),
            leaseMs: config.EMULATOR_SANDBOX_LEASE_SECONDS * 1000,
            storeExists: storeMayExistIn,
          },
        }
      : {}),
    ...(config.EMULATOR_SANDBOX_RUNTIME ? { containerRuntime: config.EMULATOR_SANDBOX_RUNTIME } : {}),
  });
}

/** EMULATOR_SANDBOX_RUNTIME=swarm: sandboxes as Swarm services, DOCKER_HOST a manager (docs/scale-out.md). */
export function swarmRuntimeFor(config: Config): SwarmRuntime {
  return new SwarmRuntime({
    ...sandboxSettingsOf(config),
    network: config.EMULATOR_SWARM_NETWORK,
    constraints: config.EMULATOR_SWARM_CONSTRAINTS,
    taskStartMs: config.EMULATOR_SWARM_TASK_START_SECONDS * 1000,
    nodePollMs: config.EMULATOR_SWARM_NODE_POLL_SECONDS * 1000,
    nodeDownWaitMs: config.EMULATOR_SWARM_NODE_DOWN_SECONDS * 1000,
    channelPingMs: config.EMULATOR_SWARM_CHANNEL_PING_SECONDS * 1000,
    // A fork copies at most what a state snapshot saves.
    forkMaxBytes: config.EMULATOR_STATE_MAX_BYTES,
  });
}

export interface StartOptions {
  runtime?: SandboxRuntime;
  progress?: (line: string) => void;
  /** The fault rules in force (docs/faults.md); tests hand in their own to add rules directly. */
  faults?: FaultPlan;
}

export async function startEmulator(config: Config, options: StartOptions = {}): Promise<RunningEmulator> {
  const progress = options.progress ?? ((line: string) => console.log(line));
  // Its probe containers run while the emulator starts serving; every sandbox waits for them (docs/setup.md#a-warm-start).
  const runtime: SandboxRuntime =
    options.runtime ??
    (config.EMULATOR_SANDBOX_RUNTIME === SWARM_RUNTIME
      ? swarmRuntimeFor(config)
      : dockerRuntimeFor(config, { lease: true, probeInBackground: true }));
  const health = await runtime.health();
  if (!health.ok) {
    throw new Error(
      `${health.detail}\nStart Docker (e.g. \`sudo dockerd &\` or \`sudo systemctl start docker\`), or point DOCKER_HOST at a running engine.`,
    );
  }
  await runtime.prepare(progress);
  // Before any sandbox exists: other emulators on the engine must see this one running first.
  const lease = await keepLease(runtime, config.EMULATOR_SANDBOX_LEASE_SECONDS * 1000, (line) => console.log(line));
  try {
    return await startOnLease(config, options, runtime, lease, progress);
  } catch (error) {
    // A start that fails (an unreadable CA, a port in use) gives its lease back: no volume is left on the engine.
    await lease.stop().catch((failure: unknown) => console.error("giving the sandbox lease back after a failed start:", failure));
    throw error;
  }
}

/** The rest of the start, once this emulator holds its lease on the engine. */
async function startOnLease(
  config: Config,
  options: StartOptions,
  runtime: SandboxRuntime,
  lease: LeaseKeeper,
  progress: (line: string) => void,
): Promise<RunningEmulator> {
  // The store and the CA's key are secrets: the data folder and they are owner-only (docs/security.md#the-data-folder).
  secureDataFolder(
    config.EMULATOR_DATA_DIR,
    { info: (line) => progress(`data folder: ${line}`), warn: (line) => console.warn(`data folder: warning: ${line}`) },
    storeFilesIn(config.EMULATOR_DATA_DIR),
  );
  const db: Db = openDatabase(config.EMULATOR_DATA_DIR);
  const checkpointer = startWalCheckpointer(db, {
    intervalMs: config.EMULATOR_STORE_CHECKPOINT_MS,
    walLimitBytes: config.EMULATOR_STORE_WAL_MAX_MB * 1024 * 1024,
    warn: (line) => console.warn(line),
  });
  // A clock per key (docs/clock.md): what a key owns (trigger runs, webhook retries, environment TTLs,
  // coverage) is on its clock, and POST /emulator/clock moves the caller's only.
  const clocks = new TestClocks({
    maxOffsetMs: config.EMULATOR_CLOCK_MAX_OFFSET_DAYS * 86_400_000,
    maxMovedOwners: config.EMULATOR_CLOCK_MAX_KEYS,
    maxRunsPerMove: config.EMULATOR_CLOCK_MAX_RUNS_PER_MOVE,
  });
  // The fault rules tests set (docs/faults.md): in memory, so a restart starts with none; empty until asked.
  const faults =
    options.faults ??
    new FaultPlan({
      perKey: MAX_FAULT_RULES_PER_KEY,
      total: config.EMULATOR_MAX_FAULT_RULES,
      ruleBytes: config.EMULATOR_FAULT_RULE_MAX_BYTES,
    });
  const environmentStore = new EnvironmentStore(db);
  await reconcileSandboxes(environmentStore, runtime, progress);
  const credentialStore = new CredentialStore(db);
  const egressLog = new EgressLogStore(db, config.EMULATOR_EGRESS_LOG_ENTRIES);

  // Sandboxes reach the egress proxy only through their executor channel (EgressGateway); the proxy
  // trusts only connections that carry the secret.
  const proxy = await connectEgressProxy(
    config,
    (entry) => egressLog.append(entry),
    egressFaultLookup(faults, (environmentId) => environmentStore.getById(environmentId)?.owner ?? null),
  );
  await runtime.trustCertificate?.(proxy.caCertificatePem);
  // After the reconcile above, which would remove a probe container as an orphan.
  runtime.startBackground?.();
  let environments: EnvironmentService | undefined;
  const egress = new EgressGateway(proxy.endpoint, (environmentId) => {
    if (!environments) throw new Error("the emulator is still starting");
    return environments.egressPolicyOf(environmentId);
  });
  // Warm sandboxes for new environments; none on a runtime that cannot keep them (tests' fakes).
  const pool =
    config.EMULATOR_POOL_SIZE > 0 && runtimeHasPool(runtime)
      ? new SandboxPool(runtime, {
          size: config.EMULATOR_POOL_SIZE,
          maxSize: config.EMULATOR_POOL_MAX_SIZE,
          fillConcurrency: config.EMULATOR_POOL_FILL_CONCURRENCY,
          log: (line) => console.log(line),
        })
      : null;
  environments = new EnvironmentService(environmentStore, runtime, {
    maxSourcesBytes: config.EMULATOR_MAX_SOURCES_BYTES,
    credentials: credentialStore,
    remoteSources: {
      repository: {
        map: parseRepoMap(config.EMULATOR_REPO_MAP),
        roots: config.EMULATOR_REPO_ROOTS,
        // The data folder holds the egress CA's key and every key's credential tokens: never a source.
        protectedFolders: [config.EMULATOR_DATA_DIR],
        cloneTimeoutMs: config.EMULATOR_REPO_CLONE_TIMEOUT_SECONDS * 1000,
        // Clones leave through the egress proxy, so they meet its address guard (issue 9).
        egressProxy: proxy.endpoint,
      },
      gcs: {
        emulatorHost: config.STORAGE_EMULATOR_HOST,
        localDir: config.EMULATOR_GCS_DIR,
        protectedFolders: [config.EMULATOR_DATA_DIR],
      },
      maxEntries: config.EMULATOR_MAX_SOURCES_FILES,
    },
    egress,
    idleTtlMs: config.EMULATOR_ENVIRONMENT_TTL_SECONDS * 1000,
    clock: clocks,
    limits: { perKey: config.EMULATOR_MAX_ENVIRONMENTS_PER_KEY, total: config.EMULATOR_MAX_ENVIRONMENTS },
    ...(pool ? { pool } : {}),
  });
  // Filled in the background, after the CA is trusted (pool sandboxes carry it like any other).
  pool?.start();
  const stopIdleSweep = environments.startIdleSweep((error) => console.error("idle environment sweep failed:", error));
  // A move of a key's clock sweeps that key's environments at once, in its scheduler's pass, so POST
  // /emulator/clock answers after it.
  const stopClockSweep = clocks.onMove((owner) => {
    clocks.at(owner, clocks.now(owner), async () => {
      await environments?.expireIdle(owner).catch((error: unknown) => console.error("idle environment sweep failed:", error));
    });
  });
  const webhookStore = new WebhookStore(db);
  webhookStore.dropExpiredSecrets(Date.now());
  const webhookReach = {
    allowedHosts: config.EMULATOR_WEBHOOK_HOSTS,
    loopbackPorts: loopbackPortsFor(config.EMULATOR_WEBHOOK_LOOPBACK_PORTS, config.HOST),
  };
  const webhookDeliveries = new WebhookDeliveries(webhookStore, clocks, {
    reach: webhookReach,
    timeoutMs: config.EMULATOR_WEBHOOK_TIMEOUT_SECONDS * 1000,
    maxResponseBytes: config.EMULATOR_WEBHOOK_RESPONSE_BYTES,
    slots: {
      total: config.EMULATOR_WEBHOOK_CONCURRENCY,
      perKey: config.EMULATOR_WEBHOOK_CONCURRENCY_PER_KEY,
      queue: config.EMULATOR_WEBHOOK_QUEUE,
      queuePerKey: config.EMULATOR_WEBHOOK_QUEUE_PER_KEY,
    },
    keptPerKey: config.EMULATOR_WEBHOOK_DELIVERIES_KEPT,
    faults,
  });
  const webhooks = new WebhookService(webhookStore, webhookDeliveries, clocks, {
    reach: webhookReach,
    maxPerKey: config.EMULATOR_MAX_WEBHOOKS_PER_KEY,
  });
  const interactionWebhooks = new InteractionWebhooks(webhookStore, webhookDeliveries, clocks);
  const resumed = webhookDeliveries.resume();
  if (resumed > 0) progress(`${resumed} webhook deliveries were pending; they are scheduled again`);
  // A run's events and its coverage counts are stored at the end of each turn, several in one commit (store/write-behind.ts).
  const writeBehind = new WriteBehind(db);
  const coverage = new CoverageService(new CoverageStore(db), clocks, (owner, id) => environmentStore.get(id, owner) !== null, writeBehind);
  const interactionStore = new InteractionStore(db);
  const eventStore = new EventStore(db);
  const interrupted = recoverInterrupted(interactionStore, eventStore, (record) => interactionWebhooks.interactionEnded(record));
  if (interrupted > 0) progress(`${interrupted} interaction(s) were running when the emulator stopped; they are marked failed`);
  const agentStore = new AgentStore(db);
  const agents = new AgentService(agentStore, environments);
  const interactions = new InteractionService(interactionStore, eventStore, environments, {
    agents,
    limits: {
      timeoutMs: config.EMULATOR_TOOL_TIMEOUT_SECONDS * 1000,
      maxOutputBytes: config.EMULATOR_TOOL_OUTPUT_BYTES,
      diskLimitMb: config.EMULATOR_SANDBOX_DISK_MB,
    },
    maxTurns: config.EMULATOR_AGENT_MAX_TURNS,
    maxToolCalls: config.EMULATOR_MAX_TOOL_CALLS,
    schemaBounds: {
      maxSchemaChars: config.EMULATOR_MAX_SCHEMA_BYTES,
      instance: { maxValues: config.EMULATOR_MAX_ANSWER_VALUES, maxChars: config.EMULATOR_MAX_ANSWER_BYTES },
      timeoutMs: config.EMULATOR_SCHEMA_TIMEOUT_SECONDS * 1000,
    },
    maxInteractionOutputBytes: config.EMULATOR_MAX_INTERACTION_OUTPUT_BYTES,
    maxWebhookMetadataBytes: config.EMULATOR_WEBHOOK_METADATA_BYTES,
    agentModel: await agentModelFrom(config),
    onEnded: (record) => interactionWebhooks.interactionEnded(record),
    onHookEvaluated: (owner, trace, configs) => coverage.record(owner, trace, configs),
    deferWrite: (write, settled) => writeBehind.defer(write, settled),
    faults,
    mcp: {
      timeoutMs: config.EMULATOR_MCP_TIMEOUT_SECONDS * 1000,
      maxResponseBytes: config.EMULATOR_MCP_RESPONSE_BYTES,
      allowedHosts: config.EMULATOR_MCP_HOSTS,
      list: {
        maxTools: config.EMULATOR_MCP_MAX_TOOLS,
        maxPages: config.EMULATOR_MCP_MAX_LIST_PAGES,
        maxBytes: config.EMULATOR_MCP_MAX_LIST_BYTES,
      },
    },
  });
  const credentials = new CredentialService(credentialStore);
  // After interaction recovery, so the executions that were running see their interactions closed.
  const triggerStore = new TriggerStore(db);
  const triggers = new TriggerService(triggerStore, interactions, clocks, {
    catchUpWaitMs: config.EMULATOR_TRIGGER_CATCH_UP_SECONDS * 1000,
    maxCatchUpRuns: config.EMULATOR_TRIGGER_MAX_CATCH_UP_RUNS,
    maxRunning: config.EMULATOR_TRIGGER_MAX_RUNNING,
    maxWebhookMetadataBytes: config.EMULATOR_WEBHOOK_METADATA_BYTES,
  });
  triggers.resume();
  const files = new FileService(environments, { maxDownloadBytes: config.EMULATOR_MAX_DOWNLOAD_BYTES });
  const uploads = new UploadService(environments, files, { maxUploadBytes: config.EMULATOR_MAX_UPLOAD_BYTES });
  const state = new StateService(
    {
      db,
      environments: environmentStore,
      interactions: interactionStore,
      agents: agentStore,
      credentials: credentialStore,
      triggers: triggerStore,
      webhooks: webhookStore,
    },
    {
      environments,
      triggers,
      clock: clocks,
      maxBytes: config.EMULATOR_STATE_MAX_BYTES,
      records: {
        maxRecordsBytes: config.EMULATOR_STATE_MAX_RECORDS_BYTES,
        maxRecords: config.EMULATOR_STATE_MAX_RECORDS,
        maxResourcesPerKind: config.EMULATOR_STATE_MAX_RESOURCES_PER_KIND,
      },
      diskLimitBytes: config.EMULATOR_SANDBOX_DISK_MB * 1024 * 1024,
      maxWebhooksPerKey: config.EMULATOR_MAX_WEBHOOKS_PER_KEY,
      keyDerivations: config.EMULATOR_STATE_KEY_DERIVATIONS,
    },
  );
  const app = createApp({
    state,
    config,
    interactions,
    credentials,
    agents,
    environments,
    files,
    uploads,
    triggers,
    clocks,
    webhooks: { service: webhooks, store: webhookStore },
    faults,
    debug: { interactions, environments: environmentStore, egressLog },
    coverage,
    health: {
      runtime: () => runtime.health(),
      ...(pool ? { pool: () => pool.state() } : {}),
      activeFaultRules: () => faults.activeCount(),
      store: () => {
        try {
          db.prepare("SELECT 1").get();
          return { ok: true, detail: `SQLite at ${config.EMULATOR_DATA_DIR}` };
        } catch (error) {
          return { ok: false, detail: `store unavailable: ${(error as Error).message}` };
        }
      },
    },
  });

  /**
   * Stops everything started above, in order. Also when the server could not listen (a port in use):
   * the pool's sandboxes, the start-up's probe containers and the lease were already under way, and an
   * emulator that failed to start must leave none of them behind.
   */
  const shutDown = async (server: Server | null) => {
    stopIdleSweep();
    stopClockSweep();
    // Nothing scheduled runs while the emulator shuts down; what is stored is scheduled again at start.
    triggers.close();
    uploads.close();
    // Running interactions end as failed ("the emulator shut down"), so their streams close and a
    // client polling them sees why; whatever is still running after this is marked at the next start.
    await interactions.shutdown(5000);
    // After the shutdown's interaction.failed events are stored: what is in flight goes out at the next start.
    await webhookDeliveries.close();
    clocks.close();
    if (server) {
      const copiesClosed = acceptHandles?.close();
      // Requests still running (a long code_execution) get a short grace period, then are cut off.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const grace = setTimeout(() => server.closeAllConnections(), 5000);
      await closed;
      await copiesClosed;
      clearTimeout(grace);
    }
    environments?.closeChannels();
    // Pool sandboxes never outlive the emulator that started them (what fails here is cleared at the next start).
    await pool?.close();
    await runtime.backgroundSettled?.();
    await lease.stop();
    await proxy.close();
    // Coverage counts held in memory go with the last writes.
    coverage.release();
    writeBehind.flush();
    await checkpointer.stop();
    db.close();
  };

  let server: Server;
  let acceptHandles: AcceptHandles | undefined;
  try {
    server = await new Promise((resolve, reject) => {
      const listening = app.listen(config.PORT, config.HOST, (error?: Error) => {
        if (!error) return resolve(listening);
        const inUse = (error as NodeJS.ErrnoException).code === "EADDRINUSE";
        reject(new Error(inUse ? `${config.HOST}:${config.PORT} is already in use; set PORT to another port` : error.message));
      });
    });
  } catch (error) {
    await shutDown(null).catch((failure: unknown) => console.error("stopping after a failed start:", failure));
    throw error;
  }
  // A burst of new connections to a busy emulator is taken in many per event-loop turn (accept-handles.ts).
  acceptHandles = addAcceptHandles(server, config.EMULATOR_HTTP_ACCEPT_HANDLES, (line) => console.error(line));
  const port = (server.address() as AddressInfo).port;
  const host = config.HOST.includes(":") ? `[${config.HOST}]` : config.HOST;
  return {
    url: `http://${host}:${port}`,
    port,
    runtime,
    clocks,
    webhookDeliveries,
    state,
    close: () => shutDown(server),
  };
}
