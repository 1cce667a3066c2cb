// The interactions resource. create: prepare (every refusal, a 4xx, happens here, before anything
// runs), then start a run that emits its events to a log, then store. get / events / cancel / delete
// see a running interaction live and a finished one in the store.

import type { DeferWrite } from "./event-log.js";
import type { HookConfigContent, HookEvaluationObserver } from "../hooks/engine.js";
import type { HookTrace } from "../hooks/trace.js";
import type { FaultPlan } from "../faults/fault-plan.js";
import { faultPortFor } from "../faults/fault-port.js";
import { DEFAULT_MAX_TOOL_CALLS } from "../agent/agent-loop.js";
import type { ClientFunctionResult } from "../agent/conversation.js";
import type { Planner } from "../agent/planner.js";
import type { SchemaBounds } from "../planners/scripted/schema-bounds.js";
import { SCRIPTED, type AgentModel } from "../planners/agent-model.js";
import { choosePlanner } from "../planners/choose-planner.js";
import type { GenerationSettings } from "../planners/model/model-backend.js";
import type { McpServers } from "../mcp/mcp-servers.js";
import type { Step } from "../agent/steps.js";
import { readResponseFormat } from "../agent/response-format.js";
import { ECHOED_FIELDS, type CreateInteractionRequest } from "../api/create-interaction.js";
import { readInput, type ReadInput } from "../api/interaction-input.js";
import { generationConfigSchema } from "../api/generation-config.js";
import { declaredFunctions } from "../api/function-tools.js";
import { mcpServersOf, redactMcpHeaders } from "../api/mcp-server-tools.js";
import { checkWebhookMetadata } from "../api/webhook-metadata.js";
import type { McpListBounds } from "../mcp/mcp-list-bounds.js";
import type { McpServerConfig } from "../mcp/mcp-server-config.js";
import { lazyMcpServers } from "../mcp/lazy-mcp-servers.js";
import type { EnvironmentService } from "../environments/environment-service.js";
import { idOf } from "../api/resource-names.js";
import { FailedPreconditionError, InvalidArgumentError, NotFoundError } from "../common/errors.js";
import { copyJson } from "../common/json-copy.js";
import { yieldToEventLoop } from "../common/event-loop.js";
import { turnShare } from "../common/turn-share.js";
import { newInteractionId } from "../common/ids.js";
import type { SandboxChannel } from "../sandbox/runtime.js";
import type { EnvironmentRecord } from "../environments/environment-store.js";
import type { EventStore } from "./event-store.js";
import type { InteractionReading, InteractionRecord, InteractionStore } from "./interaction-store.js";
import { nowTimestamp } from "../common/timestamps.js";
import type { ToolLimits } from "../tools/tool-runner.js";
import { parseLastEventId, type EventError, type EventFeed } from "./events.js";
import { isEmulatedModel } from "../api/model-names.js";
import { checkAgentOrModel } from "./agent-or-model.js";
import { applyCustomAgent, type CustomAgentRun } from "./custom-agent.js";
import type { AgentService } from "../agents/agent-service.js";
import { isEmulatedAgent } from "../api/agent-names.js";
import { functionResultsFor } from "./function-continuation.js";
import { InteractionRun } from "./interaction-runner.js";
import { eventsOfStoredRecord, replayStoredEvents } from "./replay-events.js";
import { redactNetwork } from "../egress/redact-network.js";
import { redactEnvironmentEcho } from "../environments/redact-env.js";
import { countRequestInput } from "./usage.js";
import { InteractionFeed, type FeedListener } from "./interaction-feed.js";
import type { InteractionListFilter, ListedInteraction, ListPosition } from "./interaction-listing.js";
import { summarizeInteraction } from "./interaction-summary.js";
import { continuationPlanner, continuedAnswer, NO_INPUT } from "./continuation.js";
import { outputEventsOnly } from "./documented-stream.js";
import { inputStepCount } from "./interaction-view.js";

export { EMULATED_AGENT_PREFIX, KNOWN_AGENTS } from "./agent-or-model.js";

export const SHUTDOWN_ERROR: EventError = {
  code: "aborted",
  message:
    "The emulator shut down while this interaction was running, so it did not finish; the steps so far are kept. Create the interaction again.",
};

