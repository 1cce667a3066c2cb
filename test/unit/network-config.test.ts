import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CredentialStore } from "../../server/credentials/credential-store.js";
import { checkNetwork, egressPolicy } from "../../server/egress/network-config.js";
import { InvalidArgumentError } from "../../server/common/errors.js";
import { openMemoryDatabase } from "../../server/store/database.js";

function storeWith(): CredentialStore {
  const store = new CredentialStore(openMemoryDatabase());
  const times = { createTime: "t", updateTime: "t" };
  store.insert({
    owner: "me",
    id: "bearer",
    type: "bearer_token",
    status: "active",
    config: { type: "bearer_token", id: "bearer", token: "tok" },
    ...times,
  });
  store.insert({
    owner: "me",
    id: "custom",
    type: "bearer_token",
    status: "active",
    config: { type: "bearer_token", id: "custom", token: "abc", header_name: "X-Api-Key", prefix: "" },
    ...times,
  });
  store.insert({
    owner: "me",
    id: "envvar",
    type: "environment_variable",
    status: "active",
    config: { type: "environment_variable", id: "envvar", value: "v", injection_location: "header" },
    ...times,
  });
  store.insert({
    owner: "me",
    id: "oauth",
    type: "oauth2",
    status: "active",
    config: {
      type: "oauth2",
      id: "oauth",
      client_id: "cid",
      client_secret: "csecret",
      refresh_token: "rt",
      token_url: "https://auth.example.com/token",
      scopes: ["read"],
    },
    ...times,
  });
  store.insert({
    owner: "me",
    id: "oauth-no-url",
    type: "oauth2",
    status: "active",
    config: { type: "oauth2", id: "oauth-no-url", client_id: "cid", client_secret: "cs", refresh_token: "rt" },
    ...times,
  });
  // Stored before the API refused such names (credential-schemas.ts): the proxy would refuse the whole policy.
  store.insert({
    owner: "me",
    id: "framing",
    type: "bearer_token",
    status: "active",
    config: { type: "bearer_token", id: "framing", token: "abc", header_name: "Host", prefix: "" },
    ...times,
  });
  return store;
}

describe("network configuration to egress policy", () => {
  const credentials = storeWith();

  it("is open when network is omitted or has no allowlist", () => {
    assert.deepEqual(egressPolicy(undefined, "me", credentials), { mode: "open" });
    assert.deepEqual(egressPolicy({}, "me", credentials), { mode: "open" });
  });

  it("is disabled in both spellings", () => {
    assert.deepEqual(egressPolicy("disabled", "me", credentials), { mode: "disabled" });
    assert.deepEqual(egressPolicy({ allowlist: "disabled" }, "me", credentials), { mode: "disabled" });
  });

  it("merges a transform list in order and injects bearer credentials", () => {
    const policy = egressPolicy(
      {
        allowlist: [
          { domain: "api.example.com", transform: [{ "X-A": "1", "X-B": "1" }, { "X-B": "2" }] },
          { domain: "*.example.org", credential: "bearer" },
          { domain: "keys.example.net", credential: "custom" },
          { domain: "*" },
        ],
      },
      "me",
      credentials,
    );
    assert.deepEqual(policy, {
      mode: "allowlist",
      entries: [
        { domain: "api.example.com", headers: { "X-A": "1", "X-B": "2" } },
        { domain: "*.example.org", headers: { Authorization: "Bearer tok" } },
        { domain: "keys.example.net", headers: { "X-Api-Key": "abc" } },
        { domain: "*", headers: {} },
      ],
    });
  });

  it("drops an entry whose credential disappeared, rather than send unauthenticated", () => {
    const policy = egressPolicy({ allowlist: [{ domain: "gone.example.com", credential: "deleted" }] }, "me", credentials);
    assert.deepEqual(policy, { mode: "allowlist", entries: [] });
  });

  it("drops an entry whose stored credential names a header the proxy may not inject, and keeps the others", () => {
    const policy = egressPolicy(
      {
        allowlist: [
          { domain: "a.example.com", credential: "framing" },
          { domain: "b.example.com", credential: "bearer" },
        ],
      },
      "me",
      credentials,
    );
    assert.deepEqual(policy, { mode: "allowlist", entries: [{ domain: "b.example.com", headers: { Authorization: "Bearer tok" } }] });
  });

  it("carries an OAuth2 credential's refresh grant in its entry, for the proxy to get tokens with", () => {
    const policy = egressPolicy({ allowlist: [{ domain: "api.atlassian.com", credential: "oauth" }] }, "me", credentials);
    assert.deepEqual(policy, {
      mode: "allowlist",
      entries: [
        {
          domain: "api.atlassian.com",
          headers: {},
          oauth2: {
            token_url: "https://auth.example.com/token",
            client_id: "cid",
            client_secret: "csecret",
            refresh_token: "rt",
            scopes: ["read"],
          },
        },
      ],
    });
  });

  it("drops an OAuth2 entry whose credential has no token_url (fail closed)", () => {
    const policy = egressPolicy({ allowlist: [{ domain: "a.example.com", credential: "oauth-no-url" }] }, "me", credentials);
    assert.deepEqual(policy, { mode: "allowlist", entries: [] });
  });

  const refused: Array<[string, unknown, RegExp]> = [
    [
      "an OAuth2 credential without a token_url",
      { allowlist: [{ domain: "a.com", credential: "oauth-no-url" }] },
      /credential "oauth-no-url": its token_url is not set; set the OAuth2 token endpoint with PATCH/,
    ],
    ["a malformed domain", { allowlist: [{ domain: "http://x.com" }] }, /allowlist\[0\]\.domain "http:\/\/x\.com"/],
    ["a wildcard in the middle", { allowlist: [{ domain: "api.*.com" }] }, /is not a domain/],
    ["an unknown credential", { allowlist: [{ domain: "a.com", credential: "nope" }] }, /credential "nope" not found/],
    ["another owner's credential", { allowlist: [{ domain: "a.com", credential: "bearer" }] }, /not found/],
    ["a non-bearer credential", { allowlist: [{ domain: "a.com", credential: "envvar" }] }, /environment_variable credential/],
    ["an invalid header name", { allowlist: [{ domain: "a.com", transform: { "Bad Header": "x" } }] }, /cannot be injected/],
    [
      "a framing header",
      { allowlist: [{ domain: "a.com", transform: { "Content-Length": "0" } }] },
      /"Content-Length" cannot be injected: it frames or routes/,
    ],
    ["a header value with a line break", { allowlist: [{ domain: "a.com", transform: { "X-A": "1\r\nX-B: 2" } }] }, /line breaks/],
  ];
  for (const [what, network, pattern] of refused) {
    it(`refuses ${what}`, () => {
      const owner = what === "another owner's credential" ? "someone-else" : "me";
      assert.throws(
        () => checkNetwork(network as never, owner, credentials),
        (error: unknown) => error instanceof InvalidArgumentError && pattern.test(error.message),
      );
    });
  }

  it("accepts the documentation's audit-logging network", () => {
    checkNetwork(
      {
        allowlist: [
          { domain: "telemetry.example.com", transform: { Authorization: "Bearer telemetry_secret_token_123" } },
          { domain: "*" },
        ],
      },
      "me",
      credentials,
    );
  });
});
