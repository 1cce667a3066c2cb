// The egress proxy end to end on loopback: connections made as the server makes them (preamble, then
// the sandbox's bytes), upstream HTTP and HTTPS servers on 127.0.0.1 reached through a host map, as
// EMULATOR_EGRESS_HOST_MAP does in a real deployment.

import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { openCertificateAuthority, type CertificateAuthority } from "../../proxy/certificate-authority.js";
import type { EgressEntry } from "../../proxy/egress-log.js";
import { startEgressProxy, type EgressProxy } from "../../proxy/egress-proxy.js";
import type { EgressPolicy } from "../../proxy/policy.js";
import {
  createTestPki,
  noDnsResolver,
  openProxyConnection,
  preambleFor,
  proxyConnect,
  proxyRequest,
  requestInTunnel,
  requestWithAgent,
  SingleConnectionAgent,
  startClientTls,
  startEchoServer,
  TEST_SECRET,
  type Echo,
  type EchoServer,
} from "../support/proxy-fixtures.js";

const SECRET_VALUE = "Bearer injected-secret-value-42";
const SANDBOX_VALUE = "Bearer sandbox-sent-value-17";

describe("egress proxy on loopback", () => {
  let dataDir: string;
  let ca: CertificateAuthority;
  let plain: EchoServer;
  let other: EchoServer;
  let secure: EchoServer;
  let tunnelled: EchoServer;
  let untrusted: EchoServer;
  let upstreamPki: ReturnType<typeof createTestPki>;
  let proxy: EgressProxy;
  const entries: EgressEntry[] = [];

  const policy = (entriesList: Array<{ domain: string; headers?: Record<string, string> }>): EgressPolicy => ({
    mode: "allowlist",
    entries: entriesList.map((entry) => ({ domain: entry.domain, headers: entry.headers ?? {} })),
  });
  const standardPolicy = policy([
    { domain: "plain.example" },
    { domain: "auth.example", headers: { Authorization: SECRET_VALUE } },
    { domain: "*.wild.example" },
    { domain: "secure.example", headers: { Authorization: SECRET_VALUE, "X-Extra": "1" } },
    { domain: "tunnel.example" },
    { domain: "untrusted.example", headers: { Authorization: SECRET_VALUE } },
    { domain: "timing.example", headers: { Authorization: SECRET_VALUE } },
  ]);
  const waitForEntry = async (predicate: (entry: EgressEntry) => boolean): Promise<EgressEntry> => {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const found = entries.find(predicate);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`no matching egress entry among ${JSON.stringify(entries)}`);
  };
  const echoOf = (body: string): Echo => JSON.parse(body) as Echo;

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "proxy-egress-"));
    ca = await openCertificateAuthority(path.join(dataDir, "egress-ca"));
    upstreamPki = createTestPki("upstream");
    const strangerPki = createTestPki("stranger");
    plain = await startEchoServer("plain");
    other = await startEchoServer("other");
    secure = await startEchoServer("secure", upstreamPki.issue(["secure.example", "timing.example"]));
    tunnelled = await startEchoServer("tunnelled", upstreamPki.issue(["tunnel.example"]));
    untrusted = await startEchoServer("untrusted", strangerPki.issue(["untrusted.example"]));
    const local = (port: number) => ({ host: "127.0.0.1", port });
    proxy = await startEgressProxy({
      secret: TEST_SECRET,
      certificateAuthority: ca,
      resolver: noDnsResolver,
      hostMap: new Map([
        ["plain.example", local(plain.port)],
        ["auth.example", local(plain.port)],
        ["a.wild.example", local(plain.port)],
        ["deep.a.wild.example", local(plain.port)],
        ["wild.example", local(plain.port)],
        ["evil.example", local(other.port)],
        ["open.example", local(plain.port)],
        ["secure.example", local(secure.port)],
        ["timing.example", local(secure.port)],
        ["tunnel.example", local(tunnelled.port)],
        ["untrusted.example", local(untrusted.port)],
      ]),
      trustedUpstreamCas: [upstreamPki.caPem],
      onEgress: (entry) => entries.push(entry),
    });
  });

  after(async () => {
    await proxy.close();
    await Promise.all([plain, other, secure, tunnelled, untrusted].map((server) => server.close()));
    await rm(dataDir, { recursive: true, force: true });
  });

  describe("the allowlist", () => {
    it("forwards a request to an allowlisted domain", async () => {
      const response = await proxyRequest(proxy.port, preambleFor(standardPolicy), { url: "http://plain.example/hello?x=1" });
      assert.equal(response.status, 200);
      const echo = echoOf(response.body);
      assert.equal(echo.server, "plain");
      assert.equal(echo.url, "/hello?x=1");
      assert.equal(echo.headers.host, "plain.example");
    });

    it("forwards subdomains of a *.suffix entry, at any depth", async () => {
      for (const host of ["a.wild.example", "deep.a.wild.example"]) {
        const response = await proxyRequest(proxy.port, preambleFor(standardPolicy), { url: `http://${host}/` });
        assert.equal(response.status, 200, host);
      }
    });

    it("refuses the bare domain of a *.suffix entry with 403 not-allowlisted", async () => {
      const response = await proxyRequest(proxy.port, preambleFor(standardPolicy), { url: "http://wild.example/" });
      assert.equal(response.status, 403);
      assert.equal(response.headers["x-proxy-error"], "not-allowlisted");
      assert.match(response.body, /not-allowlisted/);
      assert.equal(plain.requests.filter((echo) => echo.headers.host === "wild.example").length, 0);
    });

    it("refuses a domain outside the allowlist", async () => {
      const response = await proxyRequest(proxy.port, preambleFor(standardPolicy), { url: "http://evil.example/" });
      assert.equal(response.status, 403);
      assert.equal(response.headers["x-proxy-error"], "not-allowlisted");
      assert.equal(other.requests.length, 0);
    });

    it("refuses everything when egress is disabled", async () => {
      const response = await proxyRequest(proxy.port, preambleFor({ mode: "disabled" }), { url: "http://plain.example/" });
      assert.equal(response.status, 403);
      assert.equal(response.headers["x-proxy-error"], "egress-disabled");
      const connect = await proxyConnect(proxy.port, preambleFor({ mode: "disabled" }), "secure.example:443");
      assert.equal(connect.status, 403);
      assert.equal(connect.headers["x-proxy-error"], "egress-disabled");
      connect.socket.destroy();
    });

    it("allows any public destination in open mode, without injecting anything", async () => {
      const response = await proxyRequest(proxy.port, preambleFor({ mode: "open" }), {
        url: "http://open.example/",
        headers: { authorization: SANDBOX_VALUE },
      });
      assert.equal(response.status, 200);
      assert.equal(echoOf(response.body).headers.authorization, SANDBOX_VALUE);
    });

    it("refuses CONNECT to a domain outside the allowlist, in the CONNECT response", async () => {
      const connect = await proxyConnect(proxy.port, preambleFor(standardPolicy), "evil.example:443");
      assert.equal(connect.status, 403);
      assert.equal(connect.headers["x-proxy-error"], "not-allowlisted");
      assert.match(connect.body, /evil\.example/);
      connect.socket.destroy();
    });
  });

  describe("header injection", () => {
    it("injects the entry's headers over HTTP, replacing a sandbox-sent value whatever its case", async () => {
      const response = await proxyRequest(proxy.port, preambleFor(standardPolicy), {
        url: "http://auth.example/api",
        headers: { AUTHORIZATION: SANDBOX_VALUE },
      });
      assert.equal(response.status, 200);
      const echo = echoOf(response.body);
      assert.equal(echo.headers.authorization, SECRET_VALUE);
      assert.doesNotMatch(response.body, /sandbox-sent-value/);
    });

    it("injects over HTTPS by intercepting TLS with a certificate from the emulator's CA", async () => {
      const connect = await proxyConnect(proxy.port, preambleFor(standardPolicy), "secure.example:443");
      assert.equal(connect.status, 200);
      const client = await startClientTls(connect.socket, "secure.example", [ca.caCertificatePem]);
      assert.match(client.issuer, /Egress CA/);
      assert.equal(client.subjectAltName, "DNS:secure.example");
      const response = await requestInTunnel(client.secure, {
        path: "/v1/things",
        host: "secure.example",
        headers: { authorization: SANDBOX_VALUE, "x-extra": "sandbox" },
      });
      client.secure.destroy();
      assert.equal(response.status, 200);
      const echo = echoOf(response.body);
      assert.equal(echo.server, "secure");
      assert.equal(echo.url, "/v1/things");
      assert.equal(echo.headers.authorization, SECRET_VALUE);
      assert.equal(echo.headers["x-extra"], "1");
    });

    it("serves several requests on one intercepted tunnel", async () => {
      const connect = await proxyConnect(proxy.port, preambleFor(standardPolicy), "secure.example:443");
      const client = await startClientTls(connect.socket, "secure.example", [ca.caCertificatePem]);
      for (const pathName of ["/one", "/two", "/three"]) {
        const response = await requestInTunnel(client.secure, { path: pathName, host: "secure.example" });
        assert.equal(echoOf(response.body).url, pathName);
      }
      client.secure.destroy();
    });

    it("injects into plain HTTP carried by a CONNECT tunnel (as undici's ProxyAgent sends http://)", async () => {
      const connect = await proxyConnect(proxy.port, preambleFor(standardPolicy), "auth.example:80");
      assert.equal(connect.status, 200);
      const first = await requestInTunnel(connect.socket, {
        path: "/plain-in-tunnel",
        host: "spoofed.example",
        headers: { authorization: SANDBOX_VALUE },
      });
      const second = await requestInTunnel(connect.socket, { path: "/again", host: "auth.example" });
      connect.socket.destroy();
      assert.equal(echoOf(first.body).server, "plain");
      assert.equal(echoOf(first.body).url, "/plain-in-tunnel");
      assert.equal(echoOf(first.body).headers.host, "auth.example");
      assert.equal(echoOf(first.body).headers.authorization, SECRET_VALUE);
      assert.equal(echoOf(second.body).headers.authorization, SECRET_VALUE);
    });

    it("injects into `GET https://…` sent to the proxy as an absolute URI", async () => {
      const response = await proxyRequest(proxy.port, preambleFor(standardPolicy), { url: "https://secure.example/direct" });
      assert.equal(response.status, 200);
      const echo = echoOf(response.body);
      assert.equal(echo.server, "secure");
      assert.equal(echo.headers.authorization, SECRET_VALUE);
    });
  });

  describe("tunnelling without interception", () => {
    it("tunnels a domain without headers: the sandbox sees the upstream's own certificate", async () => {
      const connect = await proxyConnect(proxy.port, preambleFor(standardPolicy), "tunnel.example:443");
      assert.equal(connect.status, 200);
      const client = await startClientTls(connect.socket, "tunnel.example", [upstreamPki.caPem]);
      assert.equal(client.issuer, "upstream test CA");
      const response = await requestInTunnel(client.secure, {
        path: "/t",
        host: "tunnel.example",
        headers: { authorization: SANDBOX_VALUE },
      });
      client.secure.destroy();
      assert.equal(echoOf(response.body).server, "tunnelled");
      assert.equal(echoOf(response.body).headers.authorization, SANDBOX_VALUE);
    });

    it("does not offer the emulator's certificate on a tunnelled domain", async () => {
      const connect = await proxyConnect(proxy.port, preambleFor(standardPolicy), "tunnel.example:443");
      await assert.rejects(startClientTls(connect.socket, "tunnel.example", [ca.caCertificatePem]));
      connect.socket.destroy();
    });
  });

  describe("the destination is the URI or the CONNECT target, never the Host header", () => {
    it("sends an absolute URI with a spoofed Host header to the URI's upstream, with the URI's Host", async () => {
      const response = await proxyRequest(proxy.port, preambleFor(standardPolicy), {
        url: "http://plain.example/spoof",
        headers: { host: "evil.example" },
      });
      assert.equal(response.status, 200);
      const echo = echoOf(response.body);
      assert.equal(echo.server, "plain");
      assert.equal(echo.headers.host, "plain.example");
      assert.equal(other.requests.length, 0);
    });

    it("refuses an absolute URI to a refused host even with an allowed Host header", async () => {
      const response = await proxyRequest(proxy.port, preambleFor(standardPolicy), {
        url: "http://evil.example/",
        headers: { host: "plain.example" },
      });
      assert.equal(response.status, 403);
      assert.equal(other.requests.length, 0);
    });

    it("sends requests inside an intercepted tunnel to the CONNECT target, whatever their Host or URI", async () => {
      const connect = await proxyConnect(proxy.port, preambleFor(standardPolicy), "secure.example:443");
      const client = await startClientTls(connect.socket, "secure.example", [ca.caCertificatePem]);
      const response = await requestInTunnel(client.secure, { path: "http://evil.example/inner", host: "evil.example" });
      client.secure.destroy();
      const echo = echoOf(response.body);
      assert.equal(echo.server, "secure");
      assert.equal(echo.url, "/inner");
      assert.equal(echo.headers.host, "secure.example");
      assert.equal(other.requests.length, 0);
    });
  });

  describe("forwarding", () => {
    it("serves several requests on one keep-alive connection, deciding each on its own", async () => {
      const socket = await openProxyConnection(proxy.port, preambleFor(standardPolicy));
      const agent = new SingleConnectionAgent(socket);
      const first = await requestWithAgent(agent, { url: "http://plain.example/1" });
      const refused = await requestWithAgent(agent, { url: "http://evil.example/2" });
      const third = await requestWithAgent(agent, { url: "http://a.wild.example/3" });
      agent.destroy();
      socket.destroy();
      assert.deepEqual([first.status, refused.status, third.status], [200, 403, 200]);
      assert.equal(echoOf(third.body).url, "/3");
    });

    it("forwards bodies, and the path byte for byte", async () => {
      const response = await proxyRequest(proxy.port, preambleFor(standardPolicy), {
        url: "http://plain.example//a//b/%2e%2e/c?q=a%20b&r=//x",
        method: "POST",
        headers: { "content-type": "text/plain" },
        body: "hello upstream",
      });
      const echo = echoOf(response.body);
      assert.equal(echo.method, "POST");
      assert.equal(echo.url, "//a//b/%2e%2e/c?q=a%20b&r=//x");
      assert.equal(echo.body, "hello upstream");
    });

    it("removes hop-by-hop and proxy headers", async () => {
      const response = await proxyRequest(proxy.port, preambleFor(standardPolicy), {
        url: "http://plain.example/h",
        headers: {
          "proxy-authorization": "Basic c2VjcmV0",
          "proxy-connection": "keep-alive",
          connection: "x-private, keep-alive",
          "x-private": "1",
          "x-kept": "yes",
        },
      });
      const echo = echoOf(response.body);
      assert.equal(echo.headers["proxy-authorization"], undefined);
      assert.equal(echo.headers["proxy-connection"], undefined);
      assert.equal(echo.headers["x-private"], undefined);
      assert.equal(echo.headers["x-kept"], "yes");
    });

    it("answers 400 to a request that is not an absolute URI", async () => {
      const response = await proxyRequest(proxy.port, preambleFor(standardPolicy), { url: "/relative" });
      assert.equal(response.status, 400);
      assert.equal(response.headers["x-proxy-error"], "invalid-request");
    });
  });

  describe("upstream failures", () => {
    it("answers 502 upstream-tls-failed when the upstream certificate is not trusted", async () => {
      const connect = await proxyConnect(proxy.port, preambleFor(standardPolicy), "untrusted.example:443");
      const client = await startClientTls(connect.socket, "untrusted.example", [ca.caCertificatePem]);
      const response = await requestInTunnel(client.secure, { path: "/", host: "untrusted.example" });
      client.secure.destroy();
      assert.equal(response.status, 502);
      assert.equal(response.headers["x-proxy-error"], "upstream-tls-failed");
      assert.equal(untrusted.requests.length, 0);
    });

    it("answers 502 upstream-tls-failed to `GET https://` with an untrusted upstream", async () => {
      const response = await proxyRequest(proxy.port, preambleFor(standardPolicy), { url: "https://untrusted.example/" });
      assert.equal(response.status, 502);
      assert.equal(response.headers["x-proxy-error"], "upstream-tls-failed");
    });

    it("answers 502 upstream-connect-failed when nothing listens", async () => {
      const closed = await startEchoServer("closed");
      await closed.close();
      const lonely = await startEgressProxy({
        secret: TEST_SECRET,
        certificateAuthority: ca,
        resolver: noDnsResolver,
        hostMap: new Map([["gone.example", { host: "127.0.0.1", port: closed.port }]]),
      });
      try {
        const response = await proxyRequest(lonely.port, preambleFor({ mode: "open" }), { url: "http://gone.example/" });
        assert.equal(response.status, 502);
        assert.equal(response.headers["x-proxy-error"], "upstream-connect-failed");
        const connect = await proxyConnect(lonely.port, preambleFor({ mode: "open" }), "gone.example:443");
        assert.equal(connect.status, 502);
        assert.equal(connect.headers["x-proxy-error"], "upstream-connect-failed");
        connect.socket.destroy();
      } finally {
        await lonely.close();
      }
    });
  });

  describe("cost of interception", () => {
    it("mints a certificate on the first connection to a host and reuses it after", async (t) => {
      const interceptOnce = async () => {
        const start = performance.now();
        const connect = await proxyConnect(proxy.port, preambleFor(standardPolicy), "timing.example:443");
        const client = await startClientTls(connect.socket, "timing.example", [ca.caCertificatePem]);
        const handshakeMs = performance.now() - start;
        const response = await requestInTunnel(client.secure, { path: "/", host: "timing.example" });
        const totalMs = performance.now() - start;
        client.secure.destroy();
        assert.equal(response.status, 200);
        return { handshakeMs, totalMs };
      };
      const first = await interceptOnce();
      const cached = [await interceptOnce(), await interceptOnce(), await interceptOnce()];
      const best = Math.min(...cached.map((run) => run.totalMs));
      t.diagnostic(
        `CONNECT + TLS to the proxy + first request: new host ${first.handshakeMs.toFixed(1)} + ${(first.totalMs - first.handshakeMs).toFixed(1)} ms, ` +
          `cached certificate ${cached.map((run) => run.totalMs.toFixed(1)).join(" / ")} ms`,
      );
      assert.ok(best < 1000);
    });
  });

  describe("the egress log", () => {
    it("records a CONNECT whose client refused the emulator's certificate as client-tls-failed", async () => {
      const environment = "env_untrusting";
      const connect = await proxyConnect(proxy.port, preambleFor(standardPolicy, environment), "secure.example:443");
      await assert.rejects(startClientTls(connect.socket, "secure.example", [upstreamPki.caPem]));
      connect.socket.destroy();
      const entry = await waitForEntry((candidate) => candidate.environment_id === environment);
      assert.equal(entry.reason, "client-tls-failed");
      assert.equal(entry.intercepted, true);
      assert.equal(secure.requests.filter((echo) => echo.url === "/never").length, 0);
    });

    it("records allowed, refused and intercepted attempts, with header names and never values", async () => {
      const environment = "env_logged";
      await proxyRequest(proxy.port, preambleFor(standardPolicy, environment), {
        url: "http://auth.example/log",
        method: "POST",
        body: "12345",
        headers: { authorization: SANDBOX_VALUE },
      });
      await proxyRequest(proxy.port, preambleFor(standardPolicy, environment), { url: "http://evil.example/log" });
      const connect = await proxyConnect(proxy.port, preambleFor(standardPolicy, environment), "secure.example:443");
      const client = await startClientTls(connect.socket, "secure.example", [ca.caCertificatePem]);
      await requestInTunnel(client.secure, { path: "/logged", host: "secure.example", headers: { authorization: SANDBOX_VALUE } });
      client.secure.destroy();

      const allowed = await waitForEntry((entry) => entry.environment_id === environment && entry.host === "auth.example");
      assert.equal(allowed.decision, "allowed");
      assert.equal(allowed.method, "POST");
      assert.equal(allowed.port, 80);
      assert.equal(allowed.status, 200);
      assert.equal(allowed.rule, "auth.example");
      assert.equal(allowed.reason, null);
      assert.equal(allowed.bytes_up, 5);
      assert.ok(allowed.bytes_down > 0);
      assert.equal(allowed.intercepted, false);
      assert.deepEqual(allowed.injected_header_names, ["Authorization"]);
      assert.equal(allowed.address, "127.0.0.1");
      assert.match(allowed.time, /^\d{4}-\d\d-\d\dT/);

      const refused = await waitForEntry((entry) => entry.environment_id === environment && entry.host === "evil.example");
      assert.equal(refused.decision, "refused");
      assert.equal(refused.reason, "not-allowlisted");
      assert.equal(refused.status, 403);
      assert.equal(refused.address, null);

      const inner = await waitForEntry(
        (entry) => entry.environment_id === environment && entry.host === "secure.example" && entry.method === "GET",
      );
      assert.equal(inner.intercepted, true);
      assert.equal(inner.port, 443);
      assert.deepEqual(inner.injected_header_names, ["Authorization", "X-Extra"]);
      const tunnel = await waitForEntry((entry) => entry.environment_id === environment && entry.method === "CONNECT");
      assert.equal(tunnel.intercepted, true);
      assert.equal(tunnel.status, 200);
      assert.ok(tunnel.bytes_up > 0 && tunnel.bytes_down > 0);

      const everything = JSON.stringify(entries);
      assert.doesNotMatch(everything, /injected-secret-value/);
      assert.doesNotMatch(everything, /sandbox-sent-value/);
    });

    it("records a plain tunnel with its byte counts when it closes", async () => {
      const environment = "env_tunnel_log";
      const connect = await proxyConnect(proxy.port, preambleFor(standardPolicy, environment), "tunnel.example:443");
      const client = await startClientTls(connect.socket, "tunnel.example", [upstreamPki.caPem]);
      await requestInTunnel(client.secure, { path: "/", host: "tunnel.example" });
      client.secure.destroy();
      const entry = await waitForEntry((candidate) => candidate.environment_id === environment);
      assert.equal(entry.method, "CONNECT");
      assert.equal(entry.intercepted, false);
      assert.equal(entry.status, 200);
      assert.equal(entry.rule, "tunnel.example");
      assert.ok(entry.bytes_up > 0 && entry.bytes_down > 0);
      assert.deepEqual(entry.injected_header_names, []);
    });
  });
});
