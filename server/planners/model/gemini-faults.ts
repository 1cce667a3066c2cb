// What went wrong with a Gemini turn, as a ModelBackendError that says what to fix. The SDK reports an
// HTTP error as an ApiError whose message is the server's error JSON (after "got status: ..." when it
// came inside the stream), a dead connection as fetch's TypeError with the socket error as its cause,
// and its own timeout as an AbortError.

import { ApiError } from "@google/genai";
import { ModelBackendError } from "./model-backend.js";

export interface FaultContext {
  model: string;
  /** Where the requests go, for the `unreachable` message (not a secret: the key travels in a header). */
  baseUrl: string;
  timeoutMs: number;
  /** Removed from every server message that echoes it: the emulator's own key is never shown to a client. */
  apiKey: string;
}

const MAX_DETAIL = 500;

/** Socket errors that mean no connection was made. */
const UNREACHABLE_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH", "UND_ERR_CONNECT_TIMEOUT"]);

/** The google.rpc.ErrorInfo reasons of a refused key (Gemini answers 400, not 401, for a wrong key). */
const KEY_REASONS = new Set(["API_KEY_INVALID", "API_KEY_EXPIRED", "API_KEY_SERVICE_BLOCKED"]);

export function describeFault(error: unknown, context: FaultContext): ModelBackendError {
  const where = `gemini model ${context.model}`;
  if (error instanceof ApiError) return describeApiError(error, context);
  if (error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError")) {
    return new ModelBackendError(
      "timeout",
      `${where}: no complete answer within ${context.timeoutMs / 1000} s; raise EMULATOR_MODEL_TIMEOUT_SECONDS or use a faster model`,
    );
  }
  const code = socketErrorCode(error);
  if (code !== undefined && UNREACHABLE_CODES.has(code)) {
    return new ModelBackendError(
      "unreachable",
      `${where}: cannot connect to ${context.baseUrl} (${code}); check EMULATOR_GEMINI_BASE_URL and that the server is running`,
    );
  }
  const detail = redact(error instanceof Error ? error.message : String(error), context.apiKey);
  if (error instanceof SyntaxError) {
    return new ModelBackendError(
      "server",
      `${where}: the server sent a chunk that is not JSON (${detail}); check EMULATOR_GEMINI_BASE_URL`,
    );
  }
  return new ModelBackendError(
    "server",
    `${where}: the answer broke off or is not the Gemini API (${detail}${code ? `, ${code}` : ""}); check the server behind EMULATOR_GEMINI_BASE_URL, or retry`,
  );
}

function describeApiError(error: ApiError, context: FaultContext): ModelBackendError {
  const where = `gemini model ${context.model}`;
  const body = readErrorBody(error.message);
  const said = redact(body.message, context.apiKey);
  const status = error.status;
  if (status === 401 || status === 403 || (status === 400 && body.reasons.some((reason) => KEY_REASONS.has(reason)))) {
    return new ModelBackendError("auth", `${where}: the server refused the API key (${status}: ${said}); check EMULATOR_GEMINI_API_KEY`);
  }
  if (status === 404) {
    return new ModelBackendError(
      "refused",
      `${where}: the server does not know this model (404: ${said}); check the model name in EMULATOR_AGENT_MODEL`,
    );
  }
  if (status === 429) {
    return new ModelBackendError(
      "rate_limit",
      `${where}: rate limited or out of quota (429: ${said}); wait and retry, or raise the key's quota`,
    );
  }
  if (status >= 500) {
    return new ModelBackendError("server", `${where}: the server failed (${status}: ${said}); retry later`);
  }
  return new ModelBackendError("refused", `${where}: the server refused the request (${status}: ${said})`);
}

/** The message and ErrorInfo reasons of Google's `{"error":{"code","message","status","details"}}`, from the SDK's error text. */
function readErrorBody(text: string): { message: string; reasons: string[] } {
  // A stream's error chunk arrives as `got status: <STATUS>. <json>`; an HTTP error as the bare JSON.
  const start = text.indexOf("{");
  try {
    const parsed: unknown = JSON.parse(start >= 0 ? text.slice(start) : text);
    const inner = isRecord(parsed) && isRecord(parsed["error"]) ? parsed["error"] : undefined;
    if (inner) {
      const details = Array.isArray(inner["details"]) ? inner["details"] : [];
      return {
        message: typeof inner["message"] === "string" && inner["message"] !== "" ? inner["message"] : text,
        reasons: details.flatMap((detail) => (isRecord(detail) && typeof detail["reason"] === "string" ? [detail["reason"]] : [])),
      };
    }
  } catch {
    // Not JSON: the text itself is the best account there is.
  }
  return { message: text, reasons: [] };
}

/** The `code` of the error or of the errors it wraps (fetch's TypeError → undici's socket error). */
function socketErrorCode(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; isRecord(current) && depth < 5; current = current["cause"], depth += 1) {
    if (typeof current["code"] === "string") return current["code"];
    const nested = current["errors"]; // AggregateError of a host's several addresses
    if (Array.isArray(nested) && isRecord(nested[0]) && typeof nested[0]["code"] === "string") return nested[0]["code"];
  }
  return undefined;
}

/** The text without the key, and short enough for an error message (a proxy's HTML error page is not). */
function redact(text: string, secret: string): string {
  const clean = secret === "" ? text : text.split(secret).join("[EMULATOR_GEMINI_API_KEY]");
  return clean.length > MAX_DETAIL ? `${clean.slice(0, MAX_DETAIL)}…` : clean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object";
}
