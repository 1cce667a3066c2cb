// One API key's state, out to a file and back (docs/state-snapshots.md). Each store exports and imports
// its own rows; this service decides what leaves (secrets only sealed with a passphrase), checks a file
// completely before it creates anything (format, version, IDs already taken, the quota, the disk
// limit), makes the sandboxes, and stores every row in one transaction, so an import either happens
// whole or changes nothing.

import fs from "node:fs";
import type { Readable, Writable } from "node:stream";
import type { AgentStore } from "../agents/agent-store.js";
import type { OwnerClock } from "../common/test-clocks.js";
import { AlreadyExistsError, FailedPreconditionError, InvalidArgumentError } from "../common/errors.js";
import { isoOf, nowTimestamp } from "../common/timestamps.js";
import { SECRET_FIELDS } from "../credentials/credential-service.js";
import type { CredentialStore } from "../credentials/credential-store.js";
import type { EnvironmentService } from "../environments/environment-service.js";
import type { EnvironmentStore } from "../environments/environment-store.js";
import type { InteractionStore } from "../interactions/interaction-store.js";
import { SandboxFilesTooLargeError } from "../sandbox/runtime.js";
import type { Db } from "../store/database.js";
import { existingValues, type StoredRow } from "../store/owned-rows.js";
import type { TriggerService } from "../triggers/trigger-service.js";
import type { TriggerStore } from "../triggers/trigger-store.js";
import { newSigningSecret } from "../webhooks/signing-secret.js";
import type { WebhookStore } from "../webhooks/webhook-store.js";
import { KeyDerivations, SealedDataError, WrongPassphraseError, seal, unseal } from "./secret-box.js";
import { readStateFile, removeReadState, StateBoundError, UnreadableStateError, type ReadStateFile } from "./state-file-reader.js";
import { writeStateFile } from "./state-file-writer.js";
import { checkSavedFiles } from "./saved-files-check.js";
import { savedFoldersOf, sourcesOfRow } from "./saved-folders.js";
import { refuseMismatchedIdentity } from "./record-identity.js";
import {
  STATE_FORMAT,
  STATE_TABLES,
  STATE_VERSION,
  sealedSecretsSchema,
  type SealedSecrets,
  type StateManifest,
  type StateTables,
} from "./state-format.js";
import { inTransaction } from "../store/transactions.js";

export interface StateStores {
  db: Db;
  environments: EnvironmentStore;
  interactions: InteractionStore;
  agents: AgentStore;
  credentials: CredentialStore;
  triggers: TriggerStore;
  webhooks: WebhookStore;
}

export interface StateServiceOptions {
  environments: EnvironmentService;
  triggers: TriggerService;
  /** Each owner's clock: what an import stamps is on the importing owner's. */
  clock: OwnerClock;
  /** EMULATOR_STATE_MAX_BYTES: the file, compressed and not. */
  maxBytes: number;
  /** EMULATOR_STATE_MAX_RECORDS_BYTES, _MAX_RECORDS, _MAX_RESOURCES_PER_KIND: what records.json may hold. */
  records: { maxRecordsBytes: number; maxRecords: number; maxResourcesPerKind: number };
  /** EMULATOR_SANDBOX_DISK_MB in bytes: one environment's saved files, as an upload counts. */
  diskLimitBytes: number;
  /** EMULATOR_STATE_KEY_DERIVATIONS: passphrase key derivations (scrypt) run at once. */
  keyDerivations: number;
  /** EMULATOR_MAX_WEBHOOKS_PER_KEY: an import brings no more than a create could make. */
  maxWebhooksPerKey?: number;
}

export interface ImportReport {
  environments: string[];
  interactions: number;
  agents: string[];
  triggers: string[];
  credentials: Array<{ id: string; status: string }>;
  /** Each webhook; new_signing_secret (shown this once) when the file had none for it. */
  webhooks: Array<{ id: string; new_signing_secret?: string }>;
}

export const MIN_PASSPHRASE_CHARS = 8;

function checkPassphrase(passphrase: string): void {
  if (passphrase.length < MIN_PASSPHRASE_CHARS) {
    throw new InvalidArgumentError(`The passphrase must have at least ${MIN_PASSPHRASE_CHARS} characters.`);
  }
}

export class StateService {
  private readonly derivations: KeyDerivations;

  constructor(
    private readonly stores: StateStores,
    private readonly options: StateServiceOptions,
  ) {
    this.derivations = new KeyDerivations(options.keyDerivations);
  }

