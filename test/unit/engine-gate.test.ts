// The engine gate (server/sandbox/docker/engine-gate.ts) in front of a stand-in for dockerode's modem
// whose calls hang until the test answers them: the bounds on calls at once, the deadline that aborts
// a call and marks the engine not answering, the refusal that then asks the engine nothing, and the
// recovery that removes what a create without an answer may have left. The same against the real
// engine, through a relay: test/fault/engine-hang.test.ts.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type Docker from "dockerode";
import { gateEngine } from "../../server/sandbox/docker/engine-gate.js";
import { RuntimeUnreachableError } from "../../server/sandbox/runtime.js";

interface Dialled {
  method: string;
  path: string;
  options?: Record<string, unknown>;
  answer(error: unknown, result?: unknown): void;
  aborted: boolean;
}

/** A modem whose calls wait for answer(); `autoAnswer` answers matching ones at once. */
function standInEngine() {
  const open: Dialled[] = [];
  const all: Dialled[] = [];
  let autoAnswer: ((call: Dialled) => unknown) | null = null;
  const modem = {
    dial(
      options: { method: string; path: string; options?: Record<string, unknown>; abortSignal?: AbortSignal },
      callback: (e: unknown, r?: unknown) => void,
    ) {
      let done = false;
      const call: Dialled = {
        method: options.method,
        path: options.path,
        ...(options.options ? { options: options.options } : {}),
        aborted: false,
        answer(error, result) {
          if (done) return;
          done = true;
          open.splice(open.indexOf(call), 1);
          callback(error, result);
        },
      };
      open.push(call);
      all.push(call);
      options.abortSignal?.addEventListener("abort", () => {
        call.aborted = true;
        call.answer(new Error("aborted"));
      });
      const auto = autoAnswer?.(call);
      if (auto !== undefined) setImmediate(() => call.answer(null, auto));
    },
  };
  return {
    docker: { modem } as unknown as Docker,
    open,
    all,
    answerWith(rule: ((call: Dialled) => unknown) | null) {
      autoAnswer = rule;
    },
  };
}

/** A dockerode-style call through the gated modem. */
function call(docker: Docker, method: string, path: string, options?: Record<string, unknown>): Promise<unknown> {
  const modem = docker.modem as unknown as { dial(o: unknown, cb: (e: unknown, r?: unknown) => void): void };
  return new Promise((resolve, reject) =>
    modem.dial({ method, path, ...(options ? { options } : {}), statusCodes: { 200: true } }, (error, result) =>
      error ? reject(error) : resolve(result),
    ),
  );
}

