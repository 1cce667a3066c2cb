// The Go executor reads requests with the descriptors generated from the protocol's tables
// (sandbox-image/executor-go/protocol_gen.go); this holds it to the TypeScript checker: every malformed
// request below is refused with EBADREQ and with exactly the problem parseRequest names, and every
// well-formed one is accepted. A checker that drifted from the tables (a bound, a rule, a wording)
// fails here, as a stale generated file fails test/unit/protocol-go-generated.test.ts.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { describe, it } from "node:test";
import { executorBinaryPath } from "../../server/common/paths.js";
import { encodeFrame, FrameDecoder, MAX_FRAME_PART_BYTES, parseRequest, type Response } from "../../sandbox-image/executor/protocol.js";

const exec = { op: "exec", argv: ["true"], timeoutMs: 1000, maxOutputBytes: 10 };

/** Headers without their id; each is sent with a fresh one. */
const malformed: Record<string, unknown>[] = [
  { op: "teleport" },
  { op: "toString" },
  { op: "__proto__" },
  { ...exec, argv: [] },
  { ...exec, argv: ["", "x"] },
  { ...exec, argv: ["a\0b"] },
  { ...exec, timeoutMs: -1 },
  { ...exec, timeoutMs: 1.5 },
  { ...exec, maxOutputBytes: "10" },
  { ...exec, cwd: "" },
  { ...exec, env: { "A=B": "x" } },
  { ...exec, env: { A: 1 } },
  { ...exec, env: [] },
  { ...exec, runAs: "root" },
  { ...exec, readBefore: { paths: ["/a"], maxBytes: 10, since: [] } },
  { ...exec, readBefore: { paths: [], maxBytes: 10, since: [] } },
  { ...exec, readAfter: { paths: ["/a"], maxBytes: 4 * 1024 * 1024 + 1, since: [null] } },
  { ...exec, readAfter: { paths: ["/a"], maxBytes: 10, since: [3] } },
  { op: "readFile", path: "/etc/hostname" },
  { op: "readFile", path: "/a", maxBytes: MAX_FRAME_PART_BYTES + 1 },
  { op: "readFiles", paths: ["/a", "/b"], maxBytes: 10, since: [null] },
  { op: "readFiles", paths: Array.from({ length: 17 }, (_, index) => `/f${index}`), maxBytes: 10, since: [] },
  { op: "writeFile", path: "/a", mode: 0o10000 },
  { op: "walk", path: "/w", recursive: true, limit: 0 },
  { op: "walk", path: "/w", recursive: 1, limit: 3 },
  { op: "walk", path: "/w", recursive: true, limit: 3, after: "a\0" },
  { op: "usage", paths: ["/a", "b\0"] },
  { op: "usage", paths: "/a" },
  { op: "moveFile", from: "/a", overwrite: false },
  { op: "appendFile", path: "/a", offset: 3, create: true },
  { op: "readFileChunk", path: "/a", offset: 0, length: 8 * 1024 * 1024 + 1 },
  { op: "deleteFile", path: "/a", recursive: null },
  { op: "cancel", target: -1 },
  { op: "egressListen", host: "127.0.0.1", port: 70_000 },
  { op: "egressListen", host: "", port: 3128 },
  { op: "stat" },
];

const wellFormed: Record<string, unknown>[] = [
  { op: "ping", extra: true },
  { op: "cancel", target: 12_345 },
  { op: "stat", path: "/" },
  { op: "readFiles", paths: ["/etc/hostname"], maxBytes: 10, since: [null] },
  // A key named __proto__ is a plain entry (JSON.parse makes it an own property).
  { ...exec, env: JSON.parse('{"__proto__":"x"}'), runAs: "sandbox" },
];

function goExecutor() {
  const child = spawn(executorBinaryPath, [], { stdio: ["pipe", "pipe", "ignore"] });
  const decoder = new FrameDecoder<Response>();
  const answers = new Map<number, Response>();
  let wake: () => void = () => {};
  child.stdout.on("data", (chunk: Buffer) => {
    for (const frame of decoder.push(chunk)) {
      if (["result", "error", "exit"].includes(frame.header.type)) answers.set(frame.header.id, frame.header);
    }
    wake();
  });
  const answer = async (id: number): Promise<Response> => {
    while (!answers.has(id)) await new Promise<void>((resolve) => (wake = resolve));
    return answers.get(id)!;
  };
  return { child, answer, send: (header: object) => child.stdin.write(encodeFrame(header)) };
}

describe("the Go executor's request checks", () => {
  it("refuses each malformed request with EBADREQ and the TypeScript checker's problem", async () => {
    const executor = goExecutor();
    try {
      for (const [index, header] of malformed.entries()) {
        const sent = { ...header, id: index + 1 };
        const expected = parseRequest(JSON.parse(JSON.stringify(sent)));
        assert.ok(!expected.ok, `the TypeScript checker accepts ${JSON.stringify(sent)}`);
        executor.send(sent);
        const got = await executor.answer(index + 1);
        assert.deepEqual(got, { type: "error", id: index + 1, code: "EBADREQ", message: expected.message }, JSON.stringify(sent));
      }
    } finally {
      executor.child.kill("SIGKILL");
    }
  });

  it("accepts what the TypeScript checker accepts, extra fields and all", async () => {
    const executor = goExecutor();
    try {
      for (const [index, header] of wellFormed.entries()) {
        const sent = JSON.parse(JSON.stringify({ ...header, id: index + 1 }));
        assert.ok(parseRequest(sent).ok, JSON.stringify(sent));
        executor.send(sent);
        const got = await executor.answer(index + 1);
        assert.notEqual(got.type === "error" && got.code, "EBADREQ", JSON.stringify(got));
      }
    } finally {
      executor.child.kill("SIGKILL");
    }
  });
});