  /**
   * The owner's state as a state file, written to `out` once everything is gathered (so a refusal is
   * still an error answer). With a passphrase, the secrets go along, sealed with it.
   */
  async export(owner: string, options: { passphrase?: string }): Promise<(out: Writable) => Promise<void>> {
    if (options.passphrase !== undefined) checkPassphrase(options.passphrase);
    const tables = this.gather(owner);
    const running = tables.interactions
      .filter((row) => row.status === "in_progress" || row.status === "queued")
      .map((row) => String(row.id));
    if (running.length > 0) {
      throw new FailedPreconditionError(
        `Interactions ${running.join(", ")} are still running; export once they have ended (or cancel them), so the file holds a state that can be resumed.`,
      );
    }
    const secrets: SealedSecrets = { credentials: {}, webhook_secrets: tables.webhook_secrets };
    tables.credentials = tables.credentials.map((row) => {
      const config = JSON.parse(String(row.config)) as Record<string, unknown>;
      const kept: Record<string, unknown> = {};
      const taken: Record<string, string> = {};
      for (const [field, value] of Object.entries(config)) {
        if (SECRET_FIELDS.has(field) && typeof value === "string") taken[field] = value;
        else kept[field] = value;
      }
      secrets.credentials[String(row.id)] = taken;
      return { ...row, config: JSON.stringify(kept) };
    });
    tables.webhook_secrets = [];
    const environmentFiles = new Map<string, Buffer>();
    let total = 0;
    for (const row of tables.environments) {
      if (row.status !== "active") continue;
      const record = this.stores.environments.getById(String(row.id));
      if (!record) continue;
      const files = await this.options.environments
        .exportFiles(record, savedFoldersOf(record.config.sources), this.options.maxBytes - total)
        .catch((error: unknown) => {
          if (error instanceof SandboxFilesTooLargeError) {
            throw new FailedPreconditionError(
              `The state of this API key passes EMULATOR_STATE_MAX_BYTES (${this.options.maxBytes} bytes) with the files of environment ${record.id}; delete files or environments, or raise the setting.`,
            );
          }
          throw error;
        });
      total += files.length;
      environmentFiles.set(record.id, files);
    }
    const manifest: StateManifest = {
      format: STATE_FORMAT,
      version: STATE_VERSION,
      created: nowTimestamp(),
      secrets: options.passphrase === undefined ? "left_out" : "sealed",
      environments: [...environmentFiles.keys()],
    };
    const sealedSecrets =
      options.passphrase === undefined ? null : await seal(Buffer.from(JSON.stringify(secrets)), options.passphrase, this.derivations);
    return (out) => writeStateFile({ manifest, tables, sealedSecrets, environmentFiles }, out);
  }

  /** Reads a state file and makes its state the owner's: all of it, or (on any refusal or failure) none. */
  async import(owner: string, input: Readable, options: { passphrase?: string }): Promise<ImportReport> {
    let read: ReadStateFile;
    try {
      read = await readStateFile(input, { maxBytes: this.options.maxBytes, ...this.options.records });
    } catch (error) {
      if (error instanceof StateBoundError) {
        throw new InvalidArgumentError(`This state file passes a bound of this emulator: ${error.message}. Nothing was imported.`);
      }
      if (error instanceof UnreadableStateError) {
        throw new InvalidArgumentError(`This is not a state file this emulator can read: ${error.message}. Nothing was imported.`);
      }
      throw error;
    }
    try {
      return await this.importRead(owner, read, options);
    } finally {
      removeReadState(read);
    }
  }

  private gather(owner: string): StateTables {
    const tables = {
      ...this.stores.environments.exportOwned(owner),
      ...this.stores.interactions.exportOwned(owner),
      ...this.stores.agents.exportOwned(owner),
      ...this.stores.credentials.exportOwned(owner),
      ...this.stores.triggers.exportOwned(owner),
      ...this.stores.webhooks.exportOwned(owner),
    };
    return Object.fromEntries(STATE_TABLES.map((table) => [table, tables[table]])) as StateTables;
  }