describe("the engine gate", () => {
  it("keeps at most maxCalls calls, and maxChanges creates or removals, at the engine; the others wait", async () => {
    const engine = standInEngine();
    const gate = gateEngine(engine.docker, { timeoutMs: 5000, maxCalls: 3, maxChanges: 1 });
    const creates = [1, 2, 3].map((n) => call(engine.docker, "POST", "/containers/create?", { name: `c${n}` }));
    const lookups = [1, 2, 3].map((n) => call(engine.docker, "GET", `/containers/c${n}/json?`));
    await sleep(10);
    assert.equal(engine.open.filter((dialled) => dialled.path.startsWith("/containers/create")).length, 1);
    assert.equal(engine.open.length, 3);
    assert.equal(gate.callsInFlight, 3);
    // Each answer lets the next waiting call through, a create only once no other create runs.
    while (engine.open.length > 0) {
      engine.open[0]!.answer(null, { Id: "x" });
      await sleep(5);
      assert.ok(engine.open.length <= 3);
      assert.ok(engine.open.filter((dialled) => dialled.path.startsWith("/containers/create")).length <= 1);
    }
    await Promise.all([...creates, ...lookups]);
    assert.equal(engine.all.length, 6);
  });

  it("aborts a call past its deadline, then refuses new calls without asking the engine until it answers again", async () => {
    const engine = standInEngine();
    const timeoutMs = 100;
    const gate = gateEngine(engine.docker, { timeoutMs, maxCalls: 4, maxChanges: 2 });
    // The engine answers the version and a list, never an inspect or a create: the deadlock's shape.
    engine.answerWith((dialled) => (dialled.path === "/version" ? { Version: "20.10", ApiVersion: "1.41" } : undefined));
    const known = call(engine.docker, "GET", "/containers/json?");
    await sleep(5);
    engine.open.find((dialled) => dialled.path === "/containers/json?")!.answer(null, []);
    await known;
    const listed = call(engine.docker, "POST", "/containers/create?", { name: "iemu-x-env_1" });
    await sleep(5);
    engine.open.at(-1)!.answer(null, { Id: "abc" });
    await listed;

    const started = Date.now();
    await assert.rejects(call(engine.docker, "POST", "/containers/create?", { name: "iemu-x-env_2" }), (error: Error) => {
      assert.ok(error instanceof RuntimeUnreachableError);
      assert.match(error.message, /Docker engine did not answer within 0.3 s while creating a container/);
      return true;
    });
    assert.ok(Date.now() - started >= 3 * timeoutMs - 10, "a create's deadline is three look-ups'");
    assert.ok(engine.all.at(-1)!.aborted, "the request at the engine was aborted");
    assert.ok(gate.notAnsweringSince !== null);

    const dialledBefore = engine.all.length;
    await assert.rejects(
      call(engine.docker, "GET", "/containers/abc/json?"),
      /Docker engine has not answered since .*looking up a container|Docker engine has not answered since/,
    );
    const health = await gate.health(50);
    assert.equal(health.ok, false);
    assert.equal(health.state, "not answering");
    assert.ok(Date.parse(health.since!) >= started - 5);
    // Only the probe asked the engine (version, then an inspect of the container it answered for).
    assert.ok(engine.all.slice(dialledBefore).every((dialled) => dialled.path === "/version" || dialled.path === "/containers/abc/json"));

    // The engine answers again: the next probe (every second) finds it, and the create without an answer is removed.
    engine.answerWith((dialled) =>
      dialled.path === "/version" ? { Version: "20.10", ApiVersion: "1.41" } : dialled.method === "DELETE" ? "" : {},
    );
    for (const dialled of [...engine.open]) dialled.answer(null, {});
    const deadline = Date.now() + 5000;
    while (gate.notAnsweringSince !== null && Date.now() < deadline) await sleep(50);
    assert.equal(gate.notAnsweringSince, null);
    await call(engine.docker, "GET", "/containers/abc/json?");
    await sleep(20);
    assert.ok(
      engine.all.some((dialled) => dialled.method === "DELETE" && dialled.path.startsWith("/containers/iemu-x-env_2")),
      "the container whose create got no answer is removed",
    );
    assert.equal((await gate.health(1000)).state, "answering");
  });
});

