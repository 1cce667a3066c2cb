// One interaction's run, after everything that could be refused was checked: it emits the events
// (interaction.created … interaction.completed) to its log and builds the interaction from them, so the
// steps a stream describes and the steps stored are one and the same. It can be stopped (cancel,
// shutdown); the running tool or hook is then killed with its process tree.

import { newAgentRun, runAgent, type AgentEnding, type AgentSandbox } from "../agent/agent-loop.js";
import type { ClientFunctionResult } from "../agent/conversation.js";
import type { Planner } from "../agent/planner.js";
import type { InputStep } from "../agent/steps.js";
import type { UnreadPart } from "../agent/unread-parts.js";
import type { FaultPlan, InjectedFault } from "../faults/fault-plan.js";
import { faultPortFor, injectedMark } from "../faults/fault-port.js";
import { ChannelHookHost } from "../hooks/channel-hook-host.js";
import type { HookEvaluationObserver } from "../hooks/engine.js";
import type { McpServers } from "../mcp/mcp-servers.js";
import type { SandboxChannel } from "../sandbox/runtime.js";
import type { EnvironmentRecord } from "../environments/environment-store.js";
import type { InteractionRecord } from "./interaction-store.js";
import { nowTimestamp } from "../common/timestamps.js";
import { SANDBOX_WORKDIR } from "../sandbox/layout.js";
import type { ToolLimits } from "../tools/tool-runner.js";
import { EventLog, type DeferWrite } from "./event-log.js";
import type { EventError, InteractionEvent, StreamEvent } from "./events.js";
import { renderCompletedSnapshot, renderCreatedSnapshot } from "./interaction-view.js";
import { continuationToken, splitAnswer } from "./continuation.js";
import { applyEvent } from "./step-accumulator.js";
import { StepWriter } from "./step-writer.js";
import { countRequestInput, type TokenTally } from "./usage.js";
import { UsageMeter } from "./usage-meter.js";

export interface RunInput {
  /** The interaction as it starts: status in_progress, no steps. */
  record: InteractionRecord;
  inputText: string;
  /** The steps that record the input verbatim (a user_input step with just `inputText` when absent). */
  inputSteps?: InputStep[];
  /** The input's parts the agent cannot read (images, …), which its answer names. */
  unreadParts?: UnreadPart[];
  /**
   * The client's answers to the previous interaction's function calls: the input is then these
   * function_result steps (recorded first, in place of a user_input step), and the agent goes on with them.
   */
  functionResults?: ClientFunctionResult[];
  /** Ready to plan this run; resumed from the previous interaction's state when the request named one. */
  planner: Planner;
  environment: EnvironmentRecord | null;
  /** Open when the planner needs the sandbox and there is an environment. */
  channel: SandboxChannel | null;
  codeExecutionEnabled: boolean;
  /** The MCP servers the request declared; the run closes them when it has ended. */
  mcp?: McpServers | null;
  limits: ToolLimits;
  /** How often the planner may be asked for a move (the agent loop's default when absent). */
  maxTurns?: number;
  /** How many tool calls the run may make (the agent loop's default when absent). */
  maxToolCalls?: number;
  /** Result bytes the run may record in all (EMULATOR_MAX_INTERACTION_OUTPUT_BYTES); no bound when absent. */
  maxOutputBytes?: number;
  /** The tokens of the request's input (usage.ts); counted from `inputText` when absent. */
  inputUsage?: TokenTally;
  /** The fault rules in force (docs/faults.md): its hooks, tools and channel ask them as the record's owner. */
  faults?: FaultPlan;
  /**
   * How long the run waits `queued` before it starts (the flex service tier, or a fault rule); it
   * starts at once, in_progress, when absent. The record's status is then "queued".
   */
  queueMs?: number;
  /** A fault rule's "incomplete" or "requires_continuation" for this interaction: its answer is cut in two. */
  answerFault?: InjectedFault | null;
}

