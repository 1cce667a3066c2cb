// The OpenAI-compatible backend, through the official openai client over real HTTP to a loopback
// server that checks each request as OpenAI would: what a ModelRequest becomes on the wire, how the
// streamed answer comes back (deltas before the turn resolves, tool calls from fragments, reasoning,
// usage), every fault as its ModelBackendError kind without the key in it, and the caller's abort.

import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import OpenAI from "openai";
import {
  ModelBackendError,
  type ModelFailureKind,
  type ModelRequest,
  type ModelStreamSink,
} from "../../server/planners/model/model-backend.js";
import { openAiBackend } from "../../server/planners/model/openai-backend.js";
import { type FakeOpenAiServer, startFakeOpenAiServer } from "../support/fake-openai-server.js";

const KEY = "sk-test-SECRET-4f9a2c";

function recordingSink() {
  const events: string[] = [];
  const sink: ModelStreamSink = {
    text: (delta) => events.push(`text:${delta}`),
    thought: (delta) => events.push(`thought:${delta}`),
  };
  return { events, sink };
}

function userRequest(text = "hello", more: Partial<ModelRequest> = {}): ModelRequest {
  return { model: "qwen3:4b", messages: [{ role: "user", text }], tools: [], ...more };
}

async function expectFailure(promise: Promise<unknown>, kind: ModelFailureKind, ...patterns: RegExp[]): Promise<ModelBackendError> {
  const error = await promise.then(
    () => assert.fail(`the turn succeeded; expected a ${kind} failure`),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof ModelBackendError, `not a ModelBackendError: ${String(error)}`);
  assert.equal(error.kind, kind, error.message);
  assert.match(error.message, /^openai backend: /);
  for (const pattern of patterns) assert.match(error.message, pattern);
  assert.ok(!error.message.includes(KEY), `the key is in the message: ${error.message}`);
  return error;
}

