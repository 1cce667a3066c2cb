// The documentation's audit-logging example, verbatim (only the client's base URL differs): a post
// hook POSTs every read_file / write_file event from inside the sandbox to
// https://telemetry.example.com, and the egress proxy injects the bearer token on the wire. The
// telemetry server is a local HTTPS server with its own CA, reached through EMULATOR_EGRESS_HOST_MAP.
// And what else reaches the wire: a credential's header_name and prefix, before and after an update; a
// custom agent's base environment allowlist.
// covers: CreateAgentInteraction.environment.network, CreateAgentInteraction.environment.network.allowlist
// covers: CreateAgentInteraction.environment.network.allowlist.domain
// covers: CreateAgentInteraction.environment.network.allowlist.credential
// covers: CreateAgentInteraction.environment.network.allowlist.transform
// covers: CreateCredential.header_name, CreateCredential.prefix, UpdateCredential.token, UpdateCredential.header_name
// covers: UpdateCredential.prefix, CreateAgent.base_environment.network, CreateAgent.base_environment.network.allowlist
// covers: CreateAgent.base_environment.network.allowlist.domain, CreateAgent.base_environment.network.allowlist.transform

import assert from "node:assert/strict";
import fs from "node:fs";
import type http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";
import { createTestPki, startEchoServer, type EchoServer } from "../support/proxy-fixtures.js";

const API_KEY = "egress-e2e-key";
let emulator: EmulatorProcess;
let telemetry: EchoServer;
let other: EchoServer;
let gate: https.Server;
let gateRequests: Array<{ headers: http.IncomingHttpHeaders; body: string }> = [];
let client: GoogleGenAI;
let caDir: string;

before(async () => {
  const pki = createTestPki("telemetry");
  telemetry = await startEchoServer("telemetry", pki.issue(["telemetry.example.com"]));
  other = await startEchoServer("other");
  // An HTTPS hook server that denies every call, reached as gate.example.com.
  const gateTls = pki.issue(["gate.example.com"]);
  gate = https.createServer({ key: gateTls.keyPem, cert: gateTls.certificatePem }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      gateRequests.push({ headers: request.headers, body: Buffer.concat(chunks).toString("utf8") });
      response.writeHead(200, { "content-type": "application/json" });
      response.end(JSON.stringify({ decision: "deny", reason: "the remote gate says no" }));
    });
  });
  await new Promise<void>((resolve) => gate.listen(0, "127.0.0.1", resolve));
  const gatePort = (gate.address() as AddressInfo).port;
  caDir = fs.mkdtempSync(path.join(os.tmpdir(), "emu-egress-ca-"));
  const caFile = path.join(caDir, "upstream-ca.pem");
  fs.writeFileSync(caFile, pki.caPem);
  emulator = await startEmulatorProcess({
    EMULATOR_EGRESS_HOST_MAP: `telemetry.example.com=127.0.0.1:${telemetry.port},other.example.com=127.0.0.1:${other.port},gate.example.com=127.0.0.1:${gatePort}`,
    EMULATOR_EGRESS_CA_FILE: caFile,
  });
  client = new GoogleGenAI({ apiKey: API_KEY, httpOptions: { baseUrl: emulator.url } });
});

after(async () => {
  await emulator?.destroy();
  await telemetry?.close();
  await other?.close();
  gate?.closeAllConnections();
  gate?.close();
  fs.rmSync(caDir, { recursive: true, force: true });
});

async function egressLog(environmentId: string): Promise<Array<Record<string, any>>> {
  const response = await fetch(`${emulator.url}/emulator/environments/${environmentId}/egress`, { headers: { "x-goog-api-key": API_KEY } });
  assert.equal(response.status, 200);
  return ((await response.json()) as { entries: Array<Record<string, any>> }).entries;
}

function codeResult(steps: unknown): { result: string; is_error: boolean } {
  return (steps as Array<Record<string, any>>).find((step) => step.type === "code_execution_result") as {
    result: string;
    is_error: boolean;
  };
}

