// The /{v}/triggers resource: create, get, list, update (pause, resume, rename), delete, run now, and
// the list of executions; and the schedule: each active trigger has one job on the emulator's
// scheduler, for its next run time, which is stored so a restart schedules it again.

import { checkWebhookMetadata } from "../api/webhook-metadata.js";
import { InvalidArgumentError, NotFoundError } from "../common/errors.js";
import { jsonLengthAtMost } from "../common/json-size.js";
import { decodePageToken, encodePageToken, pageById } from "../common/page-token.js";
import { renderTrigger } from "./render-trigger.js";
import { fieldsToUpdate } from "../common/update-mask.js";
import { nowTimestamp, timestampOf } from "../common/timestamps.js";
import type { OwnerScheduler } from "../common/test-clocks.js";
import { newTriggerId } from "./trigger-ids.js";
import { TriggerRuns, type ExecutionOutcome, type TriggeredInteractions } from "./trigger-runs.js";
import { nextRunAfter } from "./trigger-schedule.js";
import type { CreateTriggerRequest, UpdateTriggerRequest } from "./trigger-schemas.js";
import type { ExecutionRecord, TriggerRecord, TriggerStatus, TriggerStore } from "./trigger-store.js";

const UPDATABLE = ["display_name", "status"] as const;

export class TriggerService {
  /** Trigger ID → the cancel of its next run's job. */
  private readonly jobs = new Map<string, () => void>();
  private readonly runs: TriggerRuns;

  constructor(
    private readonly store: TriggerStore,
    interactions: TriggeredInteractions,
    /** Each owner's clock (docs/clock.md): a trigger runs on its owner's, and only its owner moves it. */
    private readonly clocks: OwnerScheduler,
    private readonly options: {
      catchUpWaitMs: number;
      /** EMULATOR_TRIGGER_MAX_CATCH_UP_RUNS: runs of one trigger one clock move makes up. */
      maxCatchUpRuns: number;
      /** EMULATOR_TRIGGER_MAX_RUNNING: scheduled executions in progress at once, all keys together. */
      maxRunning: number;
      /** EMULATOR_WEBHOOK_METADATA_BYTES: refused at creation, not on every run. */
      maxWebhookMetadataBytes?: number;
    },
  ) {
    this.runs = new TriggerRuns(store, interactions, clocks, (id, outcome) => this.count(id, outcome), options.catchUpWaitMs);
  }

  /**
   * At start: executions that were running when the emulator stopped are failed (their interactions
   * were closed as failed too), and every active trigger is scheduled again. [choice] A trigger whose
   * next run passed while the emulator was down runs once for it, and its schedule goes on from now:
   * the runs missed in between are not made up.
   */
  resume(): void {
    for (const execution of this.store.inProgressExecutions()) {
      execution.status = "failed";
      execution.endTime = nowTimestamp();
      execution.error = "The emulator stopped while this execution was running.";
      this.store.saveExecution(execution);
    }
    for (const trigger of this.store.active()) this.arm(trigger, { missedRunsFromNow: true });
  }

  create(owner: string, request: CreateTriggerRequest): TriggerRecord {
    // What every run would be refused for is refused once, here (each run would fail with the same 400).
    if (this.options.maxWebhookMetadataBytes !== undefined) {
      checkWebhookMetadata(
        request.interaction as { webhook_config?: { user_metadata?: unknown } },
        this.options.maxWebhookMetadataBytes,
        "interaction.",
      );
    }
    const now = this.stamp(owner);
    const { display_name: displayName, ...config } = request;
    const record: TriggerRecord = {
      owner,
      id: newTriggerId(),
      config,
      ...(displayName !== undefined ? { displayName } : {}),
      status: "active",
      consecutiveFailures: 0,
      nextRunMs: this.nextAfter(config, this.clocks.now(owner)),
      createTime: now,
      updateTime: now,
    };
    this.store.insert(record);
    this.arm(record);
    return record;
  }

  get(owner: string, id: string): TriggerRecord {
    const record = this.store.get(owner, id);
    if (!record) throw new NotFoundError(`Trigger ${id} not found.`);
    return record;
  }

  /** A page of at most pageSize triggers and, past the first, about maxBytes of their JSON (EMULATOR_LIST_PAGE_BYTES). */
  list(owner: string, pageSize: number, pageToken: string | undefined, filter: string | undefined, maxBytes: number) {
    const status = statusFilter(filter);
    const { items, nextPageToken } = pageById(pageSize, pageToken, (limit, afterId) => this.store.list(owner, limit, afterId, status), {
      maxBytes,
      sizeOf: (record) => jsonLengthAtMost(renderTrigger(record), maxBytes),
    });
    return { triggers: items, nextPageToken };
  }

