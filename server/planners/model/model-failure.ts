// How a model's failure ends an interaction: its errors[0], in the documented codes the rest of the API
// uses (common/errors.ts), naming the backend and the model, and what to fix (the backend's message says that part).

import type { ErrorCode } from "../../common/errors.js";
import { ModelBackendError, type ModelFailureKind } from "./model-backend.js";

const CODES: Readonly<Record<ModelFailureKind, ErrorCode>> = {
  unreachable: "service_unavailable",
  // The emulator's own key or set-up was refused: not the client's fault, and not retryable as is.
  auth: "failed_precondition",
  rate_limit: "rate_limit_exceeded",
  timeout: "deadline_exceeded",
  empty: "api_error",
  refused: "failed_precondition",
  server: "service_unavailable",
  replay: "failed_precondition",
  too_large: "quota_exceeded",
};

export interface RunError {
  code: ErrorCode;
  message: string;
}

/** The error of a run whose model failed at turn `turn` (1-based, counted over this interaction). */
export function modelFailure(error: unknown, agentModel: string, turn: number): RunError {
  if (error instanceof ModelBackendError) {
    return { code: CODES[error.kind], message: `The agent's model (${agentModel}) failed at turn ${turn}: ${error.message}` };
  }
  return {
    code: "api_error",
    message: `The agent's model (${agentModel}) failed at turn ${turn}: ${(error as Error)?.message ?? String(error)}`,
  };
}

/** A second malformed tool call in a row ends the run (the first is given back to the model as an error result). */
export function malformedTwice(agentModel: string, messages: readonly string[]): RunError {
  return {
    code: "malformed_function_call",
    message: `The agent's model (${agentModel}) made a malformed tool call twice in a row (${messages.join("; ")}), so the run stopped; the steps so far are kept. Use a model that supports tool calling, or lower its temperature.`,
  };
}

/** agent_config.max_total_tokens passed: the run ends incomplete (the document's status for budget exhaustion). */
export function overBudget(agentModel: string, used: number, budget: number): RunError {
  return {
    code: "quota_exceeded",
    message: `The agent's model (${agentModel}) used ${used} tokens, more than agent_config.max_total_tokens (${budget}), so the run stopped; the steps so far are kept. Raise max_total_tokens, or continue with previous_interaction_id.`,
  };
}
