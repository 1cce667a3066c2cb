import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CompiledPolicy, egressPolicySchema, isInjectableHeaderName, type AllowlistEntry } from "../../proxy/policy.js";

const entry = (domain: string, headers: Record<string, string> = {}): AllowlistEntry => ({ domain, headers });

describe("allowlist domain matching", () => {
  const table: Array<{ entries: AllowlistEntry[]; host: string; rule: string | null }> = [
    { entries: [entry("api.example.com")], host: "api.example.com", rule: "api.example.com" },
    { entries: [entry("API.Example.COM")], host: "api.example.com", rule: "API.Example.COM" },
    { entries: [entry("api.example.com.")], host: "api.example.com", rule: "api.example.com." },
    { entries: [entry("api.example.com")], host: "www.example.com", rule: null },
    { entries: [entry("api.example.com")], host: "sub.api.example.com", rule: null },
    { entries: [entry("*.example.com")], host: "api.example.com", rule: "*.example.com" },
    { entries: [entry("*.example.com")], host: "a.b.example.com", rule: "*.example.com" },
    { entries: [entry("*.example.com")], host: "example.com", rule: null },
    { entries: [entry("*.example.com")], host: "badexample.com", rule: null },
    { entries: [entry("*.Example.com.")], host: "x.example.com", rule: "*.Example.com." },
    { entries: [entry("*")], host: "anything.example", rule: "*" },
    { entries: [entry("*")], host: "8.8.8.8", rule: "*" },
    { entries: [entry("api.*.com")], host: "api.example.com", rule: null },
    { entries: [entry("*example.com")], host: "badexample.com", rule: null },
    { entries: [entry("8.8.8.8")], host: "8.8.8.8", rule: "8.8.8.8" },
    { entries: [entry("[2001:4860:4860:0:0:0:0:8888]")], host: "2001:4860:4860::8888", rule: "[2001:4860:4860:0:0:0:0:8888]" },
    { entries: [], host: "example.com", rule: null },
  ];
  for (const { entries, host, rule } of table) {
    it(`${JSON.stringify(entries.map((item) => item.domain))} ${rule === null ? "refuses" : "allows"} ${host}`, () => {
      const decision = new CompiledPolicy({ mode: "allowlist", entries }).decide(host);
      if (rule === null) assert.deepEqual(decision, { allowed: false, reason: "not-allowlisted" });
      else assert.equal(decision.allowed && decision.rule, rule);
    });
  }
});

describe("the most specific entry wins for headers", () => {
  const entries = [
    entry("*", { "X-Which": "star" }),
    entry("*.example.com", { "X-Which": "example" }),
    entry("*.api.example.com", { "X-Which": "api-wildcard" }),
    entry("v1.api.example.com", { "X-Which": "exact" }),
    entry("plain.example.com"),
  ];
  const policy = new CompiledPolicy({ mode: "allowlist", entries });
  const table: Array<{ host: string; rule: string; headers: Record<string, string> }> = [
    { host: "v1.api.example.com", rule: "v1.api.example.com", headers: { "X-Which": "exact" } },
    { host: "v2.api.example.com", rule: "*.api.example.com", headers: { "X-Which": "api-wildcard" } },
    { host: "api.example.com", rule: "*.example.com", headers: { "X-Which": "example" } },
    { host: "other.org", rule: "*", headers: { "X-Which": "star" } },
    { host: "plain.example.com", rule: "plain.example.com", headers: {} },
  ];
  for (const { host, rule, headers } of table) {
    it(`${host} → ${rule}`, () => assert.deepEqual(policy.decide(host), { allowed: true, rule, headers, oauth2: null, substitutions: [] }));
  }

  it("merges entries of the very same domain, later values replacing earlier ones case-insensitively", () => {
    const merged = new CompiledPolicy({
      mode: "allowlist",
      entries: [entry("api.example", { Authorization: "first", "X-A": "a" }), entry("API.example", { authorization: "second" })],
    });
    assert.deepEqual(merged.decide("api.example"), {
      allowed: true,
      rule: "api.example",
      headers: { authorization: "second", "X-A": "a" },
      oauth2: null,
      substitutions: [],
    });
  });

  it("gives a host the substitutions whose trusted domains match it, all of them when one names none", () => {
    const placeholder = "emulator-credential-placeholder-0123456789abcdef";
    const slack = { name: "SLACK", placeholder, value: "v", locations: ["header" as const], domains: ["slack.com", "*.slack.com"] };
    const anywhere = { name: "ANY", placeholder: `${placeholder}-any`, value: "w", locations: ["body" as const] };
    const policy = new CompiledPolicy({ mode: "open", substitutions: [slack, anywhere] });
    const names = (host: string) => {
      const decision = policy.decide(host);
      return decision.allowed ? decision.substitutions.map((substitution) => substitution.name) : null;
    };
    assert.deepEqual(names("slack.com"), ["SLACK", "ANY"]);
    assert.deepEqual(names("api.slack.com"), ["SLACK", "ANY"]);
    assert.deepEqual(names("notslack.com"), ["ANY"]);
    assert.deepEqual(names("slack.com.evil.example"), ["ANY"]);
  });
});

