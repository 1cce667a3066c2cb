// The gemini backend against a loopback Gemini API (test/support/fake-gemini-server.ts) through the real
// @google/genai client: what a ModelRequest becomes on the wire, how the streamed answer comes back
// (deltas, thoughts, calls, usage), and every failure as the kind and message the planner shows.

import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { geminiBackend } from "../../server/planners/model/gemini-backend.js";
import { FOREIGN_THOUGHT_SIGNATURE } from "../../server/planners/model/gemini-request.js";
import { type ModelAnswer, ModelBackendError, type ModelRequest, type ModelStreamSink } from "../../server/planners/model/model-backend.js";
import { type FakeGemini, type FakeGeminiScript, startFakeGeminiServer } from "../support/fake-gemini-server.js";

const MODEL = "gemini-3-flash-preview";

interface RecordingSink extends ModelStreamSink {
  events: string[];
}

function recordingSink(): RecordingSink {
  const events: string[] = [];
  return { events, text: (delta) => void events.push(`text:${delta}`), thought: (delta) => void events.push(`thought:${delta}`) };
}

function simpleRequest(text = "hello"): ModelRequest {
  return { model: MODEL, messages: [{ role: "user", text }], tools: [] };
}

describe("gemini backend", () => {
  let fake: FakeGemini;
  const backend = () => geminiBackend({ apiKey: fake.apiKey, baseUrl: fake.url, timeoutMs: 5_000 });

  before(async () => {
    fake = await startFakeGeminiServer();
  });
  after(async () => {
    await fake.close();
  });
  beforeEach(() => fake.reset());

  async function turnWith(script: FakeGeminiScript, request = simpleRequest(), sink = recordingSink()): Promise<ModelAnswer> {
    fake.script(script);
    return backend().turn(request, sink, new AbortController().signal);
  }

  describe("the request on the wire", () => {
    it("sends a multi-turn conversation with calls, results, errors, system, tools, generation and json as the Gemini API's body", async () => {
      const request: ModelRequest = {
        model: MODEL,
        system: "You are terse.",
        messages: [
          { role: "user", text: "Read two files." },
          {
            role: "model",
            text: "Reading them.",
            calls: [
              { id: "call_1_0", name: "read_file", arguments: '{"path":"a.txt"}' },
              { id: "call_1_1", name: "read_file", arguments: "not json" },
            ],
          },
          {
            role: "tool",
            results: [
              { id: "call_1_0", name: "read_file", output: "contents of a", isError: false },
              { id: "call_1_1", name: "read_file", output: "arguments are not JSON", isError: true },
            ],
          },
          { role: "model", text: "Done.", calls: [] },
          { role: "user", text: "Now as JSON." },
        ],
        tools: [
          {
            name: "read_file",
            description: "Reads a file of the sandbox.",
            parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
          },
        ],
        generation: { temperature: 0.5, top_p: 0.9, seed: 7, max_output_tokens: 256, stop_sequences: ["END"], thinking_level: "low" },
        json: { schema: { type: "object", properties: { files: { type: "integer" } } } },
      };
      const answer = await turnWith({ text: ['{"files":2}'], usage: { promptTokenCount: 40, candidatesTokenCount: 5 } }, request);

      assert.deepEqual(fake.refusals, []);
      assert.equal(answer.text, '{"files":2}');
      assert.equal(fake.requests.length, 1);
      const sent = fake.requests[0]!;
      assert.equal(sent.method, "POST");
      assert.equal(sent.path, `/v1beta/models/${MODEL}:streamGenerateContent`);
      assert.equal(sent.search, "?alt=sse");
      assert.equal(sent.headers["x-goog-api-key"], fake.apiKey);
      assert.deepEqual(sent.body, {
        contents: [
          { role: "user", parts: [{ text: "Read two files." }] },
          {
            role: "model",
            parts: [
              { text: "Reading them." },
              { functionCall: { id: "call_1_0", name: "read_file", args: { path: "a.txt" } }, thoughtSignature: FOREIGN_THOUGHT_SIGNATURE },
              { functionCall: { id: "call_1_1", name: "read_file", args: {} } },
            ],
          },
          {
            role: "user",
            parts: [
              { functionResponse: { id: "call_1_0", name: "read_file", response: { output: "contents of a" } } },
              { functionResponse: { id: "call_1_1", name: "read_file", response: { error: "arguments are not JSON" } } },
            ],
          },
          { role: "model", parts: [{ text: "Done." }] },
          { role: "user", parts: [{ text: "Now as JSON." }] },
        ],
        systemInstruction: { parts: [{ text: "You are terse." }] },
        tools: [
          {
            functionDeclarations: [
              {
                name: "read_file",
                description: "Reads a file of the sandbox.",
                parametersJsonSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
              },
            ],
          },
        ],
        generationConfig: {
          temperature: 0.5,
          topP: 0.9,
          seed: 7,
          maxOutputTokens: 256,
          stopSequences: ["END"],
          thinkingConfig: { thinkingLevel: "LOW", includeThoughts: true },
          responseMimeType: "application/json",
          responseJsonSchema: { type: "object", properties: { files: { type: "integer" } } },
        },
      });
    });

    it("leaves out tools, the system instruction and generation fields the request does not have", async () => {
      await turnWith({ text: ["hi"] });
      assert.deepEqual(fake.refusals, []);
      assert.deepEqual(fake.requests[0]!.body, { contents: [{ role: "user", parts: [{ text: "hello" }] }], generationConfig: {} });
    });

    it("asks for JSON without a schema when the request gave none", async () => {
      await turnWith({ text: ["{}"] }, { ...simpleRequest(), json: {} });
      assert.deepEqual(fake.requests[0]!.body.generationConfig, { responseMimeType: "application/json" });
    });

    it("sends back a step of calls and their results that the Gemini 3 checks accept (the model's own signature on the step's first call)", async () => {
      const first = await turnWith({ calls: [{ name: "list_files", args: { dir: "/" } }, { name: "now" }] });
      const request: ModelRequest = {
        model: MODEL,
        messages: [
          { role: "user", text: "What is there?" },
          { role: "model", text: first.text, calls: first.calls },
          {
            role: "tool",
            results: first.calls.map((call) => ({ id: call.id, name: call.name, output: "ok", isError: false })),
          },
        ],
        tools: [
          { name: "list_files", description: "Lists files.", parameters: { type: "object", properties: { dir: { type: "string" } } } },
          { name: "now", description: "The time.", parameters: { type: "object", properties: {} } },
        ],
      };
      const second = await turnWith({ text: ["Two files."] }, request);
      assert.deepEqual(fake.refusals, []);
      assert.equal(second.text, "Two files.");
      // The signature the model gave comes back as it was, on its call only.
      assert.match(first.calls[0]?.signature ?? "", /^[A-Za-z0-9+/]+=*$/);
      assert.equal(first.calls[1]?.signature, undefined);
      assert.equal(fake.requests[1]!.body.contents[1].parts[0].thoughtSignature, first.calls[0]?.signature);
      assert.equal(fake.requests[1]!.body.contents[1].parts[1].thoughtSignature, undefined);
    });

    it("refuses a thinking_level Gemini does not know before sending anything", async () => {
      const request = { ...simpleRequest(), generation: { thinking_level: "extreme" } };
      await assert.rejects(backend().turn(request, recordingSink(), new AbortController().signal), (error: unknown) => {
        assert.ok(error instanceof ModelBackendError);
        assert.equal(error.kind, "refused");
        assert.match(error.message, /thinking_level "extreme".*minimal, low, medium, high/);
        return true;
      });
      assert.equal(fake.requests.length, 0);
    });
  });

  describe("the streamed answer", () => {
    it("passes each text delta to the sink, in order, before the turn resolves", async () => {
      const sink = recordingSink();
      let resolved = false;
      const seenBeforeResolve: boolean[] = [];
      const watching: RecordingSink = {
        events: sink.events,
        text: (delta) => {
          seenBeforeResolve.push(!resolved);
          sink.text(delta);
        },
        thought: sink.thought,
      };
      fake.script({ text: ["The ", "answer ", "is 42."], gapMs: 40 });
      const answer = await backend()
        .turn(simpleRequest(), watching, new AbortController().signal)
        .then((value) => {
          resolved = true;
          return value;
        });
      assert.deepEqual(sink.events, ["text:The ", "text:answer ", "text:is 42."]);
      assert.deepEqual(seenBeforeResolve, [true, true, true]);
      assert.equal(answer.text, "The answer is 42.");
      assert.deepEqual(answer.calls, []);
      assert.equal(answer.thought, undefined);
    });

    it("passes thought parts to sink.thought and keeps them apart from the text", async () => {
      const sink = recordingSink();
      const answer = await turnWith({ thoughts: ["Considering ", "the question."], text: ["Yes."] }, simpleRequest(), sink);
      assert.deepEqual(sink.events, ["thought:Considering ", "thought:the question.", "text:Yes."]);
      assert.equal(answer.thought, "Considering the question.");
      assert.equal(answer.text, "Yes.");
    });

    it("keeps a call's own ID and makes call_<turn>_<index> for those without one", async () => {
      const request: ModelRequest = {
        model: MODEL,
        messages: [
          { role: "user", text: "go" },
          { role: "model", text: "", calls: [{ id: "x", name: "a", arguments: "{}" }] },
          { role: "tool", results: [{ id: "x", name: "a", output: "done", isError: false }] },
        ],
        tools: [],
      };
      const answer = await turnWith(
        {
          text: ["Calling."],
          calls: [{ name: "read_file", args: { path: "b.txt", lines: [1, 2] } }, { name: "now", id: "fc-own" }, { name: "stat" }],
        },
        request,
      );
      // The first call's part carries the model's thought signature, kept with it.
      assert.deepEqual(
        answer.calls.map(({ signature: _signature, ...call }) => call),
        [
          { id: "call_3_0", name: "read_file", arguments: '{"path":"b.txt","lines":[1,2]}' },
          { id: "fc-own", name: "now", arguments: "{}" },
          { id: "call_3_2", name: "stat", arguments: "{}" },
        ],
      );
      assert.deepEqual(
        answer.calls.map((call) => call.signature !== undefined),
        [true, false, false],
      );
      assert.equal(answer.text, "Calling.");
    });

    it("answers with calls only (no text) as a complete answer", async () => {
      const answer = await turnWith({ calls: [{ name: "now" }] });
      assert.equal(answer.text, "");
      assert.deepEqual(answer.calls, [{ id: "call_1_0", name: "now", arguments: "{}", signature: answer.calls[0]?.signature }]);
      assert.ok(answer.calls[0]?.signature);
    });

    it("takes the usage from the last usageMetadata, thoughts included, and 0 where the server gave none", async () => {
      const full = await turnWith({
        thoughts: ["hm"],
        text: ["a", "b"],
        usage: { promptTokenCount: 12, candidatesTokenCount: 3, thoughtsTokenCount: 9 },
      });
      assert.deepEqual(full.usage, { input: 12, output: 3, thought: 9 });
      const partial = await turnWith({ text: ["a"], usage: { promptTokenCount: 4, candidatesTokenCount: 1 } });
      assert.deepEqual(partial.usage, { input: 4, output: 1, thought: 0 });
    });

    it("returns a MAX_TOKENS answer's partial text", async () => {
      const answer = await turnWith({ text: ["Partial"], finishReason: "MAX_TOKENS" });
      assert.equal(answer.text, "Partial");
    });
  });

  describe("failures", () => {
    interface Expectation {
      kind: ModelBackendError["kind"];
      says: RegExp;
    }

    async function expectFailure(turn: Promise<ModelAnswer>, expected: Expectation, key = fake.apiKey): Promise<ModelBackendError> {
      let failure: ModelBackendError | undefined;
      await assert.rejects(turn, (error: unknown) => {
        assert.ok(error instanceof ModelBackendError, `not a ModelBackendError: ${String(error)}`);
        failure = error;
        return true;
      });
      assert.equal(failure!.kind, expected.kind, failure!.message);
      assert.match(failure!.message, /^gemini model gemini-3-flash-preview: /);
      assert.match(failure!.message, expected.says);
      assert.ok(!failure!.message.includes(key), `the key leaked: ${failure!.message}`);
      return failure!;
    }

    it("names EMULATOR_GEMINI_BASE_URL when nothing listens there", async () => {
      const closed = await startFakeGeminiServer();
      const url = closed.url;
      await closed.close();
      const unreachable = geminiBackend({ apiKey: fake.apiKey, baseUrl: url, timeoutMs: 5_000 });
      await expectFailure(unreachable.turn(simpleRequest(), recordingSink(), new AbortController().signal), {
        kind: "unreachable",
        says: /cannot connect to http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\); check EMULATOR_GEMINI_BASE_URL/,
      });
    });

    it("names EMULATOR_GEMINI_API_KEY when the server answers 400 API_KEY_INVALID for a wrong key, without showing either key", async () => {
      const wrongKey = "wrong-key-abcdefghijklmnop";
      const wrong = geminiBackend({ apiKey: wrongKey, baseUrl: fake.url, timeoutMs: 5_000 });
      await expectFailure(
        wrong.turn(simpleRequest(), recordingSink(), new AbortController().signal),
        { kind: "auth", says: /refused the API key \(400: API key not valid.*check EMULATOR_GEMINI_API_KEY/ },
        wrongKey,
      );
      assert.equal(fake.requests[0]!.headers["x-goog-api-key"], wrongKey);
    });

    for (const code of [401, 403]) {
      it(`calls a ${code} an auth failure`, async () => {
        await expectFailure(turnWith({ fault: "status", code, message: "denied" }), {
          kind: "auth",
          says: new RegExp(`\\(${code}: denied\\); check EMULATOR_GEMINI_API_KEY`),
        });
      });
    }

    it("calls a 404 an unknown model and says where the name comes from", async () => {
      await expectFailure(turnWith({ fault: "status", code: 404, message: `models/${MODEL} is not found for API version v1beta` }), {
        kind: "refused",
        says: /does not know this model \(404: models\/gemini-3-flash-preview is not found.*EMULATOR_AGENT_MODEL/,
      });
    });

    it("calls a 429 a rate limit, and asks once (the SDK does not retry it)", async () => {
      await expectFailure(turnWith({ fault: "status", code: 429, message: "Resource has been exhausted" }), {
        kind: "rate_limit",
        says: /429: Resource has been exhausted/,
      });
      assert.equal(fake.requests.length, 1);
    });

    it("passes another 4xx on as refused with the server's message, the key taken out of it", async () => {
      await expectFailure(turnWith({ fault: "status", code: 400, message: `Request contains an invalid argument (key ${fake.apiKey}).` }), {
        kind: "refused",
        says: /refused the request \(400: Request contains an invalid argument \(key \[EMULATOR_GEMINI_API_KEY\]\)\.\)/,
      });
    });

    for (const code of [500, 503]) {
      it(`calls a ${code} a server failure, asked once`, async () => {
        await expectFailure(turnWith({ fault: "status", code, message: "The model is overloaded." }), {
          kind: "server",
          says: new RegExp(`${code}: The model is overloaded`),
        });
        assert.equal(fake.requests.length, 1);
      });
    }

    it("reads an error event inside the stream as the status it carries", async () => {
      await expectFailure(turnWith({ fault: "stream-error", code: 500, message: "An internal error has occurred." }), {
        kind: "server",
        says: /500: An internal error has occurred/,
      });
    });

    it("times out a server that never answers, naming EMULATOR_MODEL_TIMEOUT_SECONDS", async () => {
      fake.script({ fault: "hang" });
      const slow = geminiBackend({ apiKey: fake.apiKey, baseUrl: fake.url, timeoutMs: 300 });
      const started = Date.now();
      await expectFailure(slow.turn(simpleRequest(), recordingSink(), new AbortController().signal), {
        kind: "timeout",
        says: /within 0\.3 s; raise EMULATOR_MODEL_TIMEOUT_SECONDS/,
      });
      assert.ok(Date.now() - started < 2_000, `took ${Date.now() - started} ms`);
    });

    it("times out an answer stream that stalls after its first chunk", async () => {
      fake.script({ text: ["one", "two"], gapMs: 5_000 });
      const slow = geminiBackend({ apiKey: fake.apiKey, baseUrl: fake.url, timeoutMs: 300 });
      const sink = recordingSink();
      await expectFailure(slow.turn(simpleRequest(), sink, new AbortController().signal), {
        kind: "timeout",
        says: /EMULATOR_MODEL_TIMEOUT_SECONDS/,
      });
      assert.deepEqual(sink.events, ["text:one"]);
    });

    it("calls a connection closed without an answer a server failure, asked once (no automatic continuation)", async () => {
      await expectFailure(turnWith({ fault: "close" }), { kind: "server", says: /broke off or is not the Gemini API/ });
      assert.equal(fake.requests.length, 1);
    });

    it("calls a stream cut before its finish a server failure", async () => {
      await expectFailure(turnWith({ text: ["a", "b", "c"], cutAfterChunks: 1 }), {
        kind: "server",
        says: /broke off|ended without a finishReason/,
      });
      assert.equal(fake.requests.length, 1);
    });

    it("calls a stream that ends cleanly without a finishReason a server failure", async () => {
      await expectFailure(turnWith({ rawChunks: [{ candidates: [{ content: { parts: [{ text: "half" }], role: "model" } }] }] }), {
        kind: "server",
        says: /ended without a finishReason/,
      });
    });

    it("calls data that is not JSON a server failure", async () => {
      await expectFailure(turnWith({ fault: "garbage" }), { kind: "server", says: /not JSON/ });
    });

    it("calls an HTML page a server failure", async () => {
      await expectFailure(turnWith({ fault: "html" }), { kind: "server", says: /EMULATOR_GEMINI_BASE_URL/ });
    });

    it("calls chunks of the wrong shape a server failure that names what was wrong", async () => {
      await expectFailure(turnWith({ rawChunks: [{ candidates: "none" }] }), {
        kind: "server",
        says: /candidates that is not an array, which is not the Gemini API/,
      });
      await expectFailure(
        turnWith({ rawChunks: [{ candidates: [{ content: { parts: [{ functionCall: { args: {} } }] }, finishReason: "STOP" }] }] }),
        {
          kind: "server",
          says: /a functionCall without a name/,
        },
      );
      await expectFailure(turnWith({ rawChunks: [{ candidates: [{ content: { parts: [{ text: 5 }] }, finishReason: "STOP" }] }] }), {
        kind: "server",
        says: /text is not a string/,
      });
    });

    it("calls a safety stop with nothing in it empty, naming the reason", async () => {
      await expectFailure(turnWith({ finishReason: "SAFETY" }), {
        kind: "empty",
        says: /neither text nor function calls \(finishReason SAFETY\); the safety filter/,
      });
    });

    it("calls a blocked prompt empty, naming the block reason", async () => {
      await expectFailure(turnWith({ blockReason: "PROHIBITED_CONTENT" }), {
        kind: "empty",
        says: /the prompt was blocked \(blockReason PROHIBITED_CONTENT\)/,
      });
    });

    it("calls an answer of thoughts only, out of tokens, empty and asks for more tokens", async () => {
      await expectFailure(turnWith({ thoughts: ["thinking..."], finishReason: "MAX_TOKENS" }), {
        kind: "empty",
        says: /finishReason MAX_TOKENS\); raise max_output_tokens/,
      });
    });

    it("calls a 200 with no chunks at all a server failure", async () => {
      await expectFailure(turnWith({ rawChunks: [] }), { kind: "server", says: /a stream with no chunks/ });
    });
  });

  describe("abort", () => {
    it("stops a waiting request and rejects with the signal's reason", async () => {
      fake.script({ fault: "hang" });
      const controller = new AbortController();
      const reason = new Error("interaction cancelled");
      const turn = backend().turn(simpleRequest(), recordingSink(), controller.signal);
      setTimeout(() => controller.abort(reason), 50);
      const started = Date.now();
      await assert.rejects(turn, (error: unknown) => error === reason);
      assert.ok(Date.now() - started < 1_000);
      assert.equal(fake.requests.length, 1);
    });

    it("stops an answer mid-stream and rejects with the signal's reason", async () => {
      fake.script({ text: ["first", "second"], gapMs: 2_000 });
      const controller = new AbortController();
      const reason = new Error("shutting down");
      const sink: ModelStreamSink = { text: () => controller.abort(reason), thought: () => {} };
      await assert.rejects(backend().turn(simpleRequest(), sink, controller.signal), (error: unknown) => error === reason);
    });

    it("sends nothing when the signal is already aborted", async () => {
      const controller = new AbortController();
      const reason = new Error("already gone");
      controller.abort(reason);
      await assert.rejects(backend().turn(simpleRequest(), recordingSink(), controller.signal), (error: unknown) => error === reason);
      assert.equal(fake.requests.length, 0);
    });
  });
});
