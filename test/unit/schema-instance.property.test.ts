// The minimal instance of a JSON Schema (server/planners/scripted/schema-instance.ts), the emulated agent's answer
// for a JSON response_format without a scripted answer. Properties: over schemas the generator is meant
// to handle, it always gives a value, and the value validates (with the emulator's validator and with a
// plain Ajv); over a wider grammar (oneOf, not, uniqueItems, contradictory bounds) the answer is either
// JSON that validates or a refusal naming the field, never an invalid answer and never a throw; and the
// same schema always gives the same value.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import Ajv2020Module from "ajv/dist/2020.js";
import fc from "fast-check";
import { compileAnswerSchema } from "../../server/agent/answer-schema.js";
import { fixedAnswerFor } from "../../server/planners/scripted/fixed-answer.js";
import { MAX_INSTANCE_VALUES, minimalInstance } from "../../server/planners/scripted/schema-instance.js";
import { runs } from "../support/property-runs.js";

type Schema = Record<string, unknown>;

// Formats are left to the emulator's validator; this one checks everything else, independently.
const plainAjv = new Ajv2020Module.default({ strict: false, allErrors: true, logger: false });

/** As a request carries it: parsed JSON (fast-check's objects may have a null prototype, JSON's never do). */
const asJson = (schema: Schema): Schema => JSON.parse(JSON.stringify(schema)) as Schema;

const jsonLeaf = fc.oneof(fc.constant(null), fc.boolean(), fc.integer({ min: -50, max: 50 }), fc.string({ maxLength: 6 }));
const json = fc.oneof(
  jsonLeaf,
  fc.array(jsonLeaf, { maxLength: 3 }),
  fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), jsonLeaf, { maxKeys: 3 }),
);

const stringSchema: fc.Arbitrary<Schema> = fc.oneof(
  fc.record(
    { type: fc.constant("string"), minLength: fc.integer({ min: 0, max: 5 }), maxLength: fc.integer({ min: 5, max: 9 }) },
    { requiredKeys: ["type"] },
  ),
  fc.record({
    type: fc.constant("string"),
    format: fc.constantFrom("date", "date-time", "time", "email", "uri", "uuid", "ipv4", "ipv6", "hostname"),
  }),
  fc.record({ type: fc.constant("string"), pattern: fc.constantFrom("^a*$", "^[0-9]+$", "^[A-Z]{2}$", "^[a-z]{1,4}$", "x?") }),
);

/** Integers and numbers whose bounds leave room for several multiples. */
const numberSchema: fc.Arbitrary<Schema> = fc
  .record({
    type: fc.constantFrom("integer", "number"),
    low: fc.option(fc.integer({ min: -100, max: 100 }), { nil: undefined }),
    width: fc.integer({ min: 0, max: 10 }),
    exclusive: fc.boolean(),
    multipleOf: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
    upperOnly: fc.boolean(),
  })
  .map(({ type, low, width, exclusive, multipleOf, upperOnly }) => {
    const schema: Schema = { type };
    if (multipleOf !== undefined) schema.multipleOf = multipleOf;
    if (low === undefined) return schema;
    const span = (multipleOf ?? 1) * (width + 3);
    if (upperOnly) schema[exclusive ? "exclusiveMaximum" : "maximum"] = low;
    else {
      schema[exclusive ? "exclusiveMinimum" : "minimum"] = low;
      schema.maximum = low + span;
    }
    return schema;
  });

const leafSchema: fc.Arbitrary<Schema> = fc.oneof(
  stringSchema,
  numberSchema,
  fc.constant({ type: "boolean" }),
  fc.constant({ type: "null" }),
  fc.constant({}),
  json.map((value) => ({ const: value })),
  fc.array(json, { minLength: 1, maxLength: 4 }).map((values) => ({ enum: values })),
  fc.constant({ type: ["string", "null"] }),
);

const key = fc.constantFrom("a", "b", "name", "id", "x/y", "~k", "tags", "z");

