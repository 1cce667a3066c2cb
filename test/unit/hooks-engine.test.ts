// What only an in-memory host can show quickly: the host's own failures propagate, cancellation,
// the exact requests the engine makes, and the trace's shape. The behaviour table itself runs in
// test/support/hooks-conformance.ts against real processes.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runPostToolHooks, runPreToolHooks } from "../../server/hooks/engine.js";
import { SandboxUnavailableError } from "../../server/sandbox/runtime.js";
import { exited, ROOT_HOOKS as ROOT, ScriptedHost, WORKSPACE_HOOKS as WORKSPACE } from "../support/scripted-hook-host.js";
import { bash, read } from "../support/tool-calls.js";

const gate = (...hooks: unknown[]) => ({
  g: { pre_tool_execution: [{ matcher: "*", hooks }], post_tool_execution: [{ matcher: "*", hooks }] },
});

describe("hooks engine: failures of the host itself", () => {
  it("propagates a sandbox that is gone while a pre hook runs, as-is", async () => {
    const host = new ScriptedHost().withHooks(ROOT, gate({ type: "command", command: "gate" }));
    const gone = new SandboxUnavailableError("sandbox executor unavailable: the executor closed its output");
    host.onCommand = async () => {
      throw gone;
    };
    await assert.rejects(runPreToolHooks(host, bash("ls"), "env_1"), (error) => error === gone);
    await assert.rejects(runPostToolHooks(host, bash("ls"), "env_1", undefined), (error) => error === gone);
  });

  it("propagates a failure to read the config (the sandbox is gone)", async () => {
    const host = new ScriptedHost();
    const gone = new SandboxUnavailableError("gone");
    host.readConfig = async () => {
      throw gone;
    };
    await assert.rejects(runPreToolHooks(host, bash("ls"), "env_1"), (error) => error === gone);
  });

  it("propagates an HTTP hook whose sandbox is gone", async () => {
    const host = new ScriptedHost().withHooks(ROOT, gate({ type: "http", url: "https://hooks.example.com/" }));
    const gone = new SandboxUnavailableError("gone");
    host.onPost = async () => {
      throw gone;
    };
    await assert.rejects(runPreToolHooks(host, bash("ls"), "env_1"), (error) => error === gone);
  });

  it("stops between handlers when the call is cancelled", async () => {
    const host = new ScriptedHost().withHooks(ROOT, gate({ type: "command", command: "first" }, { type: "command", command: "second" }));
    const controller = new AbortController();
    host.onCommand = async (request) => {
      assert.equal(request.signal, controller.signal, "the signal reaches the host");
      controller.abort(new Error("interaction cancelled"));
      return exited();
    };
    await assert.rejects(runPreToolHooks(host, bash("ls"), "env_1", { signal: controller.signal }), /interaction cancelled/);
    assert.deepEqual(
      host.commands.map((request) => request.command),
      ["first"],
    );
  });
});

