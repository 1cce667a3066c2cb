// `interactions-emulator hooks try`, run as a user runs it (the package's bin, a child process) against
// real Docker sandboxes: the documentation's security gate denies `rm -rf` (exit 2) and allows `ls`
// (exit 0); the tool really runs when allowed, so post hooks see its real stderr; the trace's own
// suggestion for "*_file" is what `hooks check` prints; a running emulator can be used instead
// (--emulator), where the environment and interaction are deleted afterwards; and nothing of the
// throwaway emulator is left on the engine, not even after Ctrl-C in the middle of a call.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import Docker from "dockerode";
import { EXIT } from "../../server/cli/usage.js";
import { LABEL_INSTANCE } from "../../server/sandbox/docker/labels.js";
import { runCliProcess, startCli } from "../support/cli-runs.js";
import { objectsOfInstance } from "../support/docker-fixture.js";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";
import { SEED_GATE_SCRIPT, SEED_HOOKS_FILES } from "../support/seed-hooks-files.js";

let folder: string;
/** The documentation's security gate, verbatim: hooks.json and its script. */
let seedDir: string;
/** A post hook that prints the payload it received, and a rule with a glob for a matcher. */
let auditDir: string;

function project(name: string, files: Record<string, string>): string {
  const dir = path.join(folder, name);
  for (const [relative, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, relative)), { recursive: true });
    fs.writeFileSync(path.join(dir, relative), content);
  }
  return dir;
}

const AUDIT_HOOKS = JSON.stringify(
  {
    audit: { post_tool_execution: [{ matcher: ".*", hooks: [{ type: "command", command: "cat" }] }] },
    "file-guard": { pre_tool_execution: [{ matcher: "*_file", hooks: [{ type: "command", command: "echo never runs" }] }] },
  },
  null,
  2,
);

before(() => {
  folder = fs.mkdtempSync(path.join(os.tmpdir(), "hooks-try-"));
  seedDir = project("seed", {
    ".agents/hooks.json": SEED_HOOKS_FILES["security-gate"]!,
    ".agents/hooks-scripts/gate.py": SEED_GATE_SCRIPT,
  });
  auditDir = project("audit", { ".agents/hooks.json": AUDIT_HOOKS });
});
after(() => {
  fs.rmSync(folder, { recursive: true, force: true });
});

const call = (code: string) => JSON.stringify({ name: "code_execution", args: { code } });

