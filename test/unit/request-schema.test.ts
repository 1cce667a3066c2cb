import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createInteractionSchema } from "../../server/api/create-interaction.js";
import { readInput } from "../../server/api/interaction-input.js";
import { InvalidArgumentError } from "../../server/common/errors.js";
import { parseOrThrow } from "../../server/http/zod-errors.js";

describe("create interaction request", () => {
  it("accepts the seed's request and tolerates unknown fields", () => {
    const parsed = parseOrThrow(createInteractionSchema, {
      agent: "antigravity-preview-05-2026",
      input: "Run `ls` using code_execution.",
      tools: [{ type: "code_execution" }],
      environment: { type: "remote", sources: [{ type: "inline", target: "a", content: "b" }], future_field: 1 },
      some_new_field: { nested: true },
    });
    assert.equal(parsed.agent, "antigravity-preview-05-2026");
    assert.equal((parsed as Record<string, unknown>).some_new_field !== undefined, true);
  });

  it("accepts an environment ID string", () => {
    assert.equal(parseOrThrow(createInteractionSchema, { agent: "antigravity-x", environment: "env_abc" }).environment, "env_abc");
  });

  const refused: Array<[string, unknown, RegExp]> = [
    ["an environment type other than remote", { agent: "a", environment: { type: "local" } }, /environment\.type: must be "remote"/],
    ["a non-string agent", { agent: 5 }, /agent: /],
    ["tools that are not an array", { agent: "a", tools: { type: "code_execution" } }, /tools: /],
    [
      "a source target that is not a string",
      { agent: "a", environment: { type: "remote", sources: [{ target: 1 }] } },
      /environment\.sources\[0\]\.target/,
    ],
    [
      "a network that is neither disabled nor an object",
      { agent: "a", environment: { type: "remote", network: "open" } },
      /environment\.network/,
    ],
    [
      "an allowlist entry without a domain",
      { agent: "a", environment: { type: "remote", network: { allowlist: [{}] } } },
      /environment\.network/,
    ],
    ["stream that is not a boolean", { agent: "a", stream: "yes" }, /stream: /],
  ];
  for (const [what, body, pattern] of refused) {
    it(`refuses ${what}, naming the field`, () => {
      assert.throws(
        () => parseOrThrow(createInteractionSchema, body),
        (error: unknown) => error instanceof InvalidArgumentError && pattern.test(error.message),
      );
    });
  }
});

/** The text the emulated agent reads from an input (what a test-only input-text.ts once wrapped). */
const inputText = (input: Parameters<typeof readInput>[0]): string => readInput(input).text;

describe("input text", () => {
  it("reads a plain string", () => assert.equal(readInput("hello").text, "hello"));
  it("reads one text Content", () => assert.equal(readInput({ type: "text", text: "hi" }).text, "hi"));
  it("joins the text of a Content array and ignores images", () =>
    assert.equal(
      inputText([
        { type: "text", text: "a" },
        { type: "image", data: "x" },
        { type: "text", text: "b" },
      ]),
      "a\nb",
    ));
  it("reads the last user_input step of a Step[] history", () =>
    assert.equal(
      inputText([
        { type: "user_input", content: [{ type: "text", text: "first" }] },
        { type: "model_output", content: [{ type: "text", text: "answer" }] },
        { type: "user_input", content: [{ type: "text", text: "second" }] },
      ]),
      "second",
    ));
  it("is empty when there is no input", () => assert.equal(readInput(undefined).text, ""));
  it("refuses text content whose text is not a string", () =>
    assert.throws(() => readInput([{ type: "text", text: 3 }] as never).text, /input\[0\]\.text must be a string/));
});
