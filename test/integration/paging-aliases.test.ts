// Every list route reads the REST examples' camelCase paging names (pageSize, pageToken) as the
// snake_case ones the SDKs send (page_size, page_token): before, `?pageSize=1` was ignored and a whole
// default page came back. Naming one parameter both ways with different values is a 400 that says so.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";

const KEY = "paging-aliases-key";
const AGENT = "antigravity-preview-05-2026";

let emulator: FakeRuntimeEmulator;

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    headers: { "x-goog-api-key": KEY, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: await response.json() };
}

before(async () => {
  emulator = await startFakeRuntimeEmulator();
  for (let index = 0; index < 3; index++) {
    assert.equal((await call("POST", "/v1beta/agents", { id: `paged-${index}`, base_agent: AGENT })).status, 200);
    assert.equal((await call("POST", "/v1beta/credentials", { id: `paged-${index}`, type: "bearer_token", token: "t" })).status, 200);
  }
});
after(async () => {
  await emulator?.close();
});

describe("pageSize and pageToken", () => {
  for (const [route, field] of [
    ["/v1beta/agents", "agents"],
    ["/v1beta/credentials", "credentials"],
  ] as const) {
    it(`page ${route} one at a time with the camelCase names, reaching each once`, async () => {
      const seen: string[] = [];
      let token = "";
      do {
        const page = await call("GET", `${route}?pageSize=1${token ? `&pageToken=${encodeURIComponent(token)}` : ""}`);
        assert.equal(page.status, 200, JSON.stringify(page.body));
        assert.equal(page.body[field].length, 1, JSON.stringify(page.body));
        seen.push(...page.body[field].map((item: { id: string }) => item.id));
        token = page.body.next_page_token ?? "";
      } while (token !== "" && seen.length < 10);
      assert.deepEqual([...new Set(seen)].sort(), ["paged-0", "paged-1", "paged-2"]);
    });
  }

  it("refuses pageSize and page_size with different values, and takes them when they agree", async () => {
    const conflict = await call("GET", "/v1beta/agents?pageSize=1&page_size=2");
    assert.equal(conflict.status, 400);
    assert.equal(conflict.body.error.code, "invalid_request");
    assert.match(conflict.body.error.message, /pageSize and page_size/);
    const agreeing = await call("GET", "/v1beta/agents?pageSize=2&page_size=2");
    assert.equal(agreeing.status, 200);
    assert.equal(agreeing.body.agents.length, 2);
  });
});
