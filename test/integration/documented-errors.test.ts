// The service as its documentation describes it (issue 30), through the HTTP API of an emulator in this
// process with fake sandboxes: every error answer's `code` is the documented string of its kind (the
// OpenAPI document's `Error.code`, "a URI that identifies the error type"; the API errors page lists the
// codes), with Google's `status` beside it, and the official JavaScript SDK raises its typed errors for
// them; every event stream ends with `data: [DONE]`, the document's `x-speakeasy-sse-sentinel`, and the
// SDK's iteration ends there; an interaction is cancelled by POST …/{id}/cancel (the document, the SDKs)
// and by POST …/{id}:cancel (the documentation's REST examples).

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { codeOf } from "../support/fake-sandbox-channel.js";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";

const KEY = "documented-errors-key";
const AGENT = "antigravity-preview-05-2026";
const DONE = "data: [DONE]\n\n";

interface ErrorBody {
  error: { code: unknown; message: unknown; status: unknown };
}

let emulator: FakeRuntimeEmulator;
let ai: GoogleGenAI;

before(async () => {
  emulator = await startFakeRuntimeEmulator();
  ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
});
after(() => emulator?.close());

async function send(method: string, path: string, body?: unknown, headers: Record<string, string> = { "x-goog-api-key": KEY }) {
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    headers: { "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  return { status: response.status, text: await response.text() };
}

/** What an SDK's rejection carries: its class name, HTTP status, and the body's error as the SDK parsed it. */
async function rejection(call: () => Promise<unknown>): Promise<{ name: string; status: unknown; cause: string; error: any }> {
  try {
    await call();
  } catch (error) {
    const failure = error as { name: string; status?: unknown; cause?: { name?: string; error?: unknown } };
    return { name: failure.name, status: failure.status, cause: failure.cause?.name ?? "", error: failure.cause?.error };
  }
  assert.fail("expected the call to be refused");
}

describe("error answers in the documented shape", () => {
  const cases: Array<[string, string, string, unknown, Record<string, string> | undefined, number, string, string]> = [
    ["an unknown interaction", "GET", "/v1beta/interactions/int_nope", undefined, undefined, 404, "not_found", "NOT_FOUND"],
    ["a body that is not JSON", "POST", "/v1beta/interactions", "{not json", undefined, 400, "invalid_request", "INVALID_ARGUMENT"],
    [
      "a field the API does not have",
      "POST",
      "/v1beta/interactions",
      { agent: AGENT, input: "hi", toolz: [] },
      undefined,
      400,
      "parameter_unknown",
      "INVALID_ARGUMENT",
    ],
    ["no API key", "GET", "/v1beta/interactions/int_nope", undefined, {}, 401, "authentication", "UNAUTHENTICATED"],
    ["a path nothing serves", "GET", "/v1beta/nothing-here", undefined, undefined, 404, "not_found", "NOT_FOUND"],
  ];
  for (const [what, method, path, body, headers, httpStatus, code, status] of cases) {
    it(`answers ${what} with ${httpStatus} and code "${code}", status ${status} beside it`, async () => {
      const answer = await send(method, path, body, headers);
      assert.equal(answer.status, httpStatus, answer.text);
      const { error } = JSON.parse(answer.text) as ErrorBody;
      // The document's Error: code and message are strings; the status is an extra field it allows.
      assert.equal(error.code, code);
      assert.equal(typeof error.message, "string");
      assert.equal(error.status, status);
    });
  }

  it("the JavaScript SDK raises its typed errors, having parsed the body as the operation's own error", async () => {
    const missing = await rejection(() => ai.interactions.get("int_nope"));
    assert.deepEqual([missing.name, missing.status, missing.cause], ["NotFoundError", 404, "GetInteractionByIdClientError"]);
    assert.equal(missing.error.code, "not_found");
    assert.match(missing.error.message, /int_nope not found/);

    const unknownField = await rejection(() => ai.interactions.create({ agent: AGENT, input: "hi", toolz: [] } as never));
    assert.deepEqual(
      [unknownField.name, unknownField.status, unknownField.cause],
      ["BadRequestError", 400, "CreateInteractionClientError"],
    );
    assert.equal(unknownField.error.code, "parameter_unknown");

    const notCancelled = await rejection(() => ai.interactions.cancel("int_nope"));
    assert.deepEqual([notCancelled.name, notCancelled.status, notCancelled.error.code], ["NotFoundError", 404, "not_found"]);
  });
});

describe("event streams end with the document's sentinel", () => {
  it("create with stream: true, GET ?stream=true and a resumed stream each end with data: [DONE]", async () => {
    const created = await send("POST", "/v1beta/interactions", { agent: AGENT, input: "Run `ls`", stream: true });
    assert.equal(created.status, 200);
    assert.ok(created.text.endsWith(`\n\n${DONE}`), created.text.slice(-300));
    assert.equal(created.text.indexOf("[DONE]"), created.text.length - DONE.length + "data: ".length, "one sentinel, last");
    const id = /"interaction":\{[\s\S]*?"id":"([^"]+)"/.exec(created.text)?.[1];
    assert.ok(id, "the stream names its interaction");

    const replayed = await send("GET", `/v1beta/interactions/${id}?stream=true`);
    assert.ok(replayed.text.endsWith(`\n\n${DONE}`), replayed.text.slice(-300));
    const resumed = await send("GET", `/v1beta/interactions/${id}?stream=true&last_event_id=evt_2`);
    assert.ok(resumed.text.endsWith(`\n\n${DONE}`), resumed.text.slice(-300));
    assert.doesNotMatch(resumed.text, /id: evt_[12]\n/);
  });

  it("the JavaScript SDK's iteration stops at the sentinel, after interaction.completed, with nothing extra", async () => {
    const stream = await ai.interactions.create({ agent: AGENT, input: "Run `ls`", stream: true });
    const seen: unknown[] = [];
    for await (const event of stream) seen.push(event);
    const types = seen.map((event) => (event as { event_type?: string }).event_type);
    assert.equal(types.at(-1), "interaction.completed");
    assert.ok(
      types.every((type) => typeof type === "string"),
      JSON.stringify(types),
    );
  });
});