describe("the engine gate's answer to /health", () => {
  const VERSION = { Version: "20.10", ApiVersion: "1.41" };

  it("repeats the last probe's answer while a new probe is held, and reports the engine once that probe goes unanswered", {
    timeout: 10_000,
  }, async () => {
    const engine = standInEngine();
    const gate = gateEngine(engine.docker, { timeoutMs: 2000, maxCalls: 4, maxChanges: 2, healthRefreshMs: 20, healthMaxAgeMs: 60_000 });
    engine.answerWith((dialled) => (dialled.path === "/version" ? VERSION : undefined));
    const first = await gate.health(1000);
    assert.equal(first.state, "answering");
    assert.equal(first.checked_ms_ago, 0);

    // From now on the engine holds every call.
    engine.answerWith(null);
    await sleep(30);
    // The answer is old enough to ask again: /health starts a probe and answers at once, without waiting
    // for it (it would wait its whole 60 s for the held probe otherwise, past the test's timeout).
    const cached = await gate.health(60_000);
    assert.equal(cached.ok, true);
    assert.equal(cached.state, "answering");
    assert.ok(cached.checked_ms_ago! >= 20, `checked ${cached.checked_ms_ago} ms ago`);
    assert.equal(engine.open.filter((dialled) => dialled.path === "/version").length, 1, "a probe asks the engine, and is held");
    assert.equal((await gate.health(60_000)).state, "answering", "one probe at a time: a second /health joins it");
    assert.equal(engine.all.filter((dialled) => dialled.path === "/version").length, 2);

    // Once the held probe is older than /health's wait, the outage shows, though the last answer is recent.
    await sleep(60);
    const held = await gate.health(50);
    assert.equal(held.ok, false);
    assert.equal(held.state, "not answering");
    // And once its deadline marks the engine, at once whatever /health's wait.
    while (gate.notAnsweringSince === null) await sleep(50);
    const stuck = await gate.health(60_000);
    assert.equal(stuck.state, "not answering");
    assert.match(stuck.detail, /asking its version got no answer within 2 s/);

    // The engine answers again: the recheck finds it, and /health says so.
    engine.answerWith((dialled) => (dialled.path === "/version" ? VERSION : undefined));
    for (const dialled of [...engine.open]) dialled.answer(null, VERSION);
    while (gate.notAnsweringSince !== null) await sleep(50);
    assert.equal((await gate.health(1000)).state, "answering");
  });

  it("counts the engine's answer to a container look-up as a recent answer: a busy emulator's /health does not probe", async () => {
    const engine = standInEngine();
    const gate = gateEngine(engine.docker, { timeoutMs: 5000, maxCalls: 4, maxChanges: 2, healthRefreshMs: 60_000, healthMaxAgeMs: 50 });
    engine.answerWith((dialled) => (dialled.path === "/version" ? VERSION : {}));
    assert.equal((await gate.health(1000)).state, "answering");
    await sleep(80);
    await call(engine.docker, "GET", "/containers/abc/json?");
    const health = await gate.health(1000);
    assert.equal(health.state, "answering");
    assert.ok(health.checked_ms_ago! < 50, `checked ${health.checked_ms_ago} ms ago`);
    assert.equal(engine.all.filter((dialled) => dialled.path === "/version").length, 1, "no second probe");
  });

  it("asks again, with the bounded wait, once a call found no engine", { timeout: 10_000 }, async () => {
    const engine = standInEngine();
    const gate = gateEngine(engine.docker, {
      timeoutMs: 5000,
      maxCalls: 4,
      maxChanges: 2,
      healthRefreshMs: 60_000,
      healthMaxAgeMs: 60_000,
    });
    engine.answerWith((dialled) => (dialled.path === "/version" ? VERSION : undefined));
    assert.equal((await gate.health(1000)).state, "answering");
    assert.equal(typeof (await gate.health(1000)).checked_ms_ago, "number");
    assert.equal(engine.all.length, 1, "a recent answer is repeated without asking");

    // A call that reaches no engine (its socket refused): the next /health asks, and says what it found.
    engine.answerWith(null);
    const refused = call(engine.docker, "GET", "/containers/json?");
    await sleep(5);
    engine.open[0]!.answer(Object.assign(new Error("connect ECONNREFUSED /var/run/docker.sock"), { code: "ECONNREFUSED" }));
    await assert.rejects(refused, /ECONNREFUSED/);
    const asking = gate.health(1000);
    await sleep(5);
    assert.equal(engine.open.at(-1)?.path, "/version", "/health asked the engine again");
    engine.open.at(-1)!.answer(Object.assign(new Error("connect ECONNREFUSED /var/run/docker.sock"), { code: "ECONNREFUSED" }));
    const unreachable = await asking;
    assert.equal(unreachable.ok, false);
    assert.equal(unreachable.state, "unreachable");
    assert.match(unreachable.detail, /ECONNREFUSED/);
  });
});
