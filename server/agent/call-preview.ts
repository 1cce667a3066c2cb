// A tool call as the hook trace keeps it: the arguments a person needs to recognise the call, without
// repeating megabytes that the interaction's function_call step already holds. [choice] A string
// argument longer than TRACE_EXCERPT_BYTES (2 KiB) is cut to its first 2 KiB (ending in "…"), and
// `truncated` names each argument cut with its full size in bytes (docs/hooks.md#hook-traces).

import { setOwn } from "../common/own-keys.js";
import { excerpt, TRACE_EXCERPT_BYTES } from "../hooks/trace.js";
import type { ToolCall } from "../tools/tool-call.js";

export interface ToolCallPreview {
  name: string;
  /** The MCP server of an MCP tool call. */
  server_name?: string;
  args: Record<string, unknown>;
  /** Argument name → its full size in UTF-8 bytes, for each argument shown only in part. */
  truncated?: Record<string, number>;
}

/** `server`: the MCP server of an MCP tool call (shown as `server_name`). */
export function previewOfCall(call: Pick<ToolCall, "args"> & { name: string; server?: string }): ToolCallPreview {
  const args: Record<string, unknown> = {};
  const truncated: Record<string, number> = {};
  for (const [name, value] of Object.entries(call.args)) {
    // A string of at most limit/4 UTF-16 units is at most 3/4 of the limit in UTF-8: no need to measure it.
    if (typeof value === "string" && value.length > TRACE_EXCERPT_BYTES / 4) {
      const bytes = Buffer.byteLength(value, "utf8");
      if (bytes > TRACE_EXCERPT_BYTES) {
        // Cut the text before encoding it (the preview needs only its start); one unit more than the
        // limit makes the excerpt longer than the limit in bytes, so it ends in "…".
        setOwn(args, name, excerpt(Buffer.from(value.slice(0, TRACE_EXCERPT_BYTES + 1), "utf8")));
        setOwn(truncated, name, bytes);
        continue;
      }
    }
    setOwn(args, name, value);
  }
  const named = call.server === undefined ? { name: call.name } : { name: call.name, server_name: call.server };
  return Object.keys(truncated).length > 0 ? { ...named, args, truncated } : { ...named, args };
}
