// Which planner runs an interaction (docs/model-agent.md#which-planner-runs): the scripted one unless
// EMULATOR_AGENT_MODEL names a model, and the scripted one anyway for a request that holds a script (a
// ```tool_calls or ```response block), or that answers function calls a script made. Otherwise the
// model-backed planner, resuming the model's conversation when the request continues one.

import type { ClientFunctionResult } from "../agent/conversation.js";
import type { DeclaredFunctions } from "../agent/declared-functions.js";
import type { Planner, PlannerState } from "../agent/planner.js";
import type { ResponseFormatChoice } from "../agent/response-format.js";
import type { McpServers } from "../mcp/mcp-servers.js";
import type { AgentModel } from "./agent-model.js";
import type { GenerationSettings } from "./model/model-backend.js";
import { ModelPlanner } from "./model/model-planner.js";
import { MODEL_PLANNER, readModelPlannerState } from "./model/model-planner-state.js";
import type { FaultPort } from "../faults/fault-port.js";
import type { SchemaBounds } from "./scripted/schema-bounds.js";
import { startPlanner } from "./scripted/schema-work.js";
import { holdsScriptBlock } from "./scripted/script-blocks.js";

export interface PlannerRequest {
  inputText: string;
  previous: PlannerState | null | undefined;
  functionResults: ClientFunctionResult[] | undefined;
  functions: DeclaredFunctions;
  mcpServers: readonly string[];
  mcp: McpServers | null;
  responseFormat: Exclude<ResponseFormatChoice, { kind: "invalid" }>;
  schemaBounds?: SchemaBounds;
  /** agent: an agent interaction (sandbox tools offered); model: a model interaction (only its own tools). */
  runBy: { kind: "agent"; model?: string; maxTotalTokens?: number } | { kind: "model"; model: string };
  codeExecutionEnabled: boolean;
  /** Whether the request's tools list code_execution itself (a model interaction offers it only then). */
  codeExecutionListed: boolean;
  system?: string;
  generation?: GenerationSettings;
  /** Faults on demand at the model (docs/faults.md#the-model), as the request's owner. */
  faults?: FaultPort;
}

export type PlannerStart = { kind: "ready"; planner: Planner } | { kind: "invalid"; field?: string; message: string };

export async function choosePlanner(agentModel: AgentModel, request: PlannerRequest): Promise<PlannerStart> {
  if (agentModel.kind === "scripted" || runsScripted(request)) {
    return startPlanner(request.inputText, request.previous, {
      functions: request.functions,
      continuing: request.functionResults !== undefined,
      mcpServers: [...request.mcpServers],
      responseFormat: request.responseFormat,
      ...(request.schemaBounds ? { schemaBounds: request.schemaBounds } : {}),
    });
  }
  const { runBy } = request;
  const json = request.responseFormat.kind === "json" ? jsonFormat(request.responseFormat.schema) : undefined;
  return {
    kind: "ready",
    planner: new ModelPlanner({
      backend: agentModel.backend,
      model: modelName(agentModel, runBy),
      ...(request.system !== undefined ? { system: request.system } : {}),
      ...(request.generation !== undefined ? { generation: request.generation } : {}),
      ...(json ? { json } : {}),
      tools: {
        codeExecution: runBy.kind === "agent" ? request.codeExecutionEnabled : request.codeExecutionListed,
        fileTools: runBy.kind === "agent",
        functions: request.functions,
        ...(request.schemaBounds ? { maxSchemaChars: request.schemaBounds.maxSchemaChars } : {}),
      },
      mcp: request.mcp,
      mcpServers: request.mcpServers,
      ...(runBy.kind === "agent" && runBy.maxTotalTokens !== undefined ? { maxTotalTokens: runBy.maxTotalTokens } : {}),
      previous: readModelPlannerState(request.previous),
      continuing: request.functionResults !== undefined,
      ...(request.faults ? { faults: request.faults } : {}),
    }),
  };
}

/** A script, or the answers to calls a script (not a model) made. */
function runsScripted(request: PlannerRequest): boolean {
  if (request.functionResults !== undefined) return request.previous?.planner !== MODEL_PLANNER;
  return holdsScriptBlock(request.inputText);
}

/**
 * [choice] agent_config.model names the model of an agent interaction; a model interaction's `model`
 * does for the Gemini backend (gemini-* names are Gemini's own), while an OpenAI-compatible server
 * serves every gemini-* name with EMULATOR_AGENT_MODEL's model (its names are not Gemini's).
 */
function modelName(agentModel: Extract<AgentModel, { kind: "model" }>, runBy: PlannerRequest["runBy"]): string {
  if (runBy.kind === "agent") return runBy.model ?? agentModel.model;
  return agentModel.backend.name === "gemini" ? runBy.model : agentModel.model;
}

function jsonFormat(schema: Record<string, unknown> | boolean | undefined): { schema?: Record<string, unknown> } {
  return typeof schema === "object" ? { schema } : {};
}
