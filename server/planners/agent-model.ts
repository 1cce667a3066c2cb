// Who plans an interaction's moves when it holds no script: EMULATOR_AGENT_MODEL, read once at start.

import type { ModelBackend } from "./model/model-backend.js";

export type AgentModel =
  /** Today's behaviour and the default: tool_calls scripts and the plain phrasings. */
  | { kind: "scripted" }
  /** A model: its backend (wrapped in the cassette when EMULATOR_MODEL_MODE records or replays) and its name. */
  | { kind: "model"; backend: ModelBackend; model: string };

export const SCRIPTED: AgentModel = { kind: "scripted" };
