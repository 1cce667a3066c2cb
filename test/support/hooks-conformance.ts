// The hooks engine's behaviour table, run against any HookHost: a fake (config in memory, commands on
// this machine) and a real Docker sandbox. Commands stick to bash, coreutils and python3, and files
// to scratchDir, so every row means the same on both. Handlers prove what ran, and in which order, by
// appending to files the test reads back.

import assert from "node:assert/strict";
import { posix } from "node:path";
import { after, afterEach, before, beforeEach, describe, it } from "node:test";
import type { ToolCall } from "../../server/tools/tool-call.js";
import { runPostToolHooks, runPreToolHooks, type HookRunOptions, type PreToolHookResult } from "../../server/hooks/engine.js";
import type { HookHost } from "../../server/hooks/hook-host.js";
import type { HookHandlerTrace, HookTrace } from "../../server/hooks/trace.js";
import { SandboxFileError, type SandboxChannel } from "../../server/sandbox/runtime.js";
import { startHookHttpServer, type HookHttpServer } from "./hook-http-server.js";
import { bash, list, read, remove, write } from "./tool-calls.js";
import { PRINT_LIVE_PIDS } from "./process-probes.js";

export interface HooksUnderTest {
  host: HookHost;
  /** The channel the host runs commands through (the tests use it to read and write their files). */
  channel: SandboxChannel;
  /** An existing, writable folder on the side where commands run. */
  scratchDir: string;
  /** Writes the hooks config at `path` (one of the two discovery paths), creating folders as needed. */
  writeConfig(path: string, text: string): Promise<void>;
  /** Removes it; nothing happens if it is not there. */
  removeConfig(path: string): Promise<void>;
  /** Makes `linkPath` name the same file as `targetPath` (a symlink). */
  linkConfig(linkPath: string, targetPath: string): Promise<void>;
  teardown(): Promise<void>;
}

const ROOT_CONFIG = "/.agents/hooks.json";
const WORKSPACE_CONFIG = "/workspace/.agents/hooks.json";
const ENVIRONMENT_ID = "env_hooksconformance";
const MiB = 1024 * 1024;

type Handler = Record<string, unknown>;
type Rule = { matcher?: string; hooks: Handler[] };
type Group = { enabled?: boolean; pre_tool_execution?: Rule[]; post_tool_execution?: Rule[] };

const shellQuote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;
const command = (line: string, timeout?: number): Handler =>
  timeout === undefined ? { type: "command", command: line } : { type: "command", command: line, timeout };
const printJson = (value: unknown): string => `printf '%s\\n' ${shellQuote(JSON.stringify(value))}`;
const DENY = { decision: "deny", reason: "blocked by the conformance gate" };

