// Hook coverage through the HTTP API (GET /emulator/hooks/coverage) and the command line's gate
// (`hooks coverage`), with the emulator wired as `npm start` wires it and fake sandboxes whose
// commands the test answers: counts after calls, the scope (environment, since), isolation between
// API keys, store: false runs counted, deletion and a restart keeping it, and the refusals.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { GoogleGenAI } from "@google/genai";
import type { CommandRequest } from "../../server/sandbox/runtime.js";
import { codeOf } from "../support/fake-sandbox-channel.js";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";

const KEY = "coverage-owner-key";
const OTHER_KEY = "coverage-other-key";
const AGENT = "antigravity-preview-05-2026";
const BIN = fileURLToPath(new URL("../../../bin/interactions-emulator.mjs", import.meta.url));

// The seed's security gate with the handler on line 7, and a post rule for the file tools on line 15.
const GATE = `{
  "security-gate": {
    "pre_tool_execution": [
      {
        "matcher": "code_execution",
        "hooks": [
          { "type": "command", "command": "gate", "timeout": 10 }
        ]
      }
    ],
    "post_tool_execution": [
      {
        "matcher": ".*_file",
        "hooks": [
          { "type": "command", "command": "audit" }
        ]
      }
    ]
  }
}
`;
const OTHER_FILE = '{"lint": {"post_tool_execution": [{"matcher": "*", "hooks": [{"type": "command", "command": "lint"}]}]}}';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "coverage-data-"));
let emulator: FakeRuntimeEmulator;

async function start(): Promise<void> {
  emulator = await startFakeRuntimeEmulator({ EMULATOR_DATA_DIR: dataDir });
}

