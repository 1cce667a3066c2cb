// The model behind the agent through chat completions, for any OpenAI-compatible server (Ollama,
// llama.cpp's server, vLLM, LM Studio, LiteLLM), spoken by the official openai client with
// streaming. Translation both ways is in openai-request.ts and openai-stream.ts, faults in
// openai-faults.ts; this file owns the turn's lifetime: one request, one deadline, one way to stop.

import OpenAI, { APIError, type ClientOptions } from "openai";
import { boundedFetch, type AnswerBound } from "./bounded-fetch.js";
import {
  answerTooLarge,
  DEFAULT_MODEL_ANSWER_BYTES,
  type InjectedModelFailure,
  type ModelAnswer,
  type ModelBackend,
  ModelBackendError,
  type ModelRequest,
  type ModelStreamSink,
} from "./model-backend.js";
import { emptyFailure, type FaultContext, protocolFailure, timeoutFailure, turnFailure } from "./openai-faults.js";
import { chatCompletionRequest } from "./openai-request.js";
import { readChatStream, SinkFailure } from "./openai-stream.js";

export interface OpenAiBackendOptions {
  /** EMULATOR_OPENAI_BASE_URL: the server's OpenAI API root, e.g. http://127.0.0.1:11434/v1. */
  baseUrl: string;
  /** EMULATOR_OPENAI_API_KEY; local servers need none. */
  apiKey?: string;
  /** EMULATOR_MODEL_TIMEOUT_SECONDS in ms: the whole turn, first byte to last. */
  timeoutMs: number;
  /** For tests and embedders; the global fetch otherwise. */
  fetch?: ClientOptions["fetch"];
  /** EMULATOR_MODEL_ANSWER_BYTES: bytes one turn may read from the server (bounded-fetch.ts). */
  maxAnswerBytes?: number;
}

/** Sent when no key is set: the client insists on one and local servers ignore it. */
const PLACEHOLDER_API_KEY = "no-key";

export function openAiBackend(options: OpenAiBackendOptions): ModelBackend {
  const baseUrl = checkedBaseUrl(options.baseUrl);
  if (!Number.isFinite(options.timeoutMs) || options.timeoutMs <= 0) {
    throw new Error(
      `openai backend: the timeout must be a positive number of ms, got ${options.timeoutMs}; check EMULATOR_MODEL_TIMEOUT_SECONDS`,
    );
  }
  const apiKey = options.apiKey === undefined || options.apiKey === "" ? undefined : options.apiKey;
  const settings: TurnSettings = {
    ...options,
    baseUrl,
    apiKey,
    timeoutMs: Math.ceil(options.timeoutMs),
    maxAnswerBytes: options.maxAnswerBytes ?? DEFAULT_MODEL_ANSWER_BYTES,
  };
  return {
    name: "openai",
    timeoutMs: settings.timeoutMs,
    turn: (request, sink, signal) => runTurn(settings, request, sink, signal),
    injectedFailure: (failure, model) => injectedFailure(settings, failure, model),
  };
}

/** What turnFailure makes of the server's error answer (`{"error":{"message"}}`, as OpenAI's servers send), or of the deadline. */
function injectedFailure(settings: TurnSettings, failure: InjectedModelFailure, model: string): ModelBackendError {
  const body = failure.kind === "status" ? JSON.stringify({ error: { message: failure.message } }) : undefined;
  const context: FaultContext = {
    baseUrl: shownUrl(settings.baseUrl),
    model,
    timeoutMs: settings.timeoutMs,
    apiKey: settings.apiKey,
    errorBody: body,
  };
  if (failure.kind === "timeout") return timeoutFailure(context);
  return turnFailure(APIError.generate(failure.status, { error: { message: failure.message } }, failure.message, new Headers()), context);
}

interface TurnSettings {
  baseUrl: URL;
  apiKey: string | undefined;
  timeoutMs: number;
  maxAnswerBytes: number;
  fetch?: ClientOptions["fetch"];
}

