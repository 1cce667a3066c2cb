// The hook trace's entry for a function call handed to the client. Hooks guard only the sandbox's
// built-in tools (the service's documentation, Limitations: they "do not fire for custom function
// calling"), so no hooks.json is read and no rule is tried for such a call. The trace still lists it,
// saying so, so that a user whose `.*` matcher did not run for it sees why (docs/hooks.md#the-hook-trace).

import { TOOL_NAMES } from "../tools/tool-call.js";
import { previewOfCall, type ToolCallPreview } from "./call-preview.js";
import type { PendingClientCall } from "./conversation.js";

export interface ClientCallHooks {
  call_id: string;
  tool_call: ToolCallPreview;
  /** Always null: no hook ran before or after the call. */
  pre: null;
  post: null;
  /** Why no hook ran. */
  hooks_not_run: { code: "not_a_sandbox_tool"; tool_type: "function"; reason: string };
}

export function clientCallHooks(call: PendingClientCall): ClientCallHooks {
  return {
    call_id: call.id,
    tool_call: previewOfCall({ name: call.name, args: call.arguments }),
    pre: null,
    post: null,
    hooks_not_run: {
      code: "not_a_sandbox_tool",
      tool_type: "function",
      reason:
        `${call.name} is a function declared in tools, which the client runs, not a sandbox tool: hooks fire only for ` +
        `${TOOL_NAMES.join(", ")}, so no hooks.json was read and no matcher (".*" included) was tried for this call.`,
    },
  };
}
