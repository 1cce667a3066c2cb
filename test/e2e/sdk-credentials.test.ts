// The /{v}/credentials resource through the official SDK: secrets go in and never come back out.
// covers: credentials.create, credentials.list, credentials.get, credentials.update, credentials.delete

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
      body: JSON.stringify({ refresh_token: "x" }),
    });
    assert.equal(response.status, 400);
    assert.match(((await response.json()) as { error: { message: string } }).error.message, /updatable fields: token, header_name, prefix/);
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
    ["an unknown type", { id: "x1", type: "api_key", token: "x" }, 400, /type must be/],
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