export interface RunDependencies {
  /**
   * Called for each event before anyone sees it (the store, for stored interactions); a number it
   * returns is the length of the event as stored (event-log.ts counts a stream's lag with it).
   */
  persistEvent(event: StreamEvent, seq: number): unknown;
  /**
   * When present, the events are stored through it at the end of the event loop's turn
   * (store/write-behind.ts), several in one commit and after the next command was sent, and seen
   * once stored; absent, each is stored as it is emitted.
   */
  deferWrite?: DeferWrite;
  /** Saves the finished interaction; runs inside `atomically` together with the last events. */
  persistFinal(record: InteractionRecord): void;
  atomically<T>(work: () => T): T;
  /** Keeps the environment from expiring while `work` runs. */
  using<T>(environmentId: string, work: () => Promise<T>): Promise<T>;
  /** Called once the run has ended and everything is saved. */
  onFinished(record: InteractionRecord): void;
  /** Told of every hook evaluation of the run as it is done, stored interaction or not (hook coverage). */
  onHookEvaluated?: HookEvaluationObserver;
}

/** Why a run was stopped: a user's cancel, or the emulator shutting down (which fails it). */
export type StopReason = { status: "cancelled" } | { status: "failed"; error: EventError };

export class InteractionRun {
  readonly log: EventLog;
  readonly done: Promise<InteractionRecord>;
  private readonly controller = new AbortController();
  private readonly steps: StepWriter;
  private readonly usage: UsageMeter;
  private resolveDone!: (record: InteractionRecord) => void;

