// The /{v}/agents resource: create, get, list, delete; and the lookup an interaction makes of the agent
// it names. An agent is a definition only: nothing runs or is created until an interaction names it.

import { randomBytes } from "node:crypto";
import { isEmulatedAgent, KNOWN_AGENTS } from "../api/agent-names.js";
import type { Agent } from "../wire/openapi-types.js";
import { redactMcpHeaders } from "../api/mcp-server-tools.js";
import { environmentRef, idOf } from "../api/resource-names.js";
import { AlreadyExistsError, InvalidArgumentError, NotFoundError } from "../common/errors.js";
import { jsonLengthAtMost } from "../common/json-size.js";
import { pageById } from "../common/page-token.js";
import { nowTimestamp } from "../common/timestamps.js";
import { redactNetwork } from "../egress/redact-network.js";
import type { EnvironmentService } from "../environments/environment-service.js";
import { redactEnvironmentEcho } from "../environments/redact-env.js";
import type { AgentDefinition, CreateAgentRequest } from "./agent-schemas.js";
import type { AgentRecord, AgentStore } from "./agent-store.js";

/** [choice] The agent a definition without base_agent (or with "", as the service's own example) extends. */
export const DEFAULT_BASE_AGENT = KNOWN_AGENTS[0]!;

/**
 * An agent as GET shows it: the SDK's Agent. [choice] Its base environment and tools are shown as an
 * interaction echoes them: inline sources without their content, variables' values, injected header
 * values and MCP servers' header values redacted; the definition itself keeps them, for the runs it makes.
 */
export function renderAgent(record: AgentRecord): Agent {
  const { base_environment, tools, ...rest } = record.definition;
  // The document's Agent (server/wire/openapi-types.ts). Its agent_config, tools and base_environment are
  // cast: the document check held them to the document at creation (documented-requests.ts), and the
  // agent's schema reads them loosely (agent-schemas.ts).
  const shown = rest as Omit<typeof rest, "agent_config"> & { agent_config?: Agent["agent_config"] };
  return {
    ...shown,
    ...(tools !== undefined ? { tools: tools.map(redactMcpHeaders) as Agent["tools"] } : {}),
    ...(base_environment !== undefined ? { base_environment: redactedEnvironment(base_environment) as Agent["base_environment"] } : {}),
  };
}

function redactedEnvironment(environment: NonNullable<CreateAgentRequest["base_environment"]>): unknown {
  if (typeof environment === "string") return environment;
  const { sources, network } = environment;
  return redactEnvironmentEcho({
    ...environment,
    ...(sources ? { sources: sources.map(({ content: _content, ...source }) => source) } : {}),
    ...(network !== undefined ? { network: redactNetwork(network) } : {}),
  });
}

export class AgentService {
  constructor(
    private readonly store: AgentStore,
    private readonly environments: Pick<EnvironmentService, "getUsable">,
  ) {}

  create(owner: string, request: CreateAgentRequest): AgentRecord {
    const definition = this.settle(owner, request);
    const record: AgentRecord = { owner, id: definition.id, definition, createTime: nowTimestamp() };
    if (!this.store.insert(record)) {
      throw new AlreadyExistsError(`Agent ${definition.id} already exists. Delete it first, or choose another id.`);
    }
    return record;
  }

  get(owner: string, id: string): AgentRecord {
    const record = this.store.get(owner, id);
    if (!record) throw new NotFoundError(`Agent ${id} not found. List this API key's agents with GET /{version}/agents.`);
    return record;
  }

  /** A page of at most pageSize agents and, past the first, about maxBytes of their JSON (EMULATOR_LIST_PAGE_BYTES). */
  list(owner: string, pageSize: number, pageToken: string | undefined, maxBytes: number): { agents: AgentRecord[]; nextPageToken: string } {
    const { items, nextPageToken } = pageById(pageSize, pageToken, (limit, afterId) => this.store.list(owner, limit, afterId), {
      maxBytes,
      sizeOf: (record) => jsonLengthAtMost(renderAgent(record), maxBytes),
    });
    return { agents: items, nextPageToken };
  }

  /** [choice] Interactions made with the agent, and their continuations, are unaffected (agent_uses). */
  delete(owner: string, id: string): void {
    if (!this.store.delete(owner, id)) throw new NotFoundError(`Agent ${id} not found.`);
  }

  /**
   * The definition an interaction naming `name` runs: the owner's agent of that name; or, when it was
   * deleted, the one the continued interaction ran (so a conversation outlives its agent). Null when
   * `name` is no custom agent of the owner.
   */
  definitionFor(owner: string, name: string, previousInteractionId: string | null): AgentDefinition | null {
    const current = this.store.get(owner, name);
    if (current) return current.definition;
    const used = previousInteractionId ? this.store.usedBy(previousInteractionId, owner) : null;
    return used?.id === name ? used : null;
  }

  /** Remembers what a stored interaction ran, for its continuations. */
  recordUse(interactionId: string, owner: string, definition: AgentDefinition): void {
    this.store.recordUse(interactionId, owner, definition);
  }

  /** The request with its id and base agent settled; every refusal of a definition is here. */
  private settle(owner: string, request: CreateAgentRequest): AgentDefinition {
    const id = request.id ?? `agent-${randomBytes(8).toString("hex")}`;
    if (isEmulatedAgent(id)) {
      throw new InvalidArgumentError(
        `id "${id}" names an agent the emulator runs itself (antigravity-*), so interactions could not tell them apart; choose an id that does not start with "antigravity-".`,
      );
    }
    const baseAgent =
      request.base_agent === undefined || request.base_agent === "" ? DEFAULT_BASE_AGENT : idOf("agents", request.base_agent);
    if (!isEmulatedAgent(baseAgent)) {
      throw new InvalidArgumentError(
        `base_agent "${baseAgent}" is not an agent this emulator runs; extend an antigravity-* agent (e.g. ${KNOWN_AGENTS.join(", ")}), or leave base_agent out for ${DEFAULT_BASE_AGENT}. A custom agent cannot extend another custom agent.`,
      );
    }
    const environment = request.base_environment;
    if (typeof environment === "string") {
      // "remote": a fresh sandbox each time. Another ID is forked by every interaction: it must be usable
      // now (a 404 names it), and is checked again then.
      const ref = environmentRef(environment);
      if (!ref.fresh) this.environments.getUsable(ref.id, owner);
    } else if (environment?.environment_id !== undefined) {
      throw new InvalidArgumentError(
        `base_environment.environment_id: a base environment is copied for each interaction, never updated in place; to start from environment ${environment.environment_id}, give its ID as base_environment ("base_environment": "${environment.environment_id}"), which each interaction forks.`,
      );
    }
    return { ...request, id, base_agent: baseAgent };
  }
}
