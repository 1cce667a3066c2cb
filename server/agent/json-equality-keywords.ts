// `const` and `enum` compared as JSON values. Ajv compares them with fast-deep-equal, which first
// compares the two values' `constructor` and `valueOf` properties: for JSON that holds such a key
// ({"constructor": []}) it reads the user's own values there and answers "not equal" for equal
// values. Here, two values are equal when they are the same JSON: same type, same items in order,
// same own keys with equal values, whatever the keys are called.

import type { Ajv, ErrorObject, KeywordDefinition } from "ajv";

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => jsonEqual(item, b[index]));
  }
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  const other = b as Record<string, unknown>;
  return keys.every((key) => Object.hasOwn(other, key) && jsonEqual((a as Record<string, unknown>)[key], other[key]));
}

type Validate = ((schema: unknown, data: unknown) => boolean) & { errors?: Array<Partial<ErrorObject>> };

function keyword(
  name: "const" | "enum",
  matches: (schema: unknown, data: unknown) => boolean,
  message: string,
  params: (schema: unknown) => object,
): KeywordDefinition {
  const validate: Validate = (schema, data) => {
    if (matches(schema, data)) return true;
    validate.errors = [{ keyword: name, message, params: params(schema) }];
    return false;
  };
  return { keyword: name, validate, errors: true };
}

/** Replaces Ajv's `const` and `enum` with the JSON comparison above, messages as Ajv words them. */
export function useJsonEquality(ajv: Ajv): void {
  ajv.removeKeyword("const");
  ajv.removeKeyword("enum");
  ajv.addKeyword(keyword("const", jsonEqual, "must be equal to constant", (schema) => ({ allowedValue: schema })));
  ajv.addKeyword(
    keyword(
      "enum",
      (schema, data) => Array.isArray(schema) && schema.some((item) => jsonEqual(item, data)),
      "must be equal to one of the allowed values",
      (schema) => ({ allowedValues: schema }),
    ),
  );
}
