// The /{v}/credentials resource through the official SDK: secrets go in and never come back out.
// covers: credentials.create, credentials.list, credentials.get, credentials.update, credentials.delete
// covers: CreateCredential.client_id, CreateCredential.client_secret, CreateCredential.refresh_token
// covers: CreateCredential.token_url, CreateCredential.scopes, UpdateCredential.client_id, UpdateCredential.client_secret
// covers: UpdateCredential.refresh_token, UpdateCredential.token_url, UpdateCredential.scopes, UpdateCredential.type

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { GoogleGenAI } from "@google/genai";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";

let emulator: EmulatorProcess;
let ai: GoogleGenAI;
const KEY = "credentials-key";

before(async () => {
  emulator = await startEmulatorProcess();
  ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
});
after(async () => {
  await emulator?.destroy();
});

function statusOf(error: unknown): number | undefined {
  return (error as { status?: number; statusCode?: number }).status ?? (error as { statusCode?: number }).statusCode;
}

describe("credentials through the official SDK", () => {
  it("creates a bearer-token credential and never returns its token", async () => {
    const created = await ai.credentials.create({
      id: "telemetry",
      type: "bearer_token",
      token: "s3cret-token",
      header_name: "Authorization",
    });
    assert.equal(created.id, "telemetry");
    assert.equal(created.type, "bearer_token");
    assert.equal(created.status, "active");
    assert.match(created.create_time ?? "", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const fetched = await ai.credentials.get("telemetry");
    for (const body of [JSON.stringify(created), JSON.stringify(fetched)]) assert.doesNotMatch(body, /s3cret-token/);
  });

  it("lists credentials page by page", async () => {
    for (const id of ["page-a", "page-b", "page-c"]) await ai.credentials.create({ id, type: "bearer_token", token: `t-${id}` });
    const first = await ai.credentials.list({ page_size: 2 });
    assert.equal(first.credentials?.length, 2);
    assert.ok(first.next_page_token);
    const ids: string[] = (first.credentials ?? []).map((credential) => credential.id);
    let token: string | undefined = first.next_page_token;
    while (token) {
      const page = await ai.credentials.list({ page_size: 2, page_token: token });
      ids.push(...(page.credentials ?? []).map((credential) => credential.id));
      token = page.next_page_token;
    }
    assert.deepEqual(ids, ["page-a", "page-b", "page-c", "telemetry"]);
    assert.doesNotMatch(JSON.stringify(first), /t-page-/);
  });

  it("updates a credential, and refuses fields its type does not have", async () => {
    const updated = await ai.credentials.update("telemetry", { type: "bearer_token", token: "rotated", prefix: "Token" });
    assert.equal((updated as { prefix?: string }).prefix, "Token");
    const response = await fetch(`${emulator.url}/v1/credentials/telemetry`, {
      method: "PATCH",
      headers: { "content-type": "application/json", "x-goog-api-key": KEY },
      body: JSON.stringify({ type: "bearer_token", refresh_token: "x" }),
    });
    assert.equal(response.status, 400);
    assert.match(
      ((await response.json()) as { error: { message: string } }).error.message,
      /Unknown name "refresh_token": Cannot find field/,
    );
  });

  it("shows a bearer credential's header_name and prefix as created and as updated, the type kept and never changed", async () => {
    const created = (await ai.credentials.create({
      id: "api-key-style",
      type: "bearer_token",
      token: "first-s3cret",
      header_name: "X-Api-Key",
      prefix: "",
    })) as Record<string, unknown>;
    assert.deepEqual([created.header_name, created.prefix], ["X-Api-Key", ""]);
    const updated = (await ai.credentials.update("api-key-style", {
      type: "bearer_token",
      token: "second-s3cret",
      header_name: "PRIVATE-TOKEN",
      prefix: "Token",
    } as never)) as Record<string, unknown>;
    assert.deepEqual([updated.type, updated.header_name, updated.prefix], ["bearer_token", "PRIVATE-TOKEN", "Token"]);
    const got = (await ai.credentials.get("api-key-style")) as Record<string, unknown>;
    assert.deepEqual([got.header_name, got.prefix], ["PRIVATE-TOKEN", "Token"]);
    assert.doesNotMatch(JSON.stringify([created, updated, got]), /s3cret/);
    const retyped = await fetch(`${emulator.url}/v1beta/credentials/api-key-style`, {
      method: "PATCH",
      headers: { "content-type": "application/json", "x-goog-api-key": KEY },
      body: JSON.stringify({ type: "oauth2", client_id: "x" }),
    });
    assert.equal(retyped.status, 400);
    assert.match(
      ((await retyped.json()) as { error: { message: string } }).error.message,
      /is a bearer_token credential; its type cannot change/,
    );
  });

  it("stores an OAuth2 credential's client_id, token_url and scopes and shows them, never its client_secret or refresh_token", async () => {
    const created = (await ai.credentials.create({
      id: "jira-oauth",
      type: "oauth2",
      client_id: "client-1",
      client_secret: "secret-one-s3cret",
      refresh_token: "refresh-one-s3cret",
      token_url: "https://auth.example.com/oauth/token",
      scopes: ["read:jira-work"],
    } as never)) as Record<string, unknown>;
    assert.deepEqual(
      [created.type, created.client_id, created.token_url, created.scopes],
      ["oauth2", "client-1", "https://auth.example.com/oauth/token", ["read:jira-work"]],
    );
    const updated = (await ai.credentials.update("jira-oauth", {
      type: "oauth2",
      client_id: "client-2",
      client_secret: "secret-two-s3cret",
      refresh_token: "refresh-two-s3cret",
      token_url: "https://auth.example.com/v2/token",
      scopes: ["read:jira-work", "write:jira-work"],
    } as never)) as Record<string, unknown>;
    const got = (await ai.credentials.get("jira-oauth")) as Record<string, unknown>;
    for (const shown of [updated, got]) {
      assert.deepEqual(
        [shown.client_id, shown.token_url, shown.scopes],
        ["client-2", "https://auth.example.com/v2/token", ["read:jira-work", "write:jira-work"]],
      );
    }
    const listed = await ai.credentials.list({ page_size: 100 });
    assert.doesNotMatch(JSON.stringify([created, updated, got, listed]), /s3cret/, "no secret comes back, created or updated");
    // Both secrets are required at creation, and a bearer credential has neither to update.
    const missing = await fetch(`${emulator.url}/v1beta/credentials`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-goog-api-key": KEY },
      body: JSON.stringify({ id: "half-oauth", type: "oauth2", client_id: "c", refresh_token: "r" }),
    });
    assert.equal(missing.status, 400);
    assert.match(await missing.text(), /client_secret/);
    const wrongType = await fetch(`${emulator.url}/v1beta/credentials/api-key-style`, {
      method: "PATCH",
      headers: { "content-type": "application/json", "x-goog-api-key": KEY },
      body: JSON.stringify({ type: "bearer_token", client_secret: "x", scopes: ["a"] }),
    });
    assert.equal(wrongType.status, 400);
    assert.match(
      ((await wrongType.json()) as { error: { message: string } }).error.message,
      /Unknown name "client_secret": Cannot find field.*\n.*Unknown name "scopes"/,
    );
  });

  it("deletes a credential with 200 {}, after which it is not found", async () => {
    await ai.credentials.delete("page-c");
    await assert.rejects(ai.credentials.get("page-c"), (error: unknown) => statusOf(error) === 404);
  });

  it("keeps each API key's credentials apart", async () => {
    const other = new GoogleGenAI({ apiKey: "another-key", httpOptions: { baseUrl: emulator.url } });
    await assert.rejects(other.credentials.get("telemetry"), (error: unknown) => statusOf(error) === 404);
    const created = await other.credentials.create({ id: "telemetry", type: "bearer_token", token: "theirs" });
    assert.equal(created.id, "telemetry");
  });

  const refusals: Array<[string, unknown, number, RegExp]> = [
    ["a duplicate id", { id: "telemetry", type: "bearer_token", token: "x" }, 409, /already exists/],
    ["an unknown type", { id: "x1", type: "api_key", token: "x" }, 400, /'api_key' is not supported for 'type'/],
    ["a bearer token without a token", { id: "x2", type: "bearer_token" }, 400, /token/],
    ["an invalid id", { id: "has space", type: "bearer_token", token: "x" }, 400, /id/],
    ["an invalid header name", { id: "x3", type: "bearer_token", token: "x", header_name: "Bad Header" }, 400, /header_name/],
  ];
  for (const [what, body, status, pattern] of refusals) {
    it(`refuses ${what} with ${status}`, async () => {
      const response = await fetch(`${emulator.url}/v1beta/credentials`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-goog-api-key": KEY },
        body: JSON.stringify(body),
      });
      assert.equal(response.status, status);
      assert.match(((await response.json()) as { error: { message: string } }).error.message, pattern);
    });
  }
});