  private async importRead(owner: string, read: ReadStateFile, options: { passphrase?: string }): Promise<ImportReport> {
    const tables = read.tables;
    const secrets = await this.openSecrets(read, options.passphrase);
    this.refuseTakenIds(owner, tables);
    refuseLooseRows(tables);
    refuseMismatchedIdentity(tables);
    this.refusePastWebhookLimit(owner, tables.webhooks.length);
    const sourcesById = new Map(tables.environments.map((row) => [String(row.id), sourcesOfRow(row.config)]));
    for (const [id, file] of read.environmentFiles) {
      let size: number;
      try {
        size = await checkSavedFiles(file, id, savedFoldersOf(sourcesById.get(id)));
      } catch (error) {
        if (error instanceof UnreadableStateError) {
          throw new InvalidArgumentError(`This state file cannot be imported: ${error.message}. Nothing was imported.`);
        }
        throw error;
      }
      // The saved files count against the disk limit, as an upload's do.
      if (size > this.options.diskLimitBytes) {
        throw new FailedPreconditionError(
          `The saved files of environment ${id} (${size} bytes) pass this emulator's disk limit per sandbox (EMULATOR_SANDBOX_DISK_MB = ${this.options.diskLimitBytes / 1024 / 1024}); raise it to import this file. Nothing was imported.`,
        );
      }
    }
    const now = isoOf(this.options.clock.now(owner));
    const webhookSecrets: StoredRow[] = [];
    const shownSecrets = new Map<string, string>();
    if (secrets) {
      const webhooks = new Set(tables.webhooks.map((row) => String(row.id)));
      if (secrets.webhook_secrets.some((row) => !webhooks.has(String(row.webhook_id)))) {
        throw new InvalidArgumentError("This state file's sealed secrets name a webhook the file does not hold. Nothing was imported.");
      }
      webhookSecrets.push(...secrets.webhook_secrets);
    } else {
      // [choice] A webhook without its secret gets a new one, shown once in the import's answer.
      for (const row of tables.webhooks) {
        const secret = newSigningSecret();
        shownSecrets.set(String(row.id), secret);
        webhookSecrets.push({ webhook_id: String(row.id), secret, expire_ms: null });
      }
    }
    const credentials = tables.credentials.map((row) => {
      const taken = secrets?.credentials[String(row.id)];
      if (!taken) return row.status === "active" ? { ...row, status: "needs_secret" } : row;
      return { ...row, config: JSON.stringify({ ...JSON.parse(String(row.config)), ...taken }) };
    });
    const saved = read.manifest.environments.map((id) => ({
      id,
      restore: () => fs.createReadStream(read.environmentFiles.get(id)!),
    }));
    const store = (sandboxIds: ReadonlyMap<string, string>) => {
      const environments = tables.environments.map((row) => {
        const sandboxId = sandboxIds.get(String(row.id));
        // An environment without saved files has no sandbox here: it is as an expired one.
        if (sandboxId) return { ...row, status: "active", sandbox_id: sandboxId, last_accessed: now };
        return { ...row, status: row.status === "deleted" ? "deleted" : "expired", sandbox_id: null };
      });
      try {
        inTransaction(this.stores.db, () => {
          this.stores.environments.importOwned({ environments }, owner);
          this.stores.interactions.importOwned(tables, owner);
          this.stores.agents.importOwned(tables, owner);
          this.stores.credentials.importOwned({ credentials }, owner);
          this.stores.triggers.importOwned(tables, owner);
          this.stores.webhooks.importOwned({ webhooks: tables.webhooks, webhook_secrets: webhookSecrets }, owner);
        });
      } catch (error) {
        // The rows are the file's: ones that do not fit the store (a missing parent, a wrong column) are its fault.
        throw new InvalidArgumentError(`The state file's records do not fit together (${(error as Error).message}). Nothing was imported.`);
      }
    };
    await this.options.environments.restoreSandboxes(owner, saved, store);
    this.options.triggers.scheduleImported(tables.triggers.map((row) => String(row.id)));
    return {
      environments: tables.environments.map((row) => String(row.id)),
      interactions: tables.interactions.length,
      agents: tables.agents.map((row) => String(row.id)),
      triggers: tables.triggers.map((row) => String(row.id)),
      credentials: credentials.map((row) => ({ id: String(row.id), status: String(row.status) })),
      webhooks: tables.webhooks.map((row) => {
        const secret = shownSecrets.get(String(row.id));
        return { id: String(row.id), ...(secret ? { new_signing_secret: secret } : {}) };
      }),
    };
  }

