// A backend-neutral ModelRequest as a chat completions request (openai-backend.ts sends it). Only the
// fields every OpenAI-compatible server knows are used (Ollama, llama.cpp, vLLM, LM Studio, LiteLLM):
// `max_tokens` rather than OpenAI's newer `max_completion_tokens`, which the local servers ignore.

import type {
  ChatCompletionCreateParamsStreaming,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
  ChatCompletionToolMessageParam,
} from "openai/resources/chat/completions";
import type { ReasoningEffort } from "openai/resources/shared";
import type { GenerationSettings, ModelMessage, ModelRequest } from "./model-backend.js";

export function chatCompletionRequest(request: ModelRequest): ChatCompletionCreateParamsStreaming {
  const messages: ChatCompletionMessageParam[] = [];
  if (request.system !== undefined) messages.push({ role: "system", content: request.system });
  for (const message of request.messages) messages.push(...chatMessages(message));
  return {
    model: request.model,
    messages,
    stream: true,
    // Without it the server sends no usage at all while streaming.
    stream_options: { include_usage: true },
    // OpenAI refuses an empty tools array ("[] is too short"), so no tools means no field.
    ...(request.tools.length > 0 ? { tools: request.tools.map(functionTool) } : {}),
    ...generationFields(request.generation),
    ...responseFormat(request.json),
  };
}

function chatMessages(message: ModelMessage): ChatCompletionMessageParam[] {
  switch (message.role) {
    case "user":
      return [{ role: "user", content: message.text }];
    case "model":
      if (message.calls.length === 0) return [{ role: "assistant", content: message.text }];
      return [
        {
          role: "assistant",
          // A calls-only answer has content null, as the servers themselves return it.
          content: message.text === "" ? null : message.text,
          tool_calls: message.calls.map((call) => ({
            id: call.id,
            type: "function" as const,
            function: { name: call.name, arguments: call.arguments },
          })),
        },
      ];
    case "tool":
      return message.results.map(
        (result): ChatCompletionToolMessageParam => ({
          role: "tool",
          tool_call_id: result.id,
          // The protocol has no error flag on a tool result: the text has to tell the model.
          content: result.isError ? `Error: ${result.output}` : result.output,
        }),
      );
  }
}

function functionTool(tool: ModelRequest["tools"][number]): ChatCompletionFunctionTool {
  return { type: "function", function: { name: tool.name, description: tool.description, parameters: tool.parameters } };
}

function generationFields(generation: GenerationSettings | undefined): Partial<ChatCompletionCreateParamsStreaming> {
  if (!generation) return {};
  const fields: Partial<ChatCompletionCreateParamsStreaming> = {};
  if (generation.temperature !== undefined) fields.temperature = generation.temperature;
  if (generation.top_p !== undefined) fields.top_p = generation.top_p;
  if (generation.seed !== undefined) fields.seed = generation.seed;
  if (generation.max_output_tokens !== undefined) fields.max_tokens = generation.max_output_tokens;
  if (generation.stop_sequences !== undefined && generation.stop_sequences.length > 0) fields.stop = generation.stop_sequences;
  const effort = generation.thinking_level === undefined ? undefined : reasoningEffort(generation.thinking_level);
  if (effort !== undefined) fields.reasoning_effort = effort;
  return fields;
}

/** GenerationConfig.thinking_level's values are reasoning_effort values too, under the same names. */
function reasoningEffort(thinkingLevel: string): ReasoningEffort | undefined {
  switch (thinkingLevel) {
    case "minimal":
    case "low":
    case "medium":
    case "high":
      return thinkingLevel;
    default:
      return undefined;
  }
}

function responseFormat(json: ModelRequest["json"]): Partial<ChatCompletionCreateParamsStreaming> {
  if (!json) return {};
  if (!json.schema) return { response_format: { type: "json_object" } };
  // strict: false because the request's schema need not meet OpenAI's strict subset (every property
  // required, additionalProperties false); the local servers constrain to it either way.
  return { response_format: { type: "json_schema", json_schema: { name: "answer", schema: json.schema, strict: false } } };
}