async function runTurn(settings: TurnSettings, request: ModelRequest, sink: ModelStreamSink, signal: AbortSignal): Promise<ModelAnswer> {
  signal.throwIfAborted();
  const context: FaultContext = {
    baseUrl: shownUrl(settings.baseUrl),
    model: request.model,
    timeoutMs: settings.timeoutMs,
    apiKey: settings.apiKey,
    errorBody: undefined,
  };
  // The client's own timeout ends when the headers arrive; a server that stalls mid-answer needs a
  // deadline over the whole turn, and the caller's signal stops the same request.
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), settings.timeoutMs);
  const stop = AbortSignal.any([signal, deadline.signal]);
  const bound: AnswerBound = { maxBytes: settings.maxAnswerBytes, exceeded: false };
  const tooLarge = () => answerTooLarge("openai", `the server at ${context.baseUrl}`, bound.maxBytes);
  const client = new OpenAI({
    baseURL: settings.baseUrl.href,
    apiKey: settings.apiKey ?? PLACEHOLDER_API_KEY,
    // Passed explicitly so that OPENAI_ORG_ID / OPENAI_PROJECT_ID meant for another program are not sent.
    organization: null,
    project: null,
    // A fault ends the interaction at once, and a cassette holds one request per turn.
    maxRetries: 0,
    timeout: settings.timeoutMs,
    // Faults are reported through the ModelBackendError; the client's console lines would repeat them.
    logLevel: "off",
    fetch: errorBodyRecorder(boundedFetch(settings.fetch ?? globalThis.fetch, bound), context),
  });
  try {
    const stream = await client.chat.completions.create(chatCompletionRequest(request), { signal: stop });
    // When its request is aborted mid-stream, the client ends the iteration quietly: the checks after
    // the loop tell an abort from a finished answer.
    const answer = await readChatStream(stream, sink, `call_${request.messages.length}_`);
    signal.throwIfAborted();
    if (bound.exceeded) throw tooLarge();
    if (deadline.signal.aborted) throw timeoutFailure(context);
    if (answer.finishReason === null) throw protocolFailure(context, "the stream ended before the answer did (no finish_reason)");
    if (answer.text === "" && answer.calls.length === 0) throw emptyFailure(context, answer.finishReason);
    return {
      text: answer.text,
      ...(answer.thought === "" ? {} : { thought: answer.thought }),
      calls: answer.calls,
      usage: answer.usage,
    };
  } catch (error) {
    signal.throwIfAborted();
    if (error instanceof SinkFailure) throw error.failure;
    if (bound.exceeded) throw tooLarge();
    if (deadline.signal.aborted) throw timeoutFailure(context);
    if (error instanceof ModelBackendError) throw error;
    throw turnFailure(error, context);
  } finally {
    clearTimeout(timer);
  }
}

/** The client keeps only `body.error` of an error answer; vLLM and FastAPI servers put their message elsewhere. */
function errorBodyRecorder(fetch: NonNullable<ClientOptions["fetch"]>, context: FaultContext): NonNullable<ClientOptions["fetch"]> {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (!response.ok) context.errorBody = await response.clone().text();
    return response;
  };
}

function checkedBaseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(
      `openai backend: EMULATOR_OPENAI_BASE_URL is not a URL: ${JSON.stringify(text)}; set it like http://127.0.0.1:11434/v1`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(`openai backend: EMULATOR_OPENAI_BASE_URL must be http(s), got ${url.protocol}; set it like http://127.0.0.1:11434/v1`);
  }
  return url;
}

/** The base URL for messages: credentials in it (https://user:secret@host) are not for logs. */
function shownUrl(url: URL): string {
  if (url.username === "" && url.password === "") return url.href.replace(/\/$/, "");
  const shown = new URL(url.href);
  shown.username = "***";
  shown.password = "";
  return shown.href.replace(/\/$/, "");
}
