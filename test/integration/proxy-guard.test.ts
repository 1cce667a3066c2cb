// The address guard inside the running proxy, with an injected resolver (which can answer anything,
// including the addresses the guard must refuse) and a recording dialer (which proves that a refused
// destination is never dialled, and redirects "public" addresses to a local server: no test ever
// connects anywhere but loopback).

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
  openProxyConnection,
  preambleFor,
  proxyConnect,
  proxyRequest,
  RecordingDialer,
  requestInTunnel,
  requestWithAgent,
  ScriptedResolver,
  SingleConnectionAgent,
  startClientTls,
  startEchoServer,
  TEST_SECRET,
  type EchoServer,
} from "../support/proxy-fixtures.js";

const ALLOW_ALL: EgressPolicy = { mode: "allowlist", entries: [{ domain: "*", headers: {} }] };
const PUBLIC_ADDRESS = "93.184.216.34"; // only ever a string handed to the recording dialer

describe("the address guard in the proxy", () => {
  let dataDir: string;
  let ca: CertificateAuthority;
  let upstream: EchoServer;

  before(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), "proxy-guard-"));
    ca = await openCertificateAuthority(path.join(dataDir, "egress-ca"));
    upstream = await startEchoServer("public-stand-in");
  });
  after(async () => {
    await upstream.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  async function withProxy(
    resolver: ScriptedResolver,
    dialer: RecordingDialer,
    run: (proxy: EgressProxy) => Promise<void>,
    hostMap = new Map<string, { host: string; port: number }>(),
  ): Promise<void> {
    const proxy = await startEgressProxy({
      secret: TEST_SECRET,
      certificateAuthority: ca,
      resolver,
      dialer,
      hostMap,
      refuseLocalInterfaces: false,
    });
    try {
      await run(proxy);
    } finally {
      await proxy.close();
    }
  }

  describe("a name resolving to a refused range is refused, and nothing is dialled", () => {
    const table: Array<{ address: string; category: string }> = [
      { address: "127.0.0.1", category: "loopback" },
      { address: "127.8.9.10", category: "loopback" },
      { address: "10.0.0.5", category: "private" },
      { address: "172.16.3.4", category: "private" },
      { address: "192.168.1.1", category: "private" },
      { address: "169.254.169.254", category: "link-local" },
      { address: "100.64.0.1", category: "cgnat" },
      { address: "224.0.0.251", category: "multicast" },
      { address: "0.0.0.0", category: "unspecified" },
      { address: "255.255.255.255", category: "broadcast" },
      { address: "240.0.0.1", category: "reserved" },
      { address: "::1", category: "loopback" },
      { address: "::", category: "unspecified" },
      { address: "fd00::1", category: "private" },
      { address: "fe80::1", category: "link-local" },
      { address: "ff02::1", category: "multicast" },
      { address: "::ffff:127.0.0.1", category: "loopback" },
      { address: "::ffff:169.254.169.254", category: "link-local" },
      { address: "64:ff9b::a00:1", category: "private" },
      { address: "2002:7f00:1::1", category: "loopback" },
      { address: "2001:0:a9fe:a9fe::1", category: "link-local" },
    ];
    for (const { address, category } of table) {
      it(`${address} → 403 blocked-address:${category}, for a request and for a CONNECT`, async () => {
        const resolver = new ScriptedResolver(() => [address]);
        const dialer = new RecordingDialer();
        await withProxy(resolver, dialer, async (proxy) => {
          const response = await proxyRequest(proxy.port, preambleFor(ALLOW_ALL), { url: "http://rebind.example/" });
          assert.equal(response.status, 403);
          assert.equal(response.headers["x-proxy-error"], `blocked-address:${category}`);
          const connect = await proxyConnect(proxy.port, preambleFor(ALLOW_ALL), "rebind.example:443");
          assert.equal(connect.status, 403);
          assert.equal(connect.headers["x-proxy-error"], `blocked-address:${category}`);
          connect.socket.destroy();
        });
        assert.deepEqual(dialer.dials, []);
      });
    }

    it("refuses a name whose answer mixes a public and a private address", async () => {
      const resolver = new ScriptedResolver(() => [PUBLIC_ADDRESS, "10.1.2.3"]);
      const dialer = new RecordingDialer();
      await withProxy(resolver, dialer, async (proxy) => {
        const response = await proxyRequest(proxy.port, preambleFor(ALLOW_ALL), { url: "http://mixed.example/" });
        assert.equal(response.status, 403);
        assert.equal(response.headers["x-proxy-error"], "blocked-address:private");
      });
      assert.deepEqual(dialer.dials, []);
    });

    it("answers 403 dns-failure for a name that does not resolve", async () => {
      const resolver = new ScriptedResolver(() => []);
      const dialer = new RecordingDialer();
      await withProxy(resolver, dialer, async (proxy) => {
        const response = await proxyRequest(proxy.port, preambleFor(ALLOW_ALL), { url: "http://nowhere.example/" });
        assert.equal(response.status, 403);
        assert.equal(response.headers["x-proxy-error"], "dns-failure");
      });
      assert.deepEqual(dialer.dials, []);
    });
  });

  describe("loopback literals are refused in every spelling, without a lookup or a dial", () => {
    const spellings = [
      "127.0.0.1",
      "127.1",
      "2130706433",
      "0x7f000001",
      "0177.0.0.1",
      "0x7f.0.0.1",
      "127.0.0.1.",
      "[::1]",
      "[::ffff:127.0.0.1]",
      "[::ffff:7f00:1]",
      "[0:0:0:0:0:0:0:1]",
      "[::127.0.0.1]",
      "localhost",
      "LOCALHOST.",
      "api.localhost",
      "0",
      "0.0.0.0",
    ];
    for (const host of spellings) {
      it(`http://${host}/ and CONNECT ${host}:443 are refused`, async () => {
        const resolver = new ScriptedResolver(() => ["127.0.0.1"]);
        const dialer = new RecordingDialer();
        await withProxy(resolver, dialer, async (proxy) => {
          const response = await proxyRequest(proxy.port, preambleFor({ mode: "open" }), { url: `http://${host}:${upstream.port}/` });
          assert.equal(response.status, 403, response.body);
          assert.match(String(response.headers["x-proxy-error"]), /^blocked-address:(loopback|unspecified)$/);
          const connect = await proxyConnect(proxy.port, preambleFor({ mode: "open" }), `${host}:443`);
          assert.equal(connect.status, 403);
          connect.socket.destroy();
        });
        assert.deepEqual(resolver.lookups, []);
        assert.deepEqual(dialer.dials, []);
        assert.equal(upstream.requests.length, 0);
      });
    }

    it("refuses the cloud metadata endpoint even when the allowlist names it", async () => {
      const resolver = new ScriptedResolver(() => []);
      const dialer = new RecordingDialer();
      const policy: EgressPolicy = { mode: "allowlist", entries: [{ domain: "169.254.169.254", headers: {} }] };
      await withProxy(resolver, dialer, async (proxy) => {
        const response = await proxyRequest(proxy.port, preambleFor(policy), { url: "http://169.254.169.254/latest/meta-data/" });
        assert.equal(response.status, 403);
        assert.equal(response.headers["x-proxy-error"], "blocked-address:link-local");
      });
      assert.deepEqual(dialer.dials, []);
    });
  });

  describe("DNS rebinding", () => {
    const publicThenPrivate = () => new ScriptedResolver((_host, attempt) => (attempt === 1 ? [PUBLIC_ADDRESS] : ["127.0.0.1"]));

    it("looks a name up once per request and dials the address it checked", async () => {
      const resolver = publicThenPrivate();
      const dialer = new RecordingDialer();
      dialer.redirect(PUBLIC_ADDRESS, 80, upstream.port);
      await withProxy(resolver, dialer, async (proxy) => {
        const response = await proxyRequest(proxy.port, preambleFor(ALLOW_ALL), { url: "http://rebinding.example/" });
        assert.equal(response.status, 200);
      });
      assert.deepEqual(resolver.lookups, ["rebinding.example"]);
      assert.deepEqual(dialer.dials, [{ address: PUBLIC_ADDRESS, port: 80 }]);
    });

    it("checks the next request on the same connection again, and refuses the rebound answer", async () => {
      const resolver = publicThenPrivate();
      const dialer = new RecordingDialer();
      dialer.redirect(PUBLIC_ADDRESS, 80, upstream.port);
      await withProxy(resolver, dialer, async (proxy) => {
        const socket = await openProxyConnection(proxy.port, preambleFor(ALLOW_ALL));
        const agent = new SingleConnectionAgent(socket);
        const first = await requestWithAgent(agent, { url: "http://rebinding.example/1" });
        const second = await requestWithAgent(agent, { url: "http://rebinding.example/2" });
        agent.destroy();
        socket.destroy();
        assert.equal(first.status, 200);
        assert.equal(second.status, 403);
        assert.equal(second.headers["x-proxy-error"], "blocked-address:loopback");
      });
      assert.deepEqual(dialer.dials, [{ address: PUBLIC_ADDRESS, port: 80 }]);
    });

    it("dials every request of an intercepted tunnel at the address checked for the CONNECT", async () => {
      const resolver = publicThenPrivate();
      const dialer = new RecordingDialer();
      const upstreamPki = createTestPki("rebind");
      const secureUpstream = await startEchoServer("secure-stand-in", upstreamPki.issue(["rebinding.example"]));
      dialer.redirect(PUBLIC_ADDRESS, 443, secureUpstream.port);
      const policy: EgressPolicy = { mode: "allowlist", entries: [{ domain: "rebinding.example", headers: { "X-Key": "k" } }] };
      const proxy = await startEgressProxy({
        secret: TEST_SECRET,
        certificateAuthority: ca,
        resolver,
        dialer,
        refuseLocalInterfaces: false,
        trustedUpstreamCas: [upstreamPki.caPem],
      });
      try {
        const connect = await proxyConnect(proxy.port, preambleFor(policy), "rebinding.example:443");
        const client = await startClientTls(connect.socket, "rebinding.example", [ca.caCertificatePem]);
        for (const pathName of ["/a", "/b"]) {
          const response = await requestInTunnel(client.secure, { path: pathName, host: "rebinding.example" });
          assert.equal(response.status, 200);
        }
        client.secure.destroy();
      } finally {
        await proxy.close();
        await secureUpstream.close();
      }
      assert.deepEqual(resolver.lookups, ["rebinding.example"]);
      assert.ok(dialer.dials.length >= 1);
      assert.ok(dialer.dials.every((dial) => dial.address === PUBLIC_ADDRESS));
      assert.equal(
        secureUpstream.requests.every((echo) => echo.headers["x-key"] === "k"),
        true,
      );
    });
  });

  describe("the host map", () => {
    it("sends a mapped domain to its mapped loopback target, exempt from the guard", async () => {
      const resolver = new ScriptedResolver(() => []);
      const dialer = new RecordingDialer();
      await withProxy(
        resolver,
        dialer,
        async (proxy) => {
          const response = await proxyRequest(proxy.port, preambleFor(ALLOW_ALL), { url: "http://mapped.example/" });
          assert.equal(response.status, 200);
        },
        new Map([["mapped.example", { host: "127.0.0.1", port: upstream.port }]]),
      );
      assert.deepEqual(resolver.lookups, []);
      assert.deepEqual(dialer.dials, [{ address: "127.0.0.1", port: upstream.port }]);
    });

    it("still applies the allowlist to a mapped domain", async () => {
      const resolver = new ScriptedResolver(() => []);
      const dialer = new RecordingDialer();
      const policy: EgressPolicy = { mode: "allowlist", entries: [{ domain: "other.example", headers: {} }] };
      await withProxy(
        resolver,
        dialer,
        async (proxy) => {
          const response = await proxyRequest(proxy.port, preambleFor(policy), { url: "http://mapped.example/" });
          assert.equal(response.status, 403);
          assert.equal(response.headers["x-proxy-error"], "not-allowlisted");
        },
        new Map([["mapped.example", { host: "127.0.0.1", port: upstream.port }]]),
      );
      assert.deepEqual(dialer.dials, []);
    });

    it("does not exempt a loopback literal that merely shares the mapped port", async () => {
      const resolver = new ScriptedResolver(() => []);
      const dialer = new RecordingDialer();
      await withProxy(
        resolver,
        dialer,
        async (proxy) => {
          const response = await proxyRequest(proxy.port, preambleFor({ mode: "open" }), { url: `http://127.0.0.1:${upstream.port}/` });
          assert.equal(response.status, 403);
        },
        new Map([["mapped.example", { host: "127.0.0.1", port: upstream.port }]]),
      );
      assert.deepEqual(dialer.dials, []);
    });
  });

  describe("a sandbox that leaves during the lookup", () => {
    it("is not followed by a dial", async () => {
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => (release = resolve));
      let looked: () => void = () => undefined;
      const lookupStarted = new Promise<void>((resolve) => (looked = resolve));
      const resolver = {
        async lookup() {
          looked();
          await released;
          return [PUBLIC_ADDRESS];
        },
      };
      const dialer = new RecordingDialer();
      const entries: EgressEntry[] = [];
      const proxy = await startEgressProxy({
        secret: TEST_SECRET,
        certificateAuthority: ca,
        resolver,
        dialer,
        onEgress: (entry) => entries.push(entry),
      });
      try {
        const socket = await openProxyConnection(proxy.port, preambleFor(ALLOW_ALL));
        socket.write("GET http://slow.example/ HTTP/1.1\r\nHost: slow.example\r\n\r\n");
        await lookupStarted;
        socket.destroy();
        await new Promise((resolve) => setTimeout(resolve, 50));
        release();
        await new Promise((resolve) => setTimeout(resolve, 50));
      } finally {
        await proxy.close();
      }
      assert.deepEqual(dialer.dials, []);
      assert.deepEqual(
        entries.map((entry) => [entry.method, entry.decision, entry.reason, entry.status]),
        [["GET", "allowed", "client-closed", null]],
      );
    });
  });

  describe("the machine's own addresses", () => {
    it("refuses the emulator's own addresses as self, whatever the allowlist says", async () => {
      const resolver = new ScriptedResolver(() => [PUBLIC_ADDRESS]);
      const dialer = new RecordingDialer();
      const proxy = await startEgressProxy({
        secret: TEST_SECRET,
        certificateAuthority: ca,
        resolver,
        dialer,
        selfAddresses: [PUBLIC_ADDRESS],
      });
      try {
        const response = await proxyRequest(proxy.port, preambleFor(ALLOW_ALL), { url: "http://emulator-public-name.example/" });
        assert.equal(response.status, 403);
        assert.equal(response.headers["x-proxy-error"], "blocked-address:self");
      } finally {
        await proxy.close();
      }
      assert.deepEqual(dialer.dials, []);
    });
  });
});
