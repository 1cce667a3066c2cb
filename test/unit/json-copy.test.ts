// copyJson, the deep copy of steps that shares their strings instead of copying them as structuredClone
// does (a 47 MiB input was copied whole on the event loop): the same value, new containers, every key
// kept ("__proto__" too, as an own property), and a change to the copy never reaches the original.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { copyJson } from "../../server/common/json-copy.js";

describe("copyJson", () => {
  it("gives an equal value whose objects and arrays are new", () => {
    const original = { type: "user_input", content: [{ type: "text", text: "hello" }], n: 1, ok: true, none: null, gone: undefined };
    const copy = copyJson(original);
    assert.deepStrictEqual(copy, original);
    assert.notEqual(copy, original);
    assert.notEqual(copy.content, original.content);
    assert.notEqual(copy.content[0], original.content[0]);
    copy.content[0]!.text += " world";
    copy.content.push({ type: "text", text: "more" });
    assert.equal(original.content[0]!.text, "hello");
    assert.equal(original.content.length, 1);
  });

  it("keeps a __proto__ key as an own property, not as the copy's prototype", () => {
    const original = JSON.parse('{"args": {"__proto__": {"polluted": true}, "x": 1}}');
    const copy = copyJson(original);
    assert.deepStrictEqual(Object.keys(copy.args), ["__proto__", "x"]);
    assert.equal(Object.getPrototypeOf(copy.args), Object.prototype);
    assert.deepStrictEqual(Object.getOwnPropertyDescriptor(copy.args, "__proto__")?.value, { polluted: true });
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  it("returns primitives as they are", () => {
    for (const value of ["text", 0, false, null, undefined]) assert.equal(copyJson(value), value);
  });
});
