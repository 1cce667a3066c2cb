// Properties of bounded work (docs/security.md#bounded-work) on an emulator in this process with a fake
// sandbox runtime, watched by the stall detector for the whole run: fast-check generates hostile JSON
// Schemas (huge and odd min* values, deep nesting, wide fan-out, allOf / anyOf / oneOf / $ref
// combinations, dependency chains, large consts) for response_format and for function parameters, and
// hostile MCP tool lists (huge and empty names, thousands of tools, cursors without end, outputSchemas
// that would backtrack). Whatever comes, the answer is a result or a typed 400, never a 5xx, and
// /health answers within the stall bounds throughout.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { type FakeRuntimeEmulator, startFakeRuntimeEmulator } from "../support/fake-runtime.js";
import { type HostileMcpOptions, type HostileMcpServer, type ListedTool, startHostileMcpServer } from "../support/hostile-mcp-server.js";
import { postInteraction } from "../support/post-interaction.js";
import { jsonFormat } from "../support/hostile-schemas.js";
import { runs } from "../support/property-runs.js";
import { HOSTILE_INPUT_BOUNDS, withoutStalls } from "../support/stall-detector.js";

const KEY = "bounded-work-properties";
/**
 * The issue asks for /health within 1 s; 2.5 s, and 1.5 s of event-loop delay, leave a margin for a
 * 2-core machine loaded by other work (this one has seen 0.8 s of delay from load alone), and still
 * fail the unfixed code by far: it held the event loop 3-7 s for the 3000-$ref schema and 23-53 s for
 * the minProperties ones.
 */
const STALL_BOUNDS = HOSTILE_INPUT_BOUNDS;

type Body = Record<string, any>;
type Schema = Record<string, unknown>;

function create(emulator: FakeRuntimeEmulator, body: Body): Promise<{ status: number; body: Body }> {
  return postInteraction(emulator.url, KEY, body);
}

/** A result, or a 400 INVALID_ARGUMENT with a message: never a 5xx, never another shape. */
function assertResultOrRefusal(answer: { status: number; body: Body }, what: string): void {
  if (answer.status === 200) {
    assert.ok(typeof answer.body.status === "string", `${what}: a 200 is an interaction`);
    return;
  }
  assert.equal(answer.status, 400, `${what}: ${JSON.stringify(answer.body).slice(0, 400)}`);
  assert.equal(answer.body.error?.status, "INVALID_ARGUMENT", what);
  assert.ok(typeof answer.body.error?.message === "string" && answer.body.error.message.length > 0, what);
}

const hugeCount = fc.constantFrom(0, 1, 3, 9_999, 10_000, 10_001, 100_000, 10_000_000, 100_000_000, 1e300, -1, 2.5);
const leaf: fc.Arbitrary<Schema> = fc.oneof(
  fc.constant({}),
  fc.record({ type: fc.constantFrom("string", "integer", "number", "boolean", "null") }),
  fc.record({ type: fc.constant("string"), minLength: hugeCount }),
  fc.record({ type: fc.constant("string"), pattern: fc.constantFrom("^a+$", "^(a+)+$", "[0-9]{3}", "^x{5,}$") }),
  fc.record({
    const: fc.constantFrom(
      0,
      "x",
      null,
      Array.from({ length: 5000 }, (_, index) => index),
    ),
  }),
  fc.record({
    enum: fc.constantFrom(
      [1, 2],
      [],
      Array.from({ length: 3000 }, (_, index) => `v${index}`),
    ),
  }),
  fc.constant({ $ref: "#" }),
  fc.constant({ $ref: "#/$defs/node" }),
);

/** Hostile schemas: every branch can fan out, nest, combine and ask for huge minimal values. */
const { schema: hostileSchema } = fc.letrec<{ schema: Schema }>((tie) => ({
  schema: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc
      .record({
        names: fc.array(fc.string({ minLength: 1, maxLength: 6 }), { maxLength: 40 }),
        child: tie("schema"),
        minProperties: hugeCount,
        requireAll: fc.boolean(),
        closed: fc.boolean(),
      })
      .map(({ names, child, minProperties, requireAll, closed }) => ({
        type: "object",
        properties: Object.fromEntries(names.map((name) => [name, child])),
        ...(requireAll ? { required: names } : {}),
        minProperties,
        ...(closed ? { additionalProperties: false } : {}),
      })),
    fc
      .record({ child: tie("schema"), minItems: hugeCount, unique: fc.boolean(), contains: fc.boolean() })
      .map(({ child, minItems, unique, contains }) => ({
        type: "array",
        items: child,
        minItems,
        ...(unique ? { uniqueItems: true } : {}),
        ...(contains ? { contains: child, minContains: minItems } : {}),
      })),
    fc
      .record({ keyword: fc.constantFrom("allOf", "anyOf", "oneOf"), parts: fc.array(tie("schema"), { minLength: 1, maxLength: 8 }) })
      .map(({ keyword, parts }) => ({ [keyword]: parts })),
    fc.record({ depth: fc.integer({ min: 1, max: 90 }), child: tie("schema") }).map(({ depth, child }) => {
      // One required property per level, `depth` levels deep.
      let nested: Schema = child;
      for (let level = 0; level < depth; level++) nested = { type: "object", required: ["n"], properties: { n: nested } };
      return nested;
    }),
    fc.integer({ min: 1, max: 3000 }).map((length) => {
      // A dependency chain: k0 brings k1, which brings k2, …
      const dependentRequired = Object.fromEntries(Array.from({ length }, (_, index) => [`k${index}`, [`k${index + 1}`]]));
      return { type: "object", required: ["k0"], dependentRequired };
    }),
    fc.integer({ min: 1, max: 4000 }).map((count) => ({
      // allOf of many parts that each require one more property.
      allOf: Array.from({ length: count }, (_, index) => ({ required: [`a${index}`] })),
    })),
  ),
}));