export interface InteractionServiceOptions {
  limits: ToolLimits;
  /** How often the agent's planner may be asked for a move in one interaction. Default: the agent loop's. */
  maxTurns?: number;
  /** How many tool calls one interaction may make (EMULATOR_MAX_TOOL_CALLS). Default: the agent loop's. */
  maxToolCalls?: number;
  /** What a request's JSON Schemas may cost (EMULATOR_MAX_SCHEMA_BYTES, _MAX_ANSWER_*, _SCHEMA_TIMEOUT_SECONDS). Default: the agent's. */
  schemaBounds?: SchemaBounds;
  /** How long cancel and delete wait for a run to stop before answering anyway. Default 10 s. */
  stopWaitMs?: number;
  /** The MCP client's bounds and reach (EMULATOR_MCP_*). Default: DEFAULT_MCP_OPTIONS. */
  mcp?: McpOptions;
  /** Result bytes one interaction may store in all (EMULATOR_MAX_INTERACTION_OUTPUT_BYTES). Default: no bound. */
  maxInteractionOutputBytes?: number;
  /** Bytes of JSON webhook_config.user_metadata may have (EMULATOR_WEBHOOK_METADATA_BYTES). Default: no bound. */
  maxWebhookMetadataBytes?: number;
  /** How far a live stream's reader may fall behind its run before it is cut off. Default STREAM_LAG_BYTES. */
  streamLagBytes?: number;
  /** Who plans a request without a script (EMULATOR_AGENT_MODEL). Default: scripted. */
  agentModel?: AgentModel;
  /** The custom agents an interaction's `agent` may name (docs/agents.md). Default: none. */
  agents?: Pick<AgentService, "definitionFor" | "recordUse">;
  /** Told of every stored interaction once it has ended and is saved (webhooks deliver its event). */
  onEnded?: InteractionEndListener;
  /** Told of every hook evaluation of every run, stored or not, as it is done (hook coverage counts them). */
  onHookEvaluated?: HookEvaluationListener;
  /** The fault rules in force (docs/faults.md); none are injected when absent. */
  faults?: FaultPlan;
  /** Stores a run's events at the end of each turn of the event loop, several in one commit (store/write-behind.ts); each as it comes when absent. */
  deferWrite?: DeferWrite;
}

/** An evaluation of `owner`'s hooks: the trace and the contents of the hooks.json it decided on. */
export type HookEvaluationListener = (owner: string, trace: HookTrace, configs: readonly HookConfigContent[]) => void;

/** Called after a stored interaction's end is saved, so the interaction a listener names can be read. */
export type InteractionEndListener = (record: InteractionRecord) => void;

/**
 * [choice] How many bytes of a running interaction's new events a stream's reader may have yet to read
 * before it is cut off with an error event (docs/wire-protocol.md#slow-readers). A reader at loopback
 * speed never comes near it; one that stopped reading is let go after this much more output.
 */
export const STREAM_LAG_BYTES = 16 * 1024 * 1024;

export interface McpOptions {
  /** Bound on each request to an MCP server. */
  timeoutMs: number;
  /** Bound on the bytes of one answer of an MCP server. */
  maxResponseBytes: number;
  /** Hosts MCP servers may be on; null for any. */
  allowedHosts: readonly string[] | null;
  /** Bounds on the servers' tool lists (EMULATOR_MCP_MAX_TOOLS, _MAX_LIST_PAGES, _MAX_LIST_BYTES). Default: the MCP client's. */
  list?: McpListBounds;
}

export const DEFAULT_MCP_OPTIONS: McpOptions = { timeoutMs: 60_000, maxResponseBytes: 16 * 1024 * 1024, allowedHosts: null };

interface LiveInteraction {
  run: InteractionRun;
  owner: string;
  /** store: false runs are never written, and are invisible to get and to resuming. */
  stored: boolean;
  /** Deleted while it ran: nothing more is written. */
  deleted: boolean;
}

interface PreparedRun {
  /** The request as it runs: a custom agent's definition merged in (custom-agent.ts). */
  request: CreateInteractionRequest;
  /** The custom agent it names, if any. */
  customAgent: CustomAgentRun | null;
  text: string;
  /** The input read whole: the steps that record it, its shape, and the parts the agent cannot read. */
  input: ReadInput;
  /** The client's answers to the previous interaction's function calls, when the input holds them. */
  functionResults: ClientFunctionResult[] | undefined;
  planner: Planner;
  /** The request's mcp_server tools' connections (nothing connects until used); null when it declares none. */
  mcp: McpServers | null;
  previous: InteractionRecord | null;
  environment: EnvironmentRecord | null;
  channel: SandboxChannel | null;
}