// ---- The seed's audit-logging JavaScript example, verbatim ----
// Define hook without secrets; the egress proxy injects headers dynamically
const hooksConfig = {
  "audit-logging": {
    post_tool_execution: [
      {
        matcher: "read_file|write_file",
        hooks: [
          {
            type: "http",
            url: "https://telemetry.example.com/api/v1/agent-events",
            timeout: 10,
          },
        ],
      },
    ],
  },
};

async function auditLoggingExample() {
  const interaction = await client.interactions.create({
    agent: "antigravity-preview-05-2026",
    input:
      "Use your filesystem tool to create `/workspace/audit.log` containing 'event 1', then immediately read it back using your filesystem read tool.",
    environment: {
      type: "remote",
      sources: [
        {
          type: "inline",
          target: ".agents/hooks.json",
          content: JSON.stringify(hooksConfig, null, 2),
        },
      ],
      network: {
        allowlist: [
          {
            domain: "telemetry.example.com",
            transform: {
              Authorization: "Bearer telemetry_secret_token_123",
            },
          },
          { domain: "*" },
        ],
      },
    },
  });
  console.log(interaction.output_text);
  return interaction;
}
// ---- end of the verbatim example ----

describe("the documentation's audit-logging example", () => {
  it("delivers both events, in order, with the injected token that nothing in the sandbox holds", async () => {
    const before = telemetry.requests.length;
    const interaction = await auditLoggingExample();
    assert.match(interaction.output_text ?? "", /event 1/);
    const events = telemetry.requests.slice(before);
    assert.equal(events.length, 2);
    for (const event of events) {
      assert.equal(event.method, "POST");
      assert.equal(event.url, "/api/v1/agent-events");
      assert.equal(event.headers.authorization, "Bearer telemetry_secret_token_123");
      assert.equal(event.headers["content-type"], "application/json");
    }
    assert.deepEqual(
      events.map((event) => JSON.parse(event.body)),
      [
        {
          tool_call: { name: "write_file", args: { path: "/workspace/audit.log", content: "event 1" } },
          environment_id: interaction.environment_id,
        },
        { tool_call: { name: "read_file", args: { path: "/workspace/audit.log" } }, environment_id: interaction.environment_id },
      ],
    );

    const search = await client.interactions.create({
      agent: "antigravity-preview-05-2026",
      input:
        "Run `env; grep -rl telemetry_secret_token_123 / --exclude-dir=proc --exclude-dir=sys 2>/dev/null; echo done` using code_execution.",
      environment: interaction.environment_id!,
    });
    const output = codeResult(search.steps).result;
    assert.doesNotMatch(output, /telemetry_secret_token_123/);
    assert.match(output, /HTTPS_PROXY=http:\/\/127\.0\.0\.1:3128/);

    const log = await egressLog(interaction.environment_id!);
    const posts = log.filter((entry) => entry.host === "telemetry.example.com");
    assert.ok(posts.length >= 2, JSON.stringify(log));
    for (const entry of posts) {
      assert.equal(entry.decision, "allowed");
      assert.equal(entry.intercepted, true);
      assert.deepEqual(entry.injected_header_names, ["Authorization"]);
    }
    assert.doesNotMatch(JSON.stringify(log), /telemetry_secret_token_123/);
  });
});

