import assert from "node:assert/strict";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { textPieces, withCassette } from "../../server/planners/model/cassette.js";
import { canonicalJson } from "../../server/planners/model/cassette-format.js";
import {
  type ModelAnswer,
  type ModelBackend,
  ModelBackendError,
  type ModelMessage,
  type ModelRequest,
  type ModelStreamSink,
} from "../../server/planners/model/model-backend.js";

const SECRET = "sk-test-0123456789abcdef";

const folders: string[] = [];
after(async () => {
  for (const folder of folders) await fs.rm(folder, { recursive: true, force: true });
});

async function cassetteFile(): Promise<string> {
  const folder = await fs.mkdtemp(path.join(os.tmpdir(), "cassette-test-"));
  folders.push(folder);
  return path.join(folder, "session.json");
}

/** A sink that keeps what it was given, in order. */
function recordingSink(): ModelStreamSink & { events: { kind: "text" | "thought"; delta: string }[] } {
  const events: { kind: "text" | "thought"; delta: string }[] = [];
  return { events, text: (delta) => events.push({ kind: "text", delta }), thought: (delta) => events.push({ kind: "thought", delta }) };
}

interface FakeOptions {
  /** Build answers with their keys in another order (the file must not care). */
  shuffledKeys?: boolean;
  /** How long the turn takes, by the user's text. */
  delayFor?: (user: string) => number;
  /** What the turn waits for before it answers, by the user's text. */
  holdFor?: (user: string) => Promise<void> | undefined;
  /** Fail the turn with this error when it returns one. */
  failure?: (request: ModelRequest) => ModelBackendError | null;
}

/**
 * A deterministic model: it calls `run_command` once per planned command output, then answers in text.
 * Its answer depends only on the request, as a recorded model's does for the replay.
 */
function fakeModel(options: FakeOptions = {}): ModelBackend & { turns: number } {
  const fake = {
    name: "openai",
    turns: 0,
    async turn(request: ModelRequest, sink: ModelStreamSink, signal: AbortSignal): Promise<ModelAnswer> {
      fake.turns++;
      const user = request.messages[0]?.role === "user" ? request.messages[0].text : "";
      await delay(options.delayFor?.(user) ?? 0, undefined, { signal });
      await options.holdFor?.(user);
      const failure = options.failure?.(request);
      if (failure) throw failure;
      const done = request.messages.filter((message) => message.role === "model").length;
      const thought = `Turn ${done + 1} of ${user}: thinking.`;
      sink.thought(thought);
      if (done < 2) {
        // A Gemini-style thought signature rides on the call: replay must give it back for the next turn to match.
        const call = {
          id: `call_${done + 1}_0`,
          name: "run_command",
          arguments: JSON.stringify({ command: `ls -l /data/${done}` }),
          signature: `c2lnLTEy${done}`,
        };
        const usage = { input: 100 + done, output: 7, thought: 3 };
        return options.shuffledKeys
          ? {
              usage: { thought: 3, output: 7, input: 100 + done },
              calls: [{ signature: call.signature, arguments: call.arguments, name: call.name, id: call.id }],
              thought,
              text: "",
            }
          : { text: "", thought, calls: [call], usage };
      }
      const text = `Done with ${user}: the folder holds four files, one of them is big, and the key ${SECRET} was not needed.`;
      for (const word of text.split(" ")) sink.text(`${word} `);
      return { text, thought, calls: [], usage: { input: 300, output: 20, thought: 5 } };
    },
  };
  return fake;
}

function firstRequest(user: string): ModelRequest {
  return {
    model: "gpt-test",
    system: `You are a careful agent. Never print ${SECRET}.`,
    messages: [{ role: "user", text: user }],
    tools: [
      {
        name: "run_command",
        description: "Runs a shell command in the sandbox.",
        parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
      },
    ],
    generation: { temperature: 0, seed: 7 },
  };
}

const TOTAL_4 = `total 4\n${"-rw-r--r-- 1 user user 4096 file\n".repeat(10)}`.slice(0, 312);

/** The command outputs a run sees; a run that sees others is not the recorded one. */
function outputsOf(first = TOTAL_4, second = "small.txt\nbig.bin\n"): string[] {
  return [first, second];
}

