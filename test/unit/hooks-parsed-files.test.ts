// A hooks.json that reads the same is parsed once: the parse is reused while the host's token for the
// read is the same, and never shared between paths, tokens, or reads without a token.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseHooksFileOnce } from "../../server/hooks/parsed-files.js";

const TEXT = JSON.stringify({ g: { pre_tool_execution: [{ matcher: "*_file", hooks: [{ type: "command", command: "true" }] }] } });

describe("parseHooksFileOnce", () => {
  it("reuses the parse of a read with the same path and token", () => {
    const first = parseHooksFileOnce(TEXT, "/.agents/hooks.json", "token-a");
    assert.equal(parseHooksFileOnce(TEXT, "/.agents/hooks.json", "token-a"), first);
    assert.equal(first.parsed.groups.length, 1);
    assert.equal(first.parsed.diagnostics[0]?.code, "matcher_invalid_regex");
  });

  it("parses again for another token, another path, or no token", () => {
    const first = parseHooksFileOnce(TEXT, "/.agents/hooks.json", "token-b");
    assert.notEqual(parseHooksFileOnce(TEXT, "/.agents/hooks.json", "token-c"), first);
    const elsewhere = parseHooksFileOnce(TEXT, "/workspace/.agents/hooks.json", "token-b");
    assert.notEqual(elsewhere, first);
    assert.equal(elsewhere.parsed.diagnostics[0]?.location?.file, "/workspace/.agents/hooks.json");
    assert.notEqual(parseHooksFileOnce(TEXT, "/.agents/hooks.json", undefined), parseHooksFileOnce(TEXT, "/.agents/hooks.json", undefined));
  });

  it("freezes the diagnostics it shares, so no trace can change another's", () => {
    const { parsed } = parseHooksFileOnce(TEXT, "/.agents/hooks.json", "token-d");
    assert.throws(() => {
      (parsed.diagnostics as unknown[]).push({});
    }, TypeError);
    assert.throws(() => {
      (parsed.diagnostics[0] as { message: string }).message = "changed";
    }, TypeError);
  });

  it("names the content by the SHA-256 of its text, the same whatever the path or token", () => {
    const one = parseHooksFileOnce(TEXT, "/.agents/hooks.json", "token-e");
    const other = parseHooksFileOnce(TEXT, "/workspace/.agents/hooks.json", undefined);
    assert.match(one.sha256, /^[0-9a-f]{64}$/);
    assert.equal(one.sha256, other.sha256);
    assert.notEqual(parseHooksFileOnce(`${TEXT} `, "/.agents/hooks.json", undefined).sha256, one.sha256);
  });
});