/** Schemas the generator is meant to answer, without $defs (a "#/…" $ref points from the root). */
const satisfiableBody: fc.Arbitrary<Schema> = fc.letrec<{ schema: Schema; object: Schema; array: Schema; composed: Schema }>((tie) => ({
  schema: fc.oneof({ depthSize: "small", withCrossShrink: true }, leafSchema, tie("object"), tie("array"), tie("composed")),
  object: fc
    .record({
      properties: fc.dictionary(key, tie("schema"), { maxKeys: 4 }),
      requiredMask: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
      additionalProperties: fc.boolean(),
      propertyOrdering: fc.boolean(),
      minProperties: fc.integer({ min: 0, max: 2 }),
    })
    .map(({ properties, requiredMask, additionalProperties, propertyOrdering, minProperties }) => {
      const keys = Object.keys(properties);
      const schema: Schema = { type: "object", properties, required: keys.filter((_, index) => requiredMask[index]), additionalProperties };
      if (propertyOrdering) schema.propertyOrdering = [...keys].reverse();
      if (minProperties <= keys.length) schema.minProperties = minProperties;
      return schema;
    }),
  array: fc.oneof(
    fc
      .record({ items: tie("schema"), minItems: fc.integer({ min: 0, max: 3 }), extra: fc.integer({ min: 0, max: 3 }) })
      .map(({ items, minItems, extra }) => ({ type: "array", items, minItems, maxItems: minItems + extra })),
    fc
      .record({ minItems: fc.integer({ min: 0, max: 4 }), itemType: fc.constantFrom("integer", "string", "boolean") })
      .map(({ minItems, itemType }) => ({
        type: "array",
        items: { type: itemType },
        minItems: itemType === "boolean" ? Math.min(minItems, 2) : minItems,
        uniqueItems: true,
      })),
    fc
      .record({
        prefix: fc.array(tie("schema"), { minLength: 1, maxLength: 3 }),
        items: tie("schema"),
        minItems: fc.integer({ min: 0, max: 4 }),
      })
      .map(({ prefix, items, minItems }) => ({ type: "array", prefixItems: prefix, items, minItems })),
  ),
  composed: fc.oneof(
    fc.array(tie("schema"), { minLength: 1, maxLength: 3 }).map((branches) => ({ anyOf: branches })),
    fc.tuple(tie("schema"), tie("schema")).map(([a, b]) => ({
      allOf: [
        { type: "object", properties: { a }, required: ["a"] },
        { properties: { b }, required: ["b"] },
      ],
    })),
  ),
})).schema;

/** Schemas the generator is meant to answer: it must always give a value, and the value must fit. */
const satisfiable: fc.Arbitrary<Schema> = fc
  .oneof(
    satisfiableBody,
    satisfiableBody.map((target) => ({ $defs: { target }, $ref: "#/$defs/target" })),
    fc.tuple(satisfiableBody, satisfiableBody).map(([named, other]) => ({
      type: "object",
      properties: { inner: { $ref: "#/$defs/named" }, list: { type: "array", items: { $ref: "#/$defs/other" }, minItems: 2 } },
      required: ["inner", "list"],
      $defs: { named, other },
    })),
  )
  .map(asJson);

/** Wider: also schemas that may admit nothing, or nothing the generator finds. */
const anySchema: fc.Arbitrary<Schema> = fc
  .letrec<{ schema: Schema }>((tie) => ({
    schema: fc.oneof(
      { depthSize: "small" },
      satisfiable,
      fc.array(tie("schema"), { minLength: 1, maxLength: 3 }).map((branches) => ({ oneOf: branches })),
      tie("schema").map((inner) => ({ not: inner })),
      fc
        .record({ items: tie("schema"), minItems: fc.integer({ min: 0, max: 5 }) })
        .map(({ items, minItems }) => ({ type: "array", items, minItems, uniqueItems: true })),
      fc
        .record({
          minimum: fc.integer({ min: -5, max: 5 }),
          maximum: fc.integer({ min: -5, max: 5 }),
          multipleOf: fc.integer({ min: 1, max: 7 }),
        })
        .map((bounds) => ({
          type: "integer",
          ...bounds,
        })),
      fc.tuple(tie("schema"), tie("schema")).map(([a, b]) => ({ allOf: [a, b] })),
      fc.constant({ type: "string", pattern: "^[0-9a-f]{8}-x$" }),
      fc.constant({ type: "object", required: ["self"], properties: { self: { $ref: "#" } } }),
    ),
  }))
  .schema.map(asJson);