  private async openSecrets(read: ReadStateFile, passphrase: string | undefined): Promise<SealedSecrets | null> {
    if (read.manifest.secrets === "left_out") return null;
    if (passphrase === undefined) {
      throw new InvalidArgumentError(
        "This state file holds secrets sealed with a passphrase; give it (passphrase) to import the file. Nothing was imported.",
      );
    }
    let opened: Buffer;
    try {
      opened = await unseal(read.sealedSecrets!, passphrase, this.derivations);
    } catch (error) {
      if (error instanceof WrongPassphraseError) {
        throw new InvalidArgumentError(
          "The passphrase does not open this state file's secrets; give the one it was exported with. Nothing was imported.",
        );
      }
      if (error instanceof SealedDataError)
        throw new InvalidArgumentError(`This state file's secrets cannot be read: ${error.message}. Nothing was imported.`);
      throw error;
    }
    const parsed = sealedSecretsSchema.safeParse(JSON.parse(opened.toString("utf8")));
    if (!parsed.success) throw new InvalidArgumentError("This state file's secrets do not have the expected shape. Nothing was imported.");
    return parsed.data;
  }

  /** The key's webhooks and the file's together stay within what creates could make (deliveries scale with them). */
  private refusePastWebhookLimit(owner: string, imported: number): void {
    const max = this.options.maxWebhooksPerKey;
    if (max === undefined || imported === 0) return;
    const held = this.stores.webhooks.count(owner);
    if (held + imported > max) {
      throw new FailedPreconditionError(
        `This state file holds ${imported} webhooks and this API key already has ${held}: together more than the ${max} one key may have (EMULATOR_MAX_WEBHOOKS_PER_KEY). Delete webhooks first or raise the setting. Nothing was imported.`,
      );
    }
  }

  /** [choice] Every ID must be free: environments, interactions and triggers for any key (their IDs are global), agents, credentials and webhooks for this key. */
  private refuseTakenIds(owner: string, tables: StateTables): void {
    const ids = (table: keyof StateTables) => tables[table].map((row) => String(row.id));
    const taken = [
      ...existingValues(this.stores.db, "environments", "id", ids("environments")),
      ...existingValues(this.stores.db, "interactions", "id", ids("interactions")),
      ...existingValues(this.stores.db, "triggers", "id", ids("triggers")),
      ...existingValues(this.stores.db, "trigger_executions", "id", ids("trigger_executions")),
      ...existingValues(this.stores.db, "agents", "id", ids("agents"), owner),
      ...existingValues(this.stores.db, "credentials", "id", ids("credentials"), owner),
      ...existingValues(this.stores.db, "webhooks", "id", ids("webhooks"), owner),
    ];
    if (taken.length > 0) {
      const shown = taken.slice(0, 10).join(", ") + (taken.length > 10 ? ` and ${taken.length - 10} more` : "");
      throw new AlreadyExistsError(
        `This emulator already has ${shown}: a state file is imported with its IDs kept, so it goes into an emulator (or data folder) that lacks them. Nothing was imported.`,
      );
    }
  }
}

/**
 * *Threat:* a hand-made file whose child rows name a parent it does not hold (steps of another key's
 * interaction, executions of another key's trigger), which the store's foreign keys would accept, or
 * an interaction still running, which no run would ever end. Every child row must name a parent of the
 * file's own, and every interaction must have ended.
 */
function refuseLooseRows(tables: StateTables): void {
  const ids = (table: keyof StateTables) => new Set(tables[table].map((row) => String(row.id)));
  const interactions = ids("interactions");
  const children: Array<[keyof StateTables, string, Set<string>]> = [
    ["steps", "interaction_id", interactions],
    ["hook_traces", "interaction_id", interactions],
    ["interaction_events", "interaction_id", interactions],
    ["agent_uses", "interaction_id", interactions],
    ["trigger_executions", "trigger_id", ids("triggers")],
    ["webhook_secrets", "webhook_id", ids("webhooks")],
  ];
  for (const [table, column, parents] of children) {
    const loose = tables[table].find((row) => !parents.has(String(row[column])));
    if (loose) {
      throw new InvalidArgumentError(
        `This state file's ${table} name ${column} ${String(loose[column])}, which the file does not hold. Nothing was imported.`,
      );
    }
  }
  const running = tables.interactions.find((row) => row.status === "in_progress" || row.status === "queued");
  if (running) {
    throw new InvalidArgumentError(
      `This state file holds interaction ${String(running.id)} as still running; export it once it has ended. Nothing was imported.`,
    );
  }
  const environments = ids("environments");
  const strayEnvironment = tables.interactions.find(
    (row) => row.environment_id !== null && row.environment_id !== undefined && !environments.has(String(row.environment_id)),
  );
  if (strayEnvironment) {
    throw new InvalidArgumentError(
      `This state file's interaction ${String(strayEnvironment.id)} names environment ${String(strayEnvironment.environment_id)}, which the file does not hold. Nothing was imported.`,
    );
  }
}