/** The events of a run after which its summary in the live feed changes. */
const FEED_EVENTS: ReadonlySet<string> = new Set([
  "interaction.created",
  "interaction.status_update",
  "step.stop",
  "interaction.completed",
]);

export class InteractionService {
  private readonly live = new Map<string, LiveInteraction>();
  /** Owners' live feeds of their interactions (the dashboard's list). */
  private readonly feed = new InteractionFeed();

  constructor(
    private readonly interactions: InteractionStore,
    private readonly events: EventStore,
    private readonly environments: EnvironmentService,
    private readonly options: InteractionServiceOptions,
  ) {}

  /** The interaction as it is now: live while it runs, from the store once it ended. */
  get(id: string, owner: string): InteractionRecord {
    const live = this.findLive(id, owner);
    if (live?.stored) return live.run.record;
    const record = live ? null : this.interactions.get(id, owner);
    if (!record) throw new NotFoundError(`Interaction ${id} not found.`);
    return record;
  }

  /**
   * The owner's stored interactions, newest first, as summaries; a running one as it is now. `after`:
   * where the previous page ended.
   */
  list(owner: string, filter: InteractionListFilter, limit: number, after: ListPosition | null): ListedInteraction[] {
    return this.interactions.listPage(owner, filter, limit, after).map((listed) => {
      const live = this.findLive(listed.summary.id, owner);
      return live?.stored ? { ...listed, summary: summarizeInteraction(live.run.record) } : listed;
    });
  }

  /** Calls `listener` as the owner's interactions are created, progress, end or are deleted; returns the unsubscribe. */
  watch(owner: string, listener: FeedListener): () => void {
    return this.feed.subscribe(owner, listener);
  }

  /** Validates and prepares the request, then starts the run; the caller waits on `done`, streams `log`, or neither. */
  async create(owner: string, request: CreateInteractionRequest): Promise<InteractionRun> {
    // Parsing the body, reading the input and storing its first events each take a moment for a large
    // request: other requests are let in between them (common/event-loop.ts).
    await yieldToEventLoop();
    // With hundreds of runs at once, a new one waits for a turn's share like their steps (common/turn-share.ts).
    const share = turnShare();
    if (share) await share;
    const prepared = await this.prepare(owner, request);
    await yieldToEventLoop();
    return this.start(owner, prepared);
  }

  /**
   * The interaction for writing out step by step (GET, the cancel answer): a running one as it is now,
   * a stored one with its steps read from the store one at a time. `includeInput` reads it whole
   * (include_input rebuilds the input from its first steps).
   */
  read(id: string, owner: string, options: { includeInput?: boolean } = {}): InteractionReading {
    const live = this.findLive(id, owner);
    if (live?.stored || options.includeInput) {
      const record = this.get(id, owner);
      const steps = live ? stepsAsTheyAreNow(record.steps) : record.steps;
      return { record, steps: () => steps };
    }
    const reading = live ? null : this.interactions.read(id, owner);
    if (!reading) throw new NotFoundError(`Interaction ${id} not found.`);
    return reading;
  }

  /**
   * The events after `lastEventId` (all of them without it), then live ones until the interaction ends.
   * A stored interaction's events come from the store, page by page, also after a restart.
   */
  openEvents(id: string, owner: string, lastEventId: unknown): EventFeed {
    const live = this.findLive(id, owner);
    if (live && !live.stored) throw new NotFoundError(`Interaction ${id} not found (it was created with store: false).`);
    if (live) {
      const afterSeq = this.checkResumePoint(id, parseLastEventId(lastEventId), live.run.log.length, false);
      return this.follow(live.run, afterSeq);
    }
    const inputSteps = (record: InteractionRecord) => inputStepCount(record);
    const reading = this.interactions.read(id, owner);
    if (!reading) throw new NotFoundError(`Interaction ${id} not found.`);
    const afterSeqRaw = parseLastEventId(lastEventId);
    const last = this.events.lastSeq(id);
    if (last === 0) {
      // Stored before streams existed: its events are rebuilt from the whole record.
      const record = this.get(id, owner);
      const events = eventsOfStoredRecord(record);
      const afterSeq = this.checkResumePoint(id, afterSeqRaw, events.length, true);
      return outputEventsOnly(() => toAsync(events.slice(afterSeq)), inputSteps(record));
    }
    const afterSeq = this.checkResumePoint(id, afterSeqRaw, last, true);
    return outputEventsOnly(() => replayStoredEvents(this.events, reading, afterSeq), inputSteps(reading.record));
  }

