// The function_result steps of a request's input ({"type": "function_result", call_id, name?, result,
// is_error?}, the SDK's FunctionResultStep): how a client answers the function calls an interaction
// handed it. This reads them and checks each one's shape; which calls they may answer is the
// interaction service's business (interactions/function-continuation.ts).

import type { FunctionResultValue } from "../agent/steps.js";
import { describeValueKind } from "../tools/tool-call.js";
import type { CreateInteractionRequest } from "./create-interaction.js";

/** One function_result of the input, where it was, and its shape's problems (none when it is usable). */
export interface InputFunctionResult {
  /** "input[2]", or "input" when the input is this one object. */
  where: string;
  callId: string | undefined;
  name: string | undefined;
  result: FunctionResultValue | undefined;
  isError: boolean | undefined;
  problems: string[];
}

export interface InputFunctionParts {
  results: InputFunctionResult[];
  /** The other items of the input, described for a message ("input[0], a user_input step"); a string input is one. */
  others: string[];
  /** The IDs of the function_call steps in the input (a Step[] history may carry calls with their results). */
  callIds: Set<string>;
}

export function functionPartsOf(input: CreateInteractionRequest["input"]): InputFunctionParts {
  const parts: InputFunctionParts = { results: [], others: [], callIds: new Set() };
  if (input === undefined) return parts;
  if (typeof input === "string") {
    if (input !== "") parts.others.push("the text input");
    return parts;
  }
  const items = Array.isArray(input) ? input.map((item, index) => ({ item, where: `input[${index}]` })) : [{ item: input, where: "input" }];
  for (const { item, where } of items) {
    const record = item as Record<string, unknown>;
    if (record.type === "function_result") parts.results.push(readResult(record, where));
    else {
      if (record.type === "function_call" && typeof record.id === "string") parts.callIds.add(record.id);
      parts.others.push(`${where}, a ${String(record.type)} item`);
    }
  }
  return parts;
}

function readResult(item: Record<string, unknown>, where: string): InputFunctionResult {
  const problems: string[] = [];
  const { call_id: callId, name, result, is_error: isError } = item;
  if (typeof callId !== "string" || callId === "") {
    problems.push(`${where}.call_id must be the id of the function_call step it answers (a string), got ${describeValueKind(callId)}`);
  }
  if (name !== undefined && typeof name !== "string") problems.push(`${where}.name must be a string, got ${describeValueKind(name)}`);
  if (isError !== undefined && typeof isError !== "boolean") {
    problems.push(`${where}.is_error must be a boolean, got ${describeValueKind(isError)}`);
  }
  const validResult =
    typeof result === "string" || (Array.isArray(result) ? result.every(isContentItem) : typeof result === "object" && result !== null);
  if (!validResult) {
    problems.push(
      `${where}.result must be the function's output: a string, an object, or a list of Content items (text or image) like [{"type": "text", "text": "…"}], got ${describeValueKind(result)}`,
    );
  }
  return {
    where,
    callId: typeof callId === "string" && callId !== "" ? callId : undefined,
    name: typeof name === "string" ? name : undefined,
    result: validResult ? (result as FunctionResultValue) : undefined,
    isError: typeof isError === "boolean" ? isError : undefined,
    problems,
  };
}

/**
 * A Content item of a result as the document has it: text or an image (FunctionResultStep.result), so what
 * is recorded is the document's (FunctionResultValue) also when EMULATOR_LOOSE let the body past its check.
 */
function isContentItem(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const item = value as Record<string, unknown>;
  return item.type === "image" || (item.type === "text" && typeof item.text === "string");
}
