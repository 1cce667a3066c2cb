// How a client answers the function calls an interaction handed it (docs/api.md#function-calling): a
// new interaction names the waiting one in previous_interaction_id, and its input holds one
// function_result per open call_id and nothing else. Everything else is a 400 that says which call is
// unknown, answered twice, or missing, before anything runs.

import type { ClientFunctionResult } from "../agent/conversation.js";
import type { CreateInteractionRequest } from "../api/create-interaction.js";
import { functionPartsOf, type InputFunctionResult } from "../api/function-results.js";
import { InvalidArgumentError } from "../common/errors.js";
import type { InteractionRecord } from "./interaction-store.js";

export interface OpenFunctionCall {
  id: string;
  name: string;
}

/**
 * The function calls an interaction waits on: in requires_action, its function_call steps that have no
 * function_result (the file tools' calls have theirs in the same interaction).
 */
export function openFunctionCalls(record: InteractionRecord): OpenFunctionCall[] {
  if (record.status !== "requires_action") return [];
  const answered = new Set(record.steps.flatMap((step) => (step.type === "function_result" ? [step.call_id] : [])));
  return record.steps.flatMap((step) =>
    step.type === "function_call" && !answered.has(step.id) ? [{ id: step.id, name: step.name }] : [],
  );
}

/**
 * The client's results for the previous interaction's open calls, in the order sent; undefined when the
 * input answers no function call (a new request, as before). Throws a 400 naming every problem.
 */
export function functionResultsFor(
  previous: InteractionRecord | null,
  input: CreateInteractionRequest["input"],
): ClientFunctionResult[] | undefined {
  const parts = functionPartsOf(input);
  const open = previous ? openFunctionCalls(previous) : [];
  if (!previous || open.length === 0) {
    refuseUnaskedResults(previous, parts.results, parts.callIds);
    return undefined;
  }
  const problems = parts.results.flatMap((result) => result.problems);
  const openList = open.map((call) => `${call.id} (${call.name})`).join(", ");
  if (parts.others.length > 0) {
    problems.push(
      `input: interaction ${previous.id} is waiting for the results of its function calls ${openList}, so the input must hold only function_result steps, one per call_id; ${parts.others.join("; ")} ${parts.others.length === 1 ? "is" : "are"} not. Send anything else in a later interaction, once these calls are answered.`,
    );
  }
  const byId = new Map(open.map((call) => [call.id, call]));
  const seen = new Map<string, string>();
  const results: ClientFunctionResult[] = [];
  for (const given of parts.results) {
    if (given.callId === undefined || given.result === undefined) continue; // its shape's problem is listed
    const call = byId.get(given.callId);
    const earlier = seen.get(given.callId);
    if (!call) {
      problems.push(
        `${given.where}: call_id "${given.callId}" is not a call interaction ${previous.id} is waiting for; its open calls are ${openList}`,
      );
    } else if (earlier !== undefined) {
      problems.push(`${given.where}: call_id "${given.callId}" is answered twice (also ${earlier}); send one function_result per call`);
    } else if (given.name !== undefined && given.name !== call.name) {
      problems.push(`${given.where}: call_id "${given.callId}" is a call of ${call.name}, but the function_result names "${given.name}"`);
    } else {
      results.push({ callId: call.id, name: call.name, result: given.result, isError: given.isError ?? false });
    }
    seen.set(given.callId, seen.get(given.callId) ?? given.where);
  }
  const missing = open.filter((call) => !seen.has(call.id));
  if (missing.length > 0) {
    const names = missing.map((call) => `${call.id} (${call.name})`).join(", ");
    problems.push(
      `input: no function_result for ${names}; interaction ${previous.id} waits for the results of all its function calls, one function_result per call_id`,
    );
  }
  if (problems.length > 0) throw new InvalidArgumentError(problems.join("\n"));
  return results;
}

/** A function_result that answers no call the request can refer to is a mistake, not something to ignore. */
function refuseUnaskedResults(
  previous: InteractionRecord | null,
  results: readonly InputFunctionResult[],
  callIdsInInput: ReadonlySet<string>,
): void {
  // [choice] A Step[] history may carry calls with their results (input forms); those are left as they were.
  const unasked = results.filter((result) => result.callId === undefined || !callIdsInInput.has(result.callId));
  const [first] = unasked;
  if (!first) return;
  const which = first.callId === undefined ? "a function_result" : `the function_result for call_id "${first.callId}"`;
  const reason = previous
    ? `interaction ${previous.id} is ${previous.status} and waits for no function results (only an interaction in requires_action does)`
    : "no previous_interaction_id names the interaction that asked for it; pass that interaction's id as previous_interaction_id";
  throw new InvalidArgumentError(`${first.where}: ${which} answers no open function call: ${reason}.`);
}