interface SessionRun {
  answers: ModelAnswer[];
  sinks: ReturnType<typeof recordingSink>[];
}

/** What the planner does: a turn, the calls' results appended, the next turn, until an answer without calls. */
async function runSession(backend: ModelBackend, user: string, outputs = outputsOf()): Promise<SessionRun> {
  const request = firstRequest(user);
  const run: SessionRun = { answers: [], sinks: [] };
  for (let turn = 0; turn < 5; turn++) {
    const sink = recordingSink();
    // The planner builds each request on the same message list: the cassette must store a copy, not the list.
    const answer = await backend.turn(request, sink, new AbortController().signal);
    run.answers.push(answer);
    run.sinks.push(sink);
    if (answer.calls.length === 0) return run;
    request.messages.push({ role: "model", text: answer.text, calls: answer.calls });
    const results = answer.calls.map((call) => ({ id: call.id, name: call.name, output: outputs[turn] ?? "", isError: false }));
    request.messages.push({ role: "tool", results } satisfies ModelMessage);
  }
  throw new Error("the fake model never finished");
}

function recorder(file: string, live: ModelBackend): ModelBackend {
  return withCassette(live, { file, mode: "record", secrets: [SECRET, ""], backendName: "ignored-in-record" });
}

function player(file: string): ModelBackend {
  return withCassette(null, { file, mode: "replay", secrets: [SECRET], backendName: "openai" });
}

function withoutSource(answer: ModelAnswer): ModelAnswer {
  const { source: _source, ...rest } = answer;
  return rest;
}

function redacted(answer: ModelAnswer): ModelAnswer {
  return JSON.parse(JSON.stringify(answer).replaceAll(SECRET, "[redacted]"));
}

async function rejection(promise: Promise<unknown>): Promise<ModelBackendError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ModelBackendError, `expected a ModelBackendError, got ${String(error)}`);
    return error;
  }
  assert.fail("the turn did not fail");
}

/** Every object's keys in code-unit order, recursively. */
function assertKeysSorted(value: unknown, where = "(file)"): void {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) assertKeysSorted(item, `${where}[${index}]`);
    return;
  }
  if (value === null || typeof value !== "object") return;
  const keys = Object.keys(value);
  assert.deepEqual(keys, [...keys].sort(), `keys of ${where} are not sorted`);
  for (const key of keys) assertKeysSorted((value as Record<string, unknown>)[key], `${where}.${key}`);
}

