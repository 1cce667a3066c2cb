// Who plans an interaction's moves when it holds no script: EMULATOR_AGENT_MODEL, read once at start.

import { withCassette } from "./model/cassette.js";
import type { ModelBackend } from "./model/model-backend.js";

export type AgentModel =
  /** Today's behaviour and the default: tool_calls scripts and the plain phrasings. */
  | { kind: "scripted" }
  /** A model: its backend (wrapped in the cassette when EMULATOR_MODEL_MODE records or replays) and its name. */
  | { kind: "model"; backend: ModelBackend; model: string };

export const SCRIPTED: AgentModel = { kind: "scripted" };

/** The settings agentModelFrom reads (server/common/config.ts). */
export interface AgentModelSettings {
  EMULATOR_AGENT_MODEL: string;
  EMULATOR_OPENAI_BASE_URL: string;
  EMULATOR_OPENAI_API_KEY?: string | undefined;
  EMULATOR_GEMINI_API_KEY?: string | undefined;
  EMULATOR_GEMINI_BASE_URL?: string | undefined;
  EMULATOR_MODEL_TIMEOUT_SECONDS: number;
  /** Absent: the backends' default (DEFAULT_MODEL_ANSWER_BYTES). */
  EMULATOR_MODEL_ANSWER_BYTES?: number;
  EMULATOR_MODEL_MODE: "live" | "record" | "replay";
  EMULATOR_MODEL_CASSETTE?: string | undefined;
}

/**
 * The agent's model as configured: its backend, wrapped in the cassette to record or replay. A
 * replay builds no live backend at all, so it can never reach the network. The backends' SDKs (openai,
 * @google/genai) are loaded only when one is configured: together they were half of the server's
 * module load time at every start (docs/setup.md#a-warm-start).
 */
export async function agentModelFrom(settings: AgentModelSettings): Promise<AgentModel> {
  const setting = settings.EMULATOR_AGENT_MODEL;
  if (setting === "scripted") return SCRIPTED;
  const colon = setting.indexOf(":");
  const backendName = setting.slice(0, colon);
  const model = setting.slice(colon + 1);
  const timeoutMs = settings.EMULATOR_MODEL_TIMEOUT_SECONDS * 1000;
  const mode = settings.EMULATOR_MODEL_MODE;
  const live = mode === "replay" ? null : await liveBackend(backendName, settings, timeoutMs);
  if (mode === "live" || settings.EMULATOR_MODEL_CASSETTE === undefined) {
    if (!live) throw new Error("a live model backend is needed outside replay");
    return { kind: "model", backend: live, model };
  }
  const secrets = [settings.EMULATOR_OPENAI_API_KEY, settings.EMULATOR_GEMINI_API_KEY].filter(
    (secret): secret is string => typeof secret === "string" && secret !== "",
  );
  return {
    kind: "model",
    backend: withCassette(live, { file: settings.EMULATOR_MODEL_CASSETTE, mode, secrets, backendName }),
    model,
  };
}

async function liveBackend(name: string, settings: AgentModelSettings, timeoutMs: number): Promise<ModelBackend> {
  if (name === "openai") {
    const { openAiBackend } = await import("./model/openai-backend.js");
    return openAiBackend({
      baseUrl: settings.EMULATOR_OPENAI_BASE_URL,
      ...(settings.EMULATOR_OPENAI_API_KEY ? { apiKey: settings.EMULATOR_OPENAI_API_KEY } : {}),
      timeoutMs,
      ...(settings.EMULATOR_MODEL_ANSWER_BYTES !== undefined ? { maxAnswerBytes: settings.EMULATOR_MODEL_ANSWER_BYTES } : {}),
    });
  }
  const { geminiBackend } = await import("./model/gemini-backend.js");
  return geminiBackend({
    apiKey: settings.EMULATOR_GEMINI_API_KEY ?? "",
    ...(settings.EMULATOR_GEMINI_BASE_URL ? { baseUrl: settings.EMULATOR_GEMINI_BASE_URL } : {}),
    timeoutMs,
    ...(settings.EMULATOR_MODEL_ANSWER_BYTES !== undefined ? { maxAnswerBytes: settings.EMULATOR_MODEL_ANSWER_BYTES } : {}),
  });
}
