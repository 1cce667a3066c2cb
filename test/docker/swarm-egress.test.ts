// Egress with header injection under Swarm, end to end (issue 32): deploy/swarm.yml on the three-node
// test swarm (test/support/swarm-stack.ts), the sandboxes on the two workers only, driven through the
// official SDK. A sandbox's only way out is its loopback proxy, whose connections travel over the
// channel (TCP on the overlay) to the egress proxy inside the emulator's task on the manager; from
// there the request goes to this test's own servers, listening on the cluster's host route
// (198.18.0.254, the root namespace's end of a veth into the cluster's hub; nothing else). A stack
// override adds what an operator with local test servers would: EMULATOR_EGRESS_HOST_MAP (the names to
// that address) and EMULATOR_EGRESS_CA_FILE (the HTTPS server's CA, as a Swarm config).
// Everything goes with the cluster's down(); the servers close in after().

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import Docker from "dockerode";
import { stackImages, type StackImages } from "../../tools/save-images.js";
import { createTestPki, startEchoServer, type EchoServer } from "../support/proxy-fixtures.js";
import { type SwarmCluster, swarmUnavailable, up } from "../support/swarm-cluster.js";
import { HOST_ADDRESS } from "../support/swarm-layout.js";
import { deployStack, STACK_API } from "../support/swarm-stack.js";

const KEY = "egress-key";
const INSTANCE = "egresstest";
const AGENT = "antigravity-preview-05-2026";
/** The credential's token: injected by the proxy on the manager, never in a sandbox. */
const SECRET = "egress-secret-under-swarm-5150";
/** An environment_variable credential's value: the sandbox's variable holds a placeholder the proxy replaces. */
const VARIABLE_SECRET = "egress-variable-under-swarm-6160";
/** Both assembled in the sandbox's shell, so the command that searches for them does not hold them. */
const SECRETS_IN_SHELL = `S=egress-secret-; S="$S"under-swarm-5150; V=egress-variable-; V="$V"under-swarm-6160`;
const PLAIN_HOST = "api.egress.test";
const TLS_HOST = "secure.egress.test";
/** Mapped to the plain server too: only the allowlist keeps the sandbox from it. */
const UNLISTED_HOST = "elsewhere.egress.test";
/** Both images on three nodes and the tasks' layers. */
const CLUSTER_MEMORY_MB = 6144;

