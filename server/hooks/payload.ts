// The exact bytes every handler of one tool call receives: on stdin (command) or as the POST body
// (http). Key order is part of the contract (users compare payloads byte for byte), so the objects
// are built literally in the documented order.

import type { ToolCall } from "../tools/tool-call.js";

/**
 * pre: {"tool_call":{"name":…,"args":{…}},"environment_id":"env_…"}
 * post: the same, plus "error" last, only when the tool reported an error.
 */
export function hookPayload(call: ToolCall, environmentId: string, error?: string): Buffer {
  const base = { tool_call: { name: call.name, args: call.args }, environment_id: environmentId };
  return Buffer.from(JSON.stringify(error === undefined ? base : { ...base, error }), "utf8");
}