  /** A run's events from `afterSeq` on as a stream reads them (POST stream: true reads from 0). */
  follow(run: InteractionRun, afterSeq = 0): EventFeed {
    const maxLagBytes = this.options.streamLagBytes ?? STREAM_LAG_BYTES;
    const stored = this.live.get(run.record.id)?.stored ?? true;
    return outputEventsOnly(
      (cutOff) =>
        run.log.follow(afterSeq, {
          maxLagBytes,
          onTooFarBehind: () => cutOff((lastSentId) => tooFarBehind(run.record.id, lastSentId, maxLagBytes, stored)),
        }),
      inputStepCount(run.record),
    );
  }

  /**
   * Stops a running interaction (its running tool or hook is killed with its process tree) and returns
   * it as cancelled. [choice] A finished interaction is returned unchanged.
   */
  async cancel(id: string, owner: string): Promise<InteractionRecord> {
    const live = this.findLive(id, owner);
    if (live) return this.stopLive(live);
    return this.get(id, owner);
  }

  /** Deletes an interaction; a running one is cancelled first. */
  async delete(id: string, owner: string): Promise<void> {
    const live = this.findLive(id, owner);
    if (live) {
      live.deleted = true;
      await this.stopLive(live);
      if (!live.stored) return;
    }
    if (!this.interactions.delete(id, owner) && !live) throw new NotFoundError(`Interaction ${id} not found.`);
    this.feed.publish(owner, { event_type: "interaction.deleted", interaction_id: id });
  }

  /** At shutdown: every running interaction ends as failed, saying why; waits up to `waitMs` for them. */
  async shutdown(waitMs: number): Promise<void> {
    const runs = [...this.live.values()].map((live) => live.run);
    for (const run of runs) run.stop({ status: "failed", error: SHUTDOWN_ERROR });
    await withDeadline(Promise.all(runs.map((run) => run.done)), waitMs);
  }

  private findLive(id: string, owner: string): LiveInteraction | undefined {
    const live = this.live.get(id);
    return live && live.owner === owner ? live : undefined;
  }

  private async stopLive(live: LiveInteraction): Promise<InteractionRecord> {
    live.run.stop({ status: "cancelled" });
    await withDeadline(live.run.done, this.options.stopWaitMs ?? 10_000);
    return live.run.record;
  }

  private checkResumePoint(id: string, afterSeq: number, last: number, finished: boolean): number {
    if (afterSeq <= last) return afterSeq;
    const state = finished ? "it has ended" : "it is running";
    throw new InvalidArgumentError(
      `last_event_id evt_${afterSeq} is past the last event of interaction ${id} (evt_${last}; ${state}); pass the event_id of an event you received.`,
    );
  }

