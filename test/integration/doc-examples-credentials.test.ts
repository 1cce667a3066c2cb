// The code examples of the documentation's credentials page (ai.google.dev/gemini-api/docs/
// agent-credentials, the revision of 2026-09-18), run as a new user would: the JavaScript example through
// the official SDK, the REST example as the same HTTP request, the Python example as the body the Python
// SDK sends. Our own code throughout. The GitHub repository an example mounts comes from a stand-in
// repository on this machine (EMULATOR_REPO_MAP); the MCP example's server (api.githubcopilot.com) is an
// outside host, listed in tools/parity/doc-examples.ts.
//
// Each `// doc-example:` line names the example (page#section: what) that docs/coverage.md lists.
// covers: credentials.create, credentials.list, credentials.get, credentials.update, credentials.delete

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { docClient, startWithStandInRepositories, type DocClient, type Json } from "../support/doc-example-client.js";
import type { FakeRuntimeEmulator } from "../support/fake-runtime.js";

const KEY = "doc-examples-credentials-key";
const AGENT = "antigravity-preview-09-2026";
const TOKEN = "ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx";

let emulator: FakeRuntimeEmulator;
let doc: DocClient;
let close: () => Promise<void>;

before(async () => {
  ({ emulator, close } = await startWithStandInRepositories("doc-examples-credentials", {
    "https://github.com/your-org/backend": { "README.md": "# backend\n" },
  }));
  doc = docClient(emulator.url, KEY);
});
after(async () => {
  await close?.();
});

const oauth = (id: string) => ({
  id,
  type: "oauth2",
  client_id: "my-client-id",
  client_secret: "my-client-secret",
  token_url: "https://auth.atlassian.com/oauth/token",
  refresh_token: "rt_xxxxxxxxxxxxxxxxxxxx",
  scopes: ["read:jira-work", "write:jira-work"],
});

describe("agent-credentials: storing and using a credential", () => {
  it("stores a bearer token and answers its metadata only", async () => {
    // doc-example: agent-credentials#intro: credentials.create github-production, a bearer_token (python, javascript, rest)
    const credential = (await doc.client.credentials.create({
      id: "github-production",
      type: "bearer_token",
      token: TOKEN,
    } as never)) as Json;
    assert.deepEqual([credential.id, credential.status], ["github-production", "active"]);
    assert.equal(credential.token, undefined, "the secret is write-only");
    const byRest = await doc.rest("POST", "/v1beta/credentials", { id: "github-production-rest", type: "bearer_token", token: TOKEN });
    assert.equal(byRest.status, 200, byRest.text);
    for (const field of ["id", "type", "status", "create_time", "update_time"]) assert.ok(field in byRest.json, byRest.text);
    assert.equal(byRest.json.token, undefined);
  });

  it("names the credential from an allowlist rule", async () => {
    // doc-example: agent-credentials#intro: an allowlist rule api.github.com with credential github-production (python, javascript, rest)
    const body = {
      agent: AGENT,
      input: "Triage the open issues in my-org/my-repo.",
      environment: {
        type: "remote",
        network: { allowlist: [{ domain: "api.github.com", credential: "github-production" }, { domain: "*" }] },
      },
    };
    await doc.create(body);
    await doc.createByRest(body);
  });

  it("mixes credential rules, an OAuth2 one among them, with a plain rule", async () => {
    // doc-example: agent-credentials#use-credentials-in-the-network-allowlist: github.com and api.atlassian.com credential rules and *.googleapis.com (python, javascript, rest)
    await doc.client.credentials.create(oauth("jira-oauth") as never);
    await doc.create({
      agent: AGENT,
      input: "Sync the open Jira issues into the tracking sheet in my repo.",
      environment: {
        type: "remote",
        sources: [{ type: "repository", source: "https://github.com/your-org/backend", target: "/backend-app" }],
        network: {
          allowlist: [
            { domain: "github.com", credential: "github-production" },
            { domain: "api.atlassian.com", credential: "jira-oauth" },
            { domain: "*.googleapis.com" },
          ],
        },
      },
    });
  });

  it("maps an environment_variable credential to a variable", async () => {
    // doc-example: agent-credentials#use-credentials-as-environment-variables: env SLACK_BOT_TOKEN from credential slack-bot-token (python, javascript, rest)
    // The page creates slack-bot-token in its "environment variable" section, below (the test there
    // creates it again, so this one removes it after).
    const stored = await doc.rest("POST", "/v1beta/credentials", {
      id: "slack-bot-token",
      type: "environment_variable",
      value: "xoxb-xxxxxxxxxxxx-xxxxxxxxxxxx",
      trusted_domains: ["*.slack.com", "slack.com"],
      injection_location: "header",
    });
    assert.equal(stored.status, 200, stored.text);
    await doc.create({
      agent: AGENT,
      input: "Run the sync script and check notifications.",
      environment: { type: "remote", env: { NODE_ENV: "production", SLACK_BOT_TOKEN: { credential: "slack-bot-token" } } },
    });
    assert.equal((await doc.rest("DELETE", "/v1beta/credentials/slack-bot-token")).status, 200);
  });
});

