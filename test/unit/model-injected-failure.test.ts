// Each backend's account of an injected failure of its server (docs/faults.md#the-model) goes through
// the same code as a real failure: the kind the interaction's error code comes from, and the message.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { geminiBackend } from "../../server/planners/model/gemini-backend.js";
import { openAiBackend } from "../../server/planners/model/openai-backend.js";

describe("injected model failures", () => {
  const gemini = geminiBackend({ apiKey: "secret-key", baseUrl: "http://127.0.0.1:9", timeoutMs: 2000 });
  const openai = openAiBackend({ baseUrl: "http://127.0.0.1:9/v1", timeoutMs: 2000 });

  it("the gemini backend reads a status as Google's error answer and a timeout as its deadline", () => {
    const unavailable = gemini.injectedFailure?.({ kind: "status", status: 503, message: "overloaded" }, "gemini-x");
    assert.equal(unavailable?.kind, "server");
    assert.equal(unavailable?.message, "gemini model gemini-x: the server failed (503: overloaded); retry later");
    assert.equal(gemini.injectedFailure?.({ kind: "status", status: 429, message: "slow down" }, "gemini-x").kind, "rate_limit");
    assert.equal(gemini.injectedFailure?.({ kind: "status", status: 401, message: "no" }, "gemini-x").kind, "auth");
    const late = gemini.injectedFailure?.({ kind: "timeout" }, "gemini-x");
    assert.equal(late?.kind, "timeout");
    assert.match(late?.message ?? "", /within 2 s; raise EMULATOR_MODEL_TIMEOUT_SECONDS/);
    assert.equal(gemini.timeoutMs, 2000);
  });

  it("the openai backend reads a status as the server's error body and a timeout as its deadline", () => {
    const failed = openai.injectedFailure?.({ kind: "status", status: 500, message: "boom" }, "m");
    assert.equal(failed?.kind, "server");
    assert.equal(failed?.message, "openai backend: the server at http://127.0.0.1:9/v1 failed (500: boom); check its log");
    assert.equal(openai.injectedFailure?.({ kind: "status", status: 404, message: "no such model" }, "m").kind, "refused");
    assert.equal(openai.injectedFailure?.({ kind: "timeout" }, "m").kind, "timeout");
  });
});
