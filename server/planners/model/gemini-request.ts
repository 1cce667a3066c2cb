// A backend-neutral ModelRequest as the parameters of @google/genai's models.generateContentStream
// (gemini-backend.ts sends them). Pure: the same request gives the same parameters, so a cassette's
// replayed session asks what the recorded one asked.

import {
  type Content,
  type FunctionCall,
  type GenerateContentConfig,
  type GenerateContentParameters,
  type Part,
  ThinkingLevel,
} from "@google/genai";
import { type ModelMessage, type ModelRequest, type ModelToolCall, type ModelToolResult, ModelBackendError } from "./model-backend.js";

/**
 * Gemini 3 refuses (400) a step whose first functionCall part comes back without the thoughtSignature
 * the model gave it. A call keeps the model's own (ModelToolCall.signature); a first call that has none
 * (history another backend made, an older state) carries the signature Google documents for history
 * the model did not produce itself, which the API accepts (the model loses that reasoning, not the
 * conversation).
 */
export const FOREIGN_THOUGHT_SIGNATURE = "skip_thought_signature_validator";

/** GenerationSettings.thinking_level (the Interactions API's lower-case spelling) in the SDK's enum. */
const THINKING_LEVELS: Readonly<Record<string, ThinkingLevel>> = {
  minimal: ThinkingLevel.MINIMAL,
  low: ThinkingLevel.LOW,
  medium: ThinkingLevel.MEDIUM,
  high: ThinkingLevel.HIGH,
};

export function toGenerateContentParameters(request: ModelRequest): GenerateContentParameters {
  return { model: request.model, contents: request.messages.map(toContent), config: toConfig(request) };
}

function toContent(message: ModelMessage): Content {
  switch (message.role) {
    case "user":
      return { role: "user", parts: [{ text: message.text }] };
    case "model":
      return { role: "model", parts: modelParts(message.text, message.calls) };
    case "tool":
      // Gemini has no tool role: results go back as the user's functionResponse parts, in call order.
      return { role: "user", parts: message.results.map(toFunctionResponsePart) };
  }
}

function modelParts(text: string, calls: readonly ModelToolCall[]): Part[] {
  const parts: Part[] = [];
  // A content needs at least one part: an answer of no calls keeps its text even when empty.
  if (text !== "" || calls.length === 0) parts.push({ text });
  calls.forEach((call, index) => {
    const functionCall: FunctionCall = { id: call.id, name: call.name, args: argumentsObject(call.arguments) };
    const signature = call.signature ?? (index === 0 ? FOREIGN_THOUGHT_SIGNATURE : undefined);
    parts.push(signature !== undefined ? { functionCall, thoughtSignature: signature } : { functionCall });
  });
  return parts;
}

/** The planner replaces calls whose arguments are not a JSON object; should one get here, `{}` keeps the request valid. */
function argumentsObject(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // Malformed JSON: fall through to the empty object.
  }
  return {};
}

function toFunctionResponsePart(result: ModelToolResult): Part {
  // FunctionResponse.response must be a JSON object (a protobuf Struct); "output" and "error" are the keys Google's docs use.
  const response = result.isError ? { error: result.output } : { output: result.output };
  return { functionResponse: { id: result.id, name: result.name, response } };
}

function toConfig(request: ModelRequest): GenerateContentConfig {
  const config: GenerateContentConfig = {
    // The SDK would otherwise resend the whole request after a dropped stream: a turn is one request.
    automaticContinuation: false,
  };
  if (request.system !== undefined) config.systemInstruction = { parts: [{ text: request.system }] };
  if (request.tools.length > 0) {
    config.tools = [
      {
        functionDeclarations: request.tools.map((tool) => ({
          name: tool.name,
          description: tool.description,
          parametersJsonSchema: tool.parameters,
        })),
      },
    ];
  }
  const generation = request.generation ?? {};
  if (generation.temperature !== undefined) config.temperature = generation.temperature;
  if (generation.top_p !== undefined) config.topP = generation.top_p;
  if (generation.seed !== undefined) config.seed = generation.seed;
  if (generation.max_output_tokens !== undefined) config.maxOutputTokens = generation.max_output_tokens;
  if (generation.stop_sequences !== undefined) config.stopSequences = generation.stop_sequences;
  if (generation.thinking_level !== undefined) {
    config.thinkingConfig = { thinkingLevel: thinkingLevel(request.model, generation.thinking_level), includeThoughts: true };
  }
  if (request.json) {
    config.responseMimeType = "application/json";
    if (request.json.schema) config.responseJsonSchema = request.json.schema;
  }
  return config;
}

function thinkingLevel(model: string, level: string): ThinkingLevel {
  const known = THINKING_LEVELS[level.toLowerCase()];
  if (known === undefined) {
    throw new ModelBackendError(
      "refused",
      `gemini model ${model}: thinking_level "${level}" is not one Gemini knows; use one of ${Object.keys(THINKING_LEVELS).join(", ")}`,
    );
  }
  return known;
}
