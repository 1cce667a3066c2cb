// Faults at egress (docs/faults.md#egress) against the real proxy on loopback, with a real curl through
// it: a relay stands in for the sandbox's side of the gateway (it writes the identity preamble, as the
// server does), and a recording dialer proves that an injected failure never dials anything.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, beforeEach, describe, it } from "node:test";
import { openCertificateAuthority } from "../../proxy/certificate-authority.js";
import type { EgressEntry } from "../../proxy/egress-log.js";
import { startEgressProxy, type EgressProxy } from "../../proxy/egress-proxy.js";
import type { EgressPolicy } from "../../proxy/policy.js";
import { joinToProxy } from "../../server/egress/egress-gateway.js";
import { egressFaultLookup } from "../../server/egress/egress-faults.js";
import { FaultPlan } from "../../server/faults/fault-plan.js";
import { faultRuleSchema } from "../../server/faults/fault-rules.js";
import { noDnsResolver, RecordingDialer, startEchoServer, TEST_SECRET, type EchoServer } from "../support/proxy-fixtures.js";

const OWNER = "key-egress";
const ENVIRONMENT = "env_faults";
const CONNECT_TIMEOUT_MS = 800;

type CurlResult = { code: number; stdout: string; stderr: string };

describe("egress faults through the real proxy", () => {
  let dataDir: string;
  let caFile: string;
  let echo: EchoServer;
  let proxy: EgressProxy;
  let relay: net.Server;
  let relayPort: number;
  let plan: FaultPlan;
  const dialer = new RecordingDialer();
  const entries: EgressEntry[] = [];
  const policy: EgressPolicy = {
    mode: "allowlist",
    entries: [
      { domain: "example.test", headers: {} },
      { domain: "tunnel.test", headers: {} },
      { domain: "secure.test", headers: { Authorization: "Bearer injected" } },
    ],
  };

  const curl = (args: string[]): Promise<CurlResult> =>
    new Promise((resolve) => {
      execFile(
        "curl",
        [
          "-sS",
          "--noproxy",
          "",
          "-x",
          `http://127.0.0.1:${relayPort}`,
          "-w",
          "%{http_code} %{http_connect} %{time_total}",
          "-o",
          "/dev/null",
          ...args,
        ],
        { timeout: 20_000 },
        (error, stdout, stderr) => resolve({ code: error ? ((error as { code?: number }).code ?? -1) : 0, stdout, stderr }),
      );
    });
  const addRule = (rule: unknown) => {
    const added = plan.add(OWNER, faultRuleSchema.parse(rule));
    assert.ok(added);
    return added;
  };
  const entryOf = async (predicate: (entry: EgressEntry) => boolean): Promise<EgressEntry> => {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const found = entries.find(predicate);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`no matching egress entry among ${JSON.stringify(entries)}`);
  };

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "proxy-faults-"));
    const ca = await openCertificateAuthority(path.join(dataDir, "egress-ca"));
    caFile = path.join(dataDir, "ca.pem");
    await writeFile(caFile, ca.caCertificatePem);
    echo = await startEchoServer("plain");
    plan = new FaultPlan();
    proxy = await startEgressProxy({
      secret: TEST_SECRET,
      certificateAuthority: ca,
      resolver: noDnsResolver,
      dialer,
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
      hostMap: new Map([
        ["example.test", { host: "127.0.0.1", port: echo.port }],
        ["tunnel.test", { host: "127.0.0.1", port: echo.port }],
        ["secure.test", { host: "127.0.0.1", port: echo.port }],
        ["denied.test", { host: "127.0.0.1", port: echo.port }],
      ]),
      onEgress: (entry) => entries.push(entry),
      faultFor: egressFaultLookup(plan, (environmentId) => (environmentId === ENVIRONMENT ? OWNER : null)),
    });
    const endpoint = { host: proxy.host, port: proxy.port, secret: TEST_SECRET };
    relay = net.createServer((socket) => joinToProxy(endpoint, ENVIRONMENT, policy, socket));
    await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
    relayPort = (relay.address() as net.AddressInfo).port;
  });

  beforeEach(() => {
    plan.clear(OWNER);
    entries.length = 0;
    dialer.dials.length = 0;
  });

  after(async () => {
    await new Promise<void>((resolve) => relay.close(() => resolve()));
    await proxy.close();
    await echo.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it("answers 503 after the latency, as the upstream would, dials nothing and marks the entry", async () => {
    const rule = addRule({
      target: { kind: "egress", host: "EXAMPLE.test" },
      effect: { kind: "http_status", status: 503, latency_ms: 400 },
      times: 1,
    });
    const result = await curl(["http://example.test/"]);
    const [status, , seconds] = result.stdout.split(" ");
    assert.equal(status, "503", result.stderr);
    assert.ok(Number(seconds) >= 0.4, `answered after ${seconds} s`);
    assert.deepEqual(dialer.dials, []);
    const entry = await entryOf((candidate) => candidate.host === "example.test");
    assert.deepEqual(entry.injected_fault, { rule_id: rule.id, effect: { kind: "http_status", status: 503, latency_ms: 400 } });
    assert.equal(entry.status, 503);
    assert.equal(entry.address, null);
    // "times": 1 is spent: the next request goes through for real, unmarked.
    const next = await curl(["http://example.test/"]);
    assert.equal(next.stdout.split(" ")[0], "200");
    assert.equal(dialer.dials.length, 1);
    assert.equal(entries.at(-1)?.injected_fault, null);
  });

  it("never opens a denied host: the policy refuses first, and the rule is not used up", async () => {
    const rule = addRule({ target: { kind: "egress", host: "denied.test" }, effect: { kind: "http_status", status: 418 }, times: 1 });
    const result = await curl(["http://denied.test/"]);
    assert.equal(result.stdout.split(" ")[0], "403");
    const entry = await entryOf((candidate) => candidate.host === "denied.test");
    assert.equal(entry.decision, "refused");
    assert.equal(entry.injected_fault, null);
    assert.equal(plan.list(OWNER).find((view) => view.id === rule.id)?.remaining, 1);
    assert.deepEqual(dialer.dials, []);
  });

  it("refuse gives the 502 a refused upstream gives, and reset resets the sandbox's connection", async () => {
    addRule({ target: { kind: "egress", host: "example.test" }, effect: { kind: "refuse" }, times: 1 });
    const refused = await curl(["-D", "-", "http://example.test/"]);
    assert.equal(refused.stdout.split(" ").at(-3)?.slice(-3), "502");
    const refusedEntry = await entryOf((candidate) => candidate.reason === "upstream-connect-failed");
    assert.equal(refusedEntry.status, 502);
    assert.ok(refusedEntry.injected_fault);

    addRule({ target: { kind: "egress", host: "example.test" }, effect: { kind: "reset" }, times: 1 });
    const reset = await curl(["http://example.test/"]);
    assert.notEqual(reset.code, 0);
    assert.match(reset.stderr, /reset|Empty reply|Recv failure/i);
    const resetEntry = await entryOf((candidate) => candidate.reason === "connection-reset");
    assert.equal(resetEntry.status, null);
    assert.deepEqual(dialer.dials, []);
  });

  it("timeout holds the request until the proxy's own connect deadline, then answers its 502; a client that gives up first is recorded", async () => {
    addRule({ target: { kind: "egress", host: "example.test" }, effect: { kind: "timeout" }, times: 2 });
    const waited = await curl(["http://example.test/"]);
    const [status, , seconds] = waited.stdout.split(" ");
    assert.equal(status, "502");
    assert.ok(Number(seconds) >= CONNECT_TIMEOUT_MS / 1000, `answered after ${seconds} s`);
    await entryOf((candidate) => candidate.reason === "upstream-timeout");

    const impatient = await curl(["--max-time", "0.3", "http://example.test/"]);
    assert.equal(impatient.code, 28, impatient.stderr);
    const gaveUp = await entryOf((candidate) => candidate.reason === "client-closed");
    assert.ok(gaveUp.injected_fault);
    assert.deepEqual(dialer.dials, []);
  });

  it("latency delays, then the request goes through for real, marked", async () => {
    addRule({ target: { kind: "egress", host: "example.test" }, effect: { kind: "latency", ms: 300 }, times: 1 });
    const result = await curl(["http://example.test/"]);
    const [status, , seconds] = result.stdout.split(" ");
    assert.equal(status, "200");
    assert.ok(Number(seconds) >= 0.3);
    const entry = await entryOf((candidate) => candidate.host === "example.test" && candidate.status === 200);
    assert.equal(entry.injected_fault?.effect.kind, "latency");
    assert.equal(dialer.dials.length, 1);
  });

  it("a byte tunnel gets the status as the CONNECT's answer; an intercepted one inside TLS", async () => {
    addRule({ target: { kind: "egress", host: "tunnel.test" }, effect: { kind: "http_status", status: 503 }, times: 1 });
    const tunnel = await curl(["https://tunnel.test/"]);
    assert.notEqual(tunnel.code, 0);
    assert.equal(tunnel.stdout.split(" ")[1], "503");
    const tunnelEntry = await entryOf((candidate) => candidate.method === "CONNECT" && candidate.host === "tunnel.test");
    assert.equal(tunnelEntry.status, 503);
    assert.ok(tunnelEntry.injected_fault);

    addRule({ target: { kind: "egress", host: "secure.test" }, effect: { kind: "http_status", status: 429 }, times: 1 });
    const secure = await curl(["--cacert", caFile, "https://secure.test/"]);
    assert.equal(secure.stdout.split(" ")[0], "429", secure.stderr);
    const innerEntry = await entryOf((candidate) => candidate.method === "GET" && candidate.host === "secure.test");
    assert.equal(innerEntry.intercepted, true);
    assert.ok(innerEntry.injected_fault);
    assert.deepEqual(dialer.dials, []);
  });
});
