// One interaction's run, after everything that could be refused was checked: it emits the events
// (interaction.created … interaction.completed) to its log and builds the interaction from them, so the
// steps a stream describes and the steps stored are one and the same. It can be stopped (cancel,
// shutdown); the running tool or hook is then killed with its process tree.

import { newAgentRun, runCalls, type AgentRun } from "../agent/agent-loop.js";
import { noCallAnswer, reportOutcomes } from "../agent/report.js";
import type { PlanResult } from "../agent/scripted-planner.js";
import { ChannelHookHost } from "../hooks/channel-hook-host.js";
import type { SandboxChannel } from "../sandbox/runtime.js";
import type { EnvironmentRecord } from "../environments/environment-store.js";
import type { InteractionRecord } from "./interaction-store.js";
import { nowTimestamp } from "../common/timestamps.js";
import { SANDBOX_WORKDIR } from "../sandbox/layout.js";
import type { ToolLimits } from "../tools/tool-runner.js";
import { EventLog } from "./event-log.js";
import type { EventError, InteractionEvent, StreamEvent } from "./events.js";
import { renderCreatedSnapshot, renderInteraction } from "./interaction-view.js";
import { applyEvent } from "./step-accumulator.js";
import { StepWriter } from "./step-writer.js";

export interface RunInput {
  /** The interaction as it starts: status in_progress, no steps. */
  record: InteractionRecord;
  inputText: string;
  plan: Exclude<PlanResult, { kind: "invalid" }>;
  environment: EnvironmentRecord | null;
  /** Open when the plan has calls and an environment. */
  channel: SandboxChannel | null;
  codeExecutionEnabled: boolean;
  limits: ToolLimits;
}

export interface RunDependencies {
  /** Called for each event before anyone sees it (the store, for stored interactions). */
  persistEvent(event: StreamEvent, seq: number): void;
  /** Saves the finished interaction; runs inside `atomically` together with the last events. */
  persistFinal(record: InteractionRecord): void;
  atomically<T>(work: () => T): T;
  /** Keeps the environment from expiring while `work` runs. */
  using<T>(environmentId: string, work: () => Promise<T>): Promise<T>;
  /** Called once the run has ended and everything is saved. */
  onFinished(record: InteractionRecord): void;
}

/** Why a run was stopped: a user's cancel, or the emulator shutting down (which fails it). */
export type StopReason = { status: "cancelled" } | { status: "failed"; error: EventError };

export class InteractionRun {
  readonly log: EventLog;
  readonly done: Promise<InteractionRecord>;
  private readonly controller = new AbortController();
  private readonly steps: StepWriter;
  private resolveDone!: (record: InteractionRecord) => void;

  constructor(
    private readonly input: RunInput,
    private readonly deps: RunDependencies,
  ) {
    this.log = new EventLog((event, seq) => deps.persistEvent(event, seq));
    this.steps = new StepWriter((event) => this.emit(event));
    this.done = new Promise((resolve) => (this.resolveDone = resolve));
  }

  /** The live interaction: steps so far (a streaming result holds the output so far). */
  get record(): InteractionRecord {
    return this.input.record;
  }

  get finished(): boolean {
    return this.log.isEnded;
  }

  /**
   * Emits the opening events synchronously (so a response sent right after shows them), then runs the
   * agent in the background. `done` resolves when the interaction has ended, whatever the outcome.
   */
  start(): void {
    const { record } = this.input;
    this.emit({ event_type: "interaction.created", interaction: renderCreatedSnapshot(record) });
    this.emit({ event_type: "interaction.status_update", interaction_id: record.id, status: "in_progress" });
    this.steps.complete({ type: "user_input", content: [{ type: "text", text: this.input.inputText }] });
    void this.execute();
  }

  /** Stops the run; `done` resolves once the running tool was killed and the end was recorded. */
  stop(reason: StopReason): void {
    if (!this.controller.signal.aborted) this.controller.abort(reason);
  }

  private emit(event: InteractionEvent): void {
    // The log first: if persisting fails, the step state stays as the stored events describe it.
    this.log.append(event);
    applyEvent(this.record.steps, event);
  }

  private async execute(): Promise<void> {
    const { plan, environment, channel } = this.input;
    const { signal } = this.controller;
    try {
      if (plan.kind === "none") return this.answerAndFinish(noCallAnswer(plan.understood));
      if (!environment || !channel) return this.answerAndFinish(reportOutcomes([]));
      const run = newAgentRun();
      // The live record shows the hook traces as they are made (the debug API reads them).
      this.record.hookTraces = run.hooks;
      const env = environment.config.env ?? {};
      await this.deps.using(environment.id, () =>
        runCalls(
          {
            calls: plan.calls,
            environmentId: environment.id,
            codeExecutionEnabled: this.input.codeExecutionEnabled,
            channel,
            hooks: new ChannelHookHost(channel, { cwd: SANDBOX_WORKDIR, env }),
            limits: { ...this.input.limits, env },
            steps: this.steps,
            signal,
          },
          run,
        ),
      );
      if (run.stopped || signal.aborted) return this.finishStopped();
      this.finishRun(run, plan.notes);
    } catch (error) {
      if (signal.aborted) return this.finishStopped();
      console.error(`interaction ${this.record.id} failed:`, error);
      const message = `The emulator failed while running this interaction: ${(error as Error)?.message ?? String(error)}`;
      this.closeOpenStep(`\n[${message}]`);
      this.finish("failed", { code: "INTERNAL", message });
    }
  }

  /** Never throws: whatever happens, the run must still reach finish(). */
  private closeOpenStep(tail: string): void {
    try {
      this.steps.closeOpen(tail);
    } catch (error) {
      console.error(`interaction ${this.record.id}: could not close its open step:`, error);
    }
  }

  private finishRun(run: AgentRun, notes: string[] | undefined): void {
    let answer = reportOutcomes(run.outcomes, notes);
    if (run.failure === undefined) return this.answerAndFinish(answer);
    answer += `\n\nThe sandbox stopped answering, so the remaining steps did not run: ${run.failure}`;
    this.steps.text(answer);
    this.finish("failed", { code: "UNAVAILABLE", message: run.failure });
  }

  private answerAndFinish(answer: string): void {
    this.steps.text(answer);
    this.finish("completed");
  }

  /** [choice] A stopped run keeps its steps so far and gets no final model_output. */
  private finishStopped(): void {
    const reason = this.controller.signal.reason as StopReason;
    this.closeOpenStep(`\n[${reason.status === "cancelled" ? "cancelled" : "stopped"}]`);
    if (reason.status === "cancelled") this.finish("cancelled");
    else this.finish("failed", reason.error);
  }

  private finish(status: InteractionRecord["status"], error?: EventError): void {
    const { record } = this;
    record.status = status;
    record.updated = nowTimestamp();
    if (error) record.errors.push(error);
    try {
      this.deps.atomically(() => {
        if (error) this.emit({ event_type: "error", error });
        this.emit({ event_type: "interaction.completed", interaction: structuredClone(renderInteraction(record)) });
        this.deps.persistFinal(record);
      });
    } catch (failure) {
      console.error(`interaction ${record.id}: could not record its end:`, failure);
    } finally {
      this.log.end();
      this.deps.onFinished(record);
      this.resolveDone(record);
    }
  }
}
