// What the model-backed planner asks of a model, whichever protocol reaches it (docs/model-agent.md).
// One turn is one request and one answer: the planner sends the whole conversation so far in a
// backend-neutral form, and each backend (openai-backend.ts, gemini-backend.ts) translates it to its
// wire protocol and back. The cassette (cassette.ts) wraps a backend to record or replay turns, which is
// why a request is plain JSON with nothing in it that changes between two runs of the same session.

/** A function the model may call: a built-in sandbox tool, a request's function, or an MCP server's tool. */
export interface FunctionDeclaration {
  name: string;
  description: string;
  /** A JSON Schema of type object (the OpenAPI subset both protocols accept). */
  parameters: Record<string, unknown>;
}

/** A call the model asked for, as it gave it. */
export interface ModelToolCall {
  /**
   * The call's ID in the conversation: the model's own where its protocol has one (OpenAI's tool call
   * IDs), else one the backend makes from the turn and the call's place in it (`call_<turn>_<index>`),
   * never a random one, so that a replayed conversation is the recorded one.
   */
  id: string;
  name: string;
  /** The arguments as the model wrote them: JSON text, which may be malformed (the planner checks it). */
  arguments: string;
  /**
   * Gemini's thoughtSignature on the call's part, opaque: Gemini 3 refuses a conversation whose call
   * comes back without the signature it gave (and the model keeps its reasoning across turns with it).
   */
  signature?: string;
}

export interface ModelToolResult {
  /** The ModelToolCall.id this answers. */
  id: string;
  name: string;
  /** What the call produced, or why it did not run (a hook's denial, an argument error). */
  output: string;
  isError: boolean;
}

export type ModelMessage =
  /** The client's input. */
  | { role: "user"; text: string }
  /** One earlier answer of the model: its text (may be empty) and the calls it asked for. */
  | { role: "model"; text: string; calls: ModelToolCall[] }
  /** The results of the calls of the model message just before, in the same order. */
  | { role: "tool"; results: ModelToolResult[] };

/** The request's generation settings the backends pass on (GenerationConfig's fields, in the SDK's names). */
export interface GenerationSettings {
  temperature?: number;
  top_p?: number;
  seed?: number;
  max_output_tokens?: number;
  stop_sequences?: string[];
  /** GenerationConfig.thinking_level: minimal | low | medium | high. */
  thinking_level?: string;
}

export interface ModelRequest {
  /** The model's name as the backend's server knows it. */
  model: string;
  /** The system instruction; absent when there is none. */
  system?: string;
  messages: ModelMessage[];
  tools: FunctionDeclaration[];
  generation?: GenerationSettings;
  /** Set when the request asked for a JSON answer (response_format), with its schema when it gave one. */
  json?: { schema?: Record<string, unknown> };
}

/** Token counts as the model's server reported them for one turn; 0 where it reported none. */
export interface ModelUsage {
  input: number;
  output: number;
  thought: number;
}

export interface ModelAnswer {
  /** The answer's text (may be empty when the model only calls tools). */
  text: string;
  /** The model's thoughts, where its server returns them (Gemini's thought parts, a reasoning field). */
  thought?: string;
  calls: ModelToolCall[];
  usage: ModelUsage;
  /** Set by the cassette: recorded (asked live and saved) or replayed (answered from it); absent means live. */
  source?: "recorded" | "replayed";
}

/** Where a backend puts the answer as it arrives, before the turn's promise resolves with all of it. */
export interface ModelStreamSink {
  text(delta: string): void;
  thought(delta: string): void;
}

/**
 * Why a turn failed, for the interaction's errors[0] (the planner adds the backend, the model and what
 * to fix). `unreachable`: no connection; `auth`: the key was refused; `rate_limit`: 429; `timeout`:
 * EMULATOR_MODEL_TIMEOUT_SECONDS passed; `empty`: an answer with neither text nor calls; `refused`:
 * the server refused the request (another 4xx); `server`: a 5xx or an answer that is not the protocol's;
 * `replay`: the cassette has no answer for this turn (cassette.ts); `too_large`: the server sent more
 * than EMULATOR_MODEL_ANSWER_BYTES for one turn.
 */
export type ModelFailureKind = "unreachable" | "auth" | "rate_limit" | "timeout" | "empty" | "refused" | "server" | "replay" | "too_large";

/** EMULATOR_MODEL_ANSWER_BYTES's default: far more than any answer's stream, far less than memory. */
export const DEFAULT_MODEL_ANSWER_BYTES = 8 * 1024 * 1024;

/** The failure of a turn whose server sent more than `maxBytes` (bounded-fetch.ts). */
export function answerTooLarge(backend: string, server: string, maxBytes: number): ModelBackendError {
  return new ModelBackendError(
    "too_large",
    `${backend} backend: ${server} sent more than ${maxBytes} bytes for one answer (EMULATOR_MODEL_ANSWER_BYTES), so the answer was cut off there; check the model (an answer that never ends?), lower max_output_tokens, or raise EMULATOR_MODEL_ANSWER_BYTES`,
  );
}

export class ModelBackendError extends Error {
  constructor(
    readonly kind: ModelFailureKind,
    message: string,
  ) {
    super(message);
    this.name = "ModelBackendError";
  }
}

/** A failure of the model's server a fault rule stands in for (docs/faults.md#the-model). */
export type InjectedModelFailure = { kind: "timeout" } | { kind: "status"; status: number; message: string };

export interface ModelBackend {
  /** `openai` or `gemini`: the EMULATOR_AGENT_MODEL prefix, shown in errors and the dashboard. */
  readonly name: string;
  /** EMULATOR_MODEL_TIMEOUT_SECONDS in ms: how long an injected timeout holds a turn. */
  readonly timeoutMs?: number;
  /**
   * The error this backend gives when its server fails this way, read through the same code as a
   * real failure (so an injected 503 and a real one read alike); a generic one where absent.
   */
  injectedFailure?(failure: InjectedModelFailure, model: string): ModelBackendError;
  /**
   * One turn. Rejects with a ModelBackendError on any failure (never hangs past its timeout); the
   * signal stops the request (cancel, shutdown), and then the rejection is the signal's.
   */
  turn(request: ModelRequest, sink: ModelStreamSink, signal: AbortSignal): Promise<ModelAnswer>;
}

/** What the planner learns of each turn besides the answer: kept for usage and the dashboard. */
export interface ModelTurnRecord {
  backend: string;
  model: string;
  usage: ModelUsage;
  latencyMs: number;
  /** live: asked of the model; recorded: asked and saved to the cassette; replayed: answered from it. */
  source: "live" | "recorded" | "replayed";
  /** The fault rule that stood in for the model's server in this turn (docs/faults.md#the-model). */
  injectedFault?: { rule_id: string; effect: Record<string, unknown> };
  /** Why the turn failed, for a turn a fault made fail (a real failed turn ends the run unrecorded). */
  error?: string;
}