  /** Everything that can be refused is refused here, before a record exists or anything runs. */
  private async prepare(owner: string, given: CreateInteractionRequest): Promise<PreparedRun> {
    const sent = this.agentNamedAsModel(owner, withBareNames(given));
    // A custom agent is resolved first: from here on the request is the one its base agent runs.
    const customAgent = this.customAgentOf(owner, sent);
    const request = customAgent?.request ?? sent;
    checkAgentOrModel(request);
    checkModes(request);
    if (this.options.maxWebhookMetadataBytes !== undefined) checkWebhookMetadata(request, this.options.maxWebhookMetadataBytes);
    const previous = request.previous_interaction_id ? this.get(request.previous_interaction_id, owner) : null;
    if (request.continuation_token !== undefined) return this.prepareContinuation(owner, request, customAgent, previous);
    // Function results must answer exactly the calls the previous interaction waits on (a 400 otherwise).
    const functionResults = functionResultsFor(previous, request.input);
    const input = readInput(request.input);
    const { text } = input;
    const mcpServers = mcpServersOf(request.tools, { allowedHosts: this.mcpOptions.allowedHosts });
    const responseFormat = readResponseFormat(request);
    if (responseFormat.kind === "invalid") throw new InvalidArgumentError(responseFormat.message);
    // A continued conversation resumes the planner from the state its previous interaction kept; one
    // that answers function calls goes on with the rest of the script (or the model's turn) that made them.
    // A script's JSON Schemas are read off the event loop (docs/security.md#bounded-work).
    // The run's environment is known only further down; the MCP calls' fault site reads it when they run.
    const faultSite = { environmentId: null as string | null };
    const mcp = this.openMcpServers(mcpServers, owner, () => faultSite.environmentId);
    const started = await choosePlanner(this.options.agentModel ?? SCRIPTED, {
      inputText: text,
      // The model belongs to no environment: its rules are the key's (fault-rules.ts).
      ...(this.options.faults ? { faults: faultPortFor(this.options.faults, owner, null) } : {}),
      previous: previous?.plannerState,
      functionResults,
      functions: declaredFunctions(request.tools),
      mcpServers: mcpServers.map((server) => server.name),
      mcp,
      responseFormat,
      ...(this.options.schemaBounds ? { schemaBounds: this.options.schemaBounds } : {}),
      runBy: runBy(request),
      codeExecutionEnabled: codeExecutionEnabled(request),
      codeExecutionListed: request.tools?.some((tool) => tool.type === "code_execution") ?? false,
      ...(request.system_instruction !== undefined ? { system: request.system_instruction } : {}),
      ...generationOf(request),
    });
    if (started.kind === "invalid") {
      void mcp?.close();
      throw new InvalidArgumentError(`${started.field ?? "input"}: ${started.message}`);
    }
    const { planner } = started;
    this.checkPlannedCalls(planner);

    // [choice] With no `environment`, a continued conversation stays in its environment, and a new
    // one that needs tools gets a fresh sandbox.
    const environmentInput =
      request.environment ?? previous?.environmentId ?? (planner.needsSandbox ? { type: "remote" as const } : undefined);
    const openEnvironment = customAgent?.fork
      ? this.planFork(owner, customAgent)
      : environmentInput === undefined
        ? null
        : await this.environments.plan(owner, environmentInput);
    const environment = openEnvironment ? await openEnvironment() : null;
    faultSite.environmentId = environment?.id ?? null;
    // Opened before the run so an expired environment is refused up front, not mid-run.
    const channel = planner.needsSandbox && environment ? await this.environments.channel(environment) : null;
    return { request, customAgent, text, input, functionResults, planner, mcp, previous, environment, channel };
  }

  /**
   * A create with a continuation_token: the rest of the answer it holds, in the previous interaction's
   * environment and conversation (continuation.ts). The input, when resent (store: false), is the one
   * the token's interaction already read.
   */
  private async prepareContinuation(
    owner: string,
    request: CreateInteractionRequest,
    customAgent: CustomAgentRun | null,
    previous: InteractionRecord | null,
  ): Promise<PreparedRun> {
    const rest = continuedAnswer(request, previous);
    // Nothing runs in the sandbox: an environment gone meanwhile leaves the continuation without one.
    const environment = previous?.environmentId ? this.usableOrNull(previous.environmentId, owner) : null;
    return {
      request,
      customAgent,
      text: "",
      input: NO_INPUT,
      functionResults: undefined,
      planner: continuationPlanner(rest, previous?.plannerState),
      mcp: null,
      previous,
      environment,
      channel: null,
    };
  }

  private usableOrNull(id: string, owner: string): EnvironmentRecord | null {
    try {
      return this.environments.getUsable(id, owner);
    } catch {
      return null;
    }
  }

  /**
   * [choice] An agent named in `model` runs as that agent, as if named in `agent` (and is echoed so): the
   * background execution page chains two interactions with `model: "antigravity-preview-05-2026"`
   * (docs/fidelity.md, "an agent named as `model`"). A name that is also a model stays a model.
   */
  private agentNamedAsModel(owner: string, request: CreateInteractionRequest): CreateInteractionRequest {
    const { model, ...rest } = request;
    if (model === undefined || request.agent !== undefined || isEmulatedModel(model)) return request;
    const custom = this.options.agents?.definitionFor(owner, model, request.previous_interaction_id ?? null);
    return isEmulatedAgent(model) || custom ? ({ ...rest, agent: model } as CreateInteractionRequest) : request;
  }

