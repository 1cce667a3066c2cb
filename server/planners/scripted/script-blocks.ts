// Whether an input is a script: a ```tool_calls or ```response block (docs/api.md#the-emulated-agent).
// Such a request runs on the scripted planner whatever EMULATOR_AGENT_MODEL says, so hook tests stay
// deterministic next to model-driven development (docs/model-agent.md#scripted-requests).

import { findFencedBlocks } from "./fenced-blocks.js";
import { RESPONSE_OPENER } from "./response-block.js";
import { TOOL_CALLS_OPENER } from "./script-reader.js";

export function holdsScriptBlock(text: string): boolean {
  return findFencedBlocks(text, (info) => TOOL_CALLS_OPENER.test(info) || RESPONSE_OPENER.test(info)).length > 0;
}
