// The one place that says what the emulator does with an SDK method or request field that it does not
// serve: echoed (stored and returned, no behaviour), refused (which error) or not emulated (why). What
// it serves is declared by the tests that show it (`// covers:` lines), not here. A note on a field
// holds for the fields below it unless one of them has its own note or test; a note on a resource
// (`voices`) holds for all its methods. docs/coverage.md is generated from these and the tests
// (`npm run coverage`); the generator lists every method or field that has neither, and every note
// that names nothing the SDK has. Keep each `why` true to docs/fidelity.md and wire-protocol.md.

import type { ParityNote } from "./parity-table.js";

const INTERACTION_REQUESTS = ["CreateAgentInteraction", "CreateModelInteraction"] as const;

/** The same notes for both create variants (the fields they share mean the same). */
function onBothCreates(notes: Record<string, ParityNote>): Record<string, ParityNote> {
  return Object.fromEntries(
    INTERACTION_REQUESTS.flatMap((request) => Object.entries(notes).map(([field, note]) => [`${request}.${field}`, note])),
  );
}

const ECHOED_UNUSED = (what: string): ParityNote => ({ mark: "echoed", why: what });

/** A step of a history given as `input`: recorded, not acted on (only the last `user_input` is read). */
const HISTORY_STEP: ParityNote = {
  mark: "echoed",
  why: "a history's steps are recorded as sent, as the interaction's first steps, and given back by include_input; the agent reads only the last user_input step",
};

/** A tool the emulated agent does not have. */
const TOOL_NOT_HELD: ParityNote = {
  mark: "echoed",
  why: "kept in `tools` and echoed; the emulated agent has no such tool, so it is never called",
};

const TEXT_ONLY: ParityNote = {
  mark: "refused",
  why: "400 INVALID_ARGUMENT: the emulated agent answers in text only (the message says to ask for text)",
};

export const PARITY_NOTES: Readonly<Record<string, ParityNote>> = {
  voices: {
    mark: "not emulated",
    why: "voices are a speech model's feature and the emulator runs no model of its own: 404 NOT_FOUND listing the routes that exist",
  },
  decisions: {
    mark: "not emulated",
    why: "decisions are answered by a model judging an input, which the emulator does not have: 404 NOT_FOUND listing the routes that exist",
  },
  ...onBothCreates({
    safety_settings: ECHOED_UNUSED("echoed; no model's answer is filtered"),
    labels: ECHOED_UNUSED("stored with the interaction and echoed"),
    system_instruction: ECHOED_UNUSED(
      "echoed and counted in `usage`; a model-backed agent passes it to its model (docs/model-agent.md), the scripted agent does not read it",
    ),
    response_modalities: ECHOED_UNUSED("echoed; only text can be emulated: `AUDIO`, `IMAGE`, `VIDEO` are a 400"),
    "response_format(audio)": TEXT_ONLY,
    "response_format(image)": TEXT_ONLY,
    "response_format(video)": TEXT_ONLY,
    "tools(google_search)": TOOL_NOT_HELD,
    "tools(google_maps)": TOOL_NOT_HELD,
    "tools(url_context)": TOOL_NOT_HELD,
    "tools(file_search)": TOOL_NOT_HELD,
    "tools(retrieval)": TOOL_NOT_HELD,
    "tools(computer_use)": TOOL_NOT_HELD,
    "environment.env.credential": {
      mark: "refused",
      why: "400 INVALID_ARGUMENT naming the variable: a variable cannot reference a credential (it would need the proxy to substitute a placeholder); use `network.allowlist[].credential`",
    },
    "input(audio)": ECHOED_UNUSED(
      "kept verbatim in the user_input step (`data` base64 or `uri`, else a 400) and named in the answer as a part the agent cannot read",
    ),
    "input(document)": ECHOED_UNUSED(
      "kept verbatim in the user_input step (`data` base64 or `uri`, else a 400) and named in the answer as a part the agent cannot read",
    ),
    "input(video)": ECHOED_UNUSED(
      "kept verbatim in the user_input step (`data` base64 or `uri`, else a 400) and named in the answer as a part the agent cannot read",
    ),
    "input(text).annotations": ECHOED_UNUSED("kept in the user_input step, unused"),
    "input(image).resolution": ECHOED_UNUSED("kept in the user_input step, unused"),
    "input(code_execution_call)": HISTORY_STEP,
    "input(code_execution_result)": HISTORY_STEP,
    "input(file_search_call)": HISTORY_STEP,
    "input(file_search_result)": HISTORY_STEP,
    "input(function_call)": HISTORY_STEP,
    "input(google_maps_call)": HISTORY_STEP,
    "input(google_maps_result)": HISTORY_STEP,
    "input(google_search_call)": HISTORY_STEP,
    "input(google_search_result)": HISTORY_STEP,
    "input(mcp_server_tool_call)": HISTORY_STEP,
    "input(mcp_server_tool_result)": HISTORY_STEP,
    "input(model_output)": HISTORY_STEP,
    "input(processing_call)": HISTORY_STEP,
    "input(processing_result)": HISTORY_STEP,
    "input(retrieval_call)": HISTORY_STEP,
    "input(retrieval_result)": HISTORY_STEP,
    "input(thought)": HISTORY_STEP,
    "input(url_context_call)": HISTORY_STEP,
    "input(url_context_result)": HISTORY_STEP,
  }),
  "CreateAgentInteraction.agent_config(code-mender)": ECHOED_UNUSED(
    "checked for shape (a string `type`) and echoed; the emulated agent is no code-mender agent",
  ),
  "CreateAgentInteraction.agent_config(deep-research)": ECHOED_UNUSED(
    "checked for shape (a string `type`) and echoed; the emulated agent does no research",
  ),
  "CreateAgentInteraction.agent_config(dynamic)": ECHOED_UNUSED("checked for shape (a string `type`) and echoed"),
  // A model interaction runs in the same loop as an agent's (docs/api.md#model-interactions): these
  // fields are read by the same code whichever of `agent` or `model` the request has.
  ...Object.fromEntries(
    ["background", "previous_interaction_id", "store", "stream", "tools", "response_format", "response_mime_type", "webhook_config"].map(
      (field) => [`CreateModelInteraction.${field}`, { sameAs: `CreateAgentInteraction.${field}` }],
    ),
  ),
  // An agent's fields that the emulator does not serve as the OpenAPI document writes them (docs/fidelity.md#agents).
  "CreateAgent.base_environment.environment_id": {
    mark: "refused",
    why: "400 INVALID_ARGUMENT: the document's environment_id updates that environment in place, and a base environment is copied for each interaction; the message says to give the ID as `base_environment`, which each interaction forks",
  },
  "CreateAgent.base_environment.env(EnvVar)": {
    mark: "not emulated",
    why: 'the document\'s single-EnvVar branch names no variable and overlaps the map of names (env-branches-overlap in schemas/interactions.openapi.defects.json): `env` is read as the map the SDK types, so `{"value": "x"}` sets a variable named `value`',
  },
  "CreateAgent.tools(google_search)": TOOL_NOT_HELD,
  "CreateAgent.tools(url_context)": TOOL_NOT_HELD,
  "CreateModelInteraction.cached_content": {
    mark: "not emulated",
    why: "accepted and ignored: the emulator keeps no cached contents",
  },
  "CreateModelInteraction.generation_config": ECHOED_UNUSED(
    "checked against the SDK's GenerationConfig (a 400 names a wrong field) and echoed; a model-backed agent passes it to its model, the scripted agent does not read it",
  ),
};
