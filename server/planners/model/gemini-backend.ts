// The `gemini` backend (EMULATOR_AGENT_MODEL=gemini:<model>): one turn is one
// models.generateContentStream call through the official @google/genai client, with the emulator's
// own key (EMULATOR_GEMINI_API_KEY, never a client's). gemini-request.ts translates the request,
// gemini-answer.ts reads the stream, gemini-faults.ts says what went wrong.

import { ApiError, GoogleGenAI } from "@google/genai";
import { boundedFetch, type AnswerBound } from "./bounded-fetch.js";
import { describeFault } from "./gemini-faults.js";
import { GeminiAnswerReader } from "./gemini-answer.js";
import { toGenerateContentParameters } from "./gemini-request.js";
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

export interface GeminiBackendOptions {
  /** EMULATOR_GEMINI_API_KEY. */
  apiKey: string;
  /** EMULATOR_GEMINI_BASE_URL; absent means Google's own endpoint. */
  baseUrl?: string;
  /** EMULATOR_MODEL_TIMEOUT_SECONDS in milliseconds: the bound of one whole turn, answer stream included. */
  timeoutMs: number;
  /** EMULATOR_MODEL_ANSWER_BYTES: bytes one turn may read from the server (bounded-fetch.ts). */
  maxAnswerBytes?: number;
}

const GOOGLE_BASE_URL = "https://generativelanguage.googleapis.com";

export function geminiBackend(options: GeminiBackendOptions): ModelBackend {
  if (options.apiKey === "") throw new Error("the gemini backend needs a key: set EMULATOR_GEMINI_API_KEY");
  if (!(options.timeoutMs > 0)) throw new Error(`the gemini backend needs a positive timeout, not ${options.timeoutMs} ms`);
  const baseUrl = options.baseUrl ?? GOOGLE_BASE_URL;
  const maxAnswerBytes = options.maxAnswerBytes ?? DEFAULT_MODEL_ANSWER_BYTES;
  /** One client per turn: its fetch counts that turn's bytes (a client is a few objects, no connection of its own). */
  const clientFor = (bound: AnswerBound) =>
    new GoogleGenAI({
      apiKey: options.apiKey,
      // No retryOptions: the SDK then makes exactly one attempt; a failed turn is the planner's to report.
      // The SDK 3.x defaults to v1; v1beta is the surface Google documents responseJsonSchema,
      // parametersJsonSchema and thinkingLevel on, and the one Gemini-compatible servers implement.
      httpOptions: { baseUrl, apiVersion: "v1beta", timeout: options.timeoutMs, fetch: boundedFetch(globalThis.fetch, bound) },
    });

  async function turn(request: ModelRequest, sink: ModelStreamSink, signal: AbortSignal): Promise<ModelAnswer> {
    signal.throwIfAborted();
    const bound: AnswerBound = { maxBytes: maxAnswerBytes, exceeded: false };
    const client = clientFor(bound);
    const context = { model: request.model, baseUrl, timeoutMs: options.timeoutMs, apiKey: options.apiKey };
    // The SDK's timeout stays armed while the body streams; this one bounds the turn whatever the SDK does.
    const deadline = AbortSignal.timeout(options.timeoutMs);
    const parameters = toGenerateContentParameters(request);
    parameters.config = { ...parameters.config, abortSignal: AbortSignal.any([signal, deadline]) };
    try {
      const reader = new GeminiAnswerReader(request.model, request.messages.length, sink);
      const stream = await client.models.generateContentStream(parameters);
      for await (const chunk of stream) reader.add(chunk);
      if (bound.exceeded) throw answerTooLarge("gemini", `the server at ${baseUrl}`, maxAnswerBytes);
      return reader.finish();
    } catch (error) {
      // A cancel or shutdown is not the model's failure: the caller gets its own reason back.
      if (signal.aborted) throw signal.reason;
      if (bound.exceeded) throw answerTooLarge("gemini", `the server at ${baseUrl}`, maxAnswerBytes);
      if (error instanceof ModelBackendError) throw error;
      throw describeFault(deadline.aborted ? deadline.reason : error, context);
    }
  }

  /** What describeFault makes of Google's error answer for that status (the SDK's ApiError), or of the deadline. */
  function injectedFailure(failure: InjectedModelFailure, model: string): ModelBackendError {
    const context = { model, baseUrl, timeoutMs: options.timeoutMs, apiKey: options.apiKey };
    if (failure.kind === "timeout")
      return describeFault(Object.assign(new Error("The operation was aborted due to timeout"), { name: "TimeoutError" }), context);
    const body = {
      error: { code: failure.status, message: failure.message, status: failure.status >= 500 ? "UNAVAILABLE" : "FAILED_PRECONDITION" },
    };
    return describeFault(new ApiError({ message: JSON.stringify(body), status: failure.status }), context);
  }

  return { name: "gemini", timeoutMs: options.timeoutMs, turn, injectedFailure };
}