describe("agent-credentials: the credential types", () => {
  it("stores a bearer token for another header without a prefix", async () => {
    // doc-example: agent-credentials#bearer-token: header_name x-goog-api-key and an empty prefix (python, javascript, rest)
    const body = { id: "my-api-key", type: "bearer_token", token: "key_xxxxxxxxxxxx", header_name: "x-goog-api-key", prefix: "" };
    const credential = (await doc.client.credentials.create(body as never)) as Json;
    assert.equal(credential.header_name, "x-goog-api-key");
    const byRest = await doc.rest("POST", "/v1beta/credentials", { ...body, id: "my-api-key-rest" });
    assert.equal(byRest.status, 200, byRest.text);
  });

  it("stores an OAuth2 credential", async () => {
    // doc-example: agent-credentials#oauth2: client_id, client_secret, token_url, refresh_token and scopes (python, javascript, rest)
    const credential = (await doc.client.credentials.create(oauth("jira-oauth-2") as never)) as Json;
    assert.deepEqual([credential.type, credential.status], ["oauth2", "active"]);
    assert.equal(credential.client_secret, undefined);
    const byRest = await doc.rest("POST", "/v1beta/credentials", oauth("jira-oauth-rest"));
    assert.equal(byRest.status, 200, byRest.text);
  });

  it("stores an environment_variable credential", async () => {
    // doc-example: agent-credentials#environment-variable: value, trusted_domains and injection_location header (python, javascript, rest)
    const body = {
      id: "slack-bot-token",
      type: "environment_variable",
      value: "xoxb-xxxxxxxxxxxx-xxxxxxxxxxxx",
      trusted_domains: ["*.slack.com", "slack.com"],
      injection_location: "header",
    };
    assert.equal(((await doc.client.credentials.create(body as never)) as Json).type, "environment_variable");
    const byRest = await doc.rest("POST", "/v1beta/credentials", {
      ...body,
      id: "slack-bot-token-rest",
      injection_location: ["header", "query"],
    });
    assert.equal(byRest.status, 200, byRest.text);
  });
});

