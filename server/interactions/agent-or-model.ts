// Who runs an interaction: an agent (`agent`, CreateAgentInteraction) or a model (`model`,
// CreateModelInteraction), never both and never neither. Either way the emulator runs the same
// scripted planner in the same turn loop (docs/api.md#model-interactions); what differs is what the
// Interaction echoes (`agent` or `model`).

import type { CreateInteractionRequest } from "../api/create-interaction.js";
import { checkGenerationConfig } from "../api/generation-config.js";
import { EMULATED_AGENT_PREFIX, KNOWN_AGENTS } from "../api/agent-names.js";
import { isEmulatedModel } from "../api/model-names.js";
import { InvalidArgumentError, NotFoundError } from "../common/errors.js";

export { EMULATED_AGENT_PREFIX, KNOWN_AGENTS };

export const EXAMPLE_MODELS = ["gemini-3-flash-preview", "gemini-2.5-flash", "gemini-2.5-pro"];

const ACCEPTED = `an agent named antigravity-* (e.g. ${KNOWN_AGENTS.join(", ")}) or a model the OpenAPI document lists or named gemini-* (e.g. ${EXAMPLE_MODELS.join(", ")})`;

/**
 * Refuses a request that names no one, both, or an agent or model the emulator does not run, and a
 * model interaction whose generation_config does not fit the SDK's type.
 */
export function checkAgentOrModel(request: CreateInteractionRequest): void {
  const { agent, model } = request;
  if (agent !== undefined && model !== undefined) {
    throw new InvalidArgumentError(
      `agent "${agent}" and model "${model}" were both given; an interaction is run by an agent or by a model, not both: keep one of them. This emulator runs ${ACCEPTED}.`,
    );
  }
  if (agent !== undefined) {
    if (agent.startsWith(EMULATED_AGENT_PREFIX)) return;
    throw new InvalidArgumentError(
      `agent "${agent}" is not emulated and names no custom agent of this API key; this emulator runs the antigravity-* agents, e.g. ${KNOWN_AGENTS.join(", ")}, and the agents created with POST /{version}/agents (or, with model instead of agent, any gemini-* model).`,
    );
  }
  if (model !== undefined) {
    if (!isEmulatedModel(model)) {
      // A 404, as the service's API errors page lists it (model_not_found: "the specified model was not found").
      throw new NotFoundError(
        `model "${model}" is not emulated; this emulator runs the models the OpenAPI document lists (gemma-4-31b-it, …) and any model named gemini-*, e.g. ${EXAMPLE_MODELS.join(", ")} (or, with agent instead of model, the antigravity-* agents, e.g. ${KNOWN_AGENTS[0]}).`,
        "model_not_found",
      );
    }
    // A model interaction's own field (an agent interaction has none in the SDK, so there it is not checked).
    checkGenerationConfig((request as { generation_config?: unknown }).generation_config);
    return;
  }
  throw new InvalidArgumentError(`agent or model is required, and neither was given; use ${ACCEPTED}.`);
}
