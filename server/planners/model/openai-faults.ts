// Why an OpenAI-compatible server's turn failed, as a ModelBackendError whose message names the backend,
// the server and what to fix. The API key never appears in one: a server may echo it in its error body
// (OpenAI's own 401 quotes part of it), so every message is scrubbed of it before it leaves.

import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import { ModelBackendError, type ModelFailureKind } from "./model-backend.js";
import { ProtocolViolation } from "./openai-stream.js";

export interface FaultContext {
  /** The base URL as it may be shown (no user info). */
  baseUrl: string;
  model: string;
  timeoutMs: number;
  /** The key sent, to scrub from messages; undefined for the placeholder. */
  apiKey: string | undefined;
  /** The body of the server's error answer, when there was one (the client keeps only part of it). */
  errorBody: string | undefined;
}

/** Connection errors that mean the server was reached and then dropped the request. */
const DROPPED_CONNECTION_CODES = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_CLOSED"]);

const MAX_SERVER_MESSAGE = 300;

export function turnFailure(error: unknown, context: FaultContext): ModelBackendError {
  const server = `the server at ${context.baseUrl}`;
  if (error instanceof ProtocolViolation) return protocolFailure(context, error.detail);
  // The client parses each `data:` line with JSON.parse and lets its SyntaxError through.
  if (error instanceof SyntaxError) return protocolFailure(context, `a data line is not JSON (${error.message})`);
  if (error instanceof APIConnectionTimeoutError || error instanceof APIUserAbortError) return timeoutFailure(context);
  if (error instanceof APIConnectionError) {
    const code = errorCode(error);
    if (code && DROPPED_CONNECTION_CODES.has(code)) {
      return failure(context, "server", `openai backend: ${server} closed the connection before answering (${code}); check its log`);
    }
    return failure(
      context,
      "unreachable",
      `openai backend: cannot connect to ${context.baseUrl} (${code ?? error.message}); is the server running at ${context.baseUrl}? ` +
        "set EMULATOR_OPENAI_BASE_URL to its address (e.g. http://127.0.0.1:11434/v1 for Ollama)",
    );
  }
  if (error instanceof APIError) return statusFailure(error, context);
  // Anything else comes from reading the body: undici's "terminated" when the connection drops mid-answer.
  const reason = error instanceof Error ? error.message : String(error);
  return failure(context, "server", `openai backend: ${server} broke off its answer mid-stream (${reason}); check its log`);
}

function statusFailure(error: APIError, context: FaultContext): ModelBackendError {
  const server = `the server at ${context.baseUrl}`;
  const said = serverMessage(error, context.errorBody);
  const status = error.status;
  if (status === undefined) {
    // An `error` object in the stream in place of a chunk: the server gave up mid-answer.
    return failure(context, "server", `openai backend: ${server} reported an error mid-answer: ${said}`);
  }
  const answered = `${status}: ${said}`;
  if (status === 401 || status === 403) {
    return failure(context, "auth", `openai backend: ${server} refused the API key (${answered}); check EMULATOR_OPENAI_API_KEY`);
  }
  if (status === 404) {
    return failure(
      context,
      "refused",
      `openai backend: ${server} has no model "${context.model}" or no chat completions endpoint (${answered}); ` +
        `pull the model (ollama pull ${context.model}) or check its name in EMULATOR_AGENT_MODEL, and check that EMULATOR_OPENAI_BASE_URL ends in /v1`,
    );
  }
  if (status === 429) {
    return failure(context, "rate_limit", `openai backend: ${server} is rate limiting (${answered}); wait, or lower the request rate`);
  }
  if (status >= 400 && status < 500) {
    return failure(context, "refused", `openai backend: ${server} refused the request for model "${context.model}" (${answered})`);
  }
  return failure(context, "server", `openai backend: ${server} failed (${answered}); check its log`);
}

export function timeoutFailure(context: FaultContext): ModelBackendError {
  const seconds = context.timeoutMs / 1000;
  return failure(
    context,
    "timeout",
    `openai backend: no complete answer from the server at ${context.baseUrl} for model "${context.model}" within ${seconds} s; ` +
      "raise EMULATOR_MODEL_TIMEOUT_SECONDS or use a smaller model",
  );
}

export function emptyFailure(context: FaultContext, finishReason: string): ModelBackendError {
  return failure(
    context,
    "empty",
    `openai backend: model "${context.model}" at ${context.baseUrl} answered with neither text nor tool calls (finish_reason ${finishReason})`,
  );
}

export function protocolFailure(context: FaultContext, detail: string): ModelBackendError {
  return failure(
    context,
    "server",
    `openai backend: the answer from ${context.baseUrl} is not a chat completions stream: ${detail}; is EMULATOR_OPENAI_BASE_URL an OpenAI-compatible server?`,
  );
}

function failure(context: FaultContext, kind: ModelFailureKind, message: string): ModelBackendError {
  const key = context.apiKey;
  return new ModelBackendError(kind, key ? message.split(key).join("***") : message);
}

/** What the server said: its error body's message (in any of the shapes the servers use), else the client's. */
function serverMessage(error: APIError, body: string | undefined): string {
  const fromBody = body === undefined ? undefined : messageInBody(body);
  const said =
    fromBody ?? (typeof error.error === "object" && error.error !== null ? messageInBody(JSON.stringify(error.error)) : undefined);
  const text = (said ?? error.message).replace(/\s+/g, " ").trim();
  return text.length > MAX_SERVER_MESSAGE ? `${text.slice(0, MAX_SERVER_MESSAGE)}…` : text || "no message";
}

/** `{error: {message}}` (OpenAI, Ollama, llama.cpp, LiteLLM), `{error: "…"}`, `{message}` (vLLM), `{detail}` (FastAPI), or text. */
function messageInBody(body: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return body.trim() || undefined;
  }
  if (typeof parsed !== "object" || parsed === null) return body.trim() || undefined;
  const record = parsed as Record<string, unknown>;
  const nested = record["error"];
  if (typeof nested === "string") return nested;
  if (typeof nested === "object" && nested !== null && typeof (nested as Record<string, unknown>)["message"] === "string") {
    return (nested as Record<string, unknown>)["message"] as string;
  }
  for (const field of ["message", "detail"]) {
    if (typeof record[field] === "string") return record[field] as string;
  }
  return body.trim() || undefined;
}

/** The system error code (ECONNREFUSED, ENOTFOUND…) somewhere down the error's causes. */
function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && typeof current === "object" && current !== null; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && code !== "") return code;
    // Several addresses tried (localhost as ::1 and 127.0.0.1): their AggregateError carries each.
    if (current instanceof AggregateError && current.errors.length > 0) current = current.errors[0];
    else current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