function instanceOf(stderr: string): string {
  const match = /throwaway emulator \(instance (hooks-try-[0-9a-f]+);/.exec(stderr);
  assert.ok(match, `the instance is named on stderr:\n${stderr}`);
  return match[1]!;
}

async function assertNothingLeft(instance: string): Promise<void> {
  assert.deepEqual(await objectsOfInstance(instance), { containers: 0, volumes: 0, images: 0 });
}

describe("hooks try in a throwaway sandbox", () => {
  it("exits 2 when the documentation's security gate denies an rm -rf, and leaves nothing behind", async () => {
    const { status, stdout, stderr } = await runCliProcess(["hooks", "try", "--call", call("rm -rf /"), "--dir", seedDir]);
    assert.equal(status, EXIT.denied, `${stdout}\n${stderr}`);
    assert.match(
      stdout,
      /✗ DENY +"security-gate" pre_tool_execution\[0\]\.hooks\[0\] command "python3 \/\.agents\/hooks-scripts\/gate\.py" \(exit 0, \d+ ms of 10 s allowed\)/,
    );
    assert.match(stdout, /reason: Destructive command blocked by security gate\./);
    assert.match(stdout, /^tool: not run, denied: Destructive command blocked by security gate\.$/m);
    assert.match(stdout, /^post_tool_execution: not run \(post hooks fire only after a tool ran, never after a denied call\)$/m);
    assert.match(stdout, /^decision: deny: Destructive command blocked by security gate\. \(exit 2\)$/m);
    await assertNothingLeft(instanceOf(stderr));
  });

  it("exits 0 when the gate allows ls, runs it, and leaves nothing behind", async () => {
    const { status, stdout, stderr } = await runCliProcess(["hooks", "try", "--call", call("ls /.agents"), "--dir", seedDir]);
    assert.equal(status, EXIT.ok, `${stdout}\n${stderr}`);
    assert.match(stdout, /✓ ALLOW +"security-gate" pre_tool_execution\[0\]\.hooks\[0\]/);
    assert.match(stdout, /^tool: ran \(is_error: false\)\n {2}\| hooks-scripts\n {2}\| hooks\.json$/m);
    assert.match(stdout, /^decision: allow \(exit 0\)$/m);
    await assertNothingLeft(instanceOf(stderr));
  });

  it("runs the tool for real, so post hooks get its real stderr; --json gives the traces; the trace's glob hint is what hooks check prints", async () => {
    const { status, stdout, stderr } = await runCliProcess([
      "hooks",
      "try",
      "--call",
      call("echo made it; echo something went wrong >&2"),
      "--dir",
      auditDir,
      "--at",
      "workspace",
      "--json",
    ]);
    assert.equal(status, EXIT.ok, stderr);
    const outcome = JSON.parse(stdout);
    assert.equal(outcome.decision, "allow");
    assert.deepEqual(outcome.tool_call, {
      name: "code_execution",
      args: { code: "echo made it; echo something went wrong >&2", language: "bash" },
    });
    assert.equal(outcome.tool.ran, true);
    assert.match(outcome.tool.result, /made it/);
    assert.deepEqual(
      outcome.pre.files.map((file: { path: string; status: string }) => [file.path, file.status]),
      [
        ["/.agents/hooks.json", "missing"],
        ["/workspace/.agents/hooks.json", "loaded"],
      ],
    );
    // The post hook printed the payload it received: the tool's real stderr is its "error".
    const payload = JSON.parse(outcome.post.handlers[0].stdout_excerpt);
    assert.equal(payload.tool_call.name, "code_execution");
    assert.equal(payload.environment_id, outcome.environment_id);
    assert.match(payload.error, /something went wrong/);

    // The engine's words for the glob, in a real sandbox's trace, are what `hooks check` prints.
    const traced = outcome.pre.diagnostics.find((diagnostic: { code: string }) => diagnostic.code === "matcher_invalid_regex");
    assert.match(traced.message, /the regular expression is "\.\*_file"/);
    const checked = await runCliProcess(["hooks", "check", path.join(auditDir, ".agents", "hooks.json")]);
    assert.equal(checked.status, EXIT.failed);
    assert.ok(checked.stdout.includes(`: error: ${traced.message} [matcher_invalid_regex]`), checked.stdout);
    await assertNothingLeft(instanceOf(stderr));
  });

  it("removes the throwaway sandbox when interrupted with Ctrl-C in the middle of a call", async () => {
    const run = startCli(["hooks", "try", "--call", call("sleep 300"), "--dir", seedDir]);
    const instance = (await run.waitFor(/throwaway emulator \(instance (hooks-try-[0-9a-f]+);/))[1]!;
    // Interrupted while the tool runs: its `sleep 300` is a process in one of the instance's
    // containers. Not necessarily the newest: the warm pool refills beside the environment's sandbox.
    const docker = new Docker();
    const deadline = Date.now() + 60_000;
    const runsTheTool = async (id: string) => {
      const processes = await docker
        .getContainer(id)
        .top()
        .catch(() => null);
      return processes?.Processes?.some((row: string[]) => row.at(-1)?.endsWith("sleep 300")) ?? false;
    };
    for (;;) {
      const containers = await docker.listContainers({ filters: { label: [`${LABEL_INSTANCE}=${instance}`] } });
      const running = await Promise.all(containers.map((container) => runsTheTool(container.Id)));
      if (running.includes(true)) break;
      if (Date.now() > deadline) {
        run.interrupt();
        await run.exited;
        assert.fail(`the tool did not start in a sandbox:\n${run.stderr()}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    run.interrupt();
    const { status } = await run.exited;
    assert.equal(status, EXIT.interrupted, run.stderr());
    assert.match(run.stderr(), /SIGINT: stopping; removing the throwaway sandbox first/);
    await assertNothingLeft(instance);
  });
});

describe("hooks try against a running emulator (--emulator)", () => {
  let emulator: EmulatorProcess;
  const apiKey = "hooks-try-remote-key";

  before(async () => {
    emulator = await startEmulatorProcess();
  });
  after(async () => {
    await emulator?.destroy();
  });

  it("exits 2 for the gate's deny, and deletes the environment and the interaction it made", async () => {
    const { status, stdout, stderr } = await runCliProcess([
      "hooks",
      "try",
      "--call",
      call("rm -rf /tmp/forbidden"),
      "--dir",
      seedDir,
      "--emulator",
      emulator.url,
      "--api-key",
      apiKey,
      "--json",
    ]);
    assert.equal(status, EXIT.denied, stderr);
    const outcome = JSON.parse(stdout);
    assert.equal(outcome.deny_reason, "Destructive command blocked by security gate.");
    const headers = { "x-goog-api-key": apiKey };
    const environment = await fetch(`${emulator.url}/v1beta/environments/${outcome.environment_id}`, { headers });
    assert.equal(environment.status, 404);
    const interaction = await fetch(`${emulator.url}/v1beta/interactions/${outcome.interaction_id}`, { headers });
    assert.equal(interaction.status, 404);
    assert.equal(await emulator.sandboxCount(), 0);
  });

  it("says what is wrong when the emulator cannot be reached, and refuses a call of no sandbox tool as wrong usage", async () => {
    const unreachable = await runCliProcess(["hooks", "try", "--call", call("ls"), "--dir", seedDir, "--emulator", "http://127.0.0.1:9"]);
    assert.equal(unreachable.status, EXIT.failed);
    assert.match(unreachable.stderr, /^error: cannot reach the emulator at http:\/\/127\.0\.0\.1:9 \(/m);
    const usage = await runCliProcess([
      "hooks",
      "try",
      "--call",
      '{"name": "bash", "args": {}}',
      "--dir",
      seedDir,
      "--emulator",
      emulator.url,
    ]);
    assert.equal(usage.status, EXIT.usage);
    assert.match(usage.stderr, /^error: --call: /m);
  });
});
