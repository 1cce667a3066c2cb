// How deeply a request body may nest (issue 9): JSON.parse takes any depth, but what walks the value
// later (zod, JSON.stringify of the echoed request) overflowed the stack on 20 000 levels: a 500.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { jsonDepth, MAX_JSON_DEPTH } from "../../server/http/json-depth.js";
import { runs } from "../support/property-runs.js";

const nested = (levels: number): unknown => JSON.parse(`${"[".repeat(levels)}${"]".repeat(levels)}`);

describe("the nesting depth of a request body", () => {
  it("counts containers inside each other, scalars not", () => {
    assert.equal(jsonDepth("text"), 0);
    assert.equal(jsonDepth(null), 0);
    assert.equal(jsonDepth({}), 1);
    assert.equal(jsonDepth({ a: [1, { b: "x" }], c: [] }), 3);
    assert.equal(jsonDepth(nested(MAX_JSON_DEPTH)), MAX_JSON_DEPTH);
  });

  it("measures a body far too deep for recursion without overflowing, stopping past the limit", () => {
    assert.equal(jsonDepth(nested(200_000)), MAX_JSON_DEPTH + 1);
  });

  it("agrees with a recursive count on any JSON value", () => {
    const recursive = (value: unknown): number =>
      typeof value !== "object" || value === null ? 0 : 1 + Math.max(0, ...Object.values(value).map(recursive));
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), (value) => assert.equal(jsonDepth(value), recursive(value))),
      runs(500),
    );
  });
});
