// Checking a scripted function call's arguments against its declared `parameters` JSON Schema (Ajv):
// each failure names the path in the arguments, the keywords the service does not enforce are not
// enforced, patterns cannot stall the server, and a declaration that is no usable schema says so.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { FunctionDeclaration } from "../../server/agent/declared-functions.js";
import { argumentPath, FunctionArgumentChecker } from "../../server/agent/function-arguments.js";

function declared(parameters: unknown, toolIndex = 0): FunctionDeclaration {
  return { name: "get_weather", parameters, toolIndex };
}

const WEATHER = declared({
  type: "object",
  properties: {
    city: { type: "string" },
    unit: { enum: ["celsius", "fahrenheit"] },
    days: { type: "array", items: { type: "integer", minimum: 1 } },
    where: { type: "object", properties: { "lat lon": { type: ["number", "null"] } } },
  },
  required: ["city"],
  additionalProperties: false,
});

describe("function arguments against the declared parameters", () => {
  const check = (args: Record<string, unknown>, declaration = WEATHER) => new FunctionArgumentChecker().check(declaration, args);

  it("accepts arguments that fit", () => {
    assert.deepEqual(check({ city: "Paris", unit: "celsius", days: [1, 2], where: { "lat lon": null } }), []);
  });

  it("names the path of each failure, in words a person reads", () => {
    assert.deepEqual(check({ city: 3, unit: "kelvin", days: [1, "two", 0], where: { "lat lon": "x" }, extra: true }), [
      "arguments.extra is not a declared parameter (the schema allows no other properties)",
      "arguments.city must be a string, got a number",
      'arguments.unit must be one of "celsius", "fahrenheit", got "kelvin"',
      "arguments.days[1] must be an integer, got a string",
      "arguments.days[2] must be >= 1",
      'arguments.where["lat lon"] must be a number or null, got a string',
    ]);
  });

  it("names a missing required argument", () => {
    assert.deepEqual(check({}), ["arguments.city is missing (the declared parameters require it)"]);
  });

  it("accepts any object when the declaration has no parameters", () => {
    assert.deepEqual(check({ anything: [1] }, { name: "ping", toolIndex: 2 }), []);
  });

  it("does not enforce what the SDK says the service ignores (minLength, maxLength, uniqueItems, …)", () => {
    const lenient = declared({
      type: "object",
      properties: { name: { type: "string", maxLength: 2, minLength: 1 }, tags: { type: "array", uniqueItems: true, maxItems: 3 } },
      maxProperties: 1,
    });
    assert.deepEqual(check({ name: "far too long", tags: ["a", "a"] }, lenient), []);
    // maxItems is not on the SDK's list, so it is enforced.
    assert.deepEqual(check({ tags: [1, 2, 3, 4] }, lenient), ["arguments.tags must NOT have more than 3 items"]);
  });

  it("ignores formats and keywords it does not know, rather than refusing the schema", () => {
    const schema = declared({
      type: "object",
      properties: { when: { type: "string", format: "date-time" } },
      propertyOrdering: ["when"],
      nullable: true,
    });
    assert.deepEqual(check({ when: "tomorrow" }, schema), []);
  });

  it("compiles patterns with RE2: a catastrophic pattern answers at once", () => {
    const evil = declared({ type: "object", properties: { text: { type: "string", pattern: "^(a+)+$" } } });
    const started = Date.now();
    assert.deepEqual(check({ text: `${"a".repeat(40)}!` }, evil), ['arguments.text must match pattern "^(a+)+$"']);
    assert.ok(Date.now() - started < 1000, "RE2 runs in linear time");
    const lookahead = declared({ type: "object", properties: { text: { type: "string", pattern: "^(?=a)" } } }, 2);
    assert.match(
      check({ text: "a" }, lookahead)[0] ?? "",
      /^its declaration's parameters \(tools\[2\]\.parameters\) are not a JSON Schema .*: /,
    );
  });

  it("says when the declared parameters are no JSON Schema it can use, pointing at the declaration", () => {
    const [notAnObject] = check({}, declared("a string", 3));
    assert.match(notAnObject ?? "", /^its declaration's parameters \(tools\[3\]\.parameters\) must be a JSON Schema object/);
    const [capitals] = check({}, declared({ type: "OBJECT", properties: { city: { type: "STRING" } } }, 1));
    assert.match(capitals ?? "", /^its declaration's parameters \(tools\[1\]\.parameters\) are not a JSON Schema/);
    assert.match(capitals ?? "", /JSON Schema type names are lowercase/);
  });

  it("follows the draft a schema names in $schema", () => {
    const draft2020 = declared({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { pair: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }] } },
    });
    assert.deepEqual(check({ pair: ["a", 1] }, draft2020), []);
    assert.deepEqual(check({ pair: [1, 1] }, draft2020), ["arguments.pair[0] must be a string, got a number"]);
  });

  it("lists at most ten problems and counts the rest", () => {
    const many = declared({ type: "object", additionalProperties: false });
    const args = Object.fromEntries(Array.from({ length: 13 }, (_, index) => [`k${index}`, index]));
    const problems = check(args, many);
    assert.equal(problems.length, 11);
    assert.equal(problems[10], "and 3 more problems");
  });
});

describe("argumentPath", () => {
  it("turns a JSON Pointer into a path a person reads", () => {
    assert.equal(argumentPath(""), "arguments");
    assert.equal(argumentPath("/city"), "arguments.city");
    assert.equal(argumentPath("/days/0/name"), "arguments.days[0].name");
    assert.equal(argumentPath("/a~1b/c~0d"), 'arguments["a/b"]["c~d"]');
  });
});