before(start);
after(async () => {
  await emulator?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function call(method: string, route: string, body?: unknown, key = KEY): Promise<{ status: number; json: any }> {
  const response = await fetch(`${emulator.url}${route}`, {
    method,
    headers: { "x-goog-api-key": key, "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, json: await response.json() };
}

const coverage = async (query = "", key = KEY) => call("GET", `/emulator/hooks/coverage${query}`, undefined, key);

/** The gate denies a command with "rm -rf" in it; everything else (tools, other hooks) succeeds. */
async function answer(request: CommandRequest): Promise<{ stdout?: string }> {
  if (codeOf(request) !== "gate") return {};
  const payload = JSON.parse(request.stdin?.toString("utf8") ?? "{}");
  const code = String(payload.tool_call?.args?.code ?? "");
  return {
    stdout: JSON.stringify(code.includes("rm -rf") ? { decision: "deny", reason: "Destructive command blocked." } : { decision: "allow" }),
  };
}

async function environmentWith(hooks: string, key = KEY): Promise<string> {
  const { status, json } = await call(
    "POST",
    "/v1beta/environments",
    { sources: [{ type: "inline", target: ".agents/hooks.json", content: hooks }] },
    key,
  );
  assert.equal(status, 200, JSON.stringify(json));
  emulator.runtime.channels.get(json.id)!.onRun = answer;
  return json.id as string;
}

function client(key = KEY): GoogleGenAI {
  return new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: emulator.url } });
}

async function run(environment: string, calls: unknown[], extra: Record<string, unknown> = {}, key = KEY) {
  const interaction = await client(key).interactions.create({
    agent: AGENT,
    input: `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``,
    environment,
    ...extra,
  } as never);
  assert.equal(interaction.status, "completed", JSON.stringify(interaction));
  return interaction;
}

const ls = [{ name: "code_execution", args: { code: "ls" } }];
const rmRf = [{ name: "code_execution", args: { code: "rm -rf /tmp/forbidden" } }];

/** The gate's entry of the report: group, event, matcher, handler and line as the issue names them. */
function gateOf(report: any): any {
  const config = report.configs.find(
    (entry: any) => entry.path === "/.agents/hooks.json" && entry.rules.some((rule: any) => rule.handler === "gate"),
  );
  assert.ok(config, JSON.stringify(report));
  return config.rules.find((rule: any) => rule.handler === "gate");
}

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [BIN, "hooks", "coverage", "--emulator", emulator.url, ...args],
      {
        encoding: "utf8",
      },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

let gateEnvironment: string;
let otherEnvironment: string;

describe("hook coverage", () => {
  it("is empty before any call, and lists every built-in tool as unmatched", async () => {
    const { status, json } = await coverage();
    assert.equal(status, 200);
    assert.deepEqual(json.configs, []);
    assert.deepEqual(json.unmatched_tools, ["code_execution", "read_file", "write_file", "list_files", "delete_file"]);
  });

  it("after `ls` only: the gate matched and allowed, its deny never taken; read_file never matched", async () => {
    gateEnvironment = await environmentWith(GATE);
    await run(gateEnvironment, ls);
    const { json } = await coverage();
    assert.equal(json.configs.length, 1);
    assert.match(json.configs[0].sha256, /^[0-9a-f]{64}$/);
    const gate = gateOf(json);
    assert.deepEqual(
      { group: gate.group, event: gate.event, matcher: gate.matcher, line: gate.line, matched: gate.matched, allowed: gate.allowed },
      { group: "security-gate", event: "pre_tool_execution", matcher: "code_execution", line: 7, matched: 1, allowed: 1 },
    );
    assert.deepEqual([gate.denied, gate.failed_open, gate.errors, gate.state], [0, 0, 0, "deny_never_taken"]);
    const audit = json.configs[0].rules.find((rule: any) => rule.handler === "audit");
    assert.deepEqual([audit.line, audit.matched, audit.state], [15, 0, "never_matched"]);
    assert.ok(json.unmatched_tools.includes("read_file"));
    assert.ok(!json.unmatched_tools.includes("code_execution"));
  });

  it("the CLI gate exits 1 and names each unexercised rule at file:line", async () => {
    const ran = await cli(["--key", KEY, "--fail-on-unexercised"]);
    assert.equal(ran.code, 1, ran.stderr);
    assert.match(
      ran.stderr,
      /unexercised: \/\.agents\/hooks\.json:7: security-gate pre_tool_execution "code_execution" → gate: deny never taken/,
    );
    assert.match(ran.stderr, /unexercised: \/\.agents\/hooks\.json:15: .*audit: never matched/);
    assert.match(ran.stdout, /read_file 0 calls, never matched/);
    const plain = await cli(["--key", KEY]);
    assert.equal(plain.code, 0, plain.stderr);
    const json = await cli(["--key", KEY, "--json"]);
    assert.equal(JSON.parse(json.stdout).configs[0].rules[0].handler, "gate");
    const unmatched = await cli(["--key", KEY, "--fail-on-unmatched-tools"]);
    assert.equal(unmatched.code, 1);
    assert.match(unmatched.stderr, /unmatched tools: read_file, write_file, list_files, delete_file/);
  });

  it("a store: false `rm -rf` counts: the deny is taken, and the gate's rule is exercised", async () => {
    await run(gateEnvironment, rmRf, { store: false });
    const gate = gateOf((await coverage()).json);
    assert.deepEqual([gate.matched, gate.allowed, gate.denied, gate.state], [2, 1, 1, "exercised"]);
  });

  it("deleting an interaction leaves its coverage", async () => {
    const interaction = await run(gateEnvironment, [{ name: "read_file", args: { path: "/workspace/a.txt" } }]);
    const before = (await coverage()).json;
    assert.equal((await call("DELETE", `/v1beta/interactions/${interaction.id}`)).status, 200);
    assert.deepEqual((await coverage()).json, before);
    const audit = before.configs[0].rules.find((rule: any) => rule.handler === "audit");
    assert.deepEqual([audit.matched, audit.state], [1, "exercised"]);
    assert.ok(!before.unmatched_tools.includes("read_file"));
  });

  it("the CLI gate passes once every rule was exercised", async () => {
    const ran = await cli(["--key", KEY, "--fail-on-unexercised"]);
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(ran.stdout, /2 of 2 rules exercised/);
  });

  it("is scoped by environment: each environment sees its own files", async () => {
    otherEnvironment = await environmentWith(OTHER_FILE);
    await run(otherEnvironment, ls);
    const all = (await coverage()).json;
    assert.equal(all.configs.length, 2);
    const first = (await coverage(`?environment=${gateEnvironment}`)).json;
    assert.deepEqual(
      first.configs.map((config: any) => config.rules.map((rule: any) => rule.handler)),
      [["gate", "audit"]],
    );
    const second = (await coverage(`?environment=${otherEnvironment}`)).json;
    assert.deepEqual(
      second.configs[0].rules.map((rule: any) => [rule.handler, rule.matched, rule.ran]),
      [["lint", 1, 1]],
    );
  });

  it("is scoped by since: only buckets that end after it count", async () => {
    await emulator.clockOf(KEY).advance(5 * 60_000);
    const since = new Date(emulator.clockOf(KEY).now()).toISOString();
    assert.deepEqual((await coverage(`?since=${since}`)).json.configs, []);
    await run(gateEnvironment, rmRf);
    const later = (await coverage(`?since=${since}`)).json;
    const gate = gateOf(later);
    assert.deepEqual([gate.matched, gate.allowed, gate.denied], [1, 0, 1]);
    assert.equal(gateOf((await coverage()).json).matched, 3);
  });

  it("is per API key: another key sees none of it, and another key's environment is not found", async () => {
    const other = await coverage("", OTHER_KEY);
    assert.equal(other.status, 200);
    assert.deepEqual(other.json.configs, []);
    const foreign = await coverage(`?environment=${gateEnvironment}`, OTHER_KEY);
    assert.equal(foreign.status, 404);
    assert.equal(foreign.json.error.status, "NOT_FOUND");
  });

  it("refuses a since that is not RFC 3339, a label, and an unknown environment, as Google-style errors", async () => {
    const badSince = await coverage("?since=yesterday");
    assert.equal(badSince.status, 400);
    assert.equal(badSince.json.error.status, "INVALID_ARGUMENT");
    assert.match(badSince.json.error.message, /since/);
    const label = await coverage("?label=team=a");
    assert.equal(label.status, 400);
    assert.match(label.json.error.message, /no labels/);
    assert.equal((await coverage("?environment=env-unknown")).status, 404);
  });

  it("survives a restart", async () => {
    const before = (await coverage()).json;
    await emulator.close();
    await start();
    assert.deepEqual((await coverage()).json, before);
    assert.equal((await coverage(`?environment=${gateEnvironment}`)).status, 200);
  });

  it("keeps the counts of calls no report had asked for when the emulator stops (they are held in memory up to a second)", async () => {
    const matched = gateOf((await coverage()).json).matched;
    await run(await environmentWith(GATE), [...ls, ...ls]);
    await emulator.close();
    await start();
    assert.equal(gateOf((await coverage()).json).matched, matched + 2);
  });
});
