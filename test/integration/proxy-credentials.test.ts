// The egress proxy's use of credentials beyond static headers, on loopback: placeholders of
// environment_variable credentials replaced on the wire (only for trusted hosts, only where the
// credential says), and OAuth2 access tokens got with the refresh grant from a fake token endpoint,
// cached until they expire on the owner's clock. Upstreams and the token endpoint are local servers
// reached through the host map, as EMULATOR_EGRESS_HOST_MAP does.

import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import type net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import { openCertificateAuthority, type CertificateAuthority } from "../../proxy/certificate-authority.js";
import type { EgressEntry } from "../../proxy/egress-log.js";
import { startEgressProxy, type EgressProxy } from "../../proxy/egress-proxy.js";
import type { EgressPolicy, OAuth2Grant, Substitution } from "../../proxy/policy.js";
import {
  createTestPki,
  noDnsResolver,
  openProxyConnection,
  preambleFor,
  proxyConnect,
  proxyRequest,
  requestInTunnel,
  startClientTls,
  startEchoServer,
  TEST_SECRET,
  type Echo,
  type EchoServer,
} from "../support/proxy-fixtures.js";

const PLACEHOLDER = "emulator-credential-placeholder-0123456789abcdef0123456789abcdef01234567";
const SECRET = 'xoxb-secret/with+chars&="quote"';
const MAX_BODY = 4096;

type TokenCall = { body: URLSearchParams; headers: http.IncomingHttpHeaders };