describe("cancel in both forms", () => {
  for (const form of ["/cancel", ":cancel"]) {
    it(`POST /v1beta/interactions/{id}${form} cancels a running interaction`, async () => {
      const environment = await send("POST", "/v1beta/environments", {});
      const environmentId = (JSON.parse(environment.text) as { id: string }).id;
      const channel = emulator.runtime.channels.get(environmentId);
      assert.ok(channel, "the environment's sandbox is up");
      let started!: () => void;
      const running = new Promise<void>((resolve) => (started = resolve));
      // The sleep runs until the run is stopped.
      channel.onRun = async (request) => {
        if (!codeOf(request).includes("sleep")) return {};
        started();
        await new Promise((resolve) => request.signal?.addEventListener("abort", resolve, { once: true }));
        return {};
      };
      const created = await send("POST", "/v1beta/interactions", {
        agent: AGENT,
        input: "Run `sleep 300`",
        environment: environmentId,
        background: true,
      });
      const id = (JSON.parse(created.text) as { id: string }).id;
      await running;
      const cancelled = await send("POST", `/v1beta/interactions/${id}${form}`);
      assert.equal(cancelled.status, 200, cancelled.text);
      assert.equal((JSON.parse(cancelled.text) as { status: string }).status, "cancelled");
    });
  }

  it("answers another custom method on an interaction with 404 not_found naming the cancel forms", async () => {
    const answer = await send("POST", "/v1beta/interactions/int_x:pause");
    assert.equal(answer.status, 404);
    const { error } = JSON.parse(answer.text) as ErrorBody;
    assert.equal(error.code, "not_found");
    assert.match(String(error.message), /\{id\}\/cancel \(or \{id\}:cancel\)/);
  });
});