  update(owner: string, id: string, changes: UpdateTriggerRequest, updateMask: string | undefined): TriggerRecord {
    const record = this.get(owner, id);
    const given = UPDATABLE.filter((field) => changes[field] !== undefined);
    const masked = fieldsToUpdate(updateMask, given);
    const wrong = masked.filter((field) => !(UPDATABLE as readonly string[]).includes(field));
    if (wrong.length > 0)
      throw new InvalidArgumentError(`Cannot update ${wrong.join(", ")} on a trigger; updatable fields: ${UPDATABLE.join(", ")}.`);
    const now = this.stamp(owner);
    if (masked.includes("display_name")) {
      if (changes.display_name === undefined) delete record.displayName;
      else record.displayName = changes.display_name;
    }
    if (masked.includes("status") && changes.status !== undefined && changes.status !== record.status) {
      if (changes.status === "active") {
        // Resuming (from paused or error) starts the count afresh and the schedule from now.
        record.status = "active";
        record.consecutiveFailures = 0;
        record.lastResumeTime = now;
        record.nextRunMs = this.nextAfter(record.config, this.clocks.now(owner));
      } else if (changes.status === "paused") {
        record.status = "paused";
        record.lastPauseTime = now;
        record.nextRunMs = null;
      }
    }
    record.updateTime = now;
    this.store.save(record);
    this.arm(record);
    return record;
  }

  /** [choice] An execution in progress carries on: its interaction is the owner's like any other. */
  delete(owner: string, id: string): void {
    if (!this.store.delete(owner, id)) throw new NotFoundError(`Trigger ${id} not found.`);
    this.disarm(id);
  }

  /**
   * Runs the trigger now, whatever its status ([choice]: a paused or failed trigger can be tried by
   * hand); the schedule is unchanged. Answers once the interaction is created (or refused).
   */
  async runNow(owner: string, id: string): Promise<ExecutionRecord> {
    const record = this.get(owner, id);
    const now = this.clocks.now(owner);
    return this.startRun(record, now, now);
  }

  executions(owner: string, id: string, pageSize: number, pageToken: string | undefined) {
    this.get(owner, id);
    const beforeSeq = pageToken ? decodePageToken(pageToken, (value): value is number => Number.isSafeInteger(value)) : null;
    const page = this.store.executions(id, pageSize + 1, beforeSeq);
    const executions = page.slice(0, pageSize);
    const more = page.length > pageSize;
    return {
      executions: executions.map((row) => row.execution),
      nextPageToken: more ? encodePageToken(executions[executions.length - 1]!.seq) : "",
    };
  }

  /**
   * Triggers just imported from a state snapshot (docs/state-snapshots.md): [choice] each active one's
   * next run is its schedule's next after the importing emulator's clock now (runs the file's time
   * would have had in between are not made up), and it is scheduled like any other.
   */
  scheduleImported(ids: readonly string[]): void {
    for (const id of ids) {
      const record = this.store.byId(id);
      if (record?.status !== "active") continue;
      record.nextRunMs = this.nextAfter(record.config, this.clocks.now(record.owner));
      this.store.save(record);
      this.arm(record);
    }
  }

  close(): void {
    this.runs.close();
    for (const cancel of this.jobs.values()) cancel();
    this.jobs.clear();
  }

  /**
   * Schedules the trigger's next run (or nothing, if it is not active); replaces any job it had.
   * `caughtUp`: how many runs of this trigger the current catch-up has made (0 when not catching up).
   */
  private arm(record: TriggerRecord, options: { missedRunsFromNow?: boolean; caughtUp?: number } = {}): void {
    this.disarm(record.id);
    if (record.status !== "active" || record.nextRunMs === null) return;
    const scheduledMs = record.nextRunMs;
    const nextFromNow = options.missedRunsFromNow === true && scheduledMs < this.clocks.now(record.owner);
    const caughtUp = options.caughtUp ?? 0;
    this.jobs.set(
      record.id,
      this.clocks.at(record.owner, scheduledMs, () => this.fire(record.id, scheduledMs, nextFromNow, caughtUp)),
    );
  }

  private disarm(id: string): void {
    this.jobs.get(id)?.();
    this.jobs.delete(id);
  }