  constructor(
    private readonly input: RunInput,
    private readonly deps: RunDependencies,
  ) {
    const { deferWrite } = deps;
    this.log = new EventLog(
      (event, seq) => deps.persistEvent(event, seq),
      deferWrite ? { defer: deferWrite, onFailed: (error) => this.eventsNotStored(error) } : undefined,
    );
    this.usage = new UsageMeter(input.inputUsage ?? countRequestInput({ input: input.inputText }));
    input.record.usage = this.usage.usage;
    this.steps = new StepWriter(
      (event) => this.emit(event),
      input.maxOutputBytes !== undefined ? { maxResultBytes: input.maxOutputBytes } : {},
    );
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
    const { queueMs } = this.input;
    if (queueMs === undefined) this.emit({ event_type: "interaction.status_update", interaction_id: record.id, status: "in_progress" });
    this.recordInput();
    if (queueMs === undefined) {
      void this.execute();
      return;
    }
    // Queued: in_progress once the wait is over; a cancel meanwhile ends it without running.
    const { signal } = this.controller;
    const onAbort = () => {
      clearTimeout(timer);
      this.finishStopped();
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      if (signal.aborted) return;
      record.status = "in_progress";
      record.updated = nowTimestamp();
      this.emit({ event_type: "interaction.status_update", interaction_id: record.id, status: "in_progress" });
      void this.execute();
    }, queueMs);
    signal.addEventListener("abort", onAbort, { once: true });
  }

  /** The steps that record the input (streams leave them out: documented-stream.ts). */
  private recordInput(): void {
    const { record } = this.input;
    const { functionResults } = this.input;
    if (functionResults) {
      // Answers to the previous interaction's calls, as the SDK types them (name filled in, is_error set).
      for (const { callId, name, result, isError } of functionResults) {
        this.steps.complete({ type: "function_result", call_id: callId, name, result, is_error: isError });
      }
    } else {
      const inputSteps = this.input.inputSteps ?? [{ type: "user_input", content: [{ type: "text", text: this.input.inputText }] }];
      // A history's steps are the client's, recorded as sent (docs/api.md#whole-inputs).
      for (const step of inputSteps) this.steps.complete(step);
    }
    // The steps so far stand for the input, whose tokens are counted from the request.
    this.usage.runStepsFrom(record.steps.length);
  }

  /** Stops the run; `done` resolves once the running tool was killed and the end was recorded. */
  stop(reason: StopReason): void {
    if (!this.controller.signal.aborted) this.controller.abort(reason);
  }

  /** Events the store refused (a full disk): the run cannot go on recording, so it ends as failed. */
  private eventsNotStored(error: unknown): void {
    const detail = (error as Error)?.message ?? String(error);
    console.error(`interaction ${this.record.id}: its events could not be stored:`, error);
    this.stop({
      status: "failed",
      error: { code: "api_error", message: `The emulator could not store this interaction's events (${detail}).` },
    });
  }

  private emit(event: InteractionEvent): void {
    const metered = this.usage.observe(event, this.record.steps);
    this.record.usage = this.usage.usage;
    // The log first: if persisting fails, the step state stays as the stored events describe it.
    this.log.append(metered);
    applyEvent(this.record.steps, metered);
  }

  private async execute(): Promise<void> {
    const { planner } = this.input;
    const { signal } = this.controller;
    const run = newAgentRun(this.input.inputText, this.input.unreadParts, this.input.functionResults);
    // The live record shows the hook traces as they are made (the debug API reads them).
    this.record.hookTraces = run.trace;
    try {
      const sandbox = this.sandbox();
      const work = () =>
        runAgent(
          planner,
          {
            sandbox,
            codeExecutionEnabled: this.input.codeExecutionEnabled,
            mcp: this.input.mcp ?? null,
            steps: this.steps,
            signal,
            output: {
              startText: () => this.steps.startText(),
              thought: (text, signature) => this.steps.thought(text, signature),
              reportUsage: (usage) => {
                this.usage.report(usage);
                this.record.usage = this.usage.usage;
              },
            },
            ...(this.input.maxTurns !== undefined ? { maxTurns: this.input.maxTurns } : {}),
            ...(this.input.maxToolCalls !== undefined ? { maxToolCalls: this.input.maxToolCalls } : {}),
          },
          run,
        );
      const ending = await (sandbox ? this.deps.using(sandbox.environmentId, work) : work());
      this.record.plannerState = run.plannerState;
      if (signal.aborted) return this.finishStopped();
      this.finishRun(ending);
    } catch (error) {
      // The loop saves the planner's state however it ends, so a later interaction can still resume it.
      this.record.plannerState = run.plannerState;
      if (signal.aborted) return this.finishStopped();
      console.error(`interaction ${this.record.id} failed:`, error);
      const message = `The emulator failed while running this interaction: ${(error as Error)?.message ?? String(error)}`;
      this.closeOpenStep(`\n[${message}]`);
      this.finish("failed", { code: "api_error", message });
    } finally {
      // After the end is recorded, so a server slow to end its session never delays the answer.
      void this.input.mcp?.close();
    }
  }

  /** Where the agent's tools and hooks run; null when the run has no channel (its planner needs none). */
  private sandbox(): AgentSandbox | null {
    const { environment, channel } = this.input;
    if (!environment || !channel) return null;
    const env = environment.config.env ?? {};
    return {
      environmentId: environment.id,
      channel,
      hooks: new ChannelHookHost(channel, { cwd: SANDBOX_WORKDIR, env }),
      limits: { ...this.input.limits, env },
      ...(this.deps.onHookEvaluated ? { hookObserver: this.deps.onHookEvaluated } : {}),
      ...(this.input.faults ? { faults: faultPortFor(this.input.faults, this.record.owner, environment.id) } : {}),
    };
  }

  /** Never throws: whatever happens, the run must still reach finish(). */
  private closeOpenStep(tail: string): void {
    try {
      this.steps.closeOpen(tail);
    } catch (error) {
      console.error(`interaction ${this.record.id}: could not close its open step:`, error);
    }
  }

  private finishRun(ending: AgentEnding): void {
    switch (ending.kind) {
      case "answered":
        if (this.input.answerFault) return this.cutAnswerAndFinish(ending.written ? "" : ending.text, this.input.answerFault);
        if (ending.written) return this.finish("completed");
        return this.answerAndFinish(ending.text);
      case "planner_failed":
        if (ending.text !== undefined) this.steps.text(ending.text);
        return this.finish(ending.status, ending.error);
      case "asked_client":
        // The function_call steps are recorded; the client answers them in a new interaction.
        return this.finish("requires_action");
      case "stopped":
        return this.finishStopped();
      case "sandbox_failed":
        this.steps.text(ending.text);
        // A lost sandbox took its files with it: running again cannot help, so not the retryable code.
        return this.finish(
          "failed",
          ending.lost
            ? { code: "failed_precondition", message: sandboxLostMessage(this.input.environment?.id, ending.message) }
            : { code: "service_unavailable", message: sandboxFailedMessage(this.input.environment?.id, ending.message) },
        );
      case "turn_limit":
      case "call_limit":
        this.steps.text(ending.text);
        return this.finish("failed", { code: "quota_exceeded", message: ending.text });
    }
  }

  private answerAndFinish(answer: string): void {
    this.steps.text(answer);
    this.finish("completed");
  }

  /**
   * A fault rule's cut (docs/faults.md#interactions): the first half of the answer is written; the run
   * ends incomplete (the rest is lost, as at an output limit) or requires_continuation (the rest is
   * what a create with the token writes). [choice] A model's answer streamed as it came is written
   * whole already: the cut then has nothing left to hold back.
   */
  private cutAnswerAndFinish(answer: string, fault: InjectedFault): void {
    const { head, rest } = splitAnswer(answer);
    if (head !== "") this.steps.text(head);
    if (fault.effect.kind === "requires_continuation") {
      this.record.echo.continuation_token = continuationToken(this.record.id, rest);
      return this.finish("requires_continuation");
    }
    this.finish("incomplete", {
      code: "quota_exceeded",
      message: `The answer was cut short, as at an output limit; the part written is kept${injectedMark(fault)}.`,
    });
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
        // An incomplete interaction did not fail: errors[] says why it stopped, but no error event.
        if (error && status !== "incomplete") this.emit({ event_type: "error", error });
        // [choice] Ending anywhere but completed, failed or cancelled is announced as a status change too
        // (the SDK's status_update carries these statuses, and a continuation_token), right before the
        // final snapshot, which says the same.
        if (ANNOUNCED_ENDINGS.has(status)) {
          const token = record.echo.continuation_token;
          this.emit({
            event_type: "interaction.status_update",
            interaction_id: record.id,
            status,
            ...(status === "requires_continuation" && typeof token === "string" ? { continuation_token: token } : {}),
          });
        }
        // The documentation's interaction.completed carries no steps: they came as step events.
        this.emit({ event_type: "interaction.completed", interaction: renderCompletedSnapshot(record) });
        // The events still waiting for the end of the turn are stored with the final record.
        this.log.flush();
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

/** Ends that get a status_update of their own before interaction.completed. */
const ANNOUNCED_ENDINGS: ReadonlySet<InteractionRecord["status"]> = new Set(["requires_action", "requires_continuation", "incomplete"]);

/**
 * What a run cut off by its sandbox says: what broke, that nothing stored is lost, and what to do. The
 * channel breaks when the container or the Docker engine stops answering; neither removes the
 * environment, which the next request reconnects (or, if its container was removed, reports expired).
 */
/** The sandbox went with its machine (docs/scale-out.md#losing-a-machine): the environment is lost for good. */
function sandboxLostMessage(environmentId: string | undefined, detail: string): string {
  const where = environmentId ? `The sandbox of environment ${environmentId}` : "The sandbox";
  return `${where} is lost (${detail}); the steps so far are kept. The environment cannot be used again: run the interaction in a new environment.`;
}

function sandboxFailedMessage(environmentId: string | undefined, detail: string): string {
  const where = environmentId ? `The sandbox of environment ${environmentId}` : "The sandbox";
  return `${where} stopped answering during the run (${detail}); the steps so far are kept. The environment is not given up: run the interaction again.`;
}
