// The exact bytes every handler of one tool call receives: on stdin (command) or as the POST body
// (http). Key order is part of the contract (users compare payloads byte for byte), so the objects
// are built literally in the documented order.
//
// The bytes are made only when a handler runs: most calls meet no hook, and a call's arguments may be
// tens of megabytes (a write_file), whose serialization costs tenths of a second. The trace still
// states the payload's size, so that is worked out from the arguments' serialized size, taken once per
// call and shared by the pre and the post hooks.

import type { ToolCall } from "../tools/tool-call.js";

/**
 * pre: {"tool_call":{"name":…,"args":{…}},"environment_id":"env_…"}
 * post: the same, plus "error" last, only when the tool reported an error.
 */
export function hookPayload(call: ToolCall, environmentId: string, error?: string): Buffer {
  const base = { tool_call: { name: call.name, args: call.args }, environment_id: environmentId };
  return Buffer.from(JSON.stringify(error === undefined ? base : { ...base, error }), "utf8");
}

/** The payload of one hook event, made when first needed. */
export class HookPayload {
  private made: Buffer | null = null;

  constructor(
    private readonly call: ToolCall,
    private readonly environmentId: string,
    private readonly error?: string,
  ) {}

  /** Its size in bytes, without making it. */
  get byteLength(): number {
    if (this.made !== null) return this.made.length;
    // The payload is exactly these parts around the arguments' JSON (JSON.stringify adds no spaces).
    const around =
      `{"tool_call":{"name":${JSON.stringify(this.call.name)},"args":},"environment_id":${JSON.stringify(this.environmentId)}` +
      `${this.error === undefined ? "" : `,"error":${JSON.stringify(this.error)}`}}`;
    return Buffer.byteLength(around, "utf8") + argumentsByteLength(this.call.args);
  }

  bytes(): Buffer {
    this.made ??= hookPayload(this.call, this.environmentId, this.error);
    return this.made;
  }
}

/** By the arguments object, which a call's pre and post hooks share. */
const argumentSizes = new WeakMap<object, number>();

function argumentsByteLength(args: ToolCall["args"]): number {
  let size = argumentSizes.get(args);
  if (size === undefined) {
    size = Buffer.byteLength(JSON.stringify(args), "utf8");
    argumentSizes.set(args, size);
  }
  return size;
}
