// The protocol's tables as the two checkers read them: the executor's request parsing and the
// server's response check. What they accept, what they keep, and how they name a problem.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  checkResponse,
  MAX_FRAME_PART_BYTES,
  parseRequest,
  responseCarriesBody,
  type ExecRequest,
  type Response,
} from "../../sandbox-image/executor/protocol.js";

function problemOf(header: unknown): string {
  const parsed = parseRequest(header);
  assert.ok(!parsed.ok, `accepted ${JSON.stringify(header)}`);
  return parsed.message;
}

describe("parseRequest", () => {
  it("returns exactly the declared fields, leaving absent optional ones absent", () => {
    const parsed = parseRequest({ op: "exec", id: 3, argv: ["ls", ""], timeoutMs: 10, maxOutputBytes: 5, extra: true });
    const expected: ExecRequest = { op: "exec", id: 3, argv: ["ls", ""], timeoutMs: 10, maxOutputBytes: 5 };
    assert.deepEqual(parsed, { ok: true, request: expected });
  });

  it("names the op and the field of a problem, with the id to answer it to", () => {
    assert.deepEqual(parseRequest({ op: "walk", id: 4, path: "/w", recursive: true, limit: 0 }), {
      ok: false,
      id: 4,
      message: "walk: limit must be an integer between 1 and 10000",
    });
    assert.equal(
      problemOf({ op: "readFile", id: 1, path: "/a", maxBytes: MAX_FRAME_PART_BYTES + 1 }),
      `readFile: maxBytes must be an integer between 0 and ${MAX_FRAME_PART_BYTES}`,
    );
    assert.equal(problemOf({ op: "usage", id: 1, paths: ["/a", "b\0"] }), "usage: paths[1] must be a non-empty string without NUL bytes");
    assert.equal(
      problemOf({ op: "moveFile", id: 1, from: "/a", overwrite: false }),
      "moveFile: to must be a non-empty string without NUL bytes",
    );
    assert.equal(problemOf({ op: "teleport", id: 1 }), 'unknown op "teleport"');
  });

  it("applies the rules that span fields", () => {
    assert.equal(problemOf({ op: "appendFile", id: 1, path: "/a", offset: 3, create: true }), "appendFile: create needs offset 0");
    assert.equal(
      problemOf({ op: "exec", id: 1, argv: ["", "x"], timeoutMs: 1, maxOutputBytes: 1 }),
      "exec: argv[0] must be a program name, not empty",
    );
  });

  it("checks environment names and values, and keeps a variable named __proto__ as a plain entry", () => {
    const exec = { op: "exec", id: 1, argv: ["env"], timeoutMs: 1, maxOutputBytes: 1 };
    assert.equal(problemOf({ ...exec, env: { "A=B": "x" } }), 'exec: env key "A=B" must be a non-empty string without "=" or NUL bytes');
    assert.equal(problemOf({ ...exec, env: { A: 1 } }), 'exec: env["A"] must be a string without NUL bytes');
    const parsed = parseRequest(JSON.parse('{"op":"exec","id":1,"argv":["env"],"timeoutMs":1,"maxOutputBytes":1,"env":{"__proto__":"x"}}'));
    assert.ok(parsed.ok && parsed.request.op === "exec");
    assert.equal(Object.getPrototypeOf(parsed.request.env), Object.prototype);
    assert.deepEqual(Object.entries(parsed.request.env ?? {}), [["__proto__", "x"]]);
  });

  it("wants one since entry per path of a readFiles", () => {
    assert.equal(
      problemOf({ op: "readFiles", id: 1, paths: ["/a", "/b"], maxBytes: 10, since: [null] }),
      "readFiles: since must hold one entry per path",
    );
    assert.ok(parseRequest({ op: "readFiles", id: 1, paths: ["/a", "/b"], maxBytes: 10, since: [null, "t"] }).ok);
  });

  it("reports frames it cannot answer without an id", () => {
    assert.deepEqual(parseRequest([]), { ok: false, id: null, message: "frame header is not a JSON object" });
    assert.deepEqual(parseRequest({ op: "ping", id: -1 }), { ok: false, id: null, message: "frame header has no valid id" });
  });

  it("ignores what an object inherits", () => {
    // `toString` is on every object's prototype; it must not pass for a member of the op table.
    assert.equal(problemOf({ op: "toString", id: 1 }), 'unknown op "toString"');
  });
});

describe("checkResponse", () => {
  it("accepts what the executor sends, keeping only the declared fields", () => {
    const exit = {
      type: "exit",
      id: 2,
      exitCode: null,
      signal: "SIGTERM",
      timedOut: true,
      cancelled: false,
      overDiskLimit: false,
      stdoutBytes: 1,
      stderrBytes: 0,
      durationMs: 9,
    };
    assert.deepEqual(checkResponse({ ...exit, note: "extra" }), { ok: true, value: exit });
    const stat = { type: "result", id: 3, result: { op: "stat", info: null, realPath: "/a" } };
    assert.deepEqual(checkResponse(stat), { ok: true, value: stat });
  });

  it("names the message and field of a problem", () => {
    const result = checkResponse({
      type: "result",
      id: 3,
      result: { op: "walk", entries: [{ path: "a", type: "file", size: 1, mtimeMs: 1 }], more: false },
    });
    assert.deepEqual(result, { ok: false, problem: "walk result: entries[0].birthtimeMs must be a number" });
  });

  it("checks each readFiles entry by its status", () => {
    const entry = {
      status: "found",
      token: "t",
      unchanged: true,
      size: 3,
      truncated: false,
      realPath: "/a",
      readOnlyMount: false,
      bytes: 3,
    };
    assert.deepEqual(checkResponse({ type: "result", id: 1, result: { op: "readFiles", files: [entry] } }), {
      ok: false,
      problem: "readFiles found entry: bytes must be 0 when unchanged or truncated",
    });
    const failed = { status: "failed", token: "t", code: "ENOENT", message: "readFile /a: no such file or directory" };
    const answer = { type: "result", id: 1, result: { op: "readFiles", files: [{ ...entry, bytes: 0 }, failed] } };
    assert.deepEqual(checkResponse(answer), { ok: true, value: answer });
  });

  it("lets only output and the results of reads carry a body", () => {
    const carries = (message: Response): boolean => responseCarriesBody(message);
    assert.equal(carries({ type: "stdout", id: 1 }), true);
    assert.equal(carries({ type: "result", id: 1, result: { op: "readFileChunk", size: 1, bytesRead: 1 } }), true);
    assert.equal(carries({ type: "result", id: 1, result: { op: "readFiles", files: [] } }), true);
    assert.equal(carries({ type: "result", id: 1, result: { op: "writeFile", size: 1 } }), false);
    assert.equal(carries({ type: "error", id: 1, code: "EIO", message: "x" }), false);
  });
});
