// The Agent resource as the official SDK sends it (Agent in @google/genai 3.3): a definition that
// extends one of the emulated agents with instructions, tools, a config and an environment to start in.

import { z } from "zod";
import type { Assignable, Without } from "../wire/assignable.js";
import { agentConfigSchema, environmentObjectSchema, toolsSchema } from "../api/create-interaction.js";
import type { CreateAgentRequestBody } from "../wire/openapi-types.js";

const agentId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/, "1-128 letters, digits, '.', '_' or '-', starting with a letter or digit")
  .describe("Chosen by the client (generated when absent); the `agent` an interaction names to run this agent");

// [choice] Exactly the SDK's Agent fields: another is a 400 naming it (the declared-fields table of
// interactions and environments does not cover agents, so the schema itself is strict).
export const createAgentSchema = z.strictObject({
  id: agentId.optional(),
  base_agent: z.string().optional().describe("An antigravity-* agent; empty or absent for the default one"),
  base_environment: z
    .union([z.string().min(1), environmentObjectSchema])
    .optional()
    .describe("An environment config (its sources placed anew each time) or an environment ID (forked each time)"),
  description: z.string().optional(),
  system_instruction: z.string().optional(),
  tools: toolsSchema.optional(),
  agent_config: agentConfigSchema.optional(),
});
export type CreateAgentRequest = z.infer<typeof createAgentSchema>;

/**
 * What the schema lets through is a CreateAgent body of the document (server/wire/assignable.ts). Left
 * out: agent_config, tools and base_environment, read as an interaction's are (create-interaction.ts).
 */
export type CreateAgentConforms = Assignable<
  Without<CreateAgentRequest, "agent_config" | "tools" | "base_environment">,
  CreateAgentRequestBody
>;

/** What an interaction runs: the definition with its id and base agent settled. */
export interface AgentDefinition extends CreateAgentRequest {
  id: string;
  base_agent: string;
}