const script = (calls: unknown[]): string => `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``;

describe("egress with header injection from sandboxes on a swarm's worker nodes", { skip: swarmUnavailable() }, () => {
  let images: StackImages;
  let cluster: SwarmCluster;
  let manager: Docker;
  let plain: EchoServer;
  let secure: EchoServer;
  let ai: GoogleGenAI;
  let environmentId: string;
  let scratch: string | undefined;

  before(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "iemu-swarm-egress-"));
    images = await stackImages(new Docker(), () => undefined);
    cluster = await up({
      images: [images.EMULATOR_IMAGE, images.SANDBOX_IMAGE],
      hostRoute: true,
      sandboxNodes: "workers",
      memoryMb: CLUSTER_MEMORY_MB,
    });
    manager = new Docker({ socketPath: cluster.managerSocket });
    // HOST_ADDRESS exists only while the cluster's host route does.
    const pki = createTestPki("swarm-egress");
    plain = await startEchoServer("plain", undefined, HOST_ADDRESS);
    secure = await startEchoServer("secure", pki.issue([TLS_HOST]), HOST_ADDRESS);
    const caFile = path.join(scratch, "upstream-ca.pem");
    fs.writeFileSync(caFile, pki.caPem);
    const caTarget = "/run/iemu-upstream-ca.pem";
    // A compose file is YAML, and JSON is YAML.
    const override = path.join(scratch, "egress-override.yml");
    fs.writeFileSync(
      override,
      JSON.stringify({
        version: "3.8",
        services: {
          emulator: {
            environment: {
              EMULATOR_EGRESS_HOST_MAP: [
                `${PLAIN_HOST}=${HOST_ADDRESS}:${plain.port}`,
                `${UNLISTED_HOST}=${HOST_ADDRESS}:${plain.port}`,
                `${TLS_HOST}=${HOST_ADDRESS}:${secure.port}`,
              ].join(","),
              EMULATOR_EGRESS_CA_FILE: caTarget,
            },
            configs: [{ source: "upstream-ca", target: caTarget, mode: 0o444 }],
          },
        },
        configs: { "upstream-ca": { file: caFile } },
      }),
    );
    await deployStack(cluster, { images, apiKeys: KEY, instance: INSTANCE, overrides: [override] });
    ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: STACK_API } });
  });

  after(async () => {
    await Promise.all([plain, secure].map((server) => server?.close()));
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
    await cluster?.down();
  });

  const run = async (code: string): Promise<string> => {
    const interaction = (await ai.interactions.create({
      agent: AGENT,
      input: script([{ name: "code_execution", args: { code, language: "bash" } }]),
      environment: environmentId,
    })) as { steps?: Array<{ type: string; result?: string; is_error?: boolean }> };
    const result = interaction.steps?.find((step) => step.type === "code_execution_result");
    assert.ok(result, `no code_execution_result step: ${JSON.stringify(interaction)}`);
    assert.equal(result.is_error, false, result.result);
    return result.result ?? "";
  };

  it("injects the credential's header into HTTP and HTTPS requests from a sandbox on a worker; the sandbox never holds the secret", async () => {
    await ai.credentials.create({ id: "egress-token", type: "bearer_token", token: SECRET } as never);
    await ai.credentials.create({
      id: "egress-variable",
      type: "environment_variable",
      value: VARIABLE_SECRET,
      trusted_domains: [PLAIN_HOST],
      injection_location: ["header"],
    } as never);
    const environment = (await ai.environments.create({
      env: { API_TOKEN: { credential: "egress-variable" } },
      network: {
        allowlist: [
          { domain: PLAIN_HOST, credential: "egress-token" },
          { domain: TLS_HOST, credential: "egress-token" },
          // An address the sandbox may name, but the address guard refuses (below).
          { domain: HOST_ADDRESS },
        ],
      },
    } as never)) as { id: string };
    environmentId = environment.id;

    const services = (await manager.listServices({
      filters: { label: [`dev.interactions-emulator.environment=${environmentId}`] },
    })) as Array<{ ID: string }>;
    assert.equal(services.length, 1, "one Swarm service holds the environment");
    const [task] = (await manager.listTasks({ filters: { service: [services[0]!.ID], "desired-state": ["running"] } })) as Array<{
      NodeID: string;
      Status: { ContainerStatus: { ContainerID: string } };
    }>;
    const node = (await manager.getNode(task!.NodeID).inspect()) as { Description: { Hostname: string }; Spec: { Role: string } };
    assert.equal(node.Spec.Role, "worker", "the sandbox runs on another node than the emulator (its proxy)");
    // The service's spec is the swarm's (every manager's raft log); the container is the worker's.
    const worker = cluster.nodes.find((candidate) => candidate.name === node.Description.Hostname)!;
    const container = await new Docker({ socketPath: worker.socket }).getContainer(task!.Status.ContainerStatus.ContainerID).inspect();
    const spec = JSON.stringify(await manager.getService(services[0]!.ID).inspect());
    for (const secret of [SECRET, VARIABLE_SECRET]) {
      assert.doesNotMatch(spec, new RegExp(secret), "the sandbox's service spec holds no secret");
      assert.doesNotMatch(JSON.stringify(container), new RegExp(secret), "the sandbox's container holds no secret");
    }

    const output = await run(
      [
        `curl -sS -o /dev/null -w 'plain %{http_code}\\n' -H 'Authorization: Bearer from-the-sandbox' -H "X-Api-Token: $API_TOKEN" http://${PLAIN_HOST}/plain`,
        // Verified against the emulator's CA (a Swarm config in the sandbox): no -k.
        `curl -sS -o /dev/null -w 'tls %{http_code}\\n' https://${TLS_HOST}/tls`,
        'echo "held $API_TOKEN"',
        SECRETS_IN_SHELL,
        'echo "env $(env | grep -cF -e "$S" -e "$V")"',
        'grep -rlF -e "$S" -e "$V" / --exclude-dir=proc --exclude-dir=sys 2>/dev/null; echo searched',
      ].join("; "),
    );
    assert.match(
      output,
      /^plain 200\ntls 200\nheld emulator-credential-placeholder-[0-9a-f]{48}\nenv 0\nsearched\n$/,
      "both requests answered; the variable holds a placeholder; nothing in the sandbox holds a secret",
    );

    assert.deepEqual(
      plain.requests.map((request) => [request.url, request.headers.authorization, request.headers["x-api-token"]]),
      [["/plain", `Bearer ${SECRET}`, VARIABLE_SECRET]],
      "HTTP: the credential's header in place of the sandbox's own, the variable's placeholder replaced",
    );
    assert.deepEqual(
      secure.requests.map((request) => [request.url, request.headers.authorization]),
      [["/tls", `Bearer ${SECRET}`]],
      "HTTPS: intercepted with the emulator's CA, the header injected, the upstream verified with EMULATOR_EGRESS_CA_FILE",
    );

    const response = await fetch(`${STACK_API}/emulator/environments/${environmentId}/egress`, { headers: { "x-goog-api-key": KEY } });
    assert.equal(response.status, 200);
    const log = (await response.json()) as {
      entries: Array<{ host: string; intercepted: boolean; injected_header_names: string[]; substituted: unknown[] }>;
    };
    const entry = (host: string) => log.entries.find((candidate) => candidate.host === host);
    assert.deepEqual(entry(PLAIN_HOST)?.injected_header_names, ["Authorization"]);
    assert.deepEqual(entry(PLAIN_HOST)?.substituted, [{ name: "API_TOKEN", location: "header" }]);
    assert.equal(entry(TLS_HOST)?.intercepted, true);
    assert.doesNotMatch(JSON.stringify(log), new RegExp(`${SECRET}|${VARIABLE_SECRET}`));
  });

  it("refuses a host not on the allowlist, and an allowlisted address the address guard refuses, with the proxy's answers", async () => {
    const output = await run(
      [
        `curl -sS -o /dev/null -D - http://${UNLISTED_HOST}/unlisted | tr -d '\\r' | grep -iE '^(HTTP/|x-proxy-error)'`,
        `curl -sS -o /dev/null -w 'connect %{http_connect}\\n' https://${UNLISTED_HOST}/unlisted-tls 2>/dev/null`,
        `curl -sS -o /dev/null -D - http://${HOST_ADDRESS}:${plain.port}/by-address | tr -d '\\r' | grep -iE '^(HTTP/|x-proxy-error)'`,
      ].join("; "),
    );
    assert.equal(
      output,
      [
        "HTTP/1.1 403 Forbidden",
        "x-proxy-error: not-allowlisted",
        "connect 403",
        "HTTP/1.1 403 Forbidden",
        "x-proxy-error: blocked-address:reserved",
        "",
      ].join("\n"),
    );
    assert.deepEqual(
      plain.requests.map((request) => request.url),
      ["/plain"],
      "nothing refused reached the server",
    );
  });
});
