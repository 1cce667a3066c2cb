// The model-backed planner (docs/model-agent.md): at every turn of the agent loop it tells a model the
// conversation so far and the tools it may call, streams the model's text and thoughts into steps as
// they arrive, and turns the model's tool calls into the loop's moves. Everything the calls then go
// through is the loop's, exactly as for a script: hooks, the sandbox, egress, MCP, requires_action. A
// hook's denial comes back to the model as the call's error result, so it can adapt.
//
// Malformed calls (an unknown tool, arguments that are not JSON or do not fit the schema) are given
// back to the model as error results once; a second turn in a row with one ends the run, as agents
// that recover from a slip but not from a model that cannot call tools do.

import type { AgentCall } from "../../agent/agent-call.js";
import type { CallOutcome, ClientFunctionCall, Conversation, PendingClientCall } from "../../agent/conversation.js";
import type { Move, Planner, PlannerOutput, PlannerState, TextWriter } from "../../agent/planner.js";
import type { InjectedFault } from "../../faults/fault-plan.js";
import { type FaultPort, injectedMark } from "../../faults/fault-port.js";
import type { McpServers } from "../../mcp/mcp-servers.js";
import type {
  GenerationSettings,
  ModelAnswer,
  ModelBackend,
  ModelMessage,
  ModelRequest,
  ModelStreamSink,
  ModelToolCall,
  ModelToolResult,
  ModelTurnRecord,
} from "./model-backend.js";
import { malformedTwice, modelFailure, overBudget } from "./model-failure.js";
import { turnWithFault } from "./model-faults.js";
import { modelPlannerState, type ModelPlannerData, type PendingClientCalls } from "./model-planner-state.js";
import { ToolDirectory, type ResolvedCall, type ToolDirectoryInput } from "./tool-directory.js";

export interface ModelPlannerOptions {
  backend: ModelBackend;
  /** The model's name for its server. */
  model: string;
  system?: string;
  generation?: GenerationSettings;
  json?: { schema?: Record<string, unknown> };
  /** The tools besides MCP's (whose lists are read at the first turn, from `mcp`). */
  tools: Omit<ToolDirectoryInput, "mcp">;
  /** The request's MCP servers (the run's own object: the loop calls their tools through it too). */
  mcp: McpServers | null;
  mcpServers: readonly string[];
  /** agent_config.max_total_tokens; absent for no budget. */
  maxTotalTokens?: number;
  /** The previous interaction's conversation, when the request continues one. */
  previous?: ModelPlannerData | null;
  /** Whether the input answers the previous interaction's function calls. */
  continuing?: boolean;
  /** Faults on demand at the model (docs/faults.md#the-model). */
  faults?: FaultPort;
}

/** A model call of the turn being carried out, and what the loop is to do with it. */
interface InFlight {
  call: ModelToolCall;
  resolved: ResolvedCall;
}

export class ModelPlanner implements Planner {
  readonly name = "model";
  readonly needsSandbox: boolean;
  private readonly messages: ModelMessage[];
  private readonly turns: ModelTurnRecord[] = [];
  private pending: PendingClientCalls | undefined;
  private directory: ToolDirectory | null = null;
  private started = false;
  /** The calls of the model's last answer, while the loop carries them out. */
  private inFlight: InFlight[] = [];
  /** Client calls of that answer, asked for once the agent's own calls of it have run. */
  private clientCallsLeft: InFlight[] = [];
  private malformedStreak = 0;
  private tokensUsed = 0;
  /** The fault injected into the turn that just failed, for the mark on the run's error. */
  private failedTurnFault: InjectedFault | null = null;

  constructor(private readonly options: ModelPlannerOptions) {
    this.needsSandbox = options.tools.codeExecution || options.tools.fileTools;
    this.messages = structuredClone(options.previous?.messages ?? []);
    this.pending = options.continuing ? options.previous?.pending : undefined;
  }

  private get agentModel(): string {
    return `${this.options.backend.name}:${this.options.model}`;
  }

  async next(conversation: Readonly<Conversation>, signal?: AbortSignal, output?: PlannerOutput): Promise<Move> {
    if (conversation.failure !== undefined) {
      return { kind: "answer", text: `The sandbox stopped answering, so the run could not go on: ${conversation.failure}` };
    }
    if (!this.started) {
      this.started = true;
      this.openConversation(conversation);
    } else {
      const move = this.afterToolCalls(conversation);
      if (move) return move;
    }
    return this.askModel(signal ?? new AbortController().signal, output);
  }

  saveState(conversation: Readonly<Conversation>): PlannerState {
    const last = conversation.turns.at(-1);
    const data: ModelPlannerData = { messages: this.messages, turns: this.turns };
    if (last?.kind === "ask_client" && this.pending) data.pending = this.pendingWithIds(last.calls);
    return modelPlannerState(data);
  }