describe("openai backend", () => {
  let fake: FakeOpenAiServer;
  beforeEach(async () => {
    fake = await startFakeOpenAiServer({ apiKey: KEY });
  });
  afterEach(async () => {
    await fake.close();
  });

  const backend = (timeoutMs = 5000) => openAiBackend({ baseUrl: fake.url, apiKey: KEY, timeoutMs });

  describe("the request", () => {
    it("translates a multi-turn conversation with calls, results, errors, system, tools, generation and a schema", async () => {
      fake.script({ kind: "answer", text: ["done"] });
      const schema = { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] };
      const parameters = { type: "object", properties: { path: { type: "string" } }, required: ["path"] };
      await backend().turn(
        {
          model: "qwen3:4b",
          system: "You are terse.",
          messages: [
            { role: "user", text: "Read two files." },
            {
              role: "model",
              text: "Reading them.",
              calls: [
                { id: "call_a", name: "read_file", arguments: '{"path":"a.txt"}' },
                { id: "call_b", name: "read_file", arguments: '{"path":"b.txt"}' },
              ],
            },
            {
              role: "tool",
              results: [
                { id: "call_a", name: "read_file", output: "alpha", isError: false },
                { id: "call_b", name: "read_file", output: "no such file", isError: true },
              ],
            },
            { role: "model", text: "", calls: [{ id: "call_2_0", name: "list_files", arguments: "{}" }] },
            { role: "tool", results: [{ id: "call_2_0", name: "list_files", output: "a.txt", isError: false }] },
            { role: "model", text: "Only a.txt exists.", calls: [] },
            { role: "user", text: "Answer in JSON." },
          ],
          tools: [
            { name: "read_file", description: "Reads a file.", parameters },
            { name: "list_files", description: "Lists files.", parameters: { type: "object", properties: {} } },
          ],
          generation: { temperature: 0.2, top_p: 0.9, seed: 7, max_output_tokens: 256, stop_sequences: ["END"], thinking_level: "low" },
          json: { schema },
        },
        recordingSink().sink,
        new AbortController().signal,
      );
      assert.equal(fake.requests.length, 1);
      const sent = fake.requests[0]!;
      assert.equal(sent.headers.authorization, `Bearer ${KEY}`);
      assert.deepEqual(sent.body, {
        model: "qwen3:4b",
        messages: [
          { role: "system", content: "You are terse." },
          { role: "user", content: "Read two files." },
          {
            role: "assistant",
            content: "Reading them.",
            tool_calls: [
              { id: "call_a", type: "function", function: { name: "read_file", arguments: '{"path":"a.txt"}' } },
              { id: "call_b", type: "function", function: { name: "read_file", arguments: '{"path":"b.txt"}' } },
            ],
          },
          { role: "tool", tool_call_id: "call_a", content: "alpha" },
          { role: "tool", tool_call_id: "call_b", content: "Error: no such file" },
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "call_2_0", type: "function", function: { name: "list_files", arguments: "{}" } }],
          },
          { role: "tool", tool_call_id: "call_2_0", content: "a.txt" },
          { role: "assistant", content: "Only a.txt exists." },
          { role: "user", content: "Answer in JSON." },
        ],
        stream: true,
        stream_options: { include_usage: true },
        tools: [
          { type: "function", function: { name: "read_file", description: "Reads a file.", parameters } },
          {
            type: "function",
            function: { name: "list_files", description: "Lists files.", parameters: { type: "object", properties: {} } },
          },
        ],
        temperature: 0.2,
        top_p: 0.9,
        seed: 7,
        max_tokens: 256,
        stop: ["END"],
        reasoning_effort: "low",
        response_format: { type: "json_schema", json_schema: { name: "answer", schema, strict: false } },
      });
    });

    it("asks for a JSON object without a schema, and leaves out tools, system and settings it was not given", async () => {
      fake.script({ kind: "answer", text: ['{"ok":true}'] });
      await backend().turn(userRequest("json please", { json: {} }), recordingSink().sink, new AbortController().signal);
      assert.deepEqual(fake.requests[0]!.body, {
        model: "qwen3:4b",
        messages: [{ role: "user", content: "json please" }],
        stream: true,
        stream_options: { include_usage: true },
        response_format: { type: "json_object" },
      });
    });

    it("sends a placeholder key when none is set", async () => {
      await fake.close();
      fake = await startFakeOpenAiServer();
      fake.script({ kind: "answer", text: ["hi"] });
      await openAiBackend({ baseUrl: fake.url, timeoutMs: 5000 }).turn(userRequest(), recordingSink().sink, new AbortController().signal);
      assert.match(fake.requests[0]!.headers.authorization ?? "", /^Bearer \S+$/);
    });
  });

  describe("the answer", () => {
    it("streams text deltas to the sink, in order, before the turn resolves", async () => {
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      fake.script({ kind: "answer", text: ["The ", "answer ", "is ", "42."], holdBeforeFinish: held });
      const { events, sink } = recordingSink();
      let settled = false;
      const turn = backend()
        .turn(userRequest(), sink, new AbortController().signal)
        .finally(() => {
          settled = true;
        });
      while (events.length < 4) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.deepEqual(events, ["text:The ", "text:answer ", "text:is ", "text:42."]);
      assert.equal(settled, false, "the turn resolved before the stream finished");
      release();
      const answer = await turn;
      assert.equal(answer.text, "The answer is 42.");
      assert.deepEqual(answer.calls, []);
      assert.equal(answer.thought, undefined);
    });

    it("assembles tool calls from their fragments, with the server's IDs or ones made from the turn", async () => {
      fake.script({
        kind: "answer",
        toolCalls: [
          { id: "call_srv", name: "read_file", argumentPieces: ['{"pa', 'th": "a', '.txt"}'] },
          { name: "list_files", argumentPieces: ["{", "}"] },
        ],
      });
      const answer = await backend().turn(userRequest(), recordingSink().sink, new AbortController().signal);
      assert.equal(answer.text, "");
      assert.deepEqual(answer.calls, [
        { id: "call_srv", name: "read_file", arguments: '{"path": "a.txt"}' },
        // One message in the request: the turn's calls are call_1_<index>.
        { id: "call_1_1", name: "list_files", arguments: "{}" },
      ]);
    });

    it("assembles interleaved fragments by their index", async () => {
      const frame = { id: "x", object: "chat.completion.chunk", created: 1, model: "m" };
      const calls = (fragments: unknown[], finish: string | null = null) => ({
        ...frame,
        choices: [{ index: 0, delta: { tool_calls: fragments }, finish_reason: finish }],
      });
      fake.script({
        kind: "raw",
        data: [
          calls([{ index: 1, id: "c1", type: "function", function: { name: "second", arguments: "" } }]),
          calls([{ index: 0, id: "c0", type: "function", function: { name: "first", arguments: '{"a"' } }]),
          // Some servers repeat the name in later fragments: it is the name, not a piece of it.
          calls([{ index: 1, function: { name: "second", arguments: '{"b":2}' } }]),
          calls([{ index: 0, function: { arguments: ":1}" } }], "tool_calls"),
        ],
      });
      const answer = await backend().turn(userRequest(), recordingSink().sink, new AbortController().signal);
      assert.deepEqual(answer.calls, [
        { id: "c0", name: "first", arguments: '{"a":1}' },
        { id: "c1", name: "second", arguments: '{"b":2}' },
      ]);
    });

    for (const field of ["reasoning_content", "reasoning"] as const) {
      it(`passes ${field} deltas to the sink as thought, and counts reasoning tokens apart`, async () => {
        fake.script({
          kind: "answer",
          reasoningField: field,
          reasoning: ["Let me ", "think."],
          text: ["Yes."],
          usage: { prompt_tokens: 31, completion_tokens: 20, reasoning_tokens: 12 },
        });
        const { events, sink } = recordingSink();
        const answer = await backend().turn(userRequest(), sink, new AbortController().signal);
        assert.deepEqual(events, ["thought:Let me ", "thought:think.", "text:Yes."]);
        assert.equal(answer.thought, "Let me think.");
        assert.equal(answer.text, "Yes.");
        assert.deepEqual(answer.usage, { input: 31, output: 8, thought: 12 });
      });
    }

    it("reads usage without reasoning as all output, and none as zeros", async () => {
      fake.script(
        { kind: "answer", text: ["a"], usage: { prompt_tokens: 5, completion_tokens: 3 } },
        { kind: "answer", text: ["b"], usage: null },
      );
      const first = await backend().turn(userRequest(), recordingSink().sink, new AbortController().signal);
      assert.deepEqual(first.usage, { input: 5, output: 3, thought: 0 });
      const second = await backend().turn(userRequest(), recordingSink().sink, new AbortController().signal);
      assert.deepEqual(second.usage, { input: 0, output: 0, thought: 0 });
    });
  });

  describe("faults", () => {
    it("unreachable: nothing listens at the base URL", async () => {
      const closed = await startFakeOpenAiServer();
      const url = closed.url;
      await closed.close();
      const error = await expectFailure(
        openAiBackend({ baseUrl: url, apiKey: KEY, timeoutMs: 5000 }).turn(
          userRequest(),
          recordingSink().sink,
          new AbortController().signal,
        ),
        "unreachable",
        /ECONNREFUSED/,
        /EMULATOR_OPENAI_BASE_URL/,
      );
      assert.ok(error.message.includes(url), error.message);
    });

    it("auth: a wrong key is refused, and the key the server echoes is not in the message", async () => {
      const wrongKey = `${KEY}-wrong`;
      const error = await openAiBackend({ baseUrl: fake.url, apiKey: wrongKey, timeoutMs: 5000 })
        .turn(userRequest(), recordingSink().sink, new AbortController().signal)
        .catch((caught: unknown) => caught);
      assert.ok(error instanceof ModelBackendError);
      assert.equal(error.kind, "auth");
      assert.match(error.message, /401: Incorrect API key provided: \*\*\*/);
      assert.match(error.message, /EMULATOR_OPENAI_API_KEY/);
      assert.ok(!error.message.includes(wrongKey), error.message);
    });

    it("auth: 403", async () => {
      fake.script({ kind: "status", status: 403, body: { error: { message: `key ${KEY} may not use this model` } } });
      await expectFailure(
        backend().turn(userRequest(), recordingSink().sink, new AbortController().signal),
        "auth",
        /403/,
        /EMULATOR_OPENAI_API_KEY/,
      );
    });

    it("refused: 404 names the model and says to pull it", async () => {
      fake.script({
        kind: "status",
        status: 404,
        body: { error: { message: 'model "qwen3:4b" not found, try pulling it first', type: "api_error" } },
      });
      await expectFailure(
        backend().turn(userRequest(), recordingSink().sink, new AbortController().signal),
        "refused",
        /no model "qwen3:4b"/,
        /not found, try pulling it first/,
        /ollama pull qwen3:4b/,
      );
    });

    it("rate_limit: 429", async () => {
      fake.script({ kind: "status", status: 429, body: { error: { message: "Rate limit reached" } } });
      await expectFailure(
        backend().turn(userRequest(), recordingSink().sink, new AbortController().signal),
        "rate_limit",
        /429: Rate limit reached/,
      );
      assert.equal(fake.requests.length, 1, "the client retried");
    });

    it("refused: another 4xx, with the server's message in any of its shapes", async () => {
      fake.script(
        { kind: "status", status: 400, body: { error: { message: "context length exceeded (8192)" } } },
        { kind: "status", status: 400, body: { object: "error", message: "vLLM says no", type: "BadRequestError", code: 400 } },
        { kind: "status", status: 422, body: { detail: "FastAPI says no" } },
      );
      const turn = () => backend().turn(userRequest(), recordingSink().sink, new AbortController().signal);
      await expectFailure(turn(), "refused", /400: context length exceeded \(8192\)/);
      await expectFailure(turn(), "refused", /400: vLLM says no/);
      await expectFailure(turn(), "refused", /422: FastAPI says no/);
    });

    it("server: 5xx, not retried", async () => {
      fake.script({ kind: "status", status: 503, body: "upstream overloaded" });
      await expectFailure(
        backend().turn(userRequest(), recordingSink().sink, new AbortController().signal),
        "server",
        /503: upstream overloaded/,
      );
      assert.equal(fake.requests.length, 1, "the client retried");
    });

    it("timeout: no headers in time", { timeout: 10_000 }, async () => {
      fake.script({ kind: "hang" });
      const started = Date.now();
      await expectFailure(
        backend(300).turn(userRequest(), recordingSink().sink, new AbortController().signal),
        "timeout",
        /0\.3 s/,
        /EMULATOR_MODEL_TIMEOUT_SECONDS/,
      );
      assert.ok(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
    });

    it("timeout: the stream stalls mid-answer", { timeout: 10_000 }, async () => {
      fake.script({ kind: "stall", textBefore: ["partial "] });
      const { events, sink } = recordingSink();
      await expectFailure(
        backend(400).turn(userRequest(), sink, new AbortController().signal),
        "timeout",
        /EMULATOR_MODEL_TIMEOUT_SECONDS/,
      );
      assert.deepEqual(events, ["text:partial "]);
      await fake.disconnected(0);
    });

    it("empty: neither text nor calls", async () => {
      fake.script({ kind: "answer", text: [], finishReason: "length" });
      await expectFailure(
        backend().turn(userRequest(), recordingSink().sink, new AbortController().signal),
        "empty",
        /neither text nor tool calls/,
        /length/,
      );
    });

    it("server: the connection closes before an answer, or mid-stream", async () => {
      fake.script({ kind: "close" }, { kind: "close", textBefore: ["half"] });
      await expectFailure(
        backend().turn(userRequest(), recordingSink().sink, new AbortController().signal),
        "server",
        /closed the connection/,
      );
      await expectFailure(backend().turn(userRequest(), recordingSink().sink, new AbortController().signal), "server", /mid-stream/);
    });

    it("server: a stream that is not the protocol's", async () => {
      const frame = { id: "x", object: "chat.completion.chunk", created: 1, model: "m" };
      fake.script(
        { kind: "raw", data: ["this is not json"] },
        { kind: "raw", data: [{ ...frame, choices: "nope" }] },
        { kind: "raw", data: [{ ...frame, choices: [{ index: 0, delta: { content: 42 }, finish_reason: null }] }] },
        {
          kind: "raw",
          data: [
            {
              ...frame,
              choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: "{}" } }] }, finish_reason: "tool_calls" }],
            },
          ],
        },
        // Cut short: text but no finish_reason and no [DONE].
        { kind: "raw", data: [{ ...frame, choices: [{ index: 0, delta: { content: "cut" }, finish_reason: null }] }], done: false },
        { kind: "raw", data: [{ error: { message: "the model crashed", type: "server_error" } }] },
      );
      const turn = () => backend().turn(userRequest(), recordingSink().sink, new AbortController().signal);
      await expectFailure(turn(), "server", /not a chat completions stream: a data line is not JSON/);
      await expectFailure(turn(), "server", /chunk 1 has no choices array/);
      await expectFailure(turn(), "server", /delta\.content is number 42, not a string/);
      await expectFailure(turn(), "server", /tool call 0 never got a function name/);
      await expectFailure(turn(), "server", /no finish_reason/);
      await expectFailure(turn(), "server", /reported an error mid-answer: the model crashed/);
    });

    it("passes a throwing sink's error back unchanged", async () => {
      fake.script({ kind: "answer", text: ["a", "b"] });
      const failure = new Error("the sink broke");
      const sink: ModelStreamSink = {
        text: () => {
          throw failure;
        },
        thought: () => {},
      };
      await assert.rejects(backend().turn(userRequest(), sink, new AbortController().signal), (error) => error === failure);
    });
  });

  describe("abort", () => {
    it("rejects with the signal's reason while waiting for headers, and closes the request", { timeout: 10_000 }, async () => {
      fake.script({ kind: "hang" });
      const controller = new AbortController();
      const reason = new Error("interaction cancelled");
      const turn = backend().turn(userRequest(), recordingSink().sink, controller.signal);
      while (fake.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      controller.abort(reason);
      await assert.rejects(turn, (error) => error === reason);
      await fake.disconnected(0);
    });

    it("rejects with the signal's reason mid-stream", { timeout: 10_000 }, async () => {
      fake.script({ kind: "stall", textBefore: ["so far"] });
      const controller = new AbortController();
      const reason = new Error("shutting down");
      const { events, sink } = recordingSink();
      const turn = backend().turn(userRequest(), sink, controller.signal);
      while (events.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      controller.abort(reason);
      await assert.rejects(turn, (error) => error === reason);
      await fake.disconnected(0);
    });

    it("sends nothing when the signal is already aborted", async () => {
      const controller = new AbortController();
      controller.abort(new Error("too late"));
      await assert.rejects(backend().turn(userRequest(), recordingSink().sink, controller.signal), /too late/);
      assert.equal(fake.requests.length, 0);
    });
  });
});

describe("fake OpenAI server", () => {
  it("answers the official client without streaming too, and refuses what OpenAI refuses", async () => {
    const fake = await startFakeOpenAiServer({ apiKey: KEY });
    fake.script({ kind: "answer", text: ["plain"], toolCalls: [{ id: "c", name: "f", argumentPieces: ["{}"] }] });
    const client = new OpenAI({ baseURL: fake.url, apiKey: KEY, maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] });
    assert.equal(completion.choices[0]!.message.content, "plain");
    assert.deepEqual(completion.choices[0]!.message.tool_calls, [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }]);
    await assert.rejects(
      client.chat.completions.create({ model: "m", messages: [{ role: "tool", tool_call_id: "nobody", content: "x" }], tools: [] }),
      (error: any) => error.status === 400 && /answers no tool call/.test(error.message) && /\[\] is too short/.test(error.message),
    );
    await assert.rejects(fake.close(), /answers no tool call/);
  });
});