describe("the minimal instance of a JSON Schema", () => {
  it("always gives a value for the schemas it is meant to answer, and the value fits the schema", () => {
    fc.assert(
      fc.property(satisfiable, (schema) => {
        const instance = minimalInstance(schema);
        assert.ok(instance.ok, `no instance for ${JSON.stringify(schema)}: ${instance.ok ? "" : instance.reason}`);
        const compiled = compileAnswerSchema(schema);
        assert.ok(compiled.ok, compiled.ok ? "" : compiled.message);
        assert.deepEqual(
          compiled.schema.full(instance.value),
          { ok: true },
          `${JSON.stringify(instance.value)} for ${JSON.stringify(schema)}`,
        );
        const validate = plainAjv.compile(schema);
        plainAjv.removeSchema(schema);
        assert.ok(validate(instance.value), `${JSON.stringify(instance.value)} for ${JSON.stringify(schema)}`);
        assert.deepEqual(minimalInstance(structuredClone(schema)), instance, "the same schema gives the same value");
      }),
      // Each run compiles its schema three times (a few ms each): enough runs to cover the grammar while
      // keeping the unit tier quick; FC_RUNS_SCALE soaks it longer.
      runs(150),
    );
  });

  it("answers any schema with JSON that validates, or refuses it naming the field; never an invalid answer, never a throw", () => {
    fc.assert(
      fc.property(anySchema, (schema) => {
        const answer = fixedAnswerFor(undefined, { kind: "json", schema, where: "response_format.schema" });
        if (answer.kind === "invalid") {
          assert.equal(answer.field, "response_format.schema");
          assert.match(answer.message, /response block|JSON Schema|\$schema|characters/);
          return;
        }
        assert.equal(answer.kind, "fixed");
        if (answer.kind !== "fixed") return;
        const compiled = compileAnswerSchema(schema);
        assert.ok(compiled.ok);
        assert.deepEqual(compiled.schema.full(JSON.parse(answer.text)), { ok: true });
      }),
      runs(150),
    );
  });

  it("picks the documented values", () => {
    const value = (schema: unknown) => {
      const instance = minimalInstance(schema);
      assert.ok(instance.ok, instance.ok ? "" : instance.reason);
      return instance.value;
    };
    assert.deepEqual(
      value({
        type: "object",
        properties: { name: { type: "string" }, age: { type: "integer", minimum: 18 }, nick: { type: "string" } },
        required: ["age", "name"],
      }),
      { name: "", age: 18 },
    );
    assert.deepEqual(
      value({ propertyOrdering: ["b", "a"], properties: { a: { const: 1 }, b: { enum: ["x", "y"] } }, required: ["a", "b"] }),
      {
        b: "x",
        a: 1,
      },
    );
    assert.equal(value({ type: "number", exclusiveMinimum: 0, multipleOf: 0.5 }), 0.5);
    assert.equal(value({ type: "integer", maximum: -3, multipleOf: 2 }), -4);
    assert.equal(value({ type: "string", minLength: 3 }), "aaa");
    assert.deepEqual(value({ type: "array", items: { type: "integer" }, minItems: 3, uniqueItems: true }), [0, 1, 2]);
    assert.deepEqual(value({ anyOf: [{ type: "null" }, { type: "string" }] }), null);
    assert.deepEqual(value({ oneOf: [{ type: "boolean" }, { type: "string" }] }), false);
    assert.deepEqual(
      value({ $defs: { p: { type: "object", properties: { x: { type: "number" } }, required: ["x"] } }, $ref: "#/$defs/p" }),
      { x: 0 },
    );
    assert.deepEqual(value({ $defs: { p: { $anchor: "point", type: "boolean" } }, $ref: "#point" }), false);
    assert.equal(value({ type: "string", format: "date-time" }), "1970-01-01T00:00:00Z");
    assert.equal(value({ type: "string", pattern: "^[0-9]{3}$" }), "000");
    assert.deepEqual(value({}), {});
    assert.deepEqual(value(true), {});
  });

  it("refuses, with the place and the reason, what it cannot build", () => {
    const reason = (schema: unknown) => {
      const instance = minimalInstance(schema);
      assert.equal(instance.ok, false, `expected a refusal for ${JSON.stringify(schema)}`);
      return instance.ok ? "" : instance.reason;
    };
    assert.match(reason({ type: "object", required: ["self"], properties: { self: { $ref: "#" } } }), /recurses without end/);
    assert.match(
      reason({ type: "object", properties: { code: { type: "string", pattern: "^[a-f]{4}-[0-9]{2}$" } }, required: ["code"] }),
      /^at \/code: .*pattern/,
    );
    assert.match(reason({ type: "array", minItems: MAX_INSTANCE_VALUES + 1 }), /minItems/);
    assert.match(reason({ $ref: "https://example.com/other.json" }), /not inside the schema/);
    assert.match(reason({ allOf: [{ type: "string" }, { type: "integer" }] }), /allows no value/);
    assert.match(reason(false), /allows no value/);
  });
});
