// Bounded work (docs/security.md#bounded-work) on an emulator in this process with a fake sandbox
// runtime, every request watched by the stall detector (HOSTILE_INPUT_BOUNDS: /health and the event loop never held
// for long): the schemas of issue 17's case 1 are a 400 at once; a schema the bounds allow but whose
// compilation takes seconds is checked off the event loop, for a response_format and for a function's
// parameters alike; past EMULATOR_SCHEMA_TIMEOUT_SECONDS it is a 400 naming the setting, and the next
// request is served; and case 2's hostile MCP server (huge names, an endless nextCursor) costs three
// interactions an is_error result each, naming the bound.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FakeRuntimeEmulator, startFakeRuntimeEmulator } from "../support/fake-runtime.js";
import { type HostileMcpServer, startHostileMcpServer, toolsWithLongNames } from "../support/hostile-mcp-server.js";
import { postInteraction } from "../support/post-interaction.js";
import { HUGE_MIN_PROPERTIES, jsonFormat, LARGE_MIN_PROPERTIES, manyRefsSchema } from "../support/hostile-schemas.js";
import { HOSTILE_INPUT_BOUNDS, withoutStalls } from "../support/stall-detector.js";

const KEY = "bounded-work-key";
/**
 * The issue asks for /health within 1 s; 2.5 s, and 1.5 s of event-loop delay, leave a margin for a
 * 2-core machine loaded by other work (this one has seen 0.8 s of delay from load alone), and still
 * fail the unfixed code by far: it held the event loop 3-7 s for the 3000-$ref schema and 23-53 s for
 * the minProperties ones.
 */
const STALL_BOUNDS = HOSTILE_INPUT_BOUNDS;

type Body = Record<string, any>;

function create(emulator: FakeRuntimeEmulator, body: Body): Promise<{ status: number; body: Body }> {
  return postInteraction(emulator.url, KEY, body);
}

/** `create` while the stall detector watches the emulator. */
async function createWithoutStalls(emulator: FakeRuntimeEmulator, body: Body, what: string) {
  const { result } = await withoutStalls(emulator.url, STALL_BOUNDS, () => create(emulator, body), { inProcess: true, what });
  return result;
}

