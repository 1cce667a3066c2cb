// What a repository source may not bring into a sandbox, through the real emulator process and HTTP:
// the emulator's own data folder (the egress CA's key, the SQLite store with every key's credential
// tokens), host folders the operator did not name, and (through the host's git) loopback services.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";

const VICTIM = "victim-key";
const ATTACKER = "attacker-key";
const SECRET = "victim-token-8d2f61c0";

let work: string;
let emulator: EmulatorProcess;

interface Answer {
  status: number;
  body: { error?: { message: string; status: string }; steps?: Array<Record<string, unknown>> };
}

async function post(route: string, key: string, body: unknown): Promise<Answer> {
  const response = await fetch(`${emulator.url}/v1beta/${route}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-goog-api-key": key },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Answer["body"] };
}

/** An environment with `source` mounted at workspace/loot, and a search for the victim's token in it. */
function loot(source: string): Promise<Answer> {
  const calls = [{ name: "code_execution", args: { code: `grep -rl ${SECRET} /workspace/loot; ls -R /workspace/loot | head -20` } }];
  return post("interactions", ATTACKER, {
    agent: "antigravity-preview-05-2026",
    input: `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``,
    environment: { type: "remote", sources: [{ type: "repository", source, target: "workspace/loot" }] },
  });
}

/** A refusal, or (when the leak is open) what the sandbox found: the assertion's message shows it. */
function assertRefused(answer: Answer, message: RegExp): void {
  const found = (answer.body.steps ?? []).filter((step) => step.type === "code_execution_result").map((step) => step.result);
  assert.equal(answer.status, 400, `expected a refusal, got ${answer.status}; the sandbox saw: ${JSON.stringify(found)}`);
  assert.equal(answer.body.error?.status, "INVALID_ARGUMENT");
  assert.match(answer.body.error?.message ?? "", message);
}

before(async () => {
  work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "emu-repo-guard-")));
  fs.chmodSync(work, 0o755);
  fs.mkdirSync(path.join(work, "shared", "docs"), { recursive: true });
  fs.writeFileSync(path.join(work, "shared", "docs", "readme.md"), "shared with everyone\n", { mode: 0o644 });
  fs.chmodSync(path.join(work, "shared"), 0o755);
  fs.chmodSync(path.join(work, "shared", "docs"), 0o755);
  // The data folder lies inside the operator's allowed root: it must still be out of reach.
  emulator = await startEmulatorProcess({ EMULATOR_DATA_DIR: path.join(work, "data"), EMULATOR_REPO_ROOTS: path.join(work, "shared") });
  const credential = await post("credentials", VICTIM, { id: "deploy", type: "bearer_token", token: SECRET });
  assert.equal(credential.status, 200, JSON.stringify(credential.body));
});

after(async () => {
  await emulator?.destroy();
  fs.rmSync(work, { recursive: true, force: true });
});

describe("repository sources from local folders", () => {
  it("never bring the emulator's data folder (another key's credential tokens, the egress CA key) into a sandbox", async () => {
    const before = await emulator.sandboxCount();
    assertRefused(await loot(emulator.dataDir), /EMULATOR_REPO_ROOTS/);
    assertRefused(await loot(`file://${emulator.dataDir}`), /EMULATOR_REPO_ROOTS/);
    assertRefused(await loot(path.join(emulator.dataDir, "egress-ca")), /EMULATOR_REPO_ROOTS/);
    assert.equal(await emulator.sandboxCount(), before, "a refused source leaves no container");
  });
});
