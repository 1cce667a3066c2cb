// Lists answer in pages bounded in bytes (issue 29, item 11), through the HTTP API of an emulator in
// this process: agents and triggers with large fields come a few per page, each page about
// EMULATOR_LIST_PAGE_BYTES at most (or one item), with a next_page_token that reaches every item once.
// Before, a list was one JSON string of every item of the page: 13 agents of 45 MB instructions made
// GET agents answer 500 "Invalid string length" after holding /health 4-7 s.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startFakeRuntimeEmulator, type FakeRuntimeEmulator } from "../support/fake-runtime.js";
import { HOSTILE_INPUT_BOUNDS, withoutStalls } from "../support/stall-detector.js";

const KEY = "list-bounds-key";
const AGENT = "antigravity-preview-05-2026";
const PAGE_BYTES = 1024 * 1024;
const LARGE = 600 * 1024;

let emulator: FakeRuntimeEmulator;

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; text: string; body: any }> {
  const response = await fetch(`${emulator.url}${path}`, {
    method,
    headers: { "x-goog-api-key": KEY, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) };
}

/** Every page of a list, following next_page_token; each page's length in characters. */
async function allPages(path: string, field: string): Promise<{ ids: string[]; pageLengths: number[] }> {
  const ids: string[] = [];
  const pageLengths: number[] = [];
  let token = "";
  do {
    const page = await call("GET", `${path}?page_size=100${token ? `&page_token=${token}` : ""}`);
    assert.equal(page.status, 200, page.text.slice(0, 300));
    pageLengths.push(page.text.length);
    ids.push(...(page.body[field] as Array<{ id: string }>).map((item) => item.id));
    token = page.body.next_page_token ?? "";
  } while (token !== "");
  return { ids, pageLengths };
}

before(async () => {
  emulator = await startFakeRuntimeEmulator({ EMULATOR_LIST_PAGE_BYTES: String(PAGE_BYTES) });
});
after(async () => {
  await emulator?.close();
});

describe("lists are paged within a byte bound", () => {
  it("pages agents with large instructions a few at a time, reaching each once, with /health answering", async () => {
    const made: string[] = [];
    for (let index = 0; index < 5; index++) {
      const agent = await call("POST", "/v1beta/agents", { id: `big-${index}`, base_agent: AGENT, system_instruction: "i".repeat(LARGE) });
      assert.equal(agent.status, 200, agent.text.slice(0, 300));
      made.push(agent.body.id);
    }
    const { result } = await withoutStalls(emulator.url, HOSTILE_INPUT_BOUNDS, () => allPages("/v1beta/agents", "agents"), {
      inProcess: true,
      what: "listing large agents",
    });
    assert.deepEqual(result.ids, made);
    assert.ok(result.pageLengths.length >= 3, `${result.pageLengths.length} pages`);
    for (const length of result.pageLengths) assert.ok(length <= PAGE_BYTES + LARGE + 1024, `a page of ${length} characters`);
  });

  it("pages triggers with large inputs the same way", async () => {
    const made: string[] = [];
    for (let index = 0; index < 4; index++) {
      const trigger = await call("POST", "/v1beta/triggers", {
        schedule: "0 0 * * *",
        time_zone: "UTC",
        interaction: { agent: AGENT, input: "t".repeat(LARGE) },
      });
      assert.equal(trigger.status, 200, trigger.text.slice(0, 300));
      made.push(trigger.body.id);
    }
    const { ids, pageLengths } = await allPages("/v1beta/triggers", "triggers");
    assert.deepEqual(ids, [...made].sort());
    assert.ok(pageLengths.length >= 2, `${pageLengths.length} pages`);
    for (const length of pageLengths) assert.ok(length <= PAGE_BYTES + LARGE + 1024, `a page of ${length} characters`);
  });

  it("pages environments within the bound too (here one per page)", async () => {
    const small = await startFakeRuntimeEmulator({ EMULATOR_LIST_PAGE_BYTES: "100" });
    try {
      const headers = { "x-goog-api-key": KEY, "content-type": "application/json" };
      const made: string[] = [];
      for (let index = 0; index < 3; index++) {
        const response = await fetch(`${small.url}/v1beta/environments`, {
          method: "POST",
          headers,
          body: JSON.stringify({ sources: [] }),
        });
        const body = (await response.json()) as { id: string };
        assert.equal(response.status, 200, JSON.stringify(body));
        made.push(body.id);
      }
      const seen: string[] = [];
      let token = "";
      let pages = 0;
      do {
        const response = await fetch(`${small.url}/v1beta/environments?page_size=50${token ? `&page_token=${token}` : ""}`, { headers });
        const body = (await response.json()) as { environments: Array<{ id: string }>; next_page_token: string };
        assert.equal(body.environments.length, 1, "each environment's JSON passes 100 bytes: one per page");
        seen.push(...body.environments.map((environment) => environment.id));
        token = body.next_page_token;
        pages += 1;
      } while (token !== "" && pages < 10);
      assert.deepEqual(seen.sort(), made.sort());
    } finally {
      await small.close();
    }
  });
});