const script = (calls: unknown[]): string => `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``;

describe("bounded work on JSON Schemas", () => {
  let emulator: FakeRuntimeEmulator;
  before(async () => {
    // A deadline far past what the 3000-$ref schemas take even on a loaded machine: these tests are about the event loop.
    emulator = await startFakeRuntimeEmulator({ EMULATOR_SCHEMA_TIMEOUT_SECONDS: "120" });
  });
  after(async () => {
    await emulator?.close();
  });

  for (const [name, schema] of [
    ["minProperties 10^8", HUGE_MIN_PROPERTIES],
    ["minProperties 10^7", LARGE_MIN_PROPERTIES],
  ] as const) {
    it(`refuses a schema of ${name} at once with a 400 naming the keyword, the path and the setting`, async () => {
      const { status, body } = await createWithoutStalls(emulator, { input: "answer", response_format: jsonFormat(schema) }, name);
      assert.equal(status, 400);
      assert.equal(body.error?.status, "INVALID_ARGUMENT");
      assert.match(
        body.error?.message,
        /^response_format\.schema: the emulator cannot build an answer for this schema \(at \(root\): minProperties asks for \d+ properties, more than the 10000 values an answer may hold \(EMULATOR_MAX_ANSWER_VALUES\)\)/,
      );
    });
  }

  it("compiles an allowed but costly response_format schema off the event loop", async () => {
    const { status, body } = await createWithoutStalls(
      emulator,
      { input: "answer", response_format: jsonFormat(manyRefsSchema()) },
      "a response_format schema of 3000 $refs",
    );
    assert.equal(status, 200, JSON.stringify(body).slice(0, 500));
    assert.equal(body.status, "completed");
    assert.equal(body.output_text ?? body.steps?.at(-1)?.content?.[0]?.text, "{}");
  });

  it("checks a call against costly function parameters off the event loop", async () => {
    const { status, body } = await createWithoutStalls(
      emulator,
      {
        input: script([{ name: "lookup", args: { r0: { p0: "x" } } }]),
        tools: [
          {
            type: "function",
            name: "lookup",
            parameters: { $schema: "https://json-schema.org/draft/2020-12/schema", ...manyRefsSchema() },
          },
        ],
      },
      "function parameters of 3000 $refs",
    );
    assert.equal(status, 200, JSON.stringify(body).slice(0, 500));
    assert.equal(body.status, "requires_action");
  });
});

describe("the deadline of a request's schema work", () => {
  let emulator: FakeRuntimeEmulator;
  before(async () => {
    emulator = await startFakeRuntimeEmulator({ EMULATOR_SCHEMA_TIMEOUT_SECONDS: "0.3" });
  });
  after(async () => {
    await emulator?.close();
  });

  it("refuses a schema whose work passes EMULATOR_SCHEMA_TIMEOUT_SECONDS, then serves the next request", async () => {
    const { status, body } = await createWithoutStalls(
      emulator,
      { input: "answer", response_format: jsonFormat(manyRefsSchema(7000)) },
      "a schema past its deadline",
    );
    assert.equal(status, 400);
    assert.equal(body.error?.status, "INVALID_ARGUMENT");
    assert.match(
      body.error?.message,
      /^response_format\.schema: the JSON Schema of this request \(response_format\.schema\) took longer than 0\.3 s to compile and check \(EMULATOR_SCHEMA_TIMEOUT_SECONDS\), so the request is too costly/,
    );
    const next = await create(emulator, {
      input: "answer",
      response_format: jsonFormat({ type: "object", required: ["a"], properties: { a: { type: "integer" } } }),
    });
    assert.equal(next.status, 200);
    assert.equal(next.body.status, "completed");
  });
});

describe("a hostile MCP server's tool list (issue 17, case 2)", () => {
  let emulator: FakeRuntimeEmulator;
  let hostile: HostileMcpServer;
  const LIST_BYTES = 2 * 1024 * 1024;
  before(async () => {
    // 15 tools of 64 KiB names a page (about 1 MiB) and always a nextCursor; smaller than the issue's
    // 1 MiB names, and a smaller list bound, so the test's own traffic stays modest.
    hostile = await startHostileMcpServer({
      listPage: (page) => ({ tools: toolsWithLongNames(page, 15, 64 * 1024), nextCursor: `next-${page + 1}` }),
    });
    emulator = await startFakeRuntimeEmulator({ EMULATOR_MCP_MAX_LIST_BYTES: String(LIST_BYTES) });
  });
  after(async () => {
    await emulator?.close();
    await hostile?.close();
  });

  it("answers three interactions calling a tool it does not list with an is_error result naming the bound", async () => {
    for (let round = 1; round <= 3; round++) {
      const { status, body } = await createWithoutStalls(
        emulator,
        {
          input: script([{ server: "hostile", name: "not_listed", args: {} }]),
          tools: [{ type: "mcp_server", name: "hostile", url: hostile.url }],
        },
        `interaction ${round} with the hostile MCP server`,
      );
      assert.equal(status, 200);
      assert.equal(body.status, "completed");
      const result = (body.steps as Body[]).find((step) => step.type === "mcp_server_tool_result");
      assert.equal(result?.is_error, true);
      assert.match(
        result?.result,
        /^Could not list the tools of the MCP server "hostile" at .*: the tool lists of this interaction's MCP servers passed 2097152 bytes together \(EMULATOR_MCP_MAX_LIST_BYTES\)/,
      );
    }
    // The emulator stopped reading at the bound: about 2 MiB a run, not 100 pages of 1 MiB.
    assert.ok(hostile.bytesSent() < 3 * 4 * 1024 * 1024, `the server sent ${hostile.bytesSent()} bytes`);
    assert.equal((await fetch(`${emulator.url}/health`)).status, 200);
  });
});