  /** The run of the custom agent the request names; null when it names an emulated agent, a model, or no agent of the owner's. */
  private customAgentOf(owner: string, sent: CreateInteractionRequest): CustomAgentRun | null {
    if (!this.options.agents || sent.agent === undefined || isEmulatedAgent(sent.agent)) return null;
    const definition = this.options.agents.definitionFor(owner, sent.agent, sent.previous_interaction_id ?? null);
    return definition ? applyCustomAgent(sent, definition) : null;
  }

  /** A fresh fork of the custom agent's base environment, refused up front when that environment is gone. */
  private planFork(owner: string, run: CustomAgentRun): () => Promise<EnvironmentRecord> {
    const { from, network } = run.fork!;
    try {
      this.environments.getUsable(from, owner);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new FailedPreconditionError(
        `agent ${run.definition.id} starts from a fork of its base_environment ${from}, which cannot be forked: ${why} Create the agent again with a base environment that exists (or an environment config), or pass an environment ID to reuse.`,
      );
    }
    return () => this.environments.fork(owner, from, network);
  }

  private get mcpOptions(): McpOptions {
    return this.options.mcp ?? DEFAULT_MCP_OPTIONS;
  }

  /** The run's MCP servers; nothing connects until the agent calls one. */
  private openMcpServers(servers: McpServerConfig[], owner: string, environmentId: () => string | null) {
    if (servers.length === 0) return null;
    const { timeoutMs, maxResponseBytes, list } = this.mcpOptions;
    return lazyMcpServers(servers, {
      timeoutMs,
      maxResponseBytes,
      maxResultBytes: this.options.limits.maxOutputBytes,
      ...(list ? { list } : {}),
      ...(this.options.faults ? { faults: { plan: this.options.faults, owner, environmentId } } : {}),
    });
  }

  /** A script with more calls than one interaction may make is refused before anything exists. */
  private checkPlannedCalls(planner: Planner): void {
    const max = this.options.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS;
    const planned = planner.plannedCalls ?? 0;
    if (planned > max) {
      throw new InvalidArgumentError(
        `input: the request asks for ${planned} tool calls, more than one interaction may make (EMULATOR_MAX_TOOL_CALLS = ${max}). ` +
          "Split the calls over several interactions (previous_interaction_id continues in the same environment), do the repetitive part in one code_execution call, or raise EMULATOR_MAX_TOOL_CALLS.",
      );
    }
  }

  private start(owner: string, prepared: PreparedRun): InteractionRun {
    const { request, customAgent } = prepared;
    const created = nowTimestamp();
    const echo = customAgent ? { ...echoOf(request), agent: customAgent.definition.id } : echoOf(request);
    const fault = this.interactionFault(owner, prepared.environment?.id ?? null, echo);
    // Queued before it runs: on the flex tier (at once), or as long as a fault rule says.
    const queueMs = fault?.effect.kind === "queued" ? (fault.effect.ms ?? 0) : request.service_tier === "flex" ? 0 : undefined;
    const answerFault = fault?.effect.kind === "incomplete" || fault?.effect.kind === "requires_continuation" ? fault : null;
    const record: InteractionRecord = {
      id: newInteractionId(),
      owner,
      status: queueMs !== undefined ? "queued" : "in_progress",
      environmentId: prepared.environment?.id ?? null,
      previousInteractionId: prepared.previous?.id ?? null,
      // A custom agent's interaction echoes its name, with the fields it ran with.
      echo,
      errors: [],
      created,
      updated: created,
      steps: [],
      hookTraces: [],
      inputShape: prepared.input.shape,
    };
    const stored = request.store !== false;
    const writes = () => stored && !live.deleted;
    const run = new InteractionRun(
      {
        record,
        inputText: prepared.text,
        inputSteps: prepared.input.steps,
        unreadParts: prepared.input.unread,
        ...(prepared.functionResults ? { functionResults: prepared.functionResults } : {}),
        planner: prepared.planner,
        environment: prepared.environment,
        channel: prepared.channel,
        codeExecutionEnabled: codeExecutionEnabled(request),
        mcp: prepared.mcp,
        limits: this.options.limits,
        inputUsage: countRequestInput(request),
        ...(this.options.faults ? { faults: this.options.faults } : {}),
        ...(queueMs !== undefined ? { queueMs } : {}),
        answerFault,
        ...(this.options.maxTurns !== undefined ? { maxTurns: this.options.maxTurns } : {}),
        ...(this.options.maxToolCalls !== undefined ? { maxToolCalls: this.options.maxToolCalls } : {}),
        ...(this.options.maxInteractionOutputBytes !== undefined ? { maxOutputBytes: this.options.maxInteractionOutputBytes } : {}),
      },
      {
        persistEvent: (event, seq) => (writes() ? this.events.append(record.id, seq, event) : undefined),
        ...(this.options.deferWrite ? { deferWrite: this.options.deferWrite } : {}),
        persistFinal: (final) => {
          // Its steps were stored as its events, one by one, as they happened.
          if (writes()) this.interactions.save(final, { stepsInEvents: true });
        },
        atomically: (work) => (writes() ? this.interactions.atomically(work) : work()),
        using: (environmentId, work) => this.environments.using(environmentId, work),
        onFinished: (final) => {
          this.live.delete(record.id);
          if (writes()) this.notifyEnded(final);
        },
        ...(this.options.onHookEvaluated ? { onHookEvaluated: this.hookListenerFor(owner, this.options.onHookEvaluated) } : {}),
      },
    );
    const live: LiveInteraction = { run, owner, stored, deleted: false };
    // Saved first (status in_progress) so its events can refer to it, and a restart finds it.
    if (stored) this.interactions.save(record);
    if (stored && customAgent) this.options.agents?.recordUse(record.id, owner, customAgent.definition);
    this.live.set(record.id, live);
    if (stored) this.publishProgress(live);
    run.start();
    return run;
  }