describe("agent-credentials: generated IDs", () => {
  it("generates a UUID for a credential created without an id", async () => {
    // doc-example: agent-credentials#generated-ids: a credential without id gets a UUID (rest)
    const created = await doc.rest("POST", "/v1beta/credentials", { type: "bearer_token", token: TOKEN });
    assert.equal(created.status, 200, created.text);
    assert.match(created.json.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(created.json.status, "active");
    assert.equal((await doc.rest("GET", `/v1beta/credentials/${created.json.id}`)).json.id, created.json.id);
    await doc.rest("DELETE", `/v1beta/credentials/${created.json.id}`);
  });
});

describe("agent-credentials: managing credentials", () => {
  it("lists with page_size, gets, rotates, and deletes", async () => {
    // doc-example: agent-credentials#list-credentials: credentials.list page_size 10 (python, javascript, rest)
    const page = (await doc.client.credentials.list({ page_size: 10 } as never)) as Json;
    assert.ok(page.credentials.length > 0 && page.credentials.length <= 10);
    for (const credential of page.credentials) assert.ok(credential.id && credential.type);
    const byRest = await doc.rest("GET", "/v1beta/credentials?page_size=10");
    assert.ok(byRest.json.credentials.length <= 10);

    // doc-example: agent-credentials#get-a-credential: credentials.get github-production, and a 404 not_found for a missing one (python, javascript, rest)
    const got = (await doc.client.credentials.get("github-production")) as Json;
    assert.deepEqual([got.id, got.status], ["github-production", "active"]);
    assert.equal((await doc.rest("GET", "/v1beta/credentials/github-production")).json.id, "github-production");
    const missing = await doc.rest("GET", "/v1beta/credentials/no-such-credential");
    assert.equal(missing.status, 404);
    assert.equal(missing.json.error.code, "not_found");

    // doc-example: agent-credentials#rotate-a-credential: update with type and a new token, and an OAuth2 refresh_token (python, javascript, rest)
    const rotated = (await doc.client.credentials.update("github-production", {
      type: "bearer_token",
      token: "ghp_new_xxxxxxxxxxxxxxxxxxxx",
    } as never)) as Json;
    assert.equal(rotated.id, "github-production");
    const patched = await doc.rest("PATCH", "/v1beta/credentials/github-production-rest", {
      type: "bearer_token",
      token: "ghp_new_xxxxxxxxxxxxxxxxxxxx",
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(
      (
        (await doc.client.credentials.update("jira-oauth-2", {
          type: "oauth2",
          refresh_token: "rt_new_xxxxxxxxxxxxxxxxxxxx",
        } as never)) as Json
      ).type,
      "oauth2",
    );
    const oauthRest = await doc.rest("PATCH", "/v1beta/credentials/jira-oauth-rest", {
      type: "oauth2",
      refresh_token: "rt_new_xxxxxxxxxxxxxxxxxxxx",
    });
    assert.equal(oauthRest.status, 200, oauthRest.text);

    // doc-example: agent-credentials#delete-a-credential: credentials.delete, an empty object (python, javascript, rest)
    await doc.client.credentials.delete("my-api-key");
    const deleted = await doc.rest("DELETE", "/v1beta/credentials/my-api-key-rest");
    assert.equal(deleted.status, 200);
    assert.deepEqual(deleted.json, {});
  });

  it("answers the page's errors: 409 aborted for a duplicate, a 400 naming an unknown field", async () => {
    // doc-example: agent-credentials#errors: a duplicate ID is a 409 aborted, a camelCase field a 400 naming it (rest)
    const duplicate = await doc.rest("POST", "/v1beta/credentials", { id: "github-production", type: "bearer_token", token: TOKEN });
    assert.equal(duplicate.status, 409);
    assert.equal(duplicate.json.error.code, "aborted");
    assert.match(duplicate.json.error.message, /github-production.* already exists/);
    const camel = await doc.rest("POST", "/v1beta/credentials", { id: "camel", type: "bearer_token", token: TOKEN, headerName: "X-Token" });
    assert.equal(camel.status, 400, camel.text);
    assert.match(camel.json.error.message, /headerName/);
  });

  it("answers an unknown field with a suggestion, as the page's error shows", async () => {
    // doc-example: agent-credentials#errors: an unknown camelCase field is refused with "Did you mean 'header_name'?" (rest)
    // The page's example shows code invalid_request; the newer API errors page (2026-09-20) lists
    // parameter_unknown for an unknown field, and the newest reference wins (docs/fidelity.md).
    const camel = await doc.rest("POST", "/v1beta/credentials", { id: "camel", type: "bearer_token", token: TOKEN, headerName: "X-Token" });
    assert.equal(camel.status, 400, camel.text);
    assert.equal(camel.json.error.code, "parameter_unknown");
    assert.match(camel.json.error.message, /Unknown name "headerName": Cannot find field\. Did you mean 'header_name'\?/);
  });
});
