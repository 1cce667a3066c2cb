// One execution of a trigger: its interaction is created as the trigger's owner would create it (in
// the background), and the execution follows it to its end. A refusal at creation (a 4xx) or an
// interaction that ends failed or cancelled is a failed execution; one still running at
// execution_timeout_seconds is cancelled and `timed_out`.
//
// Time while catching up: when a test moves the clock an hour, every run of that hour is due at once,
// but the emulated timeline must be as if time had passed run by run. [choice] A run takes as much
// emulated time as it takes real time: so a run due while an earlier one is still going waits (in real
// time) for as long as the emulated gap between them leaves, and is `skipped` only if the earlier one
// is still going after that; a timeout is judged the same way. In real time the gap is already spent,
// so nothing waits. [choice] No run waits more than EMULATOR_TRIGGER_CATCH_UP_SECONDS of real time (a
// test that holds a run open sees `skipped` that soon, not after the emulated gap). This is the one place that reads the real clock on purpose: it measures how long
// a run really took, which no clock move can shorten.

import { ApiError } from "../common/errors.js";
import { timestampOf } from "../common/timestamps.js";
import type { OwnerScheduler } from "../common/test-clocks.js";
import type { CreateInteractionRequest } from "../api/create-interaction.js";
import type { InteractionStatus } from "../agent/steps.js";
import { newExecutionId } from "./trigger-ids.js";
import type { ExecutionRecord, ExecutionStatus, TriggerRecord, TriggerStore } from "./trigger-store.js";

/** What executions need of the interactions service (InteractionService implements it). */
export interface TriggeredInteractions {
  create(
    owner: string,
    request: CreateInteractionRequest,
  ): Promise<{
    record: { id: string; environmentId: string | null };
    done: Promise<{ status: InteractionStatus; errors: Array<{ message: string }> }>;
  }>;
  cancel(id: string, owner: string): Promise<unknown>;
}

interface Running {
  execution: ExecutionRecord;
  owner: string;
  startedEmulatedMs: number;
  startedRealMs: number;
  ended: Promise<void>;
  hasEnded: boolean;
  timedOut: boolean;
}

/** How an execution ended, for the trigger's failure count; null for a skipped one (which counts as nothing). */
export type ExecutionOutcome = "success" | "failure";

export class TriggerRuns {
  /** Executions in progress, by trigger ID (a trigger's manual runs may overlap its scheduled ones). */
  private readonly running = new Map<string, Set<Running>>();
  /** How many executions are in progress, all triggers of all keys together. */
  private runningCount = 0;
  /** Set at shutdown: runs the emulator itself stops are recorded as failed but count against no trigger. */
  private closed = false;

  constructor(
    private readonly store: TriggerStore,
    private readonly interactions: TriggeredInteractions,
    /** Each owner's clock: a run's stamps and its timeout are on its trigger owner's. */
    private readonly clocks: OwnerScheduler,
    /** Called once an execution has ended (not for skipped ones). */
    private readonly onEnd: (triggerId: string, outcome: ExecutionOutcome) => void,
    /** EMULATOR_TRIGGER_CATCH_UP_SECONDS, in ms: the longest real wait of endsBy. */
    private readonly catchUpWaitMs: number,
  ) {}

  /**
   * Whether the trigger's runs in progress will have ended by `dueMs` on the emulated timeline (see
   * the top of this file); waits in real time for at most what the emulated gap leaves.
   */
  async idleBy(triggerId: string, dueMs: number): Promise<boolean> {
    const runs = [...(this.running.get(triggerId) ?? [])];
    const results = await Promise.all(runs.map((run) => this.endsBy(run, dueMs)));
    return results.every(Boolean);
  }

  /** Records an execution that did not run because the previous one was still going. */
  skip(trigger: TriggerRecord, scheduledMs: number): ExecutionRecord {
    const now = timestampOf(scheduledMs);
    const execution: ExecutionRecord = {
      id: newExecutionId(),
      triggerId: trigger.id,
      status: "skipped",
      scheduledTime: timestampOf(scheduledMs),
      startTime: now,
      endTime: now,
      error: "The previous execution of this trigger was still running when this one was due.",
    };
    this.store.insertExecution(execution);
    return execution;
  }

  /**
   * Records the runs a clock move did not make up (from `fromMs`, the first of them, until `nowMs`) as
   * one skipped execution that names the span and the bound, as a cron service records missed starts.
   */
  missed(trigger: TriggerRecord, fromMs: number, nowMs: number, nextMs: number | null, bound: string): ExecutionRecord {
    const execution: ExecutionRecord = {
      id: newExecutionId(),
      triggerId: trigger.id,
      status: "skipped",
      scheduledTime: timestampOf(fromMs),
      startTime: timestampOf(nowMs),
      endTime: timestampOf(nowMs),
      error: `The runs due from ${timestampOf(fromMs)} until ${timestampOf(nowMs)} were missed: ${bound}. ${
        nextMs !== null ? `The schedule goes on at ${timestampOf(nextMs)}.` : "The schedule names no later run."
      }`,
    };
    this.store.insertExecution(execution);
    return execution;
  }