describe("hooks engine: what it asks the host to do", () => {
  it("runs a command hook with the payload on stdin, its timeout in ms, and the output cap", async () => {
    const host = new ScriptedHost().withHooks(
      ROOT,
      gate({ type: "command", command: "python3 gate.py", timeout: 10 }, { type: "command", command: "lint" }),
    );
    await runPreToolHooks(host, read("/workspace/a.txt"), "env_abc", { maxOutputBytes: 4096 });
    assert.deepEqual(
      host.commands.map((request) => [request.command, request.stdin.toString(), request.timeoutMs, request.maxOutputBytes]),
      [
        [
          "python3 gate.py",
          '{"tool_call":{"name":"read_file","args":{"path":"/workspace/a.txt"}},"environment_id":"env_abc"}',
          10_000,
          4096,
        ],
        ["lint", '{"tool_call":{"name":"read_file","args":{"path":"/workspace/a.txt"}},"environment_id":"env_abc"}', 30_000, 4096],
      ],
    );
  });

  it("POSTs an http hook's payload with its headers, timeout and the default 1 MiB cap", async () => {
    const host = new ScriptedHost().withHooks(ROOT, {
      audit: {
        post_tool_execution: [
          {
            matcher: "*",
            hooks: [{ type: "http", url: "https://t.example.com/e", headers: { "X-Event-Source": "agent-sandbox" }, timeout: 2.5 }],
          },
        ],
      },
    });
    await runPostToolHooks(host, bash("false"), "env_abc", "exit status 1");
    assert.equal(host.posts.length, 1);
    const [request] = host.posts;
    assert.equal(request?.url, "https://t.example.com/e");
    assert.deepEqual(request?.headers, { "X-Event-Source": "agent-sandbox" });
    assert.equal(request?.timeoutMs, 2500);
    assert.equal(request?.maxBodyBytes, 1024 * 1024);
    assert.equal(
      request?.body.toString(),
      '{"tool_call":{"name":"code_execution","args":{"code":"false","language":"bash"}},"environment_id":"env_abc","error":"exit status 1"}',
    );
  });

  it("asks for the handlers of a read-only file, and only those, to run out of sandbox code's reach", async () => {
    const host = new ScriptedHost()
      .withHooks(ROOT, gate({ type: "command", command: "writable-gate" }, { type: "http", url: "https://w.example.com/" }))
      .withHooks(WORKSPACE, gate({ type: "command", command: "read-only-gate" }, { type: "http", url: "https://r.example.com/" }), {
        readOnly: true,
      });
    const result = await runPreToolHooks(host, bash("ls"), "env_1");
    assert.deepEqual(
      host.commands.map((request) => [request.command, request.fromReadOnlyConfig]),
      [
        ["writable-gate", false],
        ["read-only-gate", true],
      ],
    );
    assert.deepEqual(
      host.posts.map((request) => [request.url, request.fromReadOnlyConfig]),
      [
        ["https://w.example.com/", false],
        ["https://r.example.com/", true],
      ],
    );
    assert.deepEqual(
      result.trace.files.map((file) => [file.path, file.read_only]),
      [
        [ROOT, false],
        [WORKSPACE, true],
      ],
    );
  });

  it("reads the two documented paths, in order, before every call", async () => {
    const host = new ScriptedHost();
    const asked: string[] = [];
    host.readConfig = async (path) => {
      asked.push(path);
      return { status: "missing" };
    };
    await runPreToolHooks(host, bash("ls"), "env_1");
    await runPostToolHooks(host, bash("ls"), "env_1", undefined);
    assert.deepEqual(asked, [ROOT, WORKSPACE, ROOT, WORKSPACE]);
  });
});

describe("hooks engine: the trace", () => {
  it("records an unreadable file with a diagnostic and still runs the other file", async () => {
    const host = new ScriptedHost().withHooks(WORKSPACE, gate({ type: "command", command: "gate" }));
    host.configs.set(ROOT, { status: "unreadable", realPath: ROOT, error: "readFile /.agents/hooks.json: permission denied" });
    const result = await runPreToolHooks(host, bash("ls"), "env_1");
    assert.deepEqual(
      result.trace.files.map((file) => [file.status, file.detail]),
      [
        ["unreadable", "readFile /.agents/hooks.json: permission denied"],
        ["loaded", null],
      ],
    );
    assert.equal(result.trace.diagnostics[0]?.code, "file_unreadable");
    assert.equal(host.commands.length, 1);
  });

  it("says when rules matched but none of their handlers was valid", async () => {
    const host = new ScriptedHost().withHooks(ROOT, {
      g: { pre_tool_execution: [{ matcher: "*", hooks: [{ type: "prompt", prompt: "safe?" }] }] },
    });
    const result = await runPreToolHooks(host, bash("ls"), "env_1");
    assert.match(result.trace.summary, /1 rule matched "code_execution" but had no valid handlers/);
    assert.match(result.trace.summary, /1 error in the configuration/);
  });

  it("says when a file exists but is not JSON", async () => {
    const host = new ScriptedHost();
    host.configs.set(ROOT, { status: "found", realPath: ROOT, text: "{nope", bytes: 5, readOnly: false });
    const result = await runPreToolHooks(host, bash("ls"), "env_1");
    assert.match(result.trace.summary, /no usable hooks\.json: \/\.agents\/hooks\.json is invalid json/);
  });

  it("is plain JSON with snake_case keys, and names who denied", async () => {
    const host = new ScriptedHost().withHooks(ROOT, gate({ type: "command", command: "gate" }));
    host.onCommand = async () => exited('{"decision":"deny","reason":"no"}');
    const result = await runPreToolHooks(host, bash("ls"), "env_1");
    assert.deepEqual(JSON.parse(JSON.stringify(result.trace)), result.trace);
    const keys = (value: unknown): string[] =>
      typeof value !== "object" || value === null
        ? []
        : Object.entries(value).flatMap(([key, inner]) => (Array.isArray(value) ? keys(inner) : [key, ...keys(inner)]));
    assert.deepEqual(
      keys(result.trace).filter((key) => !/^[a-z0-9_]+$/.test(key)),
      [],
    );
    assert.deepEqual(
      { decision: result.decision, trace: [result.trace.decision, result.trace.denied_by, result.trace.deny_reason] },
      { decision: "deny", trace: ["deny", { file: ROOT, group: "g", rule_index: 0, handler_index: 0 }, "no"] },
    );
  });
});