describe("HTTP hooks through the egress proxy", () => {
  it("deny a call when the remote gate answers 2xx with a deny, with the allowlist's header injected", async () => {
    gateRequests = [];
    const hooks = {
      "remote-gate": {
        pre_tool_execution: [
          {
            matcher: "code_execution",
            hooks: [{ type: "http", url: "https://gate.example.com/check", headers: { "X-Event-Source": "agent-sandbox" } }],
          },
        ],
      },
    };
    const interaction = await client.interactions.create({
      agent: "antigravity-preview-05-2026",
      input: "Run `echo should-not-run` using code_execution.",
      environment: {
        type: "remote",
        sources: [{ type: "inline", target: ".agents/hooks.json", content: JSON.stringify(hooks) }],
        network: { allowlist: [{ domain: "gate.example.com", transform: { Authorization: "Bearer gate-token" } }] },
      },
    });
    const result = codeResult(interaction.steps);
    assert.equal(result.is_error, true);
    assert.equal(result.result, 'Tool call denied by hook "remote-gate": the remote gate says no');
    assert.equal(gateRequests.length, 1);
    assert.equal(gateRequests[0]!.headers.authorization, "Bearer gate-token");
    assert.equal(gateRequests[0]!.headers["x-event-source"], "agent-sandbox");
    assert.deepEqual(JSON.parse(gateRequests[0]!.body), {
      tool_call: { name: "code_execution", args: { code: "echo should-not-run", language: "bash" } },
      environment_id: interaction.environment_id,
    });
  });

  it("allow (fail-open) when the allowlist does not name the hook's server, and the trace says the proxy refused", async () => {
    const hooks = {
      "remote-gate": { pre_tool_execution: [{ matcher: "*", hooks: [{ type: "http", url: "https://gate.example.com/check" }] }] },
    };
    const interaction = await client.interactions.create({
      agent: "antigravity-preview-05-2026",
      input: "Run `echo ran-anyway` using code_execution.",
      environment: {
        type: "remote",
        sources: [{ type: "inline", target: ".agents/hooks.json", content: JSON.stringify(hooks) }],
        network: { allowlist: [{ domain: "telemetry.example.com" }] },
      },
    });
    assert.equal(codeResult(interaction.steps).result, "ran-anyway\n");
    const trace = await fetch(`${emulator.url}/emulator/interactions/${interaction.id}/hooks`, { headers: { "x-goog-api-key": API_KEY } });
    const handler = ((await trace.json()) as { tool_calls: Array<Record<string, any>> }).tool_calls[0]!.pre.handlers[0];
    assert.equal(handler.decision, "allow");
    assert.equal(handler.fail_open.code, "proxy_refused");
  });
});