describe("open and disabled", () => {
  it("open allows everything and injects nothing", () => {
    assert.deepEqual(new CompiledPolicy({ mode: "open" }).decide("example.com"), {
      allowed: true,
      rule: "open",
      headers: {},
      oauth2: null,
      substitutions: [],
    });
  });
  it("disabled refuses everything", () => {
    assert.deepEqual(new CompiledPolicy({ mode: "disabled" }).decide("example.com"), { allowed: false, reason: "egress-disabled" });
  });
});

describe("the policy schema", () => {
  const valid: unknown[] = [
    { mode: "open" },
    { mode: "disabled" },
    { mode: "allowlist", entries: [] },
    { mode: "allowlist", entries: [{ domain: "*", headers: {} }] },
    { mode: "allowlist", entries: [{ domain: "api.example", headers: { Authorization: "Bearer x", "X-Goog-Api-Key": "k" } }] },
    { mode: "allowlist", entries: [{ domain: "api.example" }] },
  ];
  for (const policy of valid) {
    it(`accepts ${JSON.stringify(policy)}`, () => assert.equal(egressPolicySchema.safeParse(policy).success, true));
  }
  const invalid: unknown[] = [
    {},
    { mode: "closed" },
    { mode: "allowlist" },
    { mode: "allowlist", entries: [{ domain: "" }] },
    { mode: "allowlist", entries: [{ domain: "a.example", headers: { Host: "evil.example" } }] },
    { mode: "allowlist", entries: [{ domain: "a.example", headers: { "Content-Length": "0" } }] },
    { mode: "allowlist", entries: [{ domain: "a.example", headers: { "Transfer-Encoding": "chunked" } }] },
    { mode: "allowlist", entries: [{ domain: "a.example", headers: { "Proxy-Authorization": "x" } }] },
    { mode: "allowlist", entries: [{ domain: "a.example", headers: { "Bad Name": "x" } }] },
    { mode: "allowlist", entries: [{ domain: "a.example", headers: { "X-A": "x\r\nX-Smuggled: 1" } }] },
    { mode: "allowlist", entries: [{ domain: "a.example", headers: { "X-A": "nul\u0000" } }] },
    { mode: "allowlist", entries: [{ domain: "a.example", headers: { "X-A": 5 } }] },
  ];
  for (const policy of invalid) {
    it(`refuses ${JSON.stringify(policy)}`, () => assert.equal(egressPolicySchema.safeParse(policy).success, false));
  }

  const names: Array<{ name: string; injectable: boolean }> = [
    { name: "Authorization", injectable: true },
    { name: "x-goog-api-key", injectable: true },
    { name: "Cookie", injectable: true },
    { name: "Host", injectable: false },
    { name: "connection", injectable: false },
    { name: "Keep-Alive", injectable: false },
    { name: "Upgrade", injectable: false },
    { name: "TE", injectable: false },
    { name: "Expect", injectable: false },
    { name: "Proxy-Connection", injectable: false },
    { name: "X Y", injectable: false },
    { name: "", injectable: false },
    { name: "__proto__", injectable: false },
  ];
  // Found by the property test (proxy-policy.property.test.ts): the header was dropped silently.
  it('refuses a preamble policy injecting "__proto__" rather than dropping the header silently', () => {
    const text = '{"mode": "allowlist", "entries": [{"domain": "a.example", "headers": {"__proto__": "Bearer x"}}]}';
    assert.equal(egressPolicySchema.safeParse(JSON.parse(text)).success, false);
  });

  for (const { name, injectable } of names) {
    it(`${JSON.stringify(name)} ${injectable ? "can" : "cannot"} be injected`, () =>
      assert.equal(isInjectableHeaderName(name), injectable));
  }
});