  /** A fault rule for the interaction as a whole (docs/faults.md#interactions), taken as it starts. */
  private interactionFault(owner: string, environmentId: string | null, echo: Record<string, unknown>) {
    if (!this.options.faults?.hasRules(owner)) return null;
    const name = (field: string) => (typeof echo[field] === "string" ? (echo[field] as string) : null);
    return this.options.faults.take({ owner, environmentId, site: { kind: "interaction", agent: name("agent"), model: name("model") } });
  }

  /** The run's observer of its hook evaluations, for its owner (the engine logs a listener's failure). */
  private hookListenerFor(owner: string, listener: HookEvaluationListener): HookEvaluationObserver {
    return (trace, configs) => listener(owner, trace, configs);
  }

  /** A listener's failure is logged: it never changes how the interaction ended. */
  private notifyEnded(final: InteractionRecord): void {
    try {
      this.options.onEnded?.(final);
    } catch (error) {
      console.error(`interaction ${final.id}: a listener of its end failed:`, error);
    }
  }

  /**
   * Puts the run's summary on its owner's feed as it changes: when it is created, after each step and at
   * its end. Several changes in one synchronous stretch (the opening events, the last events) make one
   * summary, computed only when someone listens.
   */
  private publishProgress(live: LiveInteraction): void {
    let queued = false;
    const publish = () => {
      queued = false;
      if (live.deleted || !this.feed.hasListeners(live.owner)) return;
      this.feed.publish(live.owner, { event_type: "interaction.summary", interaction: summarizeInteraction(live.run.record) });
    };
    const soon = () => {
      if (queued) return;
      queued = true;
      queueMicrotask(publish);
    };
    live.run.log.subscribe(0, {
      event: (event) => {
        if (FEED_EVENTS.has(event.event_type)) soon();
      },
      end: soon,
    });
  }
}

/** Combinations that could never give the caller a result. */
function checkModes(request: CreateInteractionRequest): void {
  if (request.background === true && request.store === false) {
    throw new InvalidArgumentError(
      "background: true needs the interaction to be stored, but store is false: a background interaction can only be read with GET, and store: false keeps nothing to read. Leave store out (or true), or drop background.",
    );
  }
}

/** Who runs the interaction, for the planner: an agent (with agent_config's model and budget) or a model. */
function runBy(request: CreateInteractionRequest) {
  if (request.model !== undefined) return { kind: "model" as const, model: request.model };
  const config = (request.agent_config ?? {}) as { model?: unknown; max_total_tokens?: unknown };
  const budget = Number(config.max_total_tokens);
  if (config.max_total_tokens !== undefined && !(Number.isSafeInteger(budget) && budget > 0)) {
    throw new InvalidArgumentError(
      `agent_config.max_total_tokens must be a positive whole number of tokens (the SDK sends it as a string, e.g. "100000"), not ${JSON.stringify(config.max_total_tokens)}.`,
    );
  }
  return {
    kind: "agent" as const,
    ...(typeof config.model === "string" && config.model !== "" ? { model: config.model } : {}),
    ...(config.max_total_tokens !== undefined ? { maxTotalTokens: budget } : {}),
  };
}

