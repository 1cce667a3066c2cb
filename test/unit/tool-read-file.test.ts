import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { SandboxChannel } from "../../server/sandbox/runtime.js";
import { runTool } from "../../server/tools/tool-runner.js";

/** A channel whose only file is `content`, as the executor would read it. */
function channelWith(content: Buffer): SandboxChannel {
  return {
    readFile: async () => ({ content, size: content.length, truncated: false, realPath: "/workspace/f", readOnlyMount: false }),
  } as unknown as SandboxChannel;
}

const read = (content: Buffer) =>
  runTool(channelWith(content), { name: "read_file", args: { path: "f" } }, { timeoutMs: 1000, maxOutputBytes: 1 << 20 });

describe("read_file's text or base64", () => {
  for (const [name, text] of [
    ["ASCII", "hello\n"],
    ["multi-byte characters and an emoji", "héllo → 世界 🎉"],
    ["a byte order mark", "\uFEFFwith BOM"],
    ["nothing", ""],
  ] as const) {
    it(`shows valid UTF-8 (${name}) as its text`, async () => {
      assert.deepEqual(await read(Buffer.from(text, "utf8")), { result: text, isError: false });
    });
  }

  for (const [name, bytes] of [
    ["a lone continuation byte", [0x61, 0x80, 0x62]],
    ["an overlong encoding", [0xc0, 0xaf]],
    ["a surrogate encoded as UTF-8 (CESU-8)", [0xed, 0xa0, 0x80]],
    ["a sequence cut at the end", [0x61, 0xe2, 0x82]],
    ["Latin-1", [0x63, 0x61, 0x66, 0xe9]],
  ] as const) {
    it(`shows bytes that are not UTF-8 (${name}) as base64`, async () => {
      const content = Buffer.from(bytes);
      assert.deepEqual(await read(content), {
        result: `[binary file, ${content.length} bytes, shown as base64]\n${content.toString("base64")}`,
        isError: false,
      });
    });
  }
});
