// Reads a chat completions stream (the parsed `data:` chunks the official client yields) into one
// answer, passing text and reasoning to the sink as they arrive. The client types the chunks but checks
// nothing, so each one is read as untrusted JSON: whatever is not the protocol's ends the turn as a
// ProtocolViolation rather than a half-read answer.

import type { ModelStreamSink, ModelToolCall, ModelUsage } from "./model-backend.js";

/** The stream is not a chat completions stream; the detail says where it went wrong. */
export class ProtocolViolation extends Error {
  constructor(readonly detail: string) {
    super(detail);
    this.name = "ProtocolViolation";
  }
}

/** The sink threw: the caller's own failure, passed back to it unchanged (openai-backend.ts unwraps it). */
export class SinkFailure extends Error {
  constructor(readonly failure: unknown) {
    super("the stream sink threw");
    this.name = "SinkFailure";
  }
}

export interface StreamedAnswer {
  text: string;
  thought: string;
  calls: ModelToolCall[];
  usage: ModelUsage;
  /** The first choice's finish_reason; null when the stream ended without one (cut short). */
  finishReason: string | null;
}

interface CallInProgress {
  id: string | undefined;
  name: string;
  arguments: string;
}

/**
 * @param callIdPrefix for calls whose server gave no ID (`call_<turn>_`), so that a replayed
 *   conversation carries the IDs of the recorded one.
 */
export async function readChatStream(chunks: AsyncIterable<unknown>, sink: ModelStreamSink, callIdPrefix: string): Promise<StreamedAnswer> {
  let text = "";
  let thought = "";
  let finishReason: string | null = null;
  let usage: ModelUsage = { input: 0, output: 0, thought: 0 };
  const calls = new Map<number, CallInProgress>();
  let lastCallIndex = -1;
  let count = 0;

  for await (const chunk of chunks) {
    count += 1;
    const where = `chunk ${count}`;
    if (!isRecord(chunk)) throw new ProtocolViolation(`${where} is ${describe(chunk)}, not a chat.completion.chunk object`);
    if (chunk["usage"] !== undefined && chunk["usage"] !== null) usage = readUsage(chunk["usage"], where);
    const choices = chunk["choices"];
    if (!Array.isArray(choices)) {
      // The usage chunk has `choices: []`; a server that leaves the field out there is still understood.
      if (choices === undefined && chunk["usage"] !== undefined) continue;
      throw new ProtocolViolation(`${where} has no choices array`);
    }
    for (const choice of choices) {
      if (!isRecord(choice)) throw new ProtocolViolation(`${where} has a choice that is ${describe(choice)}`);
      // One answer was asked for (no `n`): any other choice is not ours to read.
      if (choice["index"] !== undefined && choice["index"] !== 0) continue;
      const reason = choice["finish_reason"];
      if (typeof reason === "string") finishReason = reason;
      else if (reason !== null && reason !== undefined)
        throw new ProtocolViolation(`${where} has a finish_reason that is ${describe(reason)}`);
      const delta = choice["delta"];
      if (delta === undefined || delta === null) continue;
      if (!isRecord(delta)) throw new ProtocolViolation(`${where} has a delta that is ${describe(delta)}`);

      const content = optionalString(delta["content"], `${where}: delta.content`);
      if (content) {
        text += content;
        deliver(() => sink.text(content));
      }
      // Not in the client's types: llama.cpp, DeepSeek and older vLLM send reasoning_content, Ollama and
      // newer vLLM send reasoning; vLLM during its rename sends both with the same text, so one is read.
      const reasoning =
        optionalString(delta["reasoning_content"], `${where}: delta.reasoning_content`) ??
        optionalString(delta["reasoning"], `${where}: delta.reasoning`);
      if (reasoning) {
        thought += reasoning;
        deliver(() => sink.thought(reasoning));
      }
      const toolCalls = delta["tool_calls"];
      if (toolCalls === undefined || toolCalls === null) continue;
      if (!Array.isArray(toolCalls)) throw new ProtocolViolation(`${where}: delta.tool_calls is ${describe(toolCalls)}, not an array`);
      for (const fragment of toolCalls) lastCallIndex = addFragment(calls, fragment, lastCallIndex, where);
    }
  }

  const finished = [...calls.entries()].sort(([a], [b]) => a - b);
  return {
    text,
    thought,
    finishReason,
    usage,
    calls: finished.map(([index, call]) => {
      if (call.name === "") throw new ProtocolViolation(`tool call ${index} never got a function name`);
      return { id: call.id ?? `${callIdPrefix}${index}`, name: call.name, arguments: call.arguments };
    }),
  };
}

/** Adds one streamed piece of a tool call; returns the index it went to. */
function addFragment(calls: Map<number, CallInProgress>, fragment: unknown, lastIndex: number, where: string): number {
  if (!isRecord(fragment)) throw new ProtocolViolation(`${where}: a tool call fragment is ${describe(fragment)}`);
  const given = fragment["function"];
  if (given !== undefined && given !== null && !isRecord(given))
    throw new ProtocolViolation(`${where}: tool call function is ${describe(given)}`);
  const fn = isRecord(given) ? given : undefined;
  const name = optionalString(fn?.["name"], `${where}: tool call function.name`);
  const piece = optionalString(fn?.["arguments"], `${where}: tool call function.arguments`);
  const id = optionalString(fragment["id"], `${where}: tool call id`);
  let index: number;
  if (fragment["index"] === undefined) {
    // Some servers (older Ollama) send whole calls without an index: a named fragment starts a new
    // call, an unnamed one continues the last.
    index = name || lastIndex < 0 ? lastIndex + 1 : lastIndex;
  } else if (Number.isInteger(fragment["index"]) && (fragment["index"] as number) >= 0) {
    index = fragment["index"] as number;
  } else {
    throw new ProtocolViolation(`${where}: tool call index is ${describe(fragment["index"])}, not a whole number`);
  }
  const call = calls.get(index) ?? { id: undefined, name: "", arguments: "" };
  // As the official client's own accumulator does: the ID and name are given whole (in the first
  // fragment, though some servers repeat them), the arguments in pieces.
  if (id) call.id = id;
  if (name) call.name = name;
  if (piece) call.arguments += piece;
  calls.set(index, call);
  return index;
}

function readUsage(value: unknown, where: string): ModelUsage {
  if (!isRecord(value)) throw new ProtocolViolation(`${where}: usage is ${describe(value)}, not an object`);
  const input = tokenCount(value["prompt_tokens"]);
  const completion = tokenCount(value["completion_tokens"]);
  const details = value["completion_tokens_details"];
  const reasoning = isRecord(details) ? tokenCount(details["reasoning_tokens"]) : 0;
  // completion_tokens counts the reasoning too; ModelUsage keeps the two apart.
  return { input, output: Math.max(0, completion - reasoning), thought: reasoning };
}

/** Servers leave counts out or null where they have none; anything but a count is read as none. */
function tokenCount(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

function optionalString(value: unknown, what: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw new ProtocolViolation(`${what} is ${describe(value)}, not a string`);
  return value;
}

function deliver(send: () => void): void {
  try {
    send();
  } catch (failure) {
    throw new SinkFailure(failure);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  const text = JSON.stringify(value) ?? String(value);
  return `${typeof value} ${text.length > 60 ? `${text.slice(0, 60)}…` : text}`;
}
