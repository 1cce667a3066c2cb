import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseAbsoluteTarget, parseConnectTarget } from "../../proxy/request-target.js";

describe("absolute-URI request targets", () => {
  const table: Array<{ url: string; expected: Record<string, unknown> }> = [
    {
      url: "http://example.com/a?b=c",
      expected: { scheme: "http", host: "example.com", port: 80, path: "/a?b=c", authority: "example.com" },
    },
    {
      url: "HTTP://Example.COM.:8080",
      expected: { scheme: "http", host: "example.com", port: 8080, path: "/", authority: "example.com:8080" },
    },
    { url: "https://example.com", expected: { scheme: "https", host: "example.com", port: 443, path: "/", authority: "example.com" } },
    { url: "http://example.com?x", expected: { host: "example.com", path: "/?x" } },
    { url: "http://example.com/p#fragment", expected: { path: "/p" } },
    { url: "http://example.com//double//slash", expected: { path: "//double//slash" } },
    { url: "http://[::1]:8080/", expected: { host: "::1", isAddress: true, port: 8080, authority: "[::1]:8080" } },
    { url: "http://0x7f000001/", expected: { host: "127.0.0.1", isAddress: true, port: 80 } },
    { url: "http://example.com:/", expected: { port: 80 } },
  ];
  for (const { url, expected } of table) {
    it(`${url}`, () => {
      const target = parseAbsoluteTarget(url);
      assert.ok(!("error" in target), JSON.stringify(target));
      for (const [key, value] of Object.entries(expected)) assert.deepEqual((target as Record<string, unknown>)[key], value, key);
    });
  }

  const invalid = [
    "/relative",
    "*",
    "ftp://example.com/",
    "http:/example.com/",
    "http://user:pass@example.com/",
    "http://allowed.example@evil.example/",
    "http://example.com:99999/",
    "http://example.com:8o/",
    "http://::1/",
    "http://ex%61mple.com/",
    "http:///path",
  ];
  for (const url of invalid) {
    it(`refuses ${url}`, () => assert.ok("error" in parseAbsoluteTarget(url)));
  }
});

describe("CONNECT targets", () => {
  const table: Array<{ authority: string; host: string; port: number; authorityOut: string }> = [
    { authority: "example.com:443", host: "example.com", port: 443, authorityOut: "example.com" },
    { authority: "Example.com.:8443", host: "example.com", port: 8443, authorityOut: "example.com:8443" },
    { authority: "[2001:db8::1]:443", host: "2001:db8::1", port: 443, authorityOut: "[2001:db8::1]" },
    { authority: "127.1:443", host: "127.0.0.1", port: 443, authorityOut: "127.0.0.1" },
  ];
  for (const { authority, host, port, authorityOut } of table) {
    it(authority, () => {
      const target = parseConnectTarget(authority);
      assert.ok(!("error" in target));
      assert.deepEqual([target.host, target.port, target.authority], [host, port, authorityOut]);
    });
  }
  for (const authority of ["example.com", "example.com:", "example.com:0", ":443", "[::1]443", "a:b:c", "user@example.com:443"]) {
    it(`refuses ${JSON.stringify(authority)}`, () => assert.ok("error" in parseConnectTarget(authority)));
  }
});
