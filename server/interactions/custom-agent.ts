// An interaction that names a custom agent (server/agents/) runs as the agent's base_agent would, with
// the agent's definition merged into the request. The merge rules (docs/agents.md#merge-rules), each a
// [choice]:
// - system_instruction, tools: the request's when it gives them, else the agent's (replaced whole, never
//   concatenated: a request that brings tools means exactly those tools).
// - agent_config: key by key, the request's keys over the agent's (so a request may set a budget and
//   keep the agent's model).
// - environment: an environment ID in the request (a string, or environment_id) is reused as it is, and
//   a continuation without `environment` stays in its previous environment, as for any agent. Otherwise
//   each interaction gets a fresh copy of the base environment: a config's sources are placed anew in a
//   new environment (the request's own environment config adds to it: its sources after the base's, its
//   variables over the base's, its network instead of the base's); an environment ID is forked (the
//   request may give a network for the fork, nothing else).

import type { AgentDefinition } from "../agents/agent-schemas.js";
import type { CreateInteractionRequest, EnvironmentInput } from "../api/create-interaction.js";
import { environmentRef, idOf } from "../api/resource-names.js";
import { InvalidArgumentError } from "../common/errors.js";

export interface CustomAgentRun {
  definition: AgentDefinition;
  /** The request as the base agent runs it (its `agent` is the base agent). */
  request: CreateInteractionRequest;
  /** The environment to fork for this interaction, when the base environment is an environment ID. */
  fork: { from: string; network: EnvironmentInput["network"] } | null;
}

export function applyCustomAgent(sent: CreateInteractionRequest, definition: AgentDefinition): CustomAgentRun {
  const request: CreateInteractionRequest = { ...sent, agent: definition.base_agent };
  const systemInstruction = sent.system_instruction ?? definition.system_instruction;
  if (systemInstruction !== undefined) request.system_instruction = systemInstruction;
  const tools = sent.tools ?? definition.tools;
  if (tools !== undefined) request.tools = tools;
  if (definition.agent_config !== undefined || sent.agent_config !== undefined) {
    request.agent_config = { ...definition.agent_config, ...sent.agent_config } as NonNullable<CreateInteractionRequest["agent_config"]>;
  }
  // "remote" (a fresh sandbox) is the config {"type": "remote"}, as a request's or as the base's.
  const base = asConfig(definition.base_environment);
  const sentEnvironment = asConfig(sent.environment);
  const reuses = typeof sentEnvironment === "string" || sentEnvironment?.environment_id !== undefined;
  const continues = sent.previous_interaction_id !== undefined && sentEnvironment === undefined;
  if (base === undefined || reuses || continues) return { definition, request, fork: null };
  if (typeof base === "object") {
    request.environment = sentEnvironment === undefined ? base : addedTo(base, sentEnvironment as EnvironmentInput);
    return { definition, request, fork: null };
  }
  const own = sentEnvironment as EnvironmentInput | undefined;
  if (own?.sources !== undefined || own?.env !== undefined) {
    throw new InvalidArgumentError(
      `environment: agent ${definition.id} starts from a fork of environment ${base}, which cannot take sources or env at the same time; ` +
        "give them in a later interaction that continues this one (previous_interaction_id), pass an environment ID to reuse, or give only network here.",
    );
  }
  delete request.environment;
  return { definition, request, fork: { from: idOf("environments", base), network: own?.network } };
}

function asConfig<T extends string | EnvironmentInput | undefined>(environment: T): T | EnvironmentInput {
  return typeof environment === "string" && environmentRef(environment).fresh ? { type: "remote" } : environment;
}

/** The base environment config with the request's own config added to it. */
function addedTo(base: EnvironmentInput, own: EnvironmentInput): EnvironmentInput {
  const merged: EnvironmentInput = { ...base, ...own };
  if (base.sources !== undefined || own.sources !== undefined) merged.sources = [...(base.sources ?? []), ...(own.sources ?? [])];
  if (base.env !== undefined || own.env !== undefined) merged.env = { ...base.env, ...own.env };
  const network = own.network ?? base.network;
  if (network !== undefined) merged.network = network;
  return merged;
}
