// `interactions-emulator hooks check`: the documentation's hooks.json files pass; every problem the
// engine's parser finds is printed at its line and column, with the engine's own words (compared with
// what the hooks engine puts in a trace, not with a copy); errors fail the check, warnings do not.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { runCli } from "../../server/cli/run.js";
import { EXIT } from "../../server/cli/usage.js";
import { projectRoot } from "../../server/common/paths.js";
import { runPreToolHooks } from "../../server/hooks/engine.js";
import { ROOT_HOOKS, ScriptedHost } from "../support/scripted-hook-host.js";
import { SEED_HOOKS_FILES } from "../support/seed-hooks-files.js";

let folder: string;

before(() => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), "hooks-check-"));
});
after(() => {
  fs.rmSync(folder, { recursive: true, force: true });
});

function writeFile(name: string, text: string): string {
  const file = path.join(folder, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

async function check(...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const status = await runCli(["hooks", "check", ...args], { out: (text) => (stdout += text), err: (text) => (stderr += text) });
  return { status, stdout, stderr };
}

interface JsonReport {
  errors: number;
  warnings: number;
  groups: number;
  rules: number;
  handlers: number;
  diagnostics: Array<{ severity: string; code: string; message: string; line: number | null; column: number | null }>;
}

async function checkJson(file: string): Promise<{ status: number; report: JsonReport }> {
  const { status, stdout } = await check(file, "--json");
  return { status, report: JSON.parse(stdout) as JsonReport };
}

/** 1-based line and column of the first occurrence of `needle` in `text` (after `anchor`, when given). */
function positionOf(text: string, needle: string, anchor = ""): { line: number; column: number } {
  const offset = text.indexOf(needle, text.indexOf(anchor));
  assert.ok(offset >= 0, `${needle} is in the text`);
  const before = text.slice(0, offset).split("\n");
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

describe("hooks check", () => {
  for (const [name, text] of Object.entries(SEED_HOOKS_FILES)) {
    it(`passes the documentation's ${name} example with no error and no warning`, async () => {
      const file = writeFile(`seed/${name}.json`, text);
      const { status, stdout } = await check(file);
      assert.equal(status, EXIT.ok, stdout);
      assert.doesNotMatch(stdout, /: (error|warning):/);
      assert.match(stdout, /^✓ .*: \d+ groups?, \d+ rules?, \d+ handlers?; 0 errors, 0 warnings\.$/m);
    });
  }

  it('prints the same suggestion for "*_file" that the hook trace gives, at the matcher, and fails', async () => {
    const config = { "file-guard": { pre_tool_execution: [{ matcher: "*_file", hooks: [{ type: "command", command: "true" }] }] } };
    // What the hooks engine itself says about this file before a tool call, in its trace.
    const host = new ScriptedHost().withHooks(ROOT_HOOKS, config);
    const { trace } = await runPreToolHooks(host, { name: "read_file", args: { path: "a" } }, "env_check");
    const traced = trace.diagnostics.find((diagnostic) => diagnostic.code === "matcher_invalid_regex");
    assert.ok(traced, "the engine reports the invalid matcher");
    assert.match(traced.message, /".\*_file"/, "the engine suggests the regular expression");

    const text = JSON.stringify(config, null, 2);
    const file = writeFile("glob.json", text);
    const { status, stdout } = await check(file);
    assert.equal(status, EXIT.failed);
    const { line, column } = positionOf(text, '"*_file"');
    assert.ok(stdout.includes(`${file}:${line}:${column}: error: ${traced.message} [matcher_invalid_regex]`), stdout);
  });

  it("shows typo hints at the key and 'matches no built-in tool' warnings at the matcher, and passes with warnings only", async () => {
    const text = `{
  "gate": {
    "PreToolUse": [],
    "pre_tool_execution": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "true", "timeout_ms": 500}]}
    ]
  }
}
`;
    const file = writeFile("typos.json", text);
    const { status, report } = await checkJson(file);
    assert.equal(status, EXIT.ok);
    assert.equal(report.errors, 0);
    const byCode = (code: string, field?: string) =>
      report.diagnostics.find((diagnostic) => diagnostic.code === code && (field === undefined || diagnostic.message.includes(field)));
    const event = byCode("likely_typo", "PreToolUse")!;
    assert.deepEqual({ line: event.line, column: event.column }, positionOf(text, '"PreToolUse"'));
    assert.match(event.message, /did you mean "pre_tool_execution"/);
    const timeout = byCode("likely_typo", "timeout_ms")!;
    assert.deepEqual({ line: timeout.line, column: timeout.column }, positionOf(text, '"timeout_ms"'));
    assert.match(timeout.message, /did you mean "timeout" \(in seconds\)/);
    const noTool = byCode("matcher_matches_no_tool")!;
    assert.equal(noTool.severity, "warning");
    assert.deepEqual({ line: noTool.line, column: noTool.column }, positionOf(text, '"Bash"'));
    assert.match(noTool.message, /here the tool for that job is "code_execution"/);
    // In the file's order, as an editor lists them.
    assert.deepEqual(
      report.diagnostics.map((diagnostic) => diagnostic.line),
      [...report.diagnostics.map((diagnostic) => diagnostic.line)].sort((a, b) => (a ?? 0) - (b ?? 0)),
    );
  });

  it("fails on every error the parser reports, each at its element", async () => {
    const text = `{
  "a": {"enabled": "false", "pre_tool_execution": []},
  "b": {"pre_tool_execution": {"matcher": ".*"}},
  "c": {"post_tool_execution": [{"matcher": ".*", "hooks": [{"type": "Command", "command": "true"}, {"type": "http", "url": "ftp://x"}]}]}
}`;
    const file = writeFile("errors.json", text);
    const { status, report } = await checkJson(file);
    assert.equal(status, EXIT.failed);
    const at = (code: string) => report.diagnostics.filter((each) => each.code === code).map(({ line, column }) => ({ line, column }));
    // A field's problem at its value; a skipped element at its name (a member) or its start (an array item).
    assert.deepEqual(at("group_invalid"), [positionOf(text, '"false"')]);
    assert.deepEqual(at("event_not_array"), [positionOf(text, '"pre_tool_execution"', '"b"')]);
    assert.deepEqual(at("handler_type_unknown"), [positionOf(text, '"Command"')]);
    assert.deepEqual(at("handler_invalid"), [positionOf(text, '{"type": "http"')]);
    assert.equal(report.errors, 4);
  });

  it("points at where a file stops being JSON", async () => {
    const file = writeFile("broken.json", '{\n  "a": {"pre_tool_execution": [1,]}\n}\n');
    const { status, report } = await checkJson(file);
    assert.equal(status, EXIT.failed);
    assert.equal(report.diagnostics[0]?.code, "invalid_json");
    // At the "]" that follows a comma: where a value was due.
    assert.deepEqual([report.diagnostics[0]?.line, report.diagnostics[0]?.column], [2, 34]);
  });

  it('accepts "$schema", the editor\'s link to the JSON Schema, without a word', async () => {
    const text = `{"$schema": "http://127.0.0.1:8080/schemas/hooks.json", ${SEED_HOOKS_FILES["security-gate"]!.slice(1)}`;
    const file = writeFile("with-schema.json", text);
    const { status, report } = await checkJson(file);
    assert.equal(status, EXIT.ok);
    assert.deepEqual(report.diagnostics, []);
    assert.equal(report.groups, 1);
  });

  it("reads .agents/hooks.json by default, and fails on a file that is missing, a folder or too large for the engine", async () => {
    const cwd = process.cwd();
    const project = path.join(folder, "project");
    fs.mkdirSync(path.join(project, ".agents"), { recursive: true });
    fs.writeFileSync(path.join(project, ".agents", "hooks.json"), SEED_HOOKS_FILES["privacy-gate"]!);
    process.chdir(project);
    try {
      const { status, stdout } = await check();
      assert.equal(status, EXIT.ok, stdout);
      assert.match(stdout, /^✓ \.agents\/hooks\.json: 1 group, 1 rule, 1 handler/m);
    } finally {
      process.chdir(cwd);
    }
    const missing = await check(path.join(folder, "nope.json"));
    assert.equal(missing.status, EXIT.failed);
    assert.match(missing.stdout, /does not exist/);
    const aFolder = await check(folder);
    assert.equal(aFolder.status, EXIT.failed);
    assert.match(aFolder.stdout, /cannot be read \(it is a folder/);
    const large = writeFile("large.json", `{"a": {"pre_tool_execution": []}, "pad": "${"x".repeat(1024 * 1024)}"}`);
    const tooLarge = await check(large);
    assert.equal(tooLarge.status, EXIT.failed);
    assert.match(tooLarge.stdout, /more than the 1048576-byte limit for hooks\.json/);
  });

  it("refuses wrong usage with exit status 64 and the usage text", async () => {
    for (const argv of [["hooks", "check", "a.json", "b.json"], ["hooks", "check", "--nope"], ["hooks", "chek"], ["frobnicate"]]) {
      let stderr = "";
      const status = await runCli(argv, { out: () => undefined, err: (text) => (stderr += text) });
      assert.equal(status, EXIT.usage, argv.join(" "));
      assert.match(stderr, /^error: .*\n\nUsage: interactions-emulator/s);
    }
  });

  it("runs from the package's bin, and says what to do when the code is not compiled", () => {
    const bin = path.join(projectRoot, "bin", "interactions-emulator.mjs");
    const file = writeFile("bin.json", SEED_HOOKS_FILES["audit-logging"]!);
    const ran = spawnSync(process.execPath, [bin, "hooks", "check", file], { encoding: "utf8" });
    assert.equal(ran.status, EXIT.ok, ran.stderr);
    assert.match(ran.stdout, /^✓ /m);

    // A copy of the launcher in a package without dist/ (a clone before `npm start`).
    const clone = path.join(folder, "clone");
    fs.mkdirSync(path.join(clone, "bin"), { recursive: true });
    fs.copyFileSync(bin, path.join(clone, "bin", "interactions-emulator.mjs"));
    const unbuilt = spawnSync(process.execPath, [path.join(clone, "bin", "interactions-emulator.mjs"), "hooks", "check"], {
      encoding: "utf8",
    });
    assert.equal(unbuilt.status, 1);
    assert.match(unbuilt.stderr, /dist\/server\/cli\/main\.js is missing: the TypeScript has not been compiled/);
    assert.match(unbuilt.stderr, /Run `npm start` once .* or `npm run build` in /);
  });
});