  /**
   * A scheduled run is due: the next one is scheduled first (from this one's time), then this one runs
   * or is skipped. A move of the clock makes up at most EMULATOR_TRIGGER_MAX_CATCH_UP_RUNS runs of one
   * trigger and EMULATOR_CLOCK_MAX_RUNS_PER_MOVE of its owner's triggers together, and no scheduled run
   * starts while EMULATOR_TRIGGER_MAX_RUNNING executions are in progress; past any of them, the runs
   * still due are recorded as one skipped execution and the schedule goes on after the clock's now.
   */
  private async fire(id: string, scheduledMs: number, nextFromNow: boolean, caughtUp: number): Promise<void> {
    this.jobs.delete(id);
    const record = this.store.byId(id);
    if (record?.status !== "active" || record.nextRunMs !== scheduledMs) return;
    const nowMs = this.clocks.now(record.owner);
    const bound =
      caughtUp >= this.options.maxCatchUpRuns
        ? `one move of the test clock makes up at most ${this.options.maxCatchUpRuns} runs of a trigger (EMULATOR_TRIGGER_MAX_CATCH_UP_RUNS)`
        : !this.clocks.takeMoveRun(record.owner, scheduledMs)
          ? `one move of the test clock makes at most ${this.clocks.maxRunsPerMove} runs of a key's triggers together (EMULATOR_CLOCK_MAX_RUNS_PER_MOVE)`
          : this.runs.inProgress >= this.options.maxRunning
            ? `the emulator already has ${this.runs.inProgress} trigger executions in progress, the most it runs at once (EMULATOR_TRIGGER_MAX_RUNNING)`
            : null;
    if (bound !== null) {
      record.nextRunMs = this.nextAfter(record.config, nowMs);
      this.store.save(record);
      this.arm(record);
      this.runs.missed(record, scheduledMs, nowMs, record.nextRunMs, bound);
      return;
    }
    record.nextRunMs = this.nextAfter(record.config, nextFromNow ? Math.max(scheduledMs, nowMs) : scheduledMs);
    this.store.save(record);
    // Still catching up while the next run is already due too.
    this.arm(record, { caughtUp: record.nextRunMs !== null && record.nextRunMs <= nowMs ? caughtUp + 1 : 0 });
    const idle = await this.runs.idleBy(id, scheduledMs);
    // While it waited, the trigger may have been paused, deleted, or failed into error.
    const current = this.store.byId(id);
    if (current?.status !== "active") return;
    if (!idle) {
      this.runs.skip(current, scheduledMs);
      return;
    }
    // While catching up the run starts at its scheduled time; a run missed while the emulator was down, now.
    const startMs = nextFromNow ? this.clocks.now(current.owner) : scheduledMs;
    await this.startRun(current, scheduledMs, startMs);
  }

  /** Starts an execution, noting on the trigger when it ran and which interaction it made. */
  private async startRun(record: TriggerRecord, scheduledMs: number, startMs: number): Promise<ExecutionRecord> {
    record.lastRunTime = timestampOf(startMs);
    this.store.save(record);
    const execution = await this.runs.start(record, scheduledMs, startMs);
    // Read again: a refusal has already counted against the trigger (and may have stopped it).
    const current = this.store.byId(record.id);
    if (current && execution.interactionId) {
      current.previousInteractionId = execution.interactionId;
      this.store.save(current);
    }
    return execution;
  }

  /** An execution ended: a success clears the count; max_consecutive_failures failures in a row stop the trigger. */
  private count(id: string, outcome: ExecutionOutcome): void {
    const record = this.store.byId(id);
    if (!record) return;
    if (outcome === "success") {
      record.consecutiveFailures = 0;
    } else {
      record.consecutiveFailures += 1;
      const max = record.config.max_consecutive_failures;
      if (max !== undefined && record.consecutiveFailures >= max && record.status === "active") {
        record.status = "error";
        record.nextRunMs = null;
        this.disarm(id);
      }
    }
    record.updateTime = this.stamp(record.owner);
    this.store.save(record);
  }

  private nextAfter(config: CreateTriggerRequest, afterMs: number): number | null {
    return nextRunAfter(config.schedule, config.time_zone, afterMs);
  }

  private stamp(owner: string): string {
    return timestampOf(this.clocks.now(owner));
  }
}

/** [choice] The list's `filter` understands `status=<status>` (also `status = "paused"`); anything else is refused. */
function statusFilter(filter: string | undefined): TriggerStatus | null {
  if (filter === undefined || filter.trim() === "") return null;
  const match = /^\s*status\s*=\s*"?(active|paused|error)"?\s*$/.exec(filter);
  if (!match)
    throw new InvalidArgumentError(
      `filter ${JSON.stringify(filter)} is not understood; filter by status, e.g. status=active, status=paused or status=error.`,
    );
  return match[1] as TriggerStatus;
}