/** A model interaction's generation_config, in the fields a model backend passes on (the rest it cannot use). */
function generationOf(request: CreateInteractionRequest): { generation?: GenerationSettings } {
  // Read with the schema that checked it (checkAgentOrModel): one definition of GenerationConfig.
  const parsed = generationConfigSchema.safeParse((request as { generation_config?: unknown }).generation_config);
  if (!parsed.success || parsed.data === undefined) return {};
  const { temperature, top_p, seed, max_output_tokens, stop_sequences, thinking_level } = parsed.data;
  const picked = { temperature, top_p, seed, max_output_tokens, stop_sequences, thinking_level };
  return { generation: Object.fromEntries(Object.entries(picked).filter(([, value]) => value !== undefined)) as GenerationSettings };
}

/**
 * The request with its agent, model and previous interaction named by ID: "agents/x", "models/x" and
 * "interactions/x" name x (resource-names.ts). The interaction echoes the bare names.
 */
function withBareNames(request: CreateInteractionRequest): CreateInteractionRequest {
  const named: CreateInteractionRequest = { ...request };
  if (request.agent !== undefined) named.agent = idOf("agents", request.agent);
  if (request.model !== undefined) named.model = idOf("models", request.model);
  if (request.previous_interaction_id !== undefined) named.previous_interaction_id = idOf("interactions", request.previous_interaction_id);
  return named;
}

/** [choice] code_execution is available unless `tools` is given without it; file tools always are. */
function codeExecutionEnabled(request: CreateInteractionRequest): boolean {
  return request.tools === undefined || request.tools.some((tool) => tool.type === "code_execution");
}

/**
 * The request fields an Interaction echoes. Inline source content, injected header values and variables'
 * values are left out: the first may be private data, the others are where users put credentials.
 */
function echoOf(request: CreateInteractionRequest): Record<string, unknown> {
  const echo: Record<string, unknown> = {};
  const body = request as Record<string, unknown>;
  for (const field of ECHOED_FIELDS) if (body[field] !== undefined) echo[field] = body[field];
  if (request.tools !== undefined) echo.tools = request.tools.map(redactMcpHeaders);
  if (typeof request.environment === "object") {
    const { sources, network } = request.environment;
    echo.environment = {
      ...request.environment,
      ...(sources ? { sources: sources.map(({ content: _content, ...rest }) => rest) } : {}),
      ...(network !== undefined ? { network: redactNetwork(network) } : {}),
    };
    // Variables' values are kept only with the environment, for its sandbox (redact-env.ts).
    echo.environment = redactEnvironmentEcho(echo.environment);
  }
  return echo;
}

/**
 * A running interaction's steps as they are at this moment: the list is copied, and the last step (the
 * one a running tool still appends to) cloned, so an answer written over several turns of the event loop
 * shows one moment, not the steps as they grew meanwhile.
 */
function stepsAsTheyAreNow(steps: readonly Step[]): Step[] {
  const copy = [...steps];
  const last = copy.pop();
  if (last !== undefined) copy.push(copyJson(last));
  return copy;
}

async function* toAsync<T>(items: Iterable<T>): AsyncGenerator<T, void, undefined> {
  yield* items;
}

/**
 * The error event that ends a live stream whose reader fell too far behind (docs/wire-protocol.md#slow-readers).
 * [choice] `aborted`: the documented code whose advice ("retry at a higher level") is what to do, resume.
 */
function tooFarBehind(id: string, lastSentId: string | null, maxLagBytes: number, stored: boolean): EventError {
  const why = `This stream fell more than ${maxLagBytes} bytes behind interaction ${id}, so the emulator stopped sending it (a reader that does not keep up would hold the run's events in memory).`;
  if (!stored) {
    return {
      code: "aborted",
      message: `${why} Created with store: false, it cannot be read again, so it was cancelled; read the stream as it comes, or store the interaction.`,
    };
  }
  const resume = lastSentId !== null ? `?stream=true&last_event_id=${lastSentId}` : "?stream=true";
  return {
    code: "aborted",
    message: `${why} The interaction goes on; read the rest at your own pace with GET /v1beta/interactions/${id}${resume}.`,
  };
}

/** Waits for `work`, or `ms` at most (then carries on without it). */
async function withDeadline(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
