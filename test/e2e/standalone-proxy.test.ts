// The egress proxy as its own process (proxy/main.ts, the way docker-compose runs it), with the
// emulator pointed at it through EMULATOR_EGRESS_PROXY and a shared secret and data folder.

import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { projectRoot } from "../../server/common/paths.js";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";
import { startEchoServer, type EchoServer } from "../support/proxy-fixtures.js";

const SECRET = "standalone-proxy-secret-0123456789";
let dataDir: string;
let proxyProcess: ChildProcess;
let proxyLog = "";
let upstream: EchoServer;
let emulator: EmulatorProcess;

before(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "emu-standalone-"));
  upstream = await startEchoServer("upstream");
  proxyProcess = spawn(process.execPath, [path.join(projectRoot, "dist", "proxy", "main.js")], {
    env: {
      ...process.env,
      EMULATOR_PROXY_HOST: "127.0.0.1",
      EMULATOR_PROXY_PORT: "0",
      EMULATOR_PROXY_SECRET: SECRET,
      EMULATOR_DATA_DIR: dataDir,
      EMULATOR_EGRESS_HOST_MAP: `api.example.com=127.0.0.1:${upstream.port}`,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  proxyProcess.stdout!.on("data", (chunk: Buffer) => (proxyLog += chunk.toString("utf8")));
  const port = await new Promise<string>((resolve, reject) => {
    let errors = "";
    proxyProcess.stderr!.on("data", (chunk: Buffer) => {
      errors += chunk.toString("utf8");
      const match = /listening on 127\.0\.0\.1:(\d+)/.exec(errors);
      if (match) resolve(match[1]!);
    });
    proxyProcess.once("exit", (code) => reject(new Error(`the proxy exited with ${code}: ${errors}`)));
  });
  emulator = await startEmulatorProcess({
    EMULATOR_DATA_DIR: dataDir,
    EMULATOR_EGRESS_PROXY: `127.0.0.1:${port}`,
    EMULATOR_PROXY_SECRET: SECRET,
  });
});

after(async () => {
  await emulator?.destroy();
  proxyProcess?.kill("SIGTERM");
  await upstream?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe("the egress proxy as its own process", () => {
  it("carries a sandbox's request with the injected header, and logs it on its stdout", async () => {
    const ai = new GoogleGenAI({ apiKey: "standalone", httpOptions: { baseUrl: emulator.url } });
    const interaction = await ai.interactions.create({
      agent: "antigravity-preview-05-2026",
      input: "Run `curl -sS http://api.example.com/standalone -H 'X-Api-Key: from-the-sandb0x'` using code_execution.",
      environment: {
        type: "remote",
        network: { allowlist: [{ domain: "api.example.com", transform: { "X-Api-Key": "inj3cted-value" } }] },
      },
    });
    const result = (interaction.steps as Array<Record<string, any>>).find((step) => step.type === "code_execution_result")!;
    assert.equal(result.is_error, false, result.result);
    const request = upstream.requests.find((entry) => entry.url === "/standalone");
    assert.equal(request?.headers["x-api-key"], "inj3cted-value");
    const logged = proxyLog
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.ok(
      logged.some(
        (entry) => entry.host === "api.example.com" && entry.decision === "allowed" && entry.environment_id === interaction.environment_id,
      ),
    );
    assert.doesNotMatch(proxyLog, /inj3cted-value|from-the-sandb0x/);
  });
});
