// The examples of the documentation's API errors page (ai.google.dev/gemini-api/docs/api-errors, the
// revision of 2026-09-20): its error bodies, each caused by the request the page names and checked as
// the page shows it (the same `code`, the message naming what it says). Our own code throughout.
//
// Each `// doc-example:` line names the example (page#section: what) that docs/coverage.md lists.
// covers: interactions.create

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { docClient, sseEvents, type DocClient } from "../support/doc-example-client.js";
import { startFakeOpenAiServer } from "../support/fake-openai-server.js";
import { startFakeRuntimeEmulator } from "../support/fake-runtime.js";
import { fakeRuntimeEmulatorForTests } from "../support/fake-runtime-tests.js";

const KEY = "doc-examples-api-errors-key";
const AGENT = "antigravity-preview-09-2026";

let doc: DocClient;
fakeRuntimeEmulatorForTests({
  ready: (emulator) => {
    doc = docClient(emulator.url, KEY);
  },
});

describe("api-errors", () => {
  it("refuses an unsupported tool type with invalid_request, naming the value, where it is and the supported values", async () => {
    // doc-example: api-errors#error-response-format: tools[0] of type invalid_tool_type_xyz is a 400 invalid_request (rest)
    const body = { agent: AGENT, input: "hi", tools: [{ type: "invalid_tool_type_xyz" }] };
    for (const answer of [
      await doc.rest("POST", "/v1beta/interactions", body),
      await doc.rest("POST", "/v1beta/interactions", { ...body, stream: true }),
    ]) {
      assert.equal(answer.status, 400, answer.text);
      assert.equal(answer.json.error.code, "invalid_request");
      assert.match(
        answer.json.error.message,
        /The value 'invalid_tool_type_xyz' is not supported for 'type' at 'tools\[0\]'\. Supported values: 'function', 'code_execution'/,
      );
    }
    // The SDK raises its typed error with the body parsed.
    await assert.rejects(doc.client.interactions.create(body as never), (error: { status?: number; message?: string }) => {
      assert.equal(error.status, 400);
      assert.match(error.message ?? "", /invalid_tool_type_xyz/);
      return true;
    });
  });

  it("sends a stream's error as an error event with code and message (model agent, loopback fake)", async () => {
    // doc-example: api-errors#streaming-requests-sse: a failed run's stream carries an event_type error with code and message (rest; model agent, loopback fake)
    const openai = await startFakeOpenAiServer();
    const modelEmulator = await startFakeRuntimeEmulator(openai.agentSettings);
    try {
      openai.script({ kind: "status", status: 503, body: { error: { message: "overloaded" } } });
      const answer = await docClient(modelEmulator.url, KEY).rest("POST", "/v1beta/interactions", {
        agent: AGENT,
        input: "hi",
        stream: true,
      });
      const events = sseEvents(answer.text)
        .filter((event) => event.data !== "[DONE]")
        .map((event) => JSON.parse(event.data));
      const error = events.find((event) => event.event_type === "error");
      assert.ok(error, answer.text);
      assert.equal(error.error.code, "service_unavailable");
      assert.equal(typeof error.error.message, "string");
      assert.equal(events.at(-1).interaction.status, "failed");
    } finally {
      await modelEmulator.close();
      await openai.close();
    }
  });
});
