// Variables backed by environment_variable credentials: what the environment stores (a placeholder per
// variable) and what the proxy is told (the secret, only while the credential exists and is active).

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InvalidArgumentError } from "../../server/common/errors.js";
import { CredentialStore } from "../../server/credentials/credential-store.js";
import {
  checkEnvCredentials,
  envSubstitutions,
  nextEnvCredentials,
  placeholderValues,
  renewPlaceholders,
} from "../../server/egress/env-credentials.js";
import { openMemoryDatabase } from "../../server/store/database.js";

function store(): CredentialStore {
  const credentials = new CredentialStore(openMemoryDatabase());
  const times = { createTime: "t", updateTime: "t" };
  credentials.insert({
    owner: "me",
    id: "slack",
    type: "environment_variable",
    status: "active",
    config: {
      type: "environment_variable",
      id: "slack",
      value: "xoxb-secret",
      injection_location: ["header", "query"],
      trusted_domains: ["*.slack.com"],
    },
    ...times,
  });
  credentials.insert({
    owner: "me",
    id: "bearer",
    type: "bearer_token",
    status: "active",
    config: { type: "bearer_token", id: "bearer", token: "t" },
    ...times,
  });
  credentials.insert({
    owner: "me",
    id: "imported",
    type: "environment_variable",
    status: "needs_secret",
    config: { type: "environment_variable", id: "imported", value: "", injection_location: "body" } as never,
    ...times,
  });
  return credentials;
}

describe("environment variables backed by credentials", () => {
  const credentials = store();

  const refused: Array<[string, Record<string, string>, string, RegExp]> = [
    ["an unknown credential", { TOKEN: "nope" }, "me", /^environment\.env\.TOKEN: credential "nope" not found\. Create it first with POST/],
    ["another key's credential", { TOKEN: "slack" }, "someone-else", /environment\.env\.TOKEN: credential "slack" not found/],
    [
      "a credential of another type",
      { TOKEN: "bearer" },
      "me",
      /environment\.env\.TOKEN: credential "bearer" is a bearer_token credential; a variable can only name an environment_variable credential/,
    ],
  ];
  for (const [what, references, owner, pattern] of refused) {
    it(`refuses ${what} with a message naming the variable`, () => {
      assert.throws(
        () => checkEnvCredentials(references, owner, credentials),
        (error: unknown) => error instanceof InvalidArgumentError && pattern.test(error.message),
      );
    });
  }

  it("gives each variable a random placeholder that is not the secret, kept while it names the same credential", () => {
    const first = nextEnvCredentials(undefined, { PLAIN: "x" }, { SLACK: "slack", OTHER: "slack" });
    assert.deepEqual(Object.keys(first), ["SLACK", "OTHER"]);
    assert.match(first.SLACK!.placeholder, /^emulator-credential-placeholder-[0-9a-f]{48}$/);
    assert.notEqual(first.SLACK!.placeholder, first.OTHER!.placeholder);
    assert.doesNotMatch(JSON.stringify(first), /xoxb-secret/);
    const again = nextEnvCredentials(first, {}, { SLACK: "slack" });
    assert.equal(again.SLACK!.placeholder, first.SLACK!.placeholder);
    const renamed = nextEnvCredentials(first, { OTHER: "plain now" }, { SLACK: "imported" });
    assert.deepEqual(Object.keys(renamed), ["SLACK"]);
    assert.notEqual(renamed.SLACK!.placeholder, first.SLACK!.placeholder);
    const forked = renewPlaceholders(first);
    assert.notEqual(forked.SLACK!.placeholder, first.SLACK!.placeholder);
    assert.deepEqual(placeholderValues(first), { SLACK: first.SLACK!.placeholder, OTHER: first.OTHER!.placeholder });
  });

  it("tells the proxy the secret, its locations and its trusted domains; nothing for a missing or inactive credential", () => {
    const entries = { SLACK: { credential: "slack", placeholder: "emulator-credential-placeholder-aa" } };
    assert.deepEqual(envSubstitutions(entries, "me", credentials), [
      {
        name: "SLACK",
        placeholder: "emulator-credential-placeholder-aa",
        value: "xoxb-secret",
        locations: ["header", "query"],
        domains: ["*.slack.com"],
      },
    ]);
    assert.deepEqual(envSubstitutions({ GONE: { credential: "deleted", placeholder: "p" } }, "me", credentials), []);
    assert.deepEqual(envSubstitutions({ LATER: { credential: "imported", placeholder: "p" } }, "me", credentials), []);
    assert.deepEqual(envSubstitutions(entries, "someone-else", credentials), []);
  });
});