describe("egress from a sandbox", () => {
  it("injects a credential's token for an allowlist entry that references it", async () => {
    await client.credentials.create({ id: "telemetry-cred", type: "bearer_token", token: "from-a-credential" });
    const before = telemetry.requests.length;
    const interaction = await client.interactions.create({
      agent: "antigravity-preview-05-2026",
      input: "Run `curl -sS -X POST https://telemetry.example.com/cred -d x` using code_execution.",
      environment: { type: "remote", network: { allowlist: [{ domain: "telemetry.example.com", credential: "telemetry-cred" }] } },
    });
    assert.equal(codeResult(interaction.steps).is_error, false, codeResult(interaction.steps).result);
    const [request] = telemetry.requests.slice(before);
    assert.equal(request?.headers.authorization, "Bearer from-a-credential");
  });

  it("injects into a credential's header_name with its prefix, and an update's token, header and prefix from the next request on", async () => {
    await client.credentials.create({ id: "keyed-cred", type: "bearer_token", token: "key-one", header_name: "X-Api-Key", prefix: "" });
    const curl = (path: string) => `Run \`curl -sS -X POST https://telemetry.example.com/${path} -d x\` using code_execution.`;
    const before = telemetry.requests.length;
    const first = await client.interactions.create({
      agent: "antigravity-preview-05-2026",
      input: curl("keyed-1"),
      environment: { type: "remote", network: { allowlist: [{ domain: "telemetry.example.com", credential: "keyed-cred" }] } },
    });
    assert.equal(codeResult(first.steps).is_error, false, codeResult(first.steps).result);
    const [keyed] = telemetry.requests.slice(before);
    assert.equal(keyed?.headers["x-api-key"], "key-one", "an empty prefix: the token alone");
    assert.equal(keyed?.headers.authorization, undefined);

    await client.credentials.update("keyed-cred", {
      type: "bearer_token",
      token: "key-two",
      header_name: "PRIVATE-TOKEN",
      prefix: "Token",
    } as never);
    const second = await client.interactions.create({
      agent: "antigravity-preview-05-2026",
      input: curl("keyed-2"),
      environment: first.environment_id!,
    });
    assert.equal(codeResult(second.steps).is_error, false, codeResult(second.steps).result);
    const rotated = telemetry.requests.slice(before).find((request) => request.url === "/keyed-2");
    assert.equal(rotated?.headers["private-token"], "Token key-two");
    assert.equal(rotated?.headers["x-api-key"], undefined, "the old header is no longer injected");
  });

  it("gives an agent's interactions the network of its base environment: its allowlist's domains, with their transforms", async () => {
    await client.agents.create({
      id: "egress-agent",
      base_environment: {
        type: "remote",
        network: { allowlist: [{ domain: "telemetry.example.com", transform: { Authorization: "Bearer from-the-agent" } }] },
      },
    } as never);
    const before = telemetry.requests.length;
    const interaction = await client.interactions.create({
      agent: "egress-agent",
      input:
        'Run `curl -sS -X POST https://telemetry.example.com/agent -d x; curl -sS -o /dev/null https://other.example.com/not-listed; echo " exit=$?"` using code_execution.',
    } as never);
    const result = codeResult(interaction.steps);
    assert.match(result.result, /exit=56/, "a domain the agent's allowlist does not name is refused");
    const [request] = telemetry.requests.slice(before);
    assert.equal(request?.url, "/agent");
    assert.equal(request?.headers.authorization, "Bearer from-the-agent");
    assert.equal(
      other.requests.some((seen) => seen.url === "/not-listed"),
      false,
    );
  });

  it("refuses what the allowlist does not name, and a later interaction's network replaces the policy", async () => {
    const first = await client.interactions.create({
      agent: "antigravity-preview-05-2026",
      input: "Run `curl -sS -o /dev/null -w '%{http_code}' https://other.example.com/x; echo \" exit=$?\"` using code_execution.",
      environment: { type: "remote", network: { allowlist: [{ domain: "telemetry.example.com" }] } },
    });
    assert.match(codeResult(first.steps).result, /exit=56/);
    const log = await egressLog(first.environment_id!);
    assert.equal(log.at(-1)?.decision, "refused");
    assert.equal(log.at(-1)?.reason, "not-allowlisted");

    const second = await client.interactions.create({
      agent: "antigravity-preview-05-2026",
      // Plain HTTP: a domain without injected headers is tunnelled, and over HTTPS the sandbox would
      // meet the local test server's certificate, which only the proxy trusts.
      input: "Run `curl -sS http://other.example.com/now-allowed` using code_execution.",
      environment: { type: "remote", environment_id: first.environment_id!, network: { allowlist: [{ domain: "*.example.com" }] } },
    });
    assert.equal(codeResult(second.steps).is_error, false, codeResult(second.steps).result);
    assert.equal(other.requests.at(-1)?.url, "/now-allowed");
  });

  it("refuses everything when network is disabled", async () => {
    const interaction = await client.interactions.create({
      agent: "antigravity-preview-05-2026",
      input: "Run `curl -sS -o /dev/null -w '%{http_code}' http://telemetry.example.com/; echo` using code_execution.",
      environment: { type: "remote", network: "disabled" },
    });
    assert.match(codeResult(interaction.steps).result, /^403/);
  });

  it("gives a program that ignores the proxy variables no way out", async () => {
    const interaction = await client.interactions.create({
      agent: "antigravity-preview-05-2026",
      input: `Run \`env -u HTTP_PROXY -u HTTPS_PROXY -u http_proxy -u https_proxy -u ALL_PROXY -u all_proxy curl -sS --max-time 5 https://127.0.0.1:${telemetry.port}/direct; echo " exit=$?"\` using code_execution.`,
      environment: { type: "remote" },
    });
    assert.match(codeResult(interaction.steps).result, /exit=7/);
    assert.equal(
      telemetry.requests.some((request) => request.url === "/direct"),
      false,
    );
  });
});
