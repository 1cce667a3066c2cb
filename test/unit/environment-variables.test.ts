import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { InvalidArgumentError } from "../../server/common/errors.js";
import { prepareEnvVars } from "../../server/sources/environment-variables.js";

describe("environment variables", () => {
  it("accepts plain values and {value}", () => {
    assert.deepEqual(prepareEnvVars({ PLAIN: "a", LITERAL: { value: "b" }, _X1: "" }), {
      values: { PLAIN: "a", LITERAL: "b", _X1: "" },
      credentials: {},
    });
  });
  it("collects credential references apart from the values", () => {
    assert.deepEqual(prepareEnvVars({ PLAIN: "a", SECRET: { credential: "cred_1" } }), {
      values: { PLAIN: "a" },
      credentials: { SECRET: "cred_1" },
    });
  });
  it("is empty when none are given", () => assert.deepEqual(prepareEnvVars(undefined), { values: {}, credentials: {} }));

  const refused: Array<[string, Record<string, unknown>, RegExp]> = [
    ["both a value and a credential", { SECRET: { value: "x", credential: "cred_1" } }, /environment\.env\.SECRET: give either/],
    ["a name starting with a digit", { "1X": "a" }, /environment\.env\.1X: a variable name/],
    ["a name with a dash", { "A-B": "a" }, /variable name/],
    ["the executor's marker variable", { EMULATOR_EXEC_ID: "x" }, /reserved/],
    ["an object with neither value nor credential", { E: {} }, /give a string/],
    ["a NUL in a value", { E: "a\0b" }, /NUL/],
  ];
  for (const [what, env, pattern] of refused) {
    it(`refuses ${what}`, () => {
      assert.throws(
        () => prepareEnvVars(env as never),
        (error: unknown) => error instanceof InvalidArgumentError && pattern.test(error.message),
      );
    });
  }
});
