// Which Host headers the API answers (server/http/allowed-hosts.ts) and how EMULATOR_ALLOWED_HOSTS is
// read. The HTTP behaviour is in test/integration/host-header.test.ts.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ConfigError, loadConfig } from "../../server/common/config.js";
import { allowedHostsFrom, hostNameOf, isAllowedHost } from "../../server/http/allowed-hosts.js";

describe("allowed hosts", () => {
  it("reads a Host header's name in every form a client sends", () => {
    assert.equal(hostNameOf("Example.COM:8080"), "example.com");
    assert.equal(hostNameOf("localhost."), "localhost");
    assert.equal(hostNameOf("[::1]:80"), "::1");
    assert.equal(hostNameOf("[::ffff:127.0.0.1]"), "::ffff:127.0.0.1");
    for (const bad of ["", "::1", "[::1", "[nothost]", "a:b", "a:80:80", "[::1]x", "host:123456"]) {
      assert.equal(hostNameOf(bad), null, bad);
    }
  });

  it("answers loopback names and IP addresses whatever the settings, and nothing else by default", () => {
    const defaults = allowedHostsFrom([], "127.0.0.1");
    for (const host of ["localhost", "a.b.localhost:1", "127.0.0.1:8080", "192.168.1.9", "[::1]", "[2001:db8::1]:443"]) {
      assert.ok(isAllowedHost(host, defaults), host);
    }
    for (const host of ["attacker.example", "localhost.attacker.example", "127.0.0.1.nip.io", "xlocalhost", "127.1", ""]) {
      assert.ok(!isAllowedHost(host, defaults), host);
    }
    assert.ok(isAllowedHost(undefined, defaults), "a request without Host (not a browser's)");
  });

  it("adds the name HOST binds to, but not a wildcard address", () => {
    assert.ok(isAllowedHost("my-workstation.lan:8080", allowedHostsFrom([], "My-Workstation.lan")));
    assert.deepEqual(allowedHostsFrom([], "0.0.0.0").names, []);
    assert.deepEqual(allowedHostsFrom([], "::").names, []);
  });

  it("adds the listed names, exact or under a domain, and '*' turns the check off", () => {
    const listed = allowedHostsFrom(["emulator", "*.corp.example"], "0.0.0.0");
    assert.ok(isAllowedHost("emulator:8080", listed));
    assert.ok(isAllowedHost("ci.corp.example", listed));
    assert.ok(!isAllowedHost("corp.example", listed));
    assert.ok(!isAllowedHost("emulator.example", listed));
    assert.ok(isAllowedHost("anything.example", allowedHostsFrom(["*"], "127.0.0.1")));
  });

  it("EMULATOR_ALLOWED_HOSTS: comma-separated names, '*.domain' or '*'; anything else stops the start with a message", () => {
    assert.deepEqual(loadConfig({ HOME: "/home/u" }).EMULATOR_ALLOWED_HOSTS, []);
    assert.deepEqual(loadConfig({ EMULATOR_ALLOWED_HOSTS: " Emulator, *.corp.example ,," }).EMULATOR_ALLOWED_HOSTS, [
      "emulator",
      "*.corp.example",
    ]);
    assert.deepEqual(loadConfig({ EMULATOR_ALLOWED_HOSTS: "*" }).EMULATOR_ALLOWED_HOSTS, ["*"]);
    for (const bad of ["http://emulator", "emulator:8080", "a..b", "*emulator", "a b"]) {
      assert.throws(
        () => loadConfig({ EMULATOR_ALLOWED_HOSTS: bad }),
        (error: unknown) => error instanceof ConfigError && /EMULATOR_ALLOWED_HOSTS: ".*" is not a host name/.test(error.message),
        bad,
      );
    }
  });
});