  /** The input: the client's answers to the calls it was handed, or a new user message. */
  private openConversation(conversation: Readonly<Conversation>): void {
    const { functionResults, text } = conversation.input;
    const pending = this.pending;
    this.pending = undefined;
    if (functionResults && pending) {
      const byModelId = new Map(pending.results.map((result) => [result.id, result]));
      for (const answer of functionResults) {
        const modelId = pending.clientCalls[answer.callId];
        if (modelId === undefined) continue;
        const output = typeof answer.result === "string" ? answer.result : JSON.stringify(answer.result);
        byModelId.set(modelId, { id: modelId, name: answer.name, output, isError: answer.isError });
      }
      this.messages.push({ role: "tool", results: pending.order.flatMap((id) => byModelId.get(id) ?? []) });
      return;
    }
    this.closeUnansweredCalls();
    this.messages.push({ role: "user", text });
  }

  /**
   * A conversation whose last model message has calls without results (the client wrote something new
   * instead of answering them): both protocols refuse that, so they are answered as not run.
   */
  private closeUnansweredCalls(): void {
    const last = this.messages.at(-1);
    if (last?.role !== "model" || last.calls.length === 0) return;
    this.messages.push({
      role: "tool",
      results: last.calls.map((call) => ({ id: call.id, name: call.name, output: "The client did not run this call.", isError: true })),
    });
  }

  /** After the loop ran the agent's calls: the client's calls of the same answer, or its results back to the model. */
  private afterToolCalls(conversation: Readonly<Conversation>): Move | null {
    const last = conversation.turns.at(-1);
    const results = this.resultsOf(last?.kind === "tool_calls" ? last.outcomes : []);
    if (this.clientCallsLeft.length > 0) return this.handToClient(results);
    this.messages.push({ role: "tool", results });
    return null;
  }

  /**
   * The answer's function calls go to the client; the results known so far wait with them (in the
   * saved state) for the interaction that brings the client's, when they go back to the model together.
   */
  private handToClient(known: ModelToolResult[]): Move {
    const clientCalls = this.clientCallsLeft;
    this.clientCallsLeft = [];
    this.pendingClient = clientCalls;
    this.pending = { order: this.inFlight.map((flight) => flight.call.id), clientCalls: {}, results: known };
    return { kind: "ask_client", calls: clientCalls.map((flight) => (flight.resolved as { call: ClientFunctionCall }).call) };
  }

  /** The client calls handed over in the last ask_client move, in order (their step IDs come from the loop). */
  private pendingClient: InFlight[] = [];

  private pendingWithIds(calls: readonly PendingClientCall[]): PendingClientCalls {
    const pending = this.pending as PendingClientCalls;
    const clientCalls: Record<string, string> = {};
    calls.forEach((call, index) => {
      const flight = this.pendingClient[index];
      if (flight) clientCalls[call.id] = flight.call.id;
    });
    return { ...pending, clientCalls };
  }

  /** The results of the model's last calls, in its order: what the loop's outcomes say, or why a call was not made. */
  private resultsOf(outcomes: readonly CallOutcome[]): ModelToolResult[] {
    let next = 0;
    const results: ModelToolResult[] = [];
    for (const flight of this.inFlight) {
      const { call, resolved } = flight;
      if (resolved.kind === "malformed") {
        results.push({ id: call.id, name: call.name, output: `Error: ${resolved.message}`, isError: true });
      } else if (resolved.kind === "agent") {
        const outcome = outcomes[next++];
        results.push(resultOf(call, outcome));
      }
    }
    return results;
  }

  private async askModel(signal: AbortSignal, output: PlannerOutput | undefined): Promise<Move> {
    const directory = await this.toolDirectory(signal);
    // At most two asks: a turn whose calls are all malformed is answered and asked again once.
    for (;;) {
      const turnNumber = this.turns.length + 1;
      let answer: ModelAnswer;
      try {
        answer = await this.turn(directory, signal, output);
      } catch (error) {
        if (signal.aborted) throw error;
        const failure = modelFailure(error, this.agentModel, turnNumber);
        if (this.failedTurnFault !== null) failure.message += injectedMark(this.failedTurnFault);
        return { kind: "fail", status: "failed", error: failure };
      }
      this.messages.push({ role: "model", text: answer.text, calls: answer.calls });
      const budget = this.options.maxTotalTokens;
      if (budget !== undefined && this.tokensUsed > budget) {
        return { kind: "fail", status: "incomplete", error: overBudget(this.agentModel, this.tokensUsed, budget) };
      }
      if (answer.calls.length === 0) return { kind: "answer", text: answer.text, written: answer.text !== "" };

      const flights = answer.calls.map((call) => ({ call, resolved: directory.resolve(call.name, call.arguments) }));
      const malformed = flights.flatMap((flight) =>
        flight.resolved.kind === "malformed" ? [`${flight.call.name}: ${flight.resolved.message}`] : [],
      );
      this.malformedStreak = malformed.length > 0 ? this.malformedStreak + 1 : 0;
      if (this.malformedStreak >= 2) return { kind: "fail", status: "failed", error: malformedTwice(this.agentModel, malformed) };
      this.inFlight = flights;
      const agentCalls = flights.flatMap((flight) => (flight.resolved.kind === "agent" ? [flight.resolved.call as AgentCall] : []));
      const clientCalls = flights.filter((flight) => flight.resolved.kind === "client");
      if (agentCalls.length > 0) {
        this.clientCallsLeft = clientCalls;
        return { kind: "call_tools", calls: agentCalls };
      }
      if (clientCalls.length > 0) {
        this.clientCallsLeft = clientCalls;
        return this.handToClient(this.resultsOf([]));
      }
      // Every call was malformed: the model is told why, and asked again.
      this.messages.push({ role: "tool", results: this.resultsOf([]) });
      this.inFlight = [];
    }
  }