  /**
   * Starts an execution; resolves once its interaction was created (or refused), not when it ends.
   * `startMs`: when it starts on the emulated timeline, its scheduled time while the clock catches up.
   */
  async start(trigger: TriggerRecord, scheduledMs: number, startMs: number): Promise<ExecutionRecord> {
    const execution: ExecutionRecord = {
      id: newExecutionId(),
      triggerId: trigger.id,
      status: "in_progress",
      scheduledTime: timestampOf(scheduledMs),
      startTime: timestampOf(startMs),
    };
    const { environment_id: environmentId, interaction } = trigger.config;
    // [choice] The trigger's environment_id, when given, is the environment every execution reuses.
    const request: CreateInteractionRequest = {
      ...interaction,
      background: true,
      ...(environmentId !== undefined ? { environment: environmentId } : {}),
    };
    let run: Awaited<ReturnType<TriggeredInteractions["create"]>>;
    try {
      run = await this.interactions.create(trigger.owner, request);
    } catch (error) {
      execution.status = "failed";
      execution.endTime = this.stamp(trigger.owner);
      execution.error =
        error instanceof ApiError
          ? `The interaction was refused: ${error.message}`
          : `The interaction could not be created: ${(error as Error).message}`;
      this.store.insertExecution(execution);
      this.onEnd(trigger.id, "failure");
      return execution;
    }
    execution.interactionId = run.record.id;
    if (run.record.environmentId) execution.environmentId = run.record.environmentId;
    this.store.insertExecution(execution);

    const running: Running = {
      execution,
      owner: trigger.owner,
      startedEmulatedMs: startMs,
      startedRealMs: Date.now(),
      ended: Promise.resolve(),
      hasEnded: false,
      timedOut: false,
    };
    running.ended = run.done.then(
      (final) => this.finish(running, final.status, final.errors[0]?.message),
      (error: unknown) => this.finish(running, "failed", (error as Error).message),
    );
    const set = this.running.get(trigger.id) ?? new Set<Running>();
    this.running.set(trigger.id, set);
    set.add(running);
    this.runningCount += 1;
    const timeoutSeconds = trigger.config.execution_timeout_seconds;
    if (timeoutSeconds !== undefined) {
      this.clocks.at(trigger.owner, running.startedEmulatedMs + timeoutSeconds * 1000, () => this.timeOut(running, timeoutSeconds));
    }
    return execution;
  }

  private async timeOut(running: Running, timeoutSeconds: number): Promise<void> {
    if (await this.endsBy(running, running.startedEmulatedMs + timeoutSeconds * 1000)) return;
    running.timedOut = true;
    await this.interactions.cancel(running.execution.interactionId!, running.owner).catch(() => undefined);
    await running.ended;
  }

  private finish(running: Running, status: InteractionStatus, message: string | undefined): void {
    running.hasEnded = true;
    const { execution } = running;
    const set = this.running.get(execution.triggerId);
    if (set?.delete(running)) this.runningCount -= 1;
    if (set?.size === 0) this.running.delete(execution.triggerId);
    const outcome: ExecutionStatus = running.timedOut
      ? "timed_out"
      : status === "failed" || status === "cancelled"
        ? "failed"
        : "completed";
    execution.status = outcome;
    execution.endTime = this.stamp(running.owner);
    if (outcome === "timed_out") {
      execution.error = `The interaction was still running after execution_timeout_seconds and was cancelled.`;
    } else if (outcome === "failed") {
      execution.error = `The interaction ended ${status}${message ? `: ${message}` : "."}`;
    }
    // Saved only if the trigger still exists (deleting a trigger deletes its executions).
    if (this.store.saveExecution(execution) && !this.closed)
      this.onEnd(execution.triggerId, outcome === "completed" ? "success" : "failure");
  }

  /** Executions in progress, all triggers of all keys together. */
  get inProgress(): number {
    return this.runningCount;
  }

  close(): void {
    this.closed = true;
  }

  private async endsBy(running: Running, dueMs: number): Promise<boolean> {
    if (running.hasEnded) return true;
    const leftMs = Math.min(dueMs - running.startedEmulatedMs - (Date.now() - running.startedRealMs), this.catchUpWaitMs);
    if (leftMs <= 0) return false;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, leftMs);
      timer.unref();
    });
    await Promise.race([running.ended, late]);
    clearTimeout(timer);
    return running.hasEnded;
  }

  private stamp(owner: string): string {
    return timestampOf(this.clocks.now(owner));
  }
}