describe("egress proxy credentials", () => {
  let dataDir: string;
  let ca: CertificateAuthority;
  let trusted: EchoServer;
  let elsewhere: EchoServer;
  let secure: EchoServer;
  let tokenServer: http.Server;
  let proxy: EgressProxy;
  const tokenCalls: TokenCall[] = [];
  let tokenAnswer: (call: number) => { status: number; body: string } = (call) => ({
    status: 200,
    body: JSON.stringify({ access_token: `access-${call}`, token_type: "Bearer", expires_in: 3600 }),
  });
  const entries: EgressEntry[] = [];

  const substitution = (overrides: Partial<Substitution> = {}): Substitution => ({
    name: "SLACK_BOT_TOKEN",
    placeholder: PLACEHOLDER,
    value: SECRET,
    locations: ["header", "query", "body"],
    domains: ["*.slack.test", "slack.test"],
    ...overrides,
  });
  const open = (substitutions: Substitution[]): EgressPolicy => ({ mode: "open", substitutions });
  const echoOf = (body: string): Echo => JSON.parse(body) as Echo;
  const waitForEntry = async (predicate: (entry: EgressEntry) => boolean): Promise<EgressEntry> => {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      const found = entries.find(predicate);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`no matching egress entry among ${JSON.stringify(entries)}`);
  };
  const withPlaceholder = (path = "/post") => ({
    url: `http://api.slack.test${path}?token=${PLACEHOLDER}&x=1`,
    method: "POST",
    headers: { authorization: `Bearer ${PLACEHOLDER}`, "content-type": "application/json" },
    body: JSON.stringify({ token: PLACEHOLDER, text: "hi" }),
  });

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "proxy-credentials-"));
    ca = await openCertificateAuthority(path.join(dataDir, "egress-ca"));
    const pki = createTestPki("upstream");
    trusted = await startEchoServer("trusted");
    elsewhere = await startEchoServer("elsewhere");
    secure = await startEchoServer("secure", pki.issue(["secure.slack.test", "jira.test"]));
    tokenServer = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      request.on("end", () => {
        tokenCalls.push({ body: new URLSearchParams(Buffer.concat(chunks).toString()), headers: request.headers });
        const answer = tokenAnswer(tokenCalls.length);
        response.writeHead(answer.status, { "content-type": "application/json" });
        response.end(answer.body);
      });
    });
    await new Promise<void>((resolve) => tokenServer.listen(0, "127.0.0.1", resolve));
    const tokenPort = (tokenServer.address() as net.AddressInfo).port;
    const local = (port: number) => ({ host: "127.0.0.1", port });
    proxy = await startEgressProxy({
      secret: TEST_SECRET,
      certificateAuthority: ca,
      resolver: noDnsResolver,
      hostMap: new Map([
        ["api.slack.test", local(trusted.port)],
        ["slack.test", local(trusted.port)],
        ["elsewhere.test", local(elsewhere.port)],
        ["secure.slack.test", local(secure.port)],
        ["jira.test", local(secure.port)],
        ["plain-jira.test", local(trusted.port)],
        ["auth.test", local(tokenPort)],
      ]),
      trustedUpstreamCas: [pki.caPem],
      maxSubstitutionBodyBytes: MAX_BODY,
      oauth2: { timeoutMs: 5000, maxAnswerBytes: 1024 },
      onEgress: (entry) => entries.push(entry),
    });
  });

  after(async () => {
    await proxy.close();
    tokenServer.closeAllConnections();
    await new Promise<void>((resolve) => tokenServer.close(() => resolve()));
    await Promise.all([trusted, elsewhere, secure].map((server) => server.close()));
    await rm(dataDir, { recursive: true, force: true });
  });

  describe("environment_variable placeholders", () => {
    it("puts the secret in place of the placeholder in header, query and body for a trusted host, encoded for each", async () => {
      const response = await proxyRequest(proxy.port, preambleFor(open([substitution()])), withPlaceholder());
      assert.equal(response.status, 200, response.body);
      const echo = echoOf(response.body);
      assert.equal(echo.headers.authorization, `Bearer ${SECRET}`);
      assert.equal(new URL(echo.url, "http://x").searchParams.get("token"), SECRET);
      assert.equal(echo.url.includes(PLACEHOLDER), false);
      assert.deepEqual(JSON.parse(echo.body), { token: SECRET, text: "hi" });
      assert.equal(Number(echo.headers["content-length"]), Buffer.byteLength(echo.body), "Content-Length fits the new body");
      const entry = await waitForEntry((candidate) => candidate.method === "POST" && candidate.substituted.length === 3);
      assert.deepEqual(entry.substituted, [
        { name: "SLACK_BOT_TOKEN", location: "header" },
        { name: "SLACK_BOT_TOKEN", location: "query" },
        { name: "SLACK_BOT_TOKEN", location: "body" },
      ]);
      assert.doesNotMatch(JSON.stringify(entries), /xoxb-secret/);
    });

    it("replaces it only in the locations the credential names", async () => {
      const response = await proxyRequest(proxy.port, preambleFor(open([substitution({ locations: ["header"] })])), withPlaceholder());
      const echo = echoOf(response.body);
      assert.equal(echo.headers.authorization, `Bearer ${SECRET}`);
      assert.equal(new URL(echo.url, "http://x").searchParams.get("token"), PLACEHOLDER);
      assert.equal(JSON.parse(echo.body).token, PLACEHOLDER);

      const bodyOnly = await proxyRequest(proxy.port, preambleFor(open([substitution({ locations: ["body"] })])), {
        ...withPlaceholder(),
        headers: { authorization: `Bearer ${PLACEHOLDER}`, "content-type": "application/x-www-form-urlencoded" },
        body: `token=${PLACEHOLDER}&text=hi`,
      });
      const form = echoOf(bodyOnly.body);
      assert.equal(form.headers.authorization, `Bearer ${PLACEHOLDER}`);
      assert.equal(new URLSearchParams(form.body).get("token"), SECRET, "percent-encoded in a form body");
    });

    it("sends the placeholder unchanged to a host the credential does not trust", async () => {
      const response = await proxyRequest(proxy.port, preambleFor(open([substitution()])), {
        ...withPlaceholder(),
        url: `http://elsewhere.test/post?token=${PLACEHOLDER}`,
      });
      const echo = echoOf(response.body);
      assert.equal(echo.server, "elsewhere");
      assert.equal(echo.headers.authorization, `Bearer ${PLACEHOLDER}`);
      assert.equal(echo.url, `/post?token=${PLACEHOLDER}`);
      assert.equal(JSON.parse(echo.body).token, PLACEHOLDER);
      assert.equal(
        elsewhere.requests.some((request) => JSON.stringify(request).includes("xoxb-secret")),
        false,
      );
    });

    it("trusts every host the policy allows when the credential names no domains", async () => {
      const response = await proxyRequest(proxy.port, preambleFor(open([substitution({ domains: undefined })])), {
        ...withPlaceholder(),
        url: `http://elsewhere.test/post?token=${PLACEHOLDER}`,
      });
      assert.equal(echoOf(response.body).headers.authorization, `Bearer ${SECRET}`);
    });

    it("intercepts HTTPS to a trusted host, so the placeholder is replaced inside TLS too", async () => {
      const tunnel = await proxyConnect(proxy.port, preambleFor(open([substitution()])), "secure.slack.test:443");
      assert.equal(tunnel.status, 200);
      const tls = await startClientTls(tunnel.socket, "secure.slack.test", [ca.caCertificatePem]);
      assert.match(tls.issuer, /emulator|egress/i, "the proxy's CA: the tunnel is intercepted");
      const response = await requestInTunnel(tls.secure, {
        path: "/inside",
        host: "secure.slack.test",
        headers: { "x-token": PLACEHOLDER },
      });
      tls.secure.destroy();
      assert.equal(echoOf(response.body).headers["x-token"], SECRET);
    });

    it("replaces it in a chunked body, sent on with a Content-Length", async () => {
      const socketPolicy = preambleFor(open([substitution({ locations: ["body"] })]));
      const socket = await openProxyConnection(proxy.port, socketPolicy);
      const response = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const request = http.request({
          createConnection: () => socket,
          method: "POST",
          path: "http://api.slack.test/chunked",
          headers: { host: "api.slack.test", "content-type": "text/plain" },
        });
        request.once("response", (answer) => {
          let body = "";
          answer.on("data", (chunk: Buffer) => (body += chunk.toString()));
          answer.on("end", () => resolve({ status: answer.statusCode ?? 0, body }));
        });
        request.once("error", reject);
        request.write(`first ${PLACEHOLDER.slice(0, 20)}`);
        request.write(`${PLACEHOLDER.slice(20)} last`);
        request.end();
      });
      socket.destroy();
      const echo = echoOf(response.body);
      assert.equal(echo.body, `first ${SECRET} last`);
      assert.equal(echo.headers["transfer-encoding"], undefined);
      assert.equal(Number(echo.headers["content-length"]), Buffer.byteLength(echo.body));
    });

    it("passes a body over the bound unchanged, and says so in the egress log", async () => {
      const big = `${PLACEHOLDER}${"x".repeat(MAX_BODY)}`;
      const response = await proxyRequest(proxy.port, preambleFor(open([substitution({ locations: ["body"] })])), {
        url: "http://api.slack.test/big",
        method: "POST",
        headers: { "content-type": "text/plain" },
        body: big,
      });
      const echo = echoOf(response.body);
      assert.equal(echo.body, big);
      const entry = await waitForEntry((candidate) => candidate.substitution_note !== null);
      assert.equal(entry.substitution_note, `body-not-substituted:larger-than-${MAX_BODY}-bytes`);
      assert.deepEqual(entry.substituted, []);
    });
  });

  describe("OAuth2 credentials", () => {
    const grant = (overrides: Partial<OAuth2Grant> = {}): OAuth2Grant => ({
      token_url: "http://auth.test/oauth/token",
      client_id: "my-client-id",
      client_secret: "my-client-secret",
      refresh_token: "rt_refresh",
      scopes: ["read:jira-work", "write:jira-work"],
      ...overrides,
    });
    const policyWith = (oauth2: OAuth2Grant, clockOffsetMs = 0): EgressPolicy => ({
      mode: "allowlist",
      entries: [
        { domain: "jira.test", headers: {}, oauth2 },
        { domain: "plain-jira.test", headers: {}, oauth2 },
      ],
      clock_offset_ms: clockOffsetMs,
    });
    const callJira = async (policy: EgressPolicy) => {
      const tunnel = await proxyConnect(proxy.port, preambleFor(policy), "jira.test:443");
      assert.equal(tunnel.status, 200);
      const tls = await startClientTls(tunnel.socket, "jira.test", [ca.caCertificatePem]);
      const response = await requestInTunnel(tls.secure, {
        path: "/rest/api",
        host: "jira.test",
        headers: { authorization: "sandbox's own" },
      });
      tls.secure.destroy();
      return response;
    };

    it("gets a token with the refresh grant, injects it as Bearer, reuses it, and refreshes it once it expires", async () => {
      tokenCalls.length = 0;
      const first = await callJira(policyWith(grant()));
      assert.equal(first.status, 200, first.body);
      assert.equal(echoOf(first.body).headers.authorization, "Bearer access-1");
      assert.equal(tokenCalls.length, 1);
      const call = tokenCalls[0]!;
      assert.equal(call.headers["content-type"], "application/x-www-form-urlencoded");
      assert.deepEqual(Object.fromEntries(call.body), {
        grant_type: "refresh_token",
        refresh_token: "rt_refresh",
        client_id: "my-client-id",
        client_secret: "my-client-secret",
        scope: "read:jira-work write:jira-work",
      });

      const second = await callJira(policyWith(grant()));
      assert.equal(echoOf(second.body).headers.authorization, "Bearer access-1");
      assert.equal(tokenCalls.length, 1, "the cached token is reused");

      // The owner's clock an hour ahead (POST /emulator/clock): the token has expired.
      const later = await callJira(policyWith(grant(), 3600_000));
      assert.equal(echoOf(later.body).headers.authorization, "Bearer access-2");
      assert.equal(tokenCalls.length, 2);
      const entry = await waitForEntry((candidate) => candidate.host === "jira.test" && candidate.method === "GET");
      assert.deepEqual(entry.injected_header_names, ["Authorization"]);
      assert.doesNotMatch(JSON.stringify(entries), /access-1|my-client-secret|rt_refresh/);
    });

    it("injects it into plain HTTP requests too", async () => {
      const response = await proxyRequest(proxy.port, preambleFor(policyWith(grant({ refresh_token: "rt_plain" }))), {
        url: "http://plain-jira.test/x",
      });
      assert.match(echoOf(response.body).headers.authorization ?? "", /^Bearer access-\d+$/);
    });

    it("refuses the request with 502 oauth2-token-refresh-failed when the token endpoint fails", async () => {
      const saved = tokenAnswer;
      tokenAnswer = () => ({ status: 400, body: JSON.stringify({ error: "invalid_grant", error_description: "rt_revoked is revoked" }) });
      try {
        const before = trusted.requests.length;
        const response = await proxyRequest(proxy.port, preambleFor(policyWith(grant({ refresh_token: "rt_revoked" }))), {
          url: "http://plain-jira.test/x",
        });
        assert.equal(response.status, 502);
        assert.equal(response.headers["x-proxy-error"], "oauth2-token-refresh-failed");
        assert.match(response.body, /token refresh failed: the token endpoint auth\.test answered 400 \(invalid_grant\)/);
        assert.doesNotMatch(response.body, /rt_revoked/);
        assert.equal(trusted.requests.length, before, "nothing went upstream");
        const inside = await callJira(policyWith(grant({ refresh_token: "rt_revoked" })));
        assert.equal(inside.status, 502);
        assert.equal(inside.headers["x-proxy-error"], "oauth2-token-refresh-failed");
      } finally {
        tokenAnswer = saved;
      }
    });

    it("bounds the token endpoint's answer", async () => {
      const saved = tokenAnswer;
      tokenAnswer = () => ({ status: 200, body: JSON.stringify({ access_token: "a", padding: "x".repeat(2048) }) });
      try {
        const response = await proxyRequest(proxy.port, preambleFor(policyWith(grant({ refresh_token: "rt_big" }))), {
          url: "http://plain-jira.test/x",
        });
        assert.equal(response.status, 502);
        assert.match(response.body, /answered more than 1024 bytes/);
      } finally {
        tokenAnswer = saved;
      }
    });

    it("reaches a token endpoint on loopback only through the host map", async () => {
      const port = (tokenServer.address() as net.AddressInfo).port;
      const calls = tokenCalls.length;
      const response = await proxyRequest(
        proxy.port,
        preambleFor(policyWith(grant({ token_url: `http://127.0.0.1:${port}/oauth/token` }))),
        {
          url: "http://plain-jira.test/x",
        },
      );
      assert.equal(response.status, 502);
      assert.match(response.body, /blocked-address:loopback/);
      assert.equal(tokenCalls.length, calls);
    });
  });
});
