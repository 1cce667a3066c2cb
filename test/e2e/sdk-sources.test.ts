// Repository and gcs sources through the official SDK: a repository mounted read-only that neither a
// tool nor a hook can change, and hooks delivered from a (fake, loopback) GCS emulator.
// covers: CreateAgentInteraction.environment.sources.type, CreateAgentInteraction.environment.sources.source

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";
import { startFakeGcs, type FakeGcs } from "../support/fake-gcs-server.js";

const KEY = "sources-key";
let work: string;
let gcs: FakeGcs;
let emulator: EmulatorProcess;
let ai: GoogleGenAI;

function git(cwd: string, ...args: string[]): void {
  execFileSync("git", args, {
    cwd,
    stdio: "ignore",
    env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@t", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@t" },
  });
}

before(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), "emu-sources-e2e-"));
  const repo = path.join(work, "mirrors", "data-repo");
  fs.mkdirSync(repo, { recursive: true });
  fs.writeFileSync(path.join(repo, "data.txt"), "original\n");
  git(repo, "init", "-q");
  git(repo, "add", ".");
  git(repo, "commit", "-q", "-m", "data");
  gcs = await startFakeGcs({
    "agent-config": {
      "team/hooks.json": JSON.stringify({
        "gcs-gate": {
          pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "command", command: "python3 /.agents/deny.py" }] }],
        },
      }),
      "team/deny.py": 'import json\nprint(json.dumps({"decision": "deny", "reason": "from the bucket"}))\n',
    },
  });
  emulator = await startEmulatorProcess({
    EMULATOR_REPO_MAP: `https://github.com/acme/=${path.join(work, "mirrors")}/`,
    STORAGE_EMULATOR_HOST: gcs.host,
  });
  ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
});

after(async () => {
  await emulator?.destroy();
  await gcs?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

type Result = { result: string; is_error: boolean };
const results = (steps: unknown): Result[] =>
  (steps as Array<Record<string, any>>).filter((step) => step.type.endsWith("_result")) as Result[];
const script = (calls: unknown[]): string => `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``;

describe("repository sources", () => {
  it("are mounted read-only: a tool's write fails with an error, a hook's write changes nothing", async () => {
    const hooks = {
      tamper: { post_tool_execution: [{ matcher: "*", hooks: [{ type: "command", command: "echo hooked >> /workspace/repo/data.txt" }] }] },
    };
    const interaction = await ai.interactions.create({
      agent: "antigravity-preview-05-2026",
      input: script([
        { name: "write_file", args: { path: "/workspace/repo/data.txt", content: "changed" } },
        {
          name: "code_execution",
          args: {
            // One stream (2>&1), so the errors and the output arrive in the order they happened.
            code: "exec 2>&1; rm -f /workspace/repo/data.txt; mv /workspace/repo /workspace/moved; cat /workspace/repo/data.txt; git -C /workspace/repo log --oneline | wc -l",
          },
        },
        { name: "read_file", args: { path: "/workspace/repo/data.txt" } },
      ]),
      environment: {
        type: "remote",
        sources: [
          { type: "repository", source: "https://github.com/acme/data-repo", target: "workspace/repo" },
          { type: "inline", target: ".agents/hooks.json", content: JSON.stringify(hooks) },
        ],
      },
    });
    const [write, code, read] = results(interaction.steps);
    assert.equal(write!.is_error, true);
    assert.match(write!.result, /read-only|EROFS/i);
    assert.match(code!.result, /Read-only file system/);
    assert.match(code!.result, /original\n1\n/);
    assert.equal(read!.result, "original\n");
    const trace = await fetch(`${emulator.url}/emulator/interactions/${interaction.id}/hooks`, { headers: { "x-goog-api-key": KEY } });
    const post = ((await trace.json()) as { tool_calls: Array<Record<string, any>> }).tool_calls[0]!.post;
    assert.match(post.handlers[0].stderr_excerpt, /Read-only file system|Permission denied/);
  });

  it("are refused with a 400 when they cannot be fetched, leaving nothing behind", async () => {
    const before = await emulator.sandboxCount();
    await assert.rejects(
      ai.interactions.create({
        agent: "antigravity-preview-05-2026",
        input: "Run `ls`",
        environment: {
          type: "remote",
          sources: [{ type: "repository", source: "https://github.com/acme/missing", target: "workspace/r" }],
        },
      }),
      (error: unknown) => (error as { status?: number }).status === 400 && /sources\[0\] \(repository/.test((error as Error).message),
    );
    assert.equal(await emulator.sandboxCount(), before);
  });
});

describe("gcs sources", () => {
  it("bring hooks from a bucket that then apply", async () => {
    const interaction = await ai.interactions.create({
      agent: "antigravity-preview-05-2026",
      input: "Run `echo hi` using code_execution.",
      environment: { type: "remote", sources: [{ type: "gcs", source: "gs://agent-config/team", target: ".agents" }] },
    });
    const [result] = results(interaction.steps);
    assert.equal(result!.is_error, true);
    assert.equal(result!.result, 'Tool call denied by hook "gcs-gate": from the bucket');
  });
});
