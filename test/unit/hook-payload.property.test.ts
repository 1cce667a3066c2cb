// The hooks' payload is made only when a handler runs, while the trace still states its size: the size
// worked out without making it must be the size of the bytes a handler gets, whatever the arguments
// (any JSON, any string, lone surrogates included), and a call whose hooks run nothing serializes its
// arguments once for both events, not once per event and again into bytes.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { runPostToolHooks, runPreToolHooks } from "../../server/hooks/engine.js";
import { hookPayload, HookPayload } from "../../server/hooks/payload.js";
import type { ToolCall } from "../../server/tools/tool-call.js";
import { runs } from "../support/property-runs.js";
import { ScriptedHost } from "../support/scripted-hook-host.js";

const anyText = fc.string({ unit: "binary", maxLength: 30 });

describe("HookPayload", () => {
  it("states the size of exactly the bytes it makes", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("code_execution", "write_file", "read_file"),
        fc.dictionary(anyText, fc.jsonValue()),
        anyText,
        fc.option(anyText, { nil: undefined }),
        (name, args, environmentId, error) => {
          const call = { name, args } as ToolCall;
          const expected = hookPayload(call, environmentId, error);
          const lazy = new HookPayload(call, environmentId, error);
          assert.equal(lazy.byteLength, expected.length);
          assert.ok(lazy.bytes().equals(expected));
          assert.equal(new HookPayload(call, environmentId, error).byteLength, expected.length, "the shared arguments' size");
        },
      ),
      runs(300),
    );
  });

  it("serializes a call's arguments once when no hook runs, for the pre and the post event together", async () => {
    let serialized = 0;
    const content = {
      toJSON: () => {
        serialized++;
        return "x".repeat(1000);
      },
    };
    const args = { path: "/workspace/big.txt", content };
    const call = { name: "write_file", args } as unknown as ToolCall;
    const host = new ScriptedHost();
    const pre = await runPreToolHooks(host, call, "env_1");
    const post = await runPostToolHooks(host, call, "env_1", "boom");
    assert.equal(serialized, 1);
    assert.equal(pre.trace.payload_bytes, hookPayload(call, "env_1").length);
    assert.equal(post.payload_bytes, hookPayload(call, "env_1", "boom").length);
  });
});
