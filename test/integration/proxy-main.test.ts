// proxy/main.ts as its own process, the way docker-compose runs it: configuration from the
// environment, egress entries as JSON lines on stdout, a clean exit on SIGTERM.

import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import type { EgressEntry } from "../../proxy/egress-log.js";
import {
  createTestPki,
  preambleFor,
  proxyConnect,
  proxyRequest,
  requestInTunnel,
  startClientTls,
  startEchoServer,
  type Echo,
  type EchoServer,
} from "../support/proxy-fixtures.js";

const MAIN = fileURLToPath(new URL("../../proxy/main.js", import.meta.url));
const SECRET = "main-process-secret-0123456789";

function startMain(env: Record<string, string>): { child: ChildProcess; stdout: () => string; stderr: () => string } {
  const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return { child, stdout: () => stdout, stderr: () => stderr };
}

async function waitFor<T>(probe: () => T | undefined, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
    else child.once("exit", (code, signal) => resolve({ code, signal }));
  });
}

describe("the standalone proxy process", () => {
  let dataDir: string;
  let plain: EchoServer;
  let secure: EchoServer;
  let main: ReturnType<typeof startMain>;
  let port: number;

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "proxy-main-"));
    const pki = createTestPki("main-upstream");
    const caFile = path.join(dataDir, "upstream-ca.pem");
    await writeFile(caFile, pki.caPem);
    plain = await startEchoServer("plain");
    secure = await startEchoServer("secure", pki.issue(["secure.example"]));
    main = startMain({
      EMULATOR_PROXY_PORT: "0",
      EMULATOR_PROXY_SECRET: SECRET,
      EMULATOR_DATA_DIR: dataDir,
      EMULATOR_EGRESS_HOST_MAP: `plain.example=127.0.0.1:${plain.port},secure.example=127.0.0.1:${secure.port}`,
      EMULATOR_EGRESS_CA_FILE: caFile,
    });
    port = await waitFor(() => {
      const match = /listening on 127\.0\.0\.1:(\d+)/.exec(main.stderr());
      return match ? Number(match[1]) : undefined;
    }, "the proxy to listen");
  });

  after(async () => {
    if (main.child.exitCode === null) main.child.kill("SIGKILL");
    await Promise.all([plain.close(), secure.close()]);
    await rm(dataDir, { recursive: true, force: true });
  });

  it("forwards with injection over HTTP and HTTPS, refuses loopback, and logs JSON lines without values", async () => {
    const policy = preambleFor(
      {
        mode: "allowlist",
        entries: [
          { domain: "plain.example", headers: { "X-Api-Key": "value-that-must-not-be-logged" } },
          { domain: "secure.example", headers: { Authorization: "Bearer value-that-must-not-be-logged" } },
          { domain: "*", headers: {} },
        ],
      },
      "env_main",
      SECRET,
    );
    const http = await proxyRequest(port, policy, { url: "http://plain.example/x" });
    assert.equal(http.status, 200);
    assert.equal((JSON.parse(http.body) as Echo).headers["x-api-key"], "value-that-must-not-be-logged");

    const caPem = await readFile(path.join(dataDir, "egress-ca", "ca.pem"), "utf8");
    const connect = await proxyConnect(port, policy, "secure.example:443");
    const client = await startClientTls(connect.socket, "secure.example", [caPem]);
    const https = await requestInTunnel(client.secure, { path: "/y", host: "secure.example" });
    client.secure.destroy();
    assert.equal((JSON.parse(https.body) as Echo).headers.authorization, "Bearer value-that-must-not-be-logged");

    const refused = await proxyRequest(port, policy, { url: "http://localhost:8080/" });
    assert.equal(refused.status, 403);
    assert.equal(refused.headers["x-proxy-error"], "blocked-address:loopback");

    const lines = await waitFor(() => {
      const parsed = main
        .stdout()
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => JSON.parse(line) as EgressEntry);
      return parsed.length >= 4 ? parsed : undefined;
    }, "four egress lines");
    assert.ok(lines.every((entry) => entry.environment_id === "env_main"));
    assert.deepEqual(lines.map((entry) => `${entry.method} ${entry.host} ${entry.decision}`).sort(), [
      "CONNECT secure.example allowed",
      "GET localhost refused",
      "GET plain.example allowed",
      "GET secure.example allowed",
    ]);
    assert.doesNotMatch(main.stdout(), /value-that-must-not-be-logged/);
    assert.doesNotMatch(main.stderr(), /value-that-must-not-be-logged/);
  });

  it("closes cleanly on SIGTERM", async () => {
    main.child.kill("SIGTERM");
    const { code } = await exitOf(main.child);
    assert.equal(code, 0);
    assert.match(main.stderr(), /SIGTERM, closing/);
  });

  it("refuses to start without a secret", async () => {
    const bad = startMain({ EMULATOR_PROXY_PORT: "0", EMULATOR_DATA_DIR: dataDir });
    const { code } = await exitOf(bad.child);
    assert.equal(code, 2);
    assert.match(bad.stderr(), /EMULATOR_PROXY_SECRET/);
  });

  it("refuses to start with a malformed host map, naming it", async () => {
    const bad = startMain({
      EMULATOR_PROXY_PORT: "0",
      EMULATOR_DATA_DIR: dataDir,
      EMULATOR_PROXY_SECRET: SECRET,
      EMULATOR_EGRESS_HOST_MAP: "nope",
    });
    const { code } = await exitOf(bad.child);
    assert.equal(code, 1);
    assert.match(bad.stderr(), /EMULATOR_EGRESS_HOST_MAP/);
  });
});