/** A schema with the definitions its $refs may name. */
const rootSchema = fc
  .record({ body: hostileSchema, node: hostileSchema })
  .map(({ body, node }) => ({ $defs: { node }, ...body }) as Schema)
  // As a request carries it: JSON (fast-check's objects may have a null prototype).
  .map((schema) => JSON.parse(JSON.stringify(schema)) as Schema);

describe("hostile JSON Schemas", () => {
  let emulator: FakeRuntimeEmulator;
  before(async () => {
    emulator = await startFakeRuntimeEmulator();
  });
  after(async () => {
    await emulator?.close();
  });

  it("are answered with a result or a typed 400, never a 5xx, without a stall (response_format)", async () => {
    await withoutStalls(
      emulator.url,
      STALL_BOUNDS,
      () =>
        fc.assert(
          fc.asyncProperty(rootSchema, async (schema) => {
            assertResultOrRefusal(await create(emulator, { input: "answer", response_format: jsonFormat(schema) }), "response_format");
          }),
          runs(60),
        ),
      { inProcess: true, what: "hostile response_format schemas" },
    );
  });

  it("are answered with a result or a typed 400, never a 5xx, without a stall (function parameters)", async () => {
    const call = `\`\`\`tool_calls\n${JSON.stringify([{ name: "f", args: { n: 1 } }])}\n\`\`\``;
    await withoutStalls(
      emulator.url,
      STALL_BOUNDS,
      () =>
        fc.assert(
          fc.asyncProperty(rootSchema, async (parameters) => {
            const answer = await create(emulator, { input: call, tools: [{ type: "function", name: "f", parameters }] });
            assertResultOrRefusal(answer, "function parameters");
          }),
          runs(40),
        ),
      { inProcess: true, what: "hostile function parameters" },
    );
  });
});

/** One hostile tool list: pages of tools with names of odd lengths, with or without an end. */
const toolListSpec = fc.record({
  perPage: fc.integer({ min: 0, max: 40 }),
  nameLength: fc.constantFrom(0, 1, 20, 128, 129, 4096, 65_536),
  pages: fc.option(fc.integer({ min: 1, max: 30 }), { nil: undefined }),
  evilOutputSchema: fc.boolean(),
  callListed: fc.boolean(),
});

type ToolListSpec = typeof toolListSpec extends fc.Arbitrary<infer T> ? T : never;

function nameOf(spec: ToolListSpec, page: number, index: number): string {
  const suffix = `_${page}_${index}`;
  if (spec.nameLength === 0) return "";
  return `t${"x".repeat(Math.max(0, spec.nameLength - suffix.length - 1))}${suffix}`.slice(0, Math.max(spec.nameLength, 1));
}

function listFor(spec: ToolListSpec): HostileMcpOptions["listPage"] {
  return (page) => {
    const tools: ListedTool[] = Array.from({ length: spec.perPage }, (_, index) => ({
      name: nameOf(spec, page, index),
      ...(spec.evilOutputSchema ? { outputSchema: { type: "object", properties: { s: { type: "string", pattern: "^(a+)+$" } } } } : {}),
    }));
    const last = spec.pages !== undefined && page + 1 >= spec.pages;
    return last ? { tools } : { tools, nextCursor: `c${page + 1}` };
  };
}

describe("hostile MCP tool lists", () => {
  let emulator: FakeRuntimeEmulator;
  let hostile: HostileMcpServer;
  let current: ToolListSpec | undefined;
  before(async () => {
    hostile = await startHostileMcpServer({
      listPage: (page, cursor) => (current ? listFor(current)(page, cursor) : { tools: [] }),
      callAnswer: () => ({ content: [{ type: "text", text: "ok" }], structuredContent: { s: `${"a".repeat(40)}!` } }),
    });
    // Small bounds keep the test's own traffic modest.
    emulator = await startFakeRuntimeEmulator({
      EMULATOR_MCP_MAX_LIST_BYTES: String(1024 * 1024),
      EMULATOR_MCP_MAX_LIST_PAGES: "10",
      EMULATOR_MCP_MAX_TOOLS: "200",
    });
  });
  after(async () => {
    await emulator?.close();
    await hostile?.close();
  });

  it("end each call in a result (is_error or not), never a 5xx, without a stall", async () => {
    await withoutStalls(
      emulator.url,
      STALL_BOUNDS,
      () =>
        fc.assert(
          fc.asyncProperty(toolListSpec, async (spec) => {
            current = spec;
            const offset = hostile.pagesServed();
            const name = spec.callListed && spec.perPage > 0 ? nameOf(spec, 0, 0) || "missing" : "missing";
            const answer = await create(emulator, {
              input: `\`\`\`tool_calls\n${JSON.stringify([{ server: "h", name, args: {} }])}\n\`\`\``,
              tools: [{ type: "mcp_server", name: "h", url: hostile.url }],
            });
            assertResultOrRefusal(answer, "an MCP call");
            if (answer.status === 200) {
              const result = (answer.body.steps as Body[]).find((step) => step.type === "mcp_server_tool_result");
              assert.equal(typeof result?.is_error, "boolean");
              assert.ok(String(result?.result).length < 100_000, "a result is a sentence or the tool's text, never the list");
            }
            assert.ok(hostile.pagesServed() - offset <= 11, `read ${hostile.pagesServed() - offset} pages`);
          }),
          runs(25),
        ),
      { inProcess: true, what: "hostile MCP tool lists" },
    );
  });
});
