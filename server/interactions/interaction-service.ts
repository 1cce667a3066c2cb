// One POST /{v}/interactions: validate everything that can be refused, then create or reuse the
// environment, run the emulated agent, and store the result in one transaction.

import { runCalls, type ToolCallHooks } from "../agent/agent-loop.js";
import { ChannelHookHost } from "../hooks/channel-hook-host.js";
import { noCallAnswer, reportOutcomes } from "../agent/report.js";
import { planFromInput } from "../agent/scripted-planner.js";
import type { ToolCall } from "../agent/tool-call.js";
import { ECHOED_FIELDS, type CreateInteractionRequest, type EnvironmentInput } from "../api/create-interaction.js";
import { inputText } from "../api/input-text.js";
import type { EnvironmentService } from "../environments/environment-service.js";
import { InvalidArgumentError, NotFoundError } from "../errors.js";
import { newInteractionId } from "../ids.js";
import type { InteractionRecord, InteractionStore } from "../store/interaction-store.js";
import { nowTimestamp } from "../store/timestamps.js";
import { SANDBOX_WORKDIR, type ToolLimits } from "../tools/tool-runner.js";
import type { Step } from "./steps.js";

/** Agents this emulator runs; any `antigravity-*` name is accepted, since new previews appear often. */
export const EMULATED_AGENT_PREFIX = "antigravity-";
export const KNOWN_AGENTS = ["antigravity-preview-05-2026", "antigravity-preview-09-2026"];

export interface InteractionServiceOptions {
  limits: ToolLimits;
}

export class InteractionService {
  constructor(
    private readonly interactions: InteractionStore,
    private readonly environments: EnvironmentService,
    private readonly options: InteractionServiceOptions,
  ) {}

  get(id: string, owner: string): InteractionRecord {
    const record = this.interactions.get(id, owner);
    if (!record) throw new NotFoundError(`Interaction ${id} not found.`);
    return record;
  }

  async create(owner: string, request: CreateInteractionRequest): Promise<InteractionRecord> {
    checkAgent(request);
    if (request.stream === true) {
      throw new InvalidArgumentError("stream: true is not supported by this emulator version yet; leave stream out for a JSON response.");
    }
    if (request.background === true) {
      throw new InvalidArgumentError("background: true is not supported by this emulator version yet; leave background out.");
    }
    const previous = request.previous_interaction_id ? this.get(request.previous_interaction_id, owner) : null;
    const text = inputText(request.input);
    const plan = planFromInput(text);
    if (plan.kind === "invalid") throw new InvalidArgumentError(`input: ${plan.message}`);
    const calls: ToolCall[] = plan.kind === "calls" ? plan.calls : [];

    // [choice] With no `environment`, a continued conversation stays in its environment, and a new
    // one that needs tools gets a fresh sandbox.
    const environmentInput = request.environment ?? previous?.environmentId ?? (calls.length > 0 ? { type: "remote" as const } : undefined);
    const openEnvironment = environmentInput === undefined ? null : await this.environments.plan(owner, environmentInput);

    const created = nowTimestamp();
    const environment = openEnvironment ? await openEnvironment() : null;
    const steps: Step[] = [{ type: "user_input", content: [{ type: "text", text }] }];
    let status: InteractionRecord["status"] = "completed";
    const errors: InteractionRecord["errors"] = [];
    const hookTraces: ToolCallHooks[] = [];
    let answer: string;
    if (plan.kind === "calls" && environment) {
      const run = await this.environments.using(environment.id, async () => {
        // Opened before the first call so an expired environment is refused up front, not mid-run.
        const channel = await this.environments.channel(environment);
        const env = environment.config.env ?? {};
        return runCalls({
          calls,
          environmentId: environment.id,
          codeExecutionEnabled: codeExecutionEnabled(request),
          channel,
          hooks: new ChannelHookHost(channel, { cwd: SANDBOX_WORKDIR, env }),
          limits: { ...this.options.limits, env },
        });
      });
      steps.push(...run.steps);
      hookTraces.push(...run.hooks);
      answer = reportOutcomes(run.outcomes, plan.notes);
      if (run.failure !== undefined) {
        status = "failed";
        errors.push({ code: "UNAVAILABLE", message: run.failure });
        answer += `\n\nThe sandbox stopped answering, so the remaining steps did not run: ${run.failure}`;
      }
    } else {
      answer = plan.kind === "none" ? noCallAnswer(plan.understood) : reportOutcomes([]);
    }
    steps.push({ type: "model_output", content: [{ type: "text", text: answer }] });

    const record: InteractionRecord = {
      id: newInteractionId(),
      owner,
      status,
      environmentId: environment?.id ?? null,
      previousInteractionId: previous?.id ?? null,
      echo: echoOf(request),
      errors,
      created,
      updated: nowTimestamp(),
      steps,
      hookTraces,
    };
    if (request.store !== false) this.interactions.save(record);
    return record;
  }
}

function checkAgent(request: CreateInteractionRequest): void {
  if (request.agent === undefined) {
    const hint = request.model ? ` (model "${request.model}" was given: this emulator runs agents, not models)` : "";
    throw new InvalidArgumentError(`agent is required${hint}; use one of: ${KNOWN_AGENTS.join(", ")}.`);
  }
  if (!request.agent.startsWith(EMULATED_AGENT_PREFIX)) {
    throw new InvalidArgumentError(
      `agent "${request.agent}" is not emulated; this emulator runs the antigravity-* agents, e.g. ${KNOWN_AGENTS.join(", ")}.`,
    );
  }
}

/** [choice] code_execution is available unless `tools` is given without it; file tools always are. */
function codeExecutionEnabled(request: CreateInteractionRequest): boolean {
  return request.tools === undefined || request.tools.some((tool) => tool.type === "code_execution");
}

/**
 * The request fields an Interaction echoes. Inline source content and injected header values are left
 * out: the first may be private data, the second are credentials the documentation tells users to keep
 * out of everything the agent can see.
 */
function echoOf(request: CreateInteractionRequest): Record<string, unknown> {
  const echo: Record<string, unknown> = {};
  const body = request as Record<string, unknown>;
  for (const field of ECHOED_FIELDS) if (body[field] !== undefined) echo[field] = body[field];
  if (typeof request.environment === "object") {
    const { sources, network } = request.environment;
    echo.environment = {
      ...request.environment,
      ...(sources ? { sources: sources.map(({ content: _content, ...rest }) => rest) } : {}),
      ...(network !== undefined ? { network: redactTransforms(network) } : {}),
    };
  }
  return echo;
}

function redactTransforms(network: NonNullable<EnvironmentInput["network"]>): unknown {
  if (typeof network === "string" || !Array.isArray(network.allowlist)) return network;
  const redact = (headers: Record<string, string>) => Object.fromEntries(Object.keys(headers).map((name) => [name, "[redacted]"]));
  return {
    ...network,
    allowlist: network.allowlist.map((entry) =>
      entry.transform === undefined
        ? entry
        : { ...entry, transform: Array.isArray(entry.transform) ? entry.transform.map(redact) : redact(entry.transform) },
    ),
  };
}
