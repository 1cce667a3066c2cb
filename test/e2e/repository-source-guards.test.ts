// What a repository source may not bring into a sandbox, through the real emulator process and HTTP:
// the emulator's own data folder (the egress CA's key, the SQLite store with every key's credential
// tokens), host folders the operator did not name, and (through the host's git) loopback services.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";
import { makeBareRepository, startGitHttpServer, type GitHttpServer } from "../support/git-http-server.js";

const VICTIM = "victim-key";
const ATTACKER = "attacker-key";
const SECRET = "victim-token-8d2f61c0";

let work: string;
let shared: string;
let emulator: EmulatorProcess;
let gitServer: GitHttpServer;

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
function loot(source: string, code = `grep -rl ${SECRET} /workspace/loot; ls -R /workspace/loot | head -20`): Promise<Answer> {
  const calls = [{ name: "code_execution", args: { code } }];
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

function sharedFolder(name: string, files: Record<string, string>): string {
  const folder = path.join(shared, name);
  fs.mkdirSync(folder, { recursive: true, mode: 0o755 });
  for (const [file, content] of Object.entries(files)) fs.writeFileSync(path.join(folder, file), content, { mode: 0o644 });
  return folder;
}

before(async () => {
  work = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "emu-repo-guard-")));
  fs.chmodSync(work, 0o755);
  shared = path.join(work, "shared");
  fs.mkdirSync(shared, { mode: 0o755 });
  sharedFolder("docs", { "readme.md": "shared with everyone\n" });
  const repos = path.join(work, "repos");
  fs.mkdirSync(repos);
  makeBareRepository(repos, "tools", { "tool.txt": "cloned through the guard\n" });
  gitServer = await startGitHttpServer(repos);
  // The data folder lies inside an allowed root (work): it must still be out of reach.
  emulator = await startEmulatorProcess({
    EMULATOR_DATA_DIR: path.join(work, "data"),
    EMULATOR_REPO_ROOTS: `${shared},${work}`,
    EMULATOR_MAX_SOURCES_FILES: "50",
    EMULATOR_EGRESS_HOST_MAP: `git.mapped.test=127.0.0.1:${gitServer.port}`,
  });
  const credential = await post("credentials", VICTIM, { id: "deploy", type: "bearer_token", token: SECRET });
  assert.equal(credential.status, 200, JSON.stringify(credential.body));
});

after(async () => {
  await emulator?.destroy();
  await gitServer?.close();
  fs.rmSync(work, { recursive: true, force: true });
});

const sandboxSaw = (answer: Answer): string[] =>
  (answer.body.steps ?? []).filter((step) => step.type === "code_execution_result").map((step) => String(step.result));

describe("repository sources from local folders", () => {
  it("never bring the emulator's data folder (another key's credential tokens, the egress CA key) into a sandbox", async () => {
    const before = await emulator.sandboxCount();
    assertRefused(await loot(emulator.dataDir), /is inside the emulator's data folder, which is never served/);
    assertRefused(await loot(`file://${emulator.dataDir}`), /is inside the emulator's data folder/);
    assertRefused(await loot(path.join(emulator.dataDir, "egress-ca")), /is inside the emulator's data folder/);
    assertRefused(await loot(work), /holds the emulator's data folder/);
    assert.equal(await emulator.sandboxCount(), before, "a refused source leaves no container");
  });

  it("refuse a folder the operator did not name, saying how to allow it", async () => {
    for (const source of ["/etc", "file:///root", "/"])
      assertRefused(await loot(source), /not in a folder the operator allows; .*EMULATOR_REPO_ROOTS/);
  });

  it("copy a folder inside an allowed root, but only what every user of the host may read", async () => {
    const served = await loot(path.join(shared, "docs"), "cat /workspace/loot/readme.md");
    assert.equal(served.status, 200, JSON.stringify(served.body));
    assert.deepEqual(sandboxSaw(served), ["shared with everyone\n"]);
    const secret = sharedFolder("secret", { "public.txt": "p" });
    fs.writeFileSync(path.join(secret, "token"), SECRET, { mode: 0o600 });
    fs.chmodSync(path.join(secret, "token"), 0o600);
    assertRefused(await loot(secret), /"token" is not readable by other users of the host \(mode 0600\)/);
  });

  it("refuse a folder holding a FIFO or a socket with a 400 naming it (not a 500 the SDK retries)", async () => {
    const fifo = sharedFolder("fifo", { "a.txt": "a" });
    execFileSync("mkfifo", ["-m", "644", path.join(fifo, "queue")]);
    assertRefused(await loot(fifo), /"queue" is a FIFO/);
  });

  it("measure before copying: refuse a folder over the size or count limit at once", async () => {
    const big = sharedFolder("big", {});
    fs.writeFileSync(path.join(big, "disk.img"), "", { mode: 0o644 });
    fs.truncateSync(path.join(big, "disk.img"), 32 * 1024 ** 3);
    const started = Date.now();
    assertRefused(await loot(big), /larger than \d+ bytes \(EMULATOR_MAX_SOURCES_BYTES\)/);
    assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
    const many = sharedFolder("many", Object.fromEntries(Array.from({ length: 60 }, (_, index) => [`f${index}`, "x"])));
    assertRefused(await loot(many), /more than 50 files, folders and links \(EMULATOR_MAX_SOURCES_FILES\)/);
  });
});

describe("repository sources from the network", () => {
  it("never make the host's git reach loopback: refused before any request arrives", async () => {
    assertRefused(await loot(`http://127.0.0.1:${gitServer.port}/tools.git`), /refused by the address guard.*loopback/);
    assertRefused(await loot(`http://localhost:${gitServer.port}/tools.git`), /refused by the address guard.*loopback/);
    assertRefused(await loot(`git://127.0.0.1:${gitServer.port}/tools.git`), /only those are cloned/);
    assert.deepEqual(gitServer.requests, []);
  });

  it("clone through the operator's EMULATOR_EGRESS_HOST_MAP", async () => {
    const answer = await loot("http://git.mapped.test/tools.git", "cat /workspace/loot/tool.txt");
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(sandboxSaw(answer), ["cloned through the guard\n"]);
    assert.ok(gitServer.requests.length > 0);
  });
});
