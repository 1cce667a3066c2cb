// The one checker behind every descriptor in the protocol's tables: the server runs it on everything
// the executor sends (the executor's generated twin, protocol_check.go, on requests; held to this one
// by test/integration/executor-go-requests.test.ts). It builds a fresh value holding only the declared
// fields, so nothing undeclared (extra keys, a "__proto__" key, inherited properties) gets through, and
// it reports the first problem by the member and field it concerns: "walk: limit must be an integer
// between 1 and 10000", "readFile result: entries[3].type must be one of …".

import type { Field, ObjectField, Shape, StringField, TaggedUnionField, TypeOf } from "./protocol-fields.js";

export type Checked<T> = { ok: true; value: T } | { ok: false; problem: string };

/** Checks `value` against `field`; `name` is what to call the value itself in a problem ("frame header"). */
export function checkField<F extends Field>(field: F, value: unknown, name = "the value"): Checked<NoInfer<TypeOf<F>>> {
  try {
    return { ok: true, value: read(field, value, { name, label: null, path: "" }) as TypeOf<F> };
  } catch (error) {
    if (error instanceof ShapeProblem) return { ok: false, problem: error.message };
    throw error;
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Where in the value the checker is: the union member being read (if any) and the field path within it. */
interface Position {
  /** What the value as a whole is called. */
  name: string;
  label: string | null;
  path: string;
}

class ShapeProblem extends Error {}

function fail(at: Position, problem: string): never {
  const where = at.path === "" ? at.name : at.path;
  throw new ShapeProblem(at.label === null ? `${where} ${problem}` : `${at.label}: ${where} ${problem}`);
}

function expect(at: Position, field: Field): never {
  return fail(at, `must be ${describe(field)}`);
}

function child(at: Position, name: string): Position {
  return { ...at, path: at.path === "" ? name : `${at.path}.${name}` };
}

function element(at: Position, key: string): Position {
  return { ...at, path: `${at.path === "" ? at.name : at.path}[${key}]` };
}

/** Own properties only: JSON objects inherit from Object.prototype, whose members are no header fields. */
function own(object: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/**
 * Reads `value` as `field`. `described` is what a mismatch of the value itself is reported against:
 * the field, or the nullable wrapping it, so that the problem says "null or …".
 */
function read(field: Field, value: unknown, at: Position, described: Field = field): unknown {
  switch (field.kind) {
    case "string":
      if (!isValidString(field, value)) expect(at, described);
      return value;
    case "integer":
      if (!Number.isSafeInteger(value) || (value as number) < field.min || (value as number) > field.max) expect(at, described);
      return value;
    case "number":
      if (typeof value !== "number" || !Number.isFinite(value)) expect(at, described);
      return value;
    case "boolean":
      if (typeof value !== "boolean") expect(at, described);
      return value;
    case "oneOf":
      if (!(field.values as readonly unknown[]).includes(value)) expect(at, described);
      return value;
    case "nullable":
      return value === null ? null : read(field.of, value, at, field);
    case "optional":
      return value === undefined ? undefined : read(field.of, value, at, described);
    case "array":
      if (!Array.isArray(value) || value.length < field.minItems || value.length > field.maxItems) expect(at, described);
      return value.map((item, index) => read(field.of, item, element(at, String(index))));
    case "record": {
      if (!isPlainObject(value)) expect(at, described);
      const entries = Object.entries(value).map(([key, item]): [string, unknown] => {
        if (!isValidString(field.keys, key)) fail(at, `key ${JSON.stringify(key)} must be ${describe(field.keys)}`);
        return [key, read(field.values, item, element(at, JSON.stringify(key)))];
      });
      // fromEntries defines own properties, so even a key named "__proto__" stays a plain entry.
      return Object.fromEntries(entries);
    }
    case "object":
      if (!isPlainObject(value)) expect(at, described);
      return readObject(field, value, {}, at);
    case "taggedUnion":
      return readMember(field, value, at, described);
  }
}

function readMember(field: TaggedUnionField, value: unknown, at: Position, described: Field): Record<string, unknown> {
  if (!isPlainObject(value)) expect(at, described);
  const tagValue = own(value, field.tag);
  const member = typeof tagValue === "string" && Object.hasOwn(field.members, tagValue) ? field.members[tagValue] : undefined;
  if (member === undefined) {
    const unknown = `unknown ${field.tag} ${JSON.stringify(tagValue) ?? "undefined"}`;
    throw new ShapeProblem(at.label === null ? unknown : `${at.label}: ${unknown}`);
  }
  const memberAt: Position = { name: at.name, label: field.label(tagValue as string), path: "" };
  const result: Record<string, unknown> = { [field.tag]: tagValue };
  readFields(field.common, value, result, memberAt);
  return readObject(member, value, result, memberAt);
}

function readObject(
  field: ObjectField,
  value: Record<string, unknown>,
  into: Record<string, unknown>,
  at: Position,
): Record<string, unknown> {
  readFields(field.shape, value, into, at);
  // The fields were just checked, so `into` is the ObjectOf<shape> the rule is typed for.
  const problem = field.rule?.(into as never) ?? null;
  if (problem !== null) throw new ShapeProblem(at.label === null ? problem : `${at.label}: ${problem}`);
  return into;
}

function readFields(shape: Shape, value: Record<string, unknown>, into: Record<string, unknown>, at: Position): void {
  for (const [name, field] of Object.entries(shape)) {
    const checked = read(field, own(value, name), child(at, name));
    // Absent optional fields stay absent rather than becoming `name: undefined`.
    if (checked !== undefined) into[name] = checked;
  }
}

function isValidString(field: StringField, value: unknown): value is string {
  return typeof value === "string" && (!field.nonEmpty || value !== "") && field.forbidden.every((part) => !value.includes(part));
}

/** What a descriptor accepts, in words: the end of "… must be …". */
export function describe(field: Field): string {
  switch (field.kind) {
    case "string": {
      const base = field.nonEmpty ? "a non-empty string" : "a string";
      if (field.forbidden.length === 0) return base;
      const parts = field.forbidden.map((part) => (part === "\0" ? "NUL bytes" : JSON.stringify(part)));
      return `${base} without ${parts.join(" or ")}`;
    }
    case "integer":
      if (field.max === Number.MAX_SAFE_INTEGER) {
        if (field.min === 0) return "a non-negative integer";
        if (field.min === 1) return "a positive integer";
        return `an integer of at least ${field.min}`;
      }
      return `an integer between ${field.min} and ${field.max}`;
    case "number":
      return "a number";
    case "boolean":
      return "a boolean";
    case "oneOf":
      return `one of ${field.values.map((value) => JSON.stringify(value)).join(", ")}`;
    case "nullable":
      return `null or ${describe(field.of)}`;
    case "optional":
      return describe(field.of);
    case "array": {
      const base =
        field.minItems === 0 ? "an array" : field.minItems === 1 ? "a non-empty array" : `an array of at least ${field.minItems} items`;
      return field.maxItems === Number.MAX_SAFE_INTEGER ? base : `${base} of at most ${field.maxItems} items`;
    }
    case "record":
    case "object":
    case "taggedUnion":
      return "an object";
  }
}