export function hooksConformanceSuite(name: string, setup: () => Promise<HooksUnderTest>): void {
  describe(`hooks engine conformance: ${name}`, { timeout: 600_000 }, () => {
    let subject: HooksUnderTest | undefined;
    let server: HookHttpServer | undefined;
    let folderCount = 0;
    /** This test's own folder under scratchDir. */
    let folder = "";

    const the = (): HooksUnderTest => {
      assert.ok(subject, "setup did not complete");
      return subject;
    };
    const http = (): HookHttpServer => {
      assert.ok(server, "the HTTP server did not start");
      return server;
    };

    before(async () => {
      subject = await setup();
      const serverFolder = posix.join(subject.scratchDir, "http-server");
      await subject.channel.run({ argv: ["mkdir", "-p", serverFolder], timeoutMs: 10_000, maxOutputBytes: 4096 });
      server = await startHookHttpServer(subject.channel, serverFolder);
    });
    after(async () => {
      await server?.stop();
      await subject?.teardown();
    });
    beforeEach(async (context) => {
      await the().removeConfig(ROOT_CONFIG);
      await the().removeConfig(WORKSPACE_CONFIG);
      folder = posix.join(the().scratchDir, `${++folderCount}-${context.name.replace(/[^a-z0-9]+/gi, "-").slice(0, 40)}`);
      await run(["mkdir", "-p", folder]);
    });
    afterEach(async () => {
      await the().removeConfig(ROOT_CONFIG);
      await the().removeConfig(WORKSPACE_CONFIG);
    });

    const run = (argv: string[]) => the().channel.run({ argv, timeoutMs: 15_000, maxOutputBytes: MiB });
    const writeHooks = (path: string, groups: Record<string, Group>): Promise<void> =>
      the().writeConfig(path, JSON.stringify(groups, null, 2));
    const writeHooksInOrder = (path: string, groups: Array<[string, Group]>): Promise<void> =>
      the().writeConfig(path, `{${groups.map(([name, group]) => `${JSON.stringify(name)}: ${JSON.stringify(group)}`).join(",\n")}}`);
    const pre = (call: ToolCall, options?: HookRunOptions): Promise<PreToolHookResult> =>
      runPreToolHooks(the().host, call, ENVIRONMENT_ID, options);
    const post = (call: ToolCall, error?: string, options?: HookRunOptions): Promise<HookTrace> =>
      runPostToolHooks(the().host, call, ENVIRONMENT_ID, error, options);

    /** A path in this test's folder. */
    const at = (name: string): string => posix.join(folder, name);
    /** A handler that appends `label` to this test's order log. */
    const append = (label: string): Handler => command(`echo ${label} >> ${shellQuote(at("order.log"))}`);
    const readText = async (path: string): Promise<string | null> => {
      try {
        return (await the().channel.readFile(path, 64 * MiB)).content.toString("utf8");
      } catch (error) {
        if (error instanceof SandboxFileError && error.code === "ENOENT") return null;
        throw error;
      }
    };
    const order = async (): Promise<string[]> => ((await readText(at("order.log"))) ?? "").split("\n").filter((line) => line !== "");

    describe("discovery", () => {
      it("allows when there is no hooks.json, and the trace says where it looked", async () => {
        const result = await pre(bash("echo hi"));
        assert.equal(result.decision, "allow");
        assert.deepEqual(
          result.trace.files.map((file) => [file.path, file.status]),
          [
            [ROOT_CONFIG, "missing"],
            [WORKSPACE_CONFIG, "missing"],
          ],
        );
        assert.deepEqual(result.trace.handlers, []);
        assert.match(result.trace.summary, /no hooks\.json at \/\.agents\/hooks\.json or \/workspace\/\.agents\/hooks\.json/);
      });

      for (const path of [ROOT_CONFIG, WORKSPACE_CONFIG]) {
        it(`runs the hooks in ${path}`, async () => {
          await writeHooks(path, { gate: { pre_tool_execution: [{ matcher: "code_execution", hooks: [command(printJson(DENY))] }] } });
          const result = await pre(bash("rm -rf /tmp/forbidden"));
          assert.deepEqual(
            { decision: result.decision, group: result.decision === "deny" ? result.group : null },
            { decision: "deny", group: "gate" },
          );
          const file = result.trace.files.find((entry) => entry.path === path);
          assert.equal(file?.status, "loaded");
          assert.equal(file?.groups, 1);
          assert.ok(file?.real_path?.endsWith("hooks.json"), file?.real_path ?? "no real path");
        });
      }

      it("runs the /.agents file's hooks before the /workspace/.agents file's", async () => {
        await writeHooks(WORKSPACE_CONFIG, { second: { pre_tool_execution: [{ matcher: "*", hooks: [append("workspace")] }] } });
        await writeHooks(ROOT_CONFIG, { first: { pre_tool_execution: [{ matcher: "*", hooks: [append("root")] }] } });
        await pre(read("/workspace/a.txt"));
        assert.deepEqual(await order(), ["root", "workspace"]);
      });

      it("reads a file that both paths name only once", async () => {
        await writeHooks(ROOT_CONFIG, { once: { pre_tool_execution: [{ matcher: "*", hooks: [append("ran")] }] } });
        await the().linkConfig(WORKSPACE_CONFIG, ROOT_CONFIG);
        const result = await pre(list("/workspace"));
        assert.deepEqual(await order(), ["ran"]);
        assert.deepEqual(
          result.trace.files.map((file) => file.status),
          ["loaded", "duplicate"],
        );
        assert.equal(result.trace.files[1]?.real_path, result.trace.files[0]?.real_path);
      });

      it("ignores a file that is not JSON, with a diagnostic, and still runs the other", async () => {
        await the().writeConfig(ROOT_CONFIG, '{"broken": {"pre_tool_execution": [');
        await writeHooks(WORKSPACE_CONFIG, { ok: { pre_tool_execution: [{ matcher: "*", hooks: [append("ok")] }] } });
        const result = await pre(bash("true"));
        assert.equal(result.decision, "allow");
        assert.deepEqual(await order(), ["ok"]);
        assert.equal(result.trace.files[0]?.status, "invalid_json");
        assert.ok(
          result.trace.diagnostics.some((diagnostic) => diagnostic.code === "invalid_json" && diagnostic.location?.file === ROOT_CONFIG),
        );
      });

      it("skips a broken handler, with a diagnostic, and runs its valid neighbours", async () => {
        await writeHooks(ROOT_CONFIG, {
          g: {
            pre_tool_execution: [
              { matcher: "*", hooks: [append("first"), { type: "command", command: 42 }, { type: "prompt" }, append("last")] },
            ],
          },
        });
        const result = await pre(write("/workspace/x", "x"));
        assert.deepEqual(await order(), ["first", "last"]);
        assert.deepEqual(
          result.trace.handlers.map((handler) => handler.handler_index),
          [0, 3],
        );
        assert.deepEqual(
          result.trace.diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.location?.handler_index]),
          [
            ["handler_invalid", 1],
            ["handler_type_unknown", 2],
          ],
        );
      });

      it("reads the config afresh before every call: a rewrite changes what runs next", async () => {
        await writeHooks(ROOT_CONFIG, { gate: { pre_tool_execution: [{ matcher: "*", hooks: [command(printJson(DENY))] }] } });
        assert.equal((await pre(bash("echo 1"))).decision, "deny");
        await writeHooks(ROOT_CONFIG, { gate: { pre_tool_execution: [{ matcher: "read_file", hooks: [command(printJson(DENY))] }] } });
        assert.equal((await pre(bash("echo 2"))).decision, "allow");
        assert.equal((await pre(read("/workspace/a"))).decision, "deny");
        await the().removeConfig(ROOT_CONFIG);
        assert.equal((await pre(read("/workspace/a"))).decision, "allow");
      });
    });

    describe("matching", () => {
      const table: Array<{ matcher: string; call: ToolCall; fires: boolean }> = [
        { matcher: "code_execution", call: bash("ls"), fires: true },
        { matcher: "code_execution", call: read("/workspace/a"), fires: false },
        { matcher: "code_exec", call: bash("ls"), fires: false },
        { matcher: "read_file|write_file", call: write("/workspace/a", "x"), fires: true },
        { matcher: "read_file|write_file", call: list("/workspace"), fires: false },
        { matcher: ".*_file", call: remove("/workspace/a"), fires: true },
        { matcher: ".*_file", call: bash("ls"), fires: false },
        { matcher: "*", call: list("/workspace"), fires: true },
        { matcher: "", call: bash("ls"), fires: true },
        { matcher: ".*", call: read("/workspace/a"), fires: true },
        { matcher: "*_file", call: read("/workspace/a"), fires: false },
      ];
      for (const { matcher, call, fires } of table) {
        it(`${JSON.stringify(matcher)} ${fires ? "fires" : "does not fire"} for ${call.name}`, async () => {
          await writeHooks(ROOT_CONFIG, { g: { pre_tool_execution: [{ matcher, hooks: [append("fired")] }] } });
          const result = await pre(call);
          assert.deepEqual(await order(), fires ? ["fired"] : []);
          assert.equal(result.trace.rules[0]?.match, fires ? "matched" : matcher === "*_file" ? "invalid_matcher" : "not_matched");
          assert.equal(result.trace.rules[0]?.matcher, matcher);
          if (!fires) assert.match(result.trace.summary, /no pre_tool_execution rule matched/);
        });
      }

      it("explains a matcher that can never fire with a diagnostic that suggests the fix", async () => {
        await writeHooks(ROOT_CONFIG, {
          g: {
            pre_tool_execution: [
              { matcher: "*_file", hooks: [append("x")] },
              { matcher: "Bash", hooks: [append("x")] },
              { matcher: "code_exec", hooks: [append("x")] },
            ],
          },
        });
        const result = await pre(bash("ls"));
        assert.deepEqual(
          result.trace.diagnostics.map((diagnostic) => [diagnostic.code, diagnostic.location?.rule_index]),
          [
            ["matcher_invalid_regex", 0],
            ["matcher_matches_no_tool", 1],
            ["matcher_matches_no_tool", 2],
          ],
        );
        assert.match(result.trace.diagnostics[0]?.message ?? "", /"\.\*_file"/);
        assert.match(result.trace.diagnostics[1]?.message ?? "", /"code_execution"/);
        assert.match(result.trace.diagnostics[2]?.message ?? "", /"code_exec\.\*"/);
      });

      it("does not run a group with enabled: false, and the trace says so", async () => {
        await writeHooks(ROOT_CONFIG, {
          off: { enabled: false, pre_tool_execution: [{ matcher: "*", hooks: [append("off"), command(printJson(DENY))] }] },
          on: { enabled: true, pre_tool_execution: [{ matcher: "*", hooks: [append("on")] }] },
        });
        const result = await pre(bash("ls"));
        assert.equal(result.decision, "allow");
        assert.deepEqual(await order(), ["on"]);
        assert.deepEqual(
          result.trace.rules.map((rule) => [rule.group, rule.group_enabled, rule.match]),
          [
            ["off", false, "group_disabled"],
            ["on", true, "matched"],
          ],
        );
      });
    });

    describe("order", () => {
      it("runs files, groups, rules and handlers in declaration order, one at a time", async () => {
        // Each handler checks that no other handler is running (a lock file) before appending.
        const exclusive = (label: string): Handler =>
          command(
            `lock=${shellQuote(at("lock"))}; if [ -e "$lock" ]; then echo overlap-${label} >> ${shellQuote(at("order.log"))}; fi; ` +
              `touch "$lock"; sleep 0.05; echo ${label} >> ${shellQuote(at("order.log"))}; rm -f "$lock"`,
          );
        // Written as text: a JavaScript object would put the integer-like group name "10" first.
        await writeHooksInOrder(ROOT_CONFIG, [
          [
            "z-group",
            {
              pre_tool_execution: [
                { matcher: "write_file", hooks: [exclusive("z.r0.h0"), exclusive("z.r0.h1")] },
                { matcher: "read_file", hooks: [exclusive("never")] },
                { matcher: ".*", hooks: [exclusive("z.r2.h0")] },
              ],
              post_tool_execution: [{ matcher: "*", hooks: [exclusive("never-post")] }],
            },
          ],
          ["10", { pre_tool_execution: [{ matcher: "write_file|read_file", hooks: [exclusive("10.r0.h0")] }] }],
          ["a-group", { pre_tool_execution: [{ matcher: "*", hooks: [exclusive("a.r0.h0"), exclusive("a.r0.h1")] }] }],
        ]);
        await writeHooks(WORKSPACE_CONFIG, { first: { pre_tool_execution: [{ matcher: "*", hooks: [exclusive("workspace.h0")] }] } });
        const result = await pre(write("/workspace/out.txt", "data"));
        const expected = ["z.r0.h0", "z.r0.h1", "z.r2.h0", "10.r0.h0", "a.r0.h0", "a.r0.h1", "workspace.h0"];
        assert.deepEqual(await order(), expected);
        assert.deepEqual(
          result.trace.handlers.map(
            (handler) => `${handler.file === ROOT_CONFIG ? "root" : "ws"}:${handler.group}:${handler.rule_index}:${handler.handler_index}`,
          ),
          [
            "root:z-group:0:0",
            "root:z-group:0:1",
            "root:z-group:2:0",
            "root:10:0:0",
            "root:a-group:0:0",
            "root:a-group:0:1",
            "ws:first:0:0",
          ],
        );
        assert.deepEqual(
          result.trace.rules.map((rule) => [rule.group, rule.rule_index, rule.match]),
          [
            ["z-group", 0, "matched"],
            ["z-group", 1, "not_matched"],
            ["z-group", 2, "matched"],
            ["10", 0, "matched"],
            ["a-group", 0, "matched"],
            ["first", 0, "matched"],
          ],
        );
      });

      it("stops at the first deny: later handlers, rules and groups do not run", async () => {
        await writeHooks(ROOT_CONFIG, {
          gate: {
            pre_tool_execution: [
              {
                matcher: "*",
                hooks: [
                  append("before"),
                  command(`echo denier >> ${shellQuote(at("order.log"))}; ${printJson(DENY)}`),
                  append("after-in-rule"),
                ],
              },
              { matcher: "*", hooks: [append("later-rule")] },
            ],
          },
          later: { pre_tool_execution: [{ matcher: "*", hooks: [append("later-group")] }] },
        });
        await writeHooks(WORKSPACE_CONFIG, { other: { pre_tool_execution: [{ matcher: "*", hooks: [append("later-file")] }] } });
        const result = await pre(bash("rm -rf /"));
        assert.equal(result.decision, "deny");
        assert.equal(result.decision === "deny" ? result.reason : null, DENY.reason);
        assert.deepEqual(await order(), ["before", "denier"]);
        assert.deepEqual(
          result.trace.handlers.map((handler) => handler.decision),
          ["allow", "deny", "not_run", "not_run", "not_run", "not_run"],
        );
        assert.deepEqual(result.trace.denied_by, { file: ROOT_CONFIG, group: "gate", rule_index: 0, handler_index: 1 });
        assert.equal(result.trace.deny_reason, DENY.reason);
        assert.match(result.trace.summary, /denied "code_execution" by group "gate".*4 later handlers not run/);
      });

      it('gives "no reason given" when a deny has no reason', async () => {
        await writeHooks(ROOT_CONFIG, {
          terse: { pre_tool_execution: [{ matcher: "*", hooks: [command(`echo '{"decision":"deny"}'`)] }] },
        });
        const result = await pre(bash("ls"));
        assert.deepEqual(result.decision === "deny" ? [result.group, result.reason] : null, ["terse", "no reason given"]);
      });
    });

    describe("fail-open: everything but a clean deny allows, and the trace says why", () => {
      const table: Array<{
        name: string;
        handler: () => Handler;
        failOpen: string;
        check?: (handler: HookHandlerTrace, trace: HookTrace) => void;
        diagnostic?: string;
      }> = [
        {
          name: "a non-zero exit with a deny printed",
          handler: () => command(`${printJson(DENY)}; exit 1`),
          failOpen: "nonzero_exit",
          check: (handler) => assert.equal(handler.exit_code, 1),
          diagnostic: "deny_ignored_after_failure",
        },
        {
          name: "exit status 2 (Claude Code's deny) with a deny printed",
          handler: () => command(`${printJson(DENY)}; echo 'blocked' >&2; exit 2`),
          failOpen: "nonzero_exit",
          check: (handler) => {
            assert.equal(handler.exit_code, 2);
            assert.equal(handler.stderr_excerpt, "blocked\n");
          },
          diagnostic: "exit_status_2",
        },
        {
          name: "a crash by a signal",
          handler: () => command(`${printJson(DENY)}; kill -SEGV $$`),
          failOpen: "signal",
          check: (handler) => {
            assert.equal(handler.signal, "SIGSEGV");
            assert.equal(handler.crashed, true);
            assert.equal(handler.timed_out, false);
          },
        },
        { name: "empty output", handler: () => command("true"), failOpen: "empty_output" },
        { name: "plain text", handler: () => command("echo 'deny: this looks dangerous'"), failOpen: "plain_text" },
        { name: "invalid JSON", handler: () => command(`echo '{"decision": "deny", "reason": '`), failOpen: "invalid_json" },
        { name: "JSON that is not an object", handler: () => command(`echo '["deny"]'`), failOpen: "not_an_object" },
        { name: "an object without a decision", handler: () => command(`echo '{"reason": "no"}'`), failOpen: "no_decision" },
        {
          name: '"decision": "block"',
          handler: () => command(printJson({ decision: "block", reason: "x" })),
          failOpen: "unrecognized_decision",
          diagnostic: "decision_block",
        },
        {
          name: '"decision": "Deny"',
          handler: () => command(printJson({ decision: "Deny", reason: "x" })),
          failOpen: "unrecognized_decision",
          diagnostic: "decision_case",
        },
        {
          name: "a missing script",
          handler: () => command("python3 /nonexistent/gate.py"),
          failOpen: "nonzero_exit",
          check: (handler) => assert.equal(handler.exit_code, 2),
        },
        {
          name: "an HTTP 403 with a deny body",
          handler: () => ({ type: "http", url: http().url("/fail-open/403") }),
          failOpen: "http_status",
          check: (handler) => assert.equal(handler.http_status, 403),
          diagnostic: "deny_ignored_after_http_error",
        },
        {
          name: "an HTTP 500",
          handler: () => ({ type: "http", url: http().url("/fail-open/500") }),
          failOpen: "http_status",
          check: (handler) => assert.equal(handler.http_status, 500),
        },
        {
          name: "an HTTP connection refused",
          handler: () => ({ type: "http", url: "http://127.0.0.1:1/hook" }),
          failOpen: "connection_error",
          check: (handler) => {
            assert.equal(handler.http_status, null);
            assert.match(handler.fail_open?.reason ?? "", /could not connect/);
          },
        },
      ];
      for (const { name, handler, failOpen, check, diagnostic } of table) {
        it(`allows on ${name}`, async () => {
          await http().setRoutes({
            "/fail-open/403": { status: 403, body: JSON.stringify(DENY) },
            "/fail-open/500": { status: 500, body: "internal error" },
          });
          await writeHooks(ROOT_CONFIG, { g: { pre_tool_execution: [{ matcher: "*", hooks: [handler(), append("next-handler-ran")] }] } });
          const result = await pre(bash("rm -rf /tmp/forbidden"));
          assert.equal(result.decision, "allow");
          const [traced] = result.trace.handlers;
          assert.ok(traced);
          assert.equal(traced.decision, "allow");
          assert.equal(traced.fail_open?.code, failOpen, JSON.stringify(traced));
          check?.(traced, result.trace);
          if (diagnostic !== undefined) {
            assert.ok(
              result.trace.diagnostics.some((entry) => entry.code === diagnostic && entry.location?.handler_index === 0),
              JSON.stringify(result.trace.diagnostics),
            );
          }
          assert.deepEqual(await order(), ["next-handler-ran"], "a fail-open handler does not stop the chain");
          // The appending handler prints nothing, so it fails open too (empty_output): this cause is listed first.
          assert.match(result.trace.summary, new RegExp(`only by fail-open \\(${failOpen}`));
        });
      }

      it("allows on a timeout, with the hook's whole process tree killed", async () => {
        const script = [
          `(sleep 3; echo survived > ${shellQuote(at("background-survived"))}) &`,
          `echo $! > ${shellQuote(at("background.pid"))}`,
          // A child in a session of its own (setsid), which a kill of the hook's process group misses.
          // bash, not python: under load python's start alone passed the 1 s timeout before it wrote its pid.
          `setsid bash -c 'echo $$ > "$1"; sleep 3; echo x > "$2"' session ${shellQuote(at("session.pid"))} ${shellQuote(at("session-survived"))} &`,
          // Both pids are written before the hook goes on, so the timeout always finds both children.
          `while [ ! -s ${shellQuote(at("session.pid"))} ]; do sleep 0.01; done`,
          printJson(DENY),
          "sleep 30",
        ].join("\n");
        await writeHooks(ROOT_CONFIG, { slow: { pre_tool_execution: [{ matcher: "*", hooks: [command(script, 1)] }] } });
        const started = Date.now();
        const result = await pre(bash("ls"));
        const elapsed = Date.now() - started;
        assert.equal(result.decision, "allow");
        assert.ok(elapsed < 4_000, `the hook took ${elapsed} ms with a 1 s timeout`);
        const [traced] = result.trace.handlers;
        assert.equal(traced?.timed_out, true);
        assert.equal(traced?.crashed, false);
        assert.equal(traced?.fail_open?.code, "timeout");
        assert.equal(traced?.timeout_s, 1);
        const pids = [(await readText(at("background.pid")))?.trim() ?? "", (await readText(at("session.pid")))?.trim() ?? ""];
        assert.ok(
          pids.every((pid) => /^\d+$/.test(pid)),
          `pids: ${pids.join(",")}`,
        );
        const live = await run(["python3", "-c", PRINT_LIVE_PIDS, ...pids]);
        assert.equal(live.stdout.toString().trim(), "", "the hook's children outlived its timeout");
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + 3_500 - Date.now())));
        assert.equal(await readText(at("background-survived")), null);
        assert.equal(await readText(at("session-survived")), null);
      });

      it("allows on an HTTP timeout", async () => {
        await http().setRoutes({ "/slow": { status: 200, body: JSON.stringify(DENY), delay: 5 } });
        await writeHooks(ROOT_CONFIG, {
          slow: { pre_tool_execution: [{ matcher: "*", hooks: [{ type: "http", url: http().url("/slow"), timeout: 1 }] }] },
        });
        const started = Date.now();
        const result = await pre(bash("ls"));
        assert.equal(result.decision, "allow");
        assert.ok(Date.now() - started < 4_000, `took ${Date.now() - started} ms`);
        assert.equal(result.trace.handlers[0]?.timed_out, true);
        assert.equal(result.trace.handlers[0]?.fail_open?.code, "timeout");
      });

      it("counts every fail-open cause in the summary", async () => {
        await writeHooks(ROOT_CONFIG, {
          g: {
            pre_tool_execution: [
              { matcher: "*", hooks: [command("exit 3"), command("echo text"), command(printJson({ decision: "allow" }))] },
            ],
          },
        });
        const result = await pre(bash("ls"));
        assert.equal(result.decision, "allow");
        assert.deepEqual(
          result.trace.handlers.map((handler) => handler.fail_open?.code ?? null),
          ["nonzero_exit", "plain_text", null],
        );
        assert.match(result.trace.summary, /3 handlers ran, 2 of them only by fail-open \(nonzero_exit, plain_text\)/);
      });
    });

    describe("http hooks", () => {
      it("denies on a 2xx answer with a deny body, POSTing the exact payload with Content-Type and custom headers", async () => {
        await http().setRoutes({ "/gate/deny": { status: 201, body: JSON.stringify({ decision: "deny", reason: "remote says no" }) } });
        await writeHooks(ROOT_CONFIG, {
          remote: {
            pre_tool_execution: [
              {
                matcher: "write_file",
                hooks: [
                  {
                    type: "http",
                    url: http().url("/gate/deny"),
                    headers: { "X-Event-Source": "agent-sandbox", "X-Trace": "a b=c" },
                    timeout: 5,
                  },
                ],
              },
            ],
          },
        });
        const call = write("/workspace/notes.txt", 'quote " backslash \\ unicode é ✓\nline');
        const result = await pre(call);
        assert.deepEqual(result.decision === "deny" ? [result.group, result.reason] : result.decision, ["remote", "remote says no"]);
        assert.equal(result.trace.handlers[0]?.http_status, 201);
        const request = (await http().requests()).filter((entry) => entry.path === "/gate/deny").at(-1);
        assert.ok(request, "the server saw no request");
        assert.equal(request.method, "POST");
        assert.equal(
          request.body.toString("utf8"),
          `{"tool_call":{"name":"write_file","args":{"path":"/workspace/notes.txt","content":"quote \\" backslash \\\\ unicode é ✓\\nline"}},"environment_id":"${ENVIRONMENT_ID}"}`,
        );
        const header = (name: string) =>
          request.headers.filter(([key]) => key.toLowerCase() === name.toLowerCase()).map(([, value]) => value);
        assert.deepEqual(header("Content-Type"), ["application/json"]);
        assert.deepEqual(header("X-Event-Source"), ["agent-sandbox"]);
        assert.deepEqual(header("X-Trace"), ["a b=c"]);
        assert.deepEqual(header("Content-Length"), [String(request.body.length)]);
      });

      it("lets a handler's own Content-Type replace the default", async () => {
        await http().setRoutes({ "/gate/type": { status: 200, body: "{}" } });
        await writeHooks(ROOT_CONFIG, {
          g: {
            post_tool_execution: [
              {
                matcher: "*",
                hooks: [{ type: "http", url: http().url("/gate/type"), headers: { "content-type": "application/vnd.audit+json" } }],
              },
            ],
          },
        });
        await post(bash("ls"));
        const request = (await http().requests()).filter((entry) => entry.path === "/gate/type").at(-1);
        assert.deepEqual(
          request?.headers.filter(([key]) => key.toLowerCase() === "content-type").map(([, value]) => value),
          ["application/vnd.audit+json"],
        );
      });
    });

    describe("payload", () => {
      const expectedPre = `{"tool_call":{"name":"code_execution","args":{"code":"echo 'hi' \\"there\\"","language":"bash"}},"environment_id":"${ENVIRONMENT_ID}"}`;

      it("gives a command hook the pre payload on stdin, byte for byte", async () => {
        await writeHooks(ROOT_CONFIG, {
          g: { pre_tool_execution: [{ matcher: "*", hooks: [command(`cat > ${shellQuote(at("stdin.json"))}`)] }] },
        });
        const result = await pre(bash(`echo 'hi' "there"`));
        assert.equal(await readText(at("stdin.json")), expectedPre);
        assert.equal(result.trace.payload_bytes, Buffer.byteLength(expectedPre));
      });

      it('adds "error" to the post payload, last, only when the tool reported one', async () => {
        await writeHooks(ROOT_CONFIG, {
          g: {
            post_tool_execution: [
              { matcher: "*", hooks: [command(`cat >> ${shellQuote(at("stdin.jsonl"))}; echo >> ${shellQuote(at("stdin.jsonl"))}`)] },
            ],
          },
        });
        await post(bash(`echo 'hi' "there"`));
        await post(bash(`echo 'hi' "there"`), "ls: cannot access 'x': No such file or directory\n");
        assert.equal(
          await readText(at("stdin.jsonl")),
          `${expectedPre}\n${expectedPre.slice(0, -1)},"error":"ls: cannot access 'x': No such file or directory\\n"}\n`,
        );
      });
    });

    describe("post_tool_execution", () => {
      it("runs every matching handler, ignores a deny, and records failures without deciding", async () => {
        await writeHooks(ROOT_CONFIG, {
          audit: {
            post_tool_execution: [
              {
                matcher: "*",
                hooks: [
                  command(`echo one >> ${shellQuote(at("order.log"))}; ${printJson(DENY)}`),
                  command(`echo two >> ${shellQuote(at("order.log"))}; exit 1`),
                  append("three"),
                ],
              },
            ],
          },
          also: {
            post_tool_execution: [
              { matcher: "write_file", hooks: [append("never")] },
              { matcher: "delete_file", hooks: [append("four")] },
            ],
          },
        });
        const trace = await post(remove("/workspace/a"), "deleteFile /workspace/a: no such file or directory");
        assert.deepEqual(await order(), ["one", "two", "three", "four"]);
        assert.equal(trace.decision, "none");
        assert.equal(trace.denied_by, null);
        assert.deepEqual(
          trace.handlers.map((handler) => [handler.decision, handler.failure?.code ?? null, handler.fail_open]),
          [
            ["ignored", null, null],
            ["ignored", "nonzero_exit", null],
            ["ignored", null, null],
            ["ignored", null, null],
          ],
        );
        assert.ok(trace.diagnostics.some((diagnostic) => diagnostic.code === "post_decision_ignored"));
        assert.match(trace.summary, /4 handlers ran after "delete_file", 1 failed \(nonzero_exit\)/);
      });

      it("does not run pre rules after a call, nor post rules before it", async () => {
        await writeHooks(ROOT_CONFIG, {
          g: {
            pre_tool_execution: [{ matcher: "*", hooks: [append("pre")] }],
            post_tool_execution: [{ matcher: "*", hooks: [append("post")] }],
          },
        });
        await pre(bash("ls"));
        await post(bash("ls"));
        assert.deepEqual(await order(), ["pre", "post"]);
      });
    });

    describe("hooks that misbehave finish promptly and correctly", () => {
      it("caps a hook that prints megabytes: it allows (fail-open) and the trace keeps an excerpt", async () => {
        await writeHooks(ROOT_CONFIG, {
          chatty: {
            pre_tool_execution: [
              {
                matcher: "*",
                hooks: [command(`${printJson(DENY)}; head -c 8000000 /dev/zero | tr '\\0' x; head -c 3000000 /dev/zero | tr '\\0' y >&2`)],
              },
            ],
          },
        });
        const started = Date.now();
        const result = await pre(bash("ls"));
        assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
        assert.equal(result.decision, "allow");
        const [traced] = result.trace.handlers;
        assert.equal(traced?.fail_open?.code, "output_too_large");
        assert.equal(traced?.stdout_bytes, Buffer.byteLength(JSON.stringify(DENY)) + 1 + 8_000_000);
        assert.equal(traced?.stderr_bytes, 3_000_000);
        assert.ok((traced?.stdout_excerpt.length ?? 0) <= 2049, `excerpt of ${traced?.stdout_excerpt.length} characters`);
        assert.ok(JSON.stringify(result.trace).length < 16 * 1024, "the trace stays small");
      });

      it("honours a smaller output cap", async () => {
        await writeHooks(ROOT_CONFIG, {
          g: { pre_tool_execution: [{ matcher: "*", hooks: [command(`${printJson(DENY)}; head -c 2000 /dev/zero`)] }] },
        });
        const result = await pre(bash("ls"), { maxOutputBytes: 1000 });
        assert.equal(result.decision, "allow");
        assert.equal(result.trace.handlers[0]?.fail_open?.code, "output_too_large");
      });

      it("denies promptly when a hook ignores a large payload on stdin", async () => {
        await writeHooks(ROOT_CONFIG, { g: { pre_tool_execution: [{ matcher: "*", hooks: [command(printJson(DENY))] }] } });
        const started = Date.now();
        const result = await pre(write("/workspace/big.txt", "y".repeat(4 * MiB)));
        assert.equal(result.decision, "deny");
        assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started} ms`);
        assert.ok(result.trace.payload_bytes > 4 * MiB);
      });

      it("hands a large payload to a hook that reads it all", async () => {
        await writeHooks(ROOT_CONFIG, {
          g: { pre_tool_execution: [{ matcher: "*", hooks: [command(`wc -c > ${shellQuote(at("count"))}`)] }] },
        });
        const result = await pre(write("/workspace/big.txt", "y".repeat(3 * MiB)));
        assert.equal((await readText(at("count")))?.trim(), String(result.trace.payload_bytes));
      });

      it("finishes promptly when a hook leaves a background child holding its output", async () => {
        await writeHooks(ROOT_CONFIG, {
          g: {
            pre_tool_execution: [
              { matcher: "*", hooks: [command(`sleep 10 & echo $! > ${shellQuote(at("child.pid"))}; ${printJson(DENY)}`)] },
            ],
          },
        });
        const started = Date.now();
        const result = await pre(bash("ls"));
        assert.equal(result.decision, "deny");
        assert.ok(Date.now() - started < 3_000, `took ${Date.now() - started} ms`);
        await run(["kill", (await readText(at("child.pid")))?.trim() ?? ""]);
      });
    });
  });
}
