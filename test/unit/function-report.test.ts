// The final answer of an interaction that answered function calls: the results as the client sent them
// (text, Content items, an object), then what the rest of the request did, deterministically.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ClientFunctionResult } from "../../server/agent/conversation.js";
import { reportWithFunctionResults, resultText } from "../../server/planners/scripted/function-report.js";

const result = (callId: string, value: ClientFunctionResult["result"], isError = false): ClientFunctionResult => ({
  callId,
  name: "get_weather",
  result: value,
  isError,
});

describe("the answer after function results", () => {
  it("reports one result inline, and says when nothing was left to do", () => {
    assert.equal(
      reportWithFunctionResults([result("call_1", "sunny")], [], [], undefined),
      "The client answered the function call get_weather (call_1): sunny\n\nThat was the last step of your request; no tool call was left to make.",
    );
  });

  it("numbers several results, marks errors, and says when one was empty", () => {
    assert.equal(
      reportWithFunctionResults([result("call_1", ""), result("call_2", "", true), result("call_3", "boom", true)], [], [], undefined),
      [
        "The client answered 3 function calls:",
        "1. get_weather (call_1) with an empty result.",
        "2. get_weather (call_2) with an error, and no text.",
        "3. get_weather (call_3) with an error: boom",
        "",
        "That was the last step of your request; no tool call was left to make.",
      ].join("\n"),
    );
  });

  it("goes on with the calls that ran after the results", () => {
    const outcomes = [
      {
        call: { name: "list_files" as const, args: { path: "/workspace" } },
        callId: "call_9",
        status: "ok" as const,
        output: "a.txt (1 bytes)",
      },
    ];
    assert.equal(
      reportWithFunctionResults([result("call_1", "sunny")], outcomes, [], undefined),
      "The client answered the function call get_weather (call_1): sunny\n\nThen I went on with your request.\n\nListed /workspace: a.txt (1 bytes)",
    );
  });

  it("keeps the reader's notes and a sandbox failure", () => {
    assert.equal(
      reportWithFunctionResults([result("call_1", "sunny")], [], ["I skipped X."], "the executor closed"),
      [
        "The client answered the function call get_weather (call_1): sunny",
        "No tool call was made after that.",
        "I skipped part of your request. I skipped X.",
        "The sandbox stopped answering, so the remaining steps did not run: the executor closed",
      ].join("\n\n"),
    );
  });

  it("shows a long result shortened, in a block", () => {
    const long = Array.from({ length: 50 }, (_, index) => `line ${index}`).join("\n");
    const text = reportWithFunctionResults([result("call_1", long)], [], [], undefined);
    assert.match(text, /^The client answered the function call get_weather \(call_1\):\n```\nline 0\n/);
    assert.match(text, /\[… 10 lines left out here/);
  });
});

describe("resultText", () => {
  it("reads text, Content items and objects", () => {
    assert.equal(resultText("plain"), "plain");
    assert.equal(
      resultText([
        { type: "text", text: "see" },
        { type: "image", mime_type: "image/png", data: "iVBOR" },
        { type: "image", uri: "gs://b/f.png" },
      ]),
      "see\n[image image/png]\n[image gs://b/f.png]",
    );
    assert.equal(resultText({ temp: 21, sky: "clear" }), '{"temp":21,"sky":"clear"}');
  });
});