  /** One turn: the request, the answer streamed into steps, its usage reported and recorded. */
  private async turn(directory: ToolDirectory, signal: AbortSignal, output: PlannerOutput | undefined): Promise<ModelAnswer> {
    const { backend, model, system, generation, json } = this.options;
    const request: ModelRequest = {
      model,
      ...(system !== undefined ? { system } : {}),
      messages: this.messages,
      tools: directory.declarations,
      ...(generation !== undefined ? { generation } : {}),
      ...(json !== undefined ? { json } : {}),
    };
    let text: TextWriter | null = null;
    let thought = "";
    // A thought is written whole, before the text it led to (or at the turn's end).
    const flushThought = () => {
      if (thought === "") return;
      output?.thought(thought);
      thought = "";
    };
    const started = performance.now();
    const fault = this.options.faults?.armed() ? this.options.faults.take({ kind: "model", model: this.agentModel }) : null;
    const mark = fault === null ? {} : { injectedFault: fault as { rule_id: string; effect: Record<string, unknown> } };
    const ask = (modelRequest: ModelRequest, sink: ModelStreamSink) =>
      fault === null ? backend.turn(modelRequest, sink, signal) : turnWithFault(backend, fault.effect, modelRequest, sink, signal);
    try {
      const answer = await ask(structuredClone(request), {
        text: (delta) => {
          if (delta === "") return;
          flushThought();
          text ??= output?.startText() ?? null;
          text?.append(delta);
        },
        thought: (delta) => {
          thought += delta;
        },
      });
      flushThought();
      // A backend that gave the text only at the end (a cassette, a non-streaming server) still writes it.
      if (text === null && answer.text !== "" && output) {
        text = output.startText();
        text.append(answer.text);
      }
      const { usage } = answer;
      this.tokensUsed += usage.input + usage.output + usage.thought;
      output?.reportUsage(usage);
      this.turns.push({
        backend: backend.name,
        model,
        usage,
        latencyMs: Math.round(performance.now() - started),
        source: answer.source ?? "live",
        ...mark,
      });
      return answer;
    } catch (error) {
      // An injected failure is recorded as a turn (a real failed one ends the run unrecorded): the
      // model turns view is where a test sees which rule made the run fail.
      if (fault !== null && !signal.aborted) {
        this.failedTurnFault = fault;
        this.turns.push({
          backend: backend.name,
          model,
          usage: { input: 0, output: 0, thought: 0 },
          latencyMs: Math.round(performance.now() - started),
          source: "live",
          ...mark,
          error: error instanceof Error ? error.message : String(error),
        });
      }
      throw error;
    } finally {
      (text as TextWriter | null)?.finish();
    }
  }

  /** The tools the model is told of; MCP servers' lists are read once, at the first turn. */
  private async toolDirectory(signal: AbortSignal): Promise<ToolDirectory> {
    if (this.directory) return this.directory;
    const mcp: Array<ToolDirectoryInput["mcp"][number]> = [];
    for (const server of this.options.mcpServers) {
      const listed = await this.options.mcp?.tools(server, signal);
      // [choice] A server that cannot be listed offers no tools; the model is not told of it.
      if (listed && "tools" in listed) mcp.push({ server, tools: listed.tools });
    }
    this.directory = new ToolDirectory({ ...this.options.tools, mcp });
    return this.directory;
  }
}

/** What one of the agent's calls came to, as the model reads it. */
function resultOf(call: ModelToolCall, outcome: CallOutcome | undefined): ModelToolResult {
  if (!outcome) return { id: call.id, name: call.name, output: "Error: the call did not run.", isError: true };
  switch (outcome.status) {
    case "ok":
      return { id: call.id, name: call.name, output: outcome.output, isError: false };
    case "denied":
      // The seed: "the model sees your rejection reason and adapts".
      return { id: call.id, name: call.name, output: outcome.output, isError: true };
    case "skipped":
      return { id: call.id, name: call.name, output: `Error: not run: ${outcome.skippedReason ?? outcome.output}`, isError: true };
    case "error":
      return { id: call.id, name: call.name, output: outcome.output, isError: true };
  }
}