describe("cassette: record and replay of model turns", () => {
  it("replays a recorded session with no live backend: the same answers, the thought first, the text in a few deltas", async () => {
    const file = await cassetteFile();
    const live = fakeModel();
    const recorded = await runSession(recorder(file, live), "list /data");
    assert.equal(live.turns, 3);
    assert.deepEqual(
      recorded.answers.map((answer) => answer.source),
      ["recorded", "recorded", "recorded"],
    );
    // Recording streams the live backend's own deltas through.
    assert.equal(recorded.sinks[2]!.events.filter((event) => event.kind === "text").length, recorded.answers[2]!.text.split(" ").length);

    const replaying = player(file);
    assert.equal(replaying.name, "openai");
    const replayed = await runSession(replaying, "list /data");
    assert.deepEqual(
      replayed.answers.map((answer) => answer.source),
      ["replayed", "replayed", "replayed"],
    );
    // The same answers, but for the key the fake model put in its last one: the cassette stored it redacted.
    assert.deepEqual(replayed.answers.map(withoutSource), recorded.answers.map(withoutSource).map(redacted));
    assert.match(replayed.answers[2]!.text, /the key \[redacted\] was not needed/);
    for (const [index, sink] of replayed.sinks.entries()) {
      const answer = replayed.answers[index]!;
      assert.deepEqual(sink.events[0], { kind: "thought", delta: answer.thought });
      const texts = sink.events.slice(1).map((event) => {
        assert.equal(event.kind, "text");
        return event.delta;
      });
      assert.equal(texts.join(""), answer.text);
      if (answer.text === "") assert.equal(texts.length, 0);
      else assert.ok(texts.length > 1 && texts.length <= 4, `the text came in ${texts.length} deltas`);
    }
  });

  it("writes readable JSON: keys sorted, 2-space indentation, a trailing newline, secrets redacted, no source", async () => {
    const file = await cassetteFile();
    await runSession(recorder(file, fakeModel()), "list /data");
    const text = await fs.readFile(file, "utf8");
    const json = JSON.parse(text);
    assert.equal(text, `${JSON.stringify(json, null, 2)}\n`);
    assertKeysSorted(json);
    assert.deepEqual(Object.keys(json), ["turns", "version"]);
    assert.equal(json.version, 1);
    assert.equal(json.turns.length, 3);
    assert.equal(text.includes(SECRET), false, "the API key got into the cassette");
    assert.equal(json.turns[0].request.system, "You are a careful agent. Never print [redacted].");
    assert.match(json.turns[2].answer.text, /the key \[redacted\] was not needed/);
    assert.equal(text.includes('"source"'), false);
    assert.deepEqual(json.turns[1].request.messages[2], {
      role: "tool",
      results: [{ id: "call_1_0", isError: false, name: "run_command", output: TOTAL_4 }],
    });
    // The temp file was renamed into place, not left beside it.
    assert.deepEqual(await fs.readdir(path.dirname(file)), ["session.json"]);
  });

  it("sorts keys by code unit, integer-like ones included, which JSON.stringify would put first", () => {
    assert.equal(canonicalJson({ b: 1, "10": [], "9": {}, a: [true, null] }), '{"10":[],"9":{},"a":[true,null],"b":1}');
    assert.equal(
      canonicalJson({ z: { y: 1, x: [2, { w: 3, v: 4 }] } }, 2),
      JSON.stringify({ z: { x: [2, { v: 4, w: 3 }], y: 1 } }, null, 2),
    );
  });

  it("re-recording the same session gives a byte-identical file, replacing what it held", async () => {
    const file = await cassetteFile();
    await runSession(recorder(file, fakeModel()), "list /data");
    const first = await fs.readFile(file);
    // Another recorder, a model that builds its objects in another key order, twice over the old file.
    await runSession(recorder(file, fakeModel({ shuffledKeys: true })), "list /data");
    assert.deepEqual(await fs.readFile(file), first);

    await runSession(recorder(file, fakeModel()), "something else");
    const other = JSON.parse(await fs.readFile(file, "utf8"));
    assert.equal(other.turns.length, 3, "a record run starts the cassette afresh");
    assert.equal(other.turns[0].request.messages[0].text, "something else");
  });

  it("names the closest recorded turn and the first difference when a request has no match", async () => {
    const file = await cassetteFile();
    await runSession(recorder(file, fakeModel()), "list /data");
    const diverging = TOTAL_4.replace("total 4", "total 8").padEnd(318, "x");
    const error = await rejection(runSession(player(file), "list /data", outputsOf(diverging)));
    assert.equal(error.kind, "replay");
    assert.equal(
      error.message,
      `The cassette ${file} has no answer for this request: compared with recorded turn 2 (the unused turn closest to it), ` +
        'the first difference is messages[2].results[0].output: recorded "total 4\\n…" (312 chars), now "total 8\\n…" (318 chars). ' +
        "Re-record the cassette with EMULATOR_MODEL_MODE=record, or make the run deterministic so it asks what the recorded run asked",
    );
  });

  it("compares with the unused turn sharing the most messages, and tells short values and missing ones apart", async () => {
    const file = await cassetteFile();
    await runSession(recorder(file, fakeModel()), "list /data");
    const replaying = player(file);
    const signal = new AbortController().signal;
    // Turn 1 is taken; then the third request, with another second output, shares 4 messages with turn 3, 3 with turn 2.
    await replaying.turn(firstRequest("list /data"), recordingSink(), signal);
    const recorded = JSON.parse(await fs.readFile(file, "utf8")).turns[2].request as ModelRequest;
    const third: ModelRequest = { ...recorded, system: firstRequest("").system };
    third.messages = structuredClone(recorded.messages);
    const last = third.messages[4]!;
    assert.equal(last.role, "tool");
    if (last.role === "tool") last.results[0]!.output = "small.txt\n";
    const error = await rejection(replaying.turn(third, recordingSink(), signal));
    assert.match(error.message, /compared with recorded turn 3 \(/);
    assert.match(
      error.message,
      /the first difference is messages\[4\]\.results\[0\]\.output: recorded "small\.txt\\nbig\.bin\\n", now "small\.txt\\n"\./,
    );

    // A request with a message more than any recorded one: the recorded side has nothing there.
    const longer = structuredClone(third);
    if (last.role === "tool") (longer.messages[4] as typeof last).results[0]!.output = "small.txt\nbig.bin\n";
    longer.messages.push({ role: "user", text: "and now?" });
    const longerError = await rejection(replaying.turn(longer, recordingSink(), signal));
    assert.match(longerError.message, /recorded turn 3 .* messages\[5\]: recorded nothing, now \{"role":"user","text":"and now\?"\}\./);

    // The mismatches took nothing: the real third request still plays.
    const answer = await replaying.turn({ ...longer, messages: longer.messages.slice(0, 5) }, recordingSink(), signal);
    assert.equal(answer.source, "replayed");
    assert.equal(answer.calls.length, 0);
  });

  it("says when every recorded turn was used", async () => {
    const file = await cassetteFile();
    await runSession(recorder(file, fakeModel()), "list /data");
    const replaying = player(file);
    await runSession(replaying, "list /data");
    const error = await rejection(replaying.turn(firstRequest("list /data"), recordingSink(), new AbortController().signal));
    assert.equal(error.kind, "replay");
    assert.match(error.message, new RegExp(`^The cassette ${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} has 3 turns and all were used`));
    assert.match(error.message, /EMULATOR_MODEL_MODE=record/);
  });

  it("refuses a missing, unreadable, corrupt or invalid cassette, naming the file and what to do", async () => {
    const file = await cassetteFile();
    const turn = (backend: ModelBackend) => backend.turn(firstRequest("x"), recordingSink(), new AbortController().signal);

    const missing = await rejection(turn(player(file)));
    assert.equal(missing.kind, "replay");
    assert.equal(
      missing.message,
      `The cassette ${file} does not exist; record it first: run the session once with EMULATOR_MODEL_MODE=record against the live model`,
    );

    await fs.mkdir(file);
    assert.match((await rejection(turn(player(file)))).message, /could not be read \(EISDIR.*EMULATOR_MODEL_MODE=record/);
    await fs.rmdir(file);

    await fs.writeFile(file, '{"version": 1, "turns": [');
    const corrupt = await rejection(turn(player(file)));
    assert.match(corrupt.message, /^The cassette .*session\.json cannot be replayed: it is not JSON \(/);
    assert.match(corrupt.message, /re-record it with EMULATOR_MODEL_MODE=record$/);

    await runSession(recorder(file, fakeModel()), "x");
    const valid = JSON.parse(await fs.readFile(file, "utf8"));
    delete valid.turns[1].answer.usage.output;
    await fs.writeFile(file, JSON.stringify(valid));
    assert.match((await rejection(turn(player(file)))).message, /not a version 1 cassette \(turns\[1\]\.answer\.usage\.output: /);

    await fs.writeFile(file, JSON.stringify({ ...valid, version: 2 }));
    assert.match((await rejection(turn(player(file)))).message, /\(version: only version 1 is supported\)/);
  });

  it("reads the cassette once, lazily: not before the first turn, and not again when the file changes", async () => {
    const file = await cassetteFile();
    const replaying = player(file); // no file yet, and no error: nothing is read before the first turn
    await runSession(recorder(file, fakeModel()), "list /data");
    await runSession(replaying, "list /data");
    await fs.writeFile(file, "not json any more");
    const error = await rejection(replaying.turn(firstRequest("list /data"), recordingSink(), new AbortController().signal));
    assert.match(error.message, /has 3 turns and all were used/);
  });

  it("keeps both of two concurrent recordings, in the order their turns ended, and replays them in any order", async () => {
    const file = await cassetteFile();
    // The slow session's first turn starts first and ends last: the fast session runs all its turns meanwhile.
    let releaseSlow = (): void => undefined;
    const slowHeld = new Promise<void>((resolve) => {
      releaseSlow = resolve;
    });
    const backend = recorder(file, fakeModel({ holdFor: (user) => (user === "slow" ? slowHeld : undefined) }));
    const slowRun = runSession(backend, "slow");
    await runSession(backend, "fast");
    releaseSlow();
    await slowRun;
    const turns = JSON.parse(await fs.readFile(file, "utf8")).turns as { request: ModelRequest }[];
    assert.deepEqual(
      turns.map((turn) => `${(turn.request.messages[0] as { text: string }).text}:${turn.request.messages.length}`),
      ["fast:1", "fast:3", "fast:5", "slow:1", "slow:3", "slow:5"],
    );

    const replaying = player(file);
    const [slow, fast] = await Promise.all([runSession(replaying, "slow"), runSession(replaying, "fast")]);
    assert.match(slow.answers[2]!.text, /^Done with slow:/);
    assert.match(fast.answers[2]!.text, /^Done with fast:/);
  });

  it("loses no turn when many recordings end at once", async () => {
    const file = await cassetteFile();
    const users = Array.from({ length: 12 }, (_, index) => `user ${index}`);
    const backend = recorder(file, fakeModel({ delayFor: (user) => (Number(user.split(" ")[1]) * 7) % 5 }));
    await Promise.all(users.map((user) => runSession(backend, user)));
    const turns = JSON.parse(await fs.readFile(file, "utf8")).turns as unknown[];
    assert.equal(turns.length, users.length * 3);
    assert.deepEqual(await fs.readdir(path.dirname(file)), ["session.json"]);
  });

  it("does not record a failed turn, and a run whose only turn failed leaves the old cassette alone", async () => {
    const file = await cassetteFile();
    await runSession(recorder(file, fakeModel()), "list /data");
    const before = await fs.readFile(file, "utf8");

    const refused = new ModelBackendError("rate_limit", "429 from the model's server");
    const failing = recorder(file, fakeModel({ failure: () => refused }));
    assert.equal(await rejection(failing.turn(firstRequest("other"), recordingSink(), new AbortController().signal)), refused);
    assert.equal(await fs.readFile(file, "utf8"), before);

    // Fail the second turn of one session only: the first and third turns are stored, the second is not.
    let failedOnce = false;
    const flaky = recorder(
      file,
      fakeModel({
        failure: (request) => {
          if (request.messages.length !== 3 || failedOnce) return null;
          failedOnce = true;
          return new ModelBackendError("server", "502 from the model's server");
        },
      }),
    );
    await assert.rejects(runSession(flaky, "list /data"), { name: "ModelBackendError", message: "502 from the model's server" });
    await runSession(flaky, "list /data");
    const turns = JSON.parse(await fs.readFile(file, "utf8")).turns as { request: ModelRequest }[];
    assert.deepEqual(
      turns.map((turn) => turn.request.messages.length),
      [1, 1, 3, 5],
    );
  });

  it("rejects with the signal's reason when aborted, using no recorded turn", async () => {
    const file = await cassetteFile();
    await runSession(recorder(file, fakeModel()), "list /data");
    const replaying = player(file);
    const controller = new AbortController();
    const reason = new Error("interaction cancelled");
    controller.abort(reason);
    await assert.rejects(replaying.turn(firstRequest("list /data"), recordingSink(), controller.signal), (error) => error === reason);
    assert.equal((await replaying.turn(firstRequest("list /data"), recordingSink(), new AbortController().signal)).source, "replayed");
  });

  it("splits text at whitespace into at most four pieces that join back to it", () => {
    assert.deepEqual(textPieces(""), []);
    assert.deepEqual(textPieces("one"), ["one"]);
    assert.deepEqual(textPieces(" \n "), [" \n "]);
    assert.deepEqual(textPieces("  lead and trail  "), ["  lead ", "and ", "trail  "]);
    const text = "a b\nc  d\te f g h i";
    const pieces = textPieces(text);
    assert.equal(pieces.length, 3);
    assert.equal(pieces.join(""), text);
  });
});
