// Property: every body built from the declared-fields table's own types (any variant of any union,
// every content, step and tool type, nested as deep as the types go) has no unknown field, and one field
// the table declares nowhere, added to any declared object of such a body, is the one unknown field
// found, at that object's path. The bodies come from the committed table, so a declared field the walk
// refused, or an injected one it missed, fails here whatever the SDK's next version adds.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { type FieldNode, type RequestName, declaredFieldsTable, pathText, unknownFields } from "../../server/api/declared-fields.js";
import { runs } from "../support/property-runs.js";

const table = declaredFieldsTable();
const REQUESTS = Object.keys(table.requests) as RequestName[];

/** Marks the objects built from a declared object type (not maps, not free-form JSON): where a field may be injected. */
const DECLARED = Symbol("declared object");
/** Marks declared objects that also take free keys (an index signature, e.g. a dynamic agent_config): nothing is unknown in them. */
const OPEN = Symbol("open object");
/** Marks maps, whose entries Google's errors write as `[index].value`. */
const MAP = Symbol("map");

const MAX_DEPTH = 7;
/** Keys of maps and free-form objects; never "type", which would make a map read as the declared object beside it. */
const freeKey = fc.stringMatching(/^[a-z][a-z0-9_]{0,7}$/).filter((key) => key !== "type");
const scalar = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean());
const freeJson = fc.jsonValue({ maxDepth: 2 });

function arbitraryOf(node: FieldNode, depth: number): fc.Arbitrary<unknown> {
  if (depth > MAX_DEPTH) return scalar;
  if (node === "scalar") return scalar;
  if (node === "any") return freeJson;
  if ("ref" in node) return fc.constant(null).chain(() => arbitraryOf(table.types[node.ref] ?? "any", depth + 1));
  if ("union" in node) return fc.oneof(...node.union.map((member) => arbitraryOf(member, depth)));
  if ("array" in node) return fc.array(arbitraryOf(node.array, depth + 1), { maxLength: 2 });
  if ("map" in node) {
    return fc.dictionary(freeKey, arbitraryOf(node.map, depth + 1), { maxKeys: 2 }).map((map) => mark(map, MAP));
  }
  const fields: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, field] of Object.entries(node.fields)) {
    fields[name] = name === "type" && node.tags ? fc.constantFrom(...node.tags) : arbitraryOf(field, depth + 1);
  }
  const as = node.additional === undefined ? DECLARED : OPEN;
  return fc.record(fields, { requiredKeys: node.required ?? [] }).map((object) => mark(object, as));
}

function mark<T extends object>(value: T, as: symbol): T {
  Object.defineProperty(value, as, { value: true, enumerable: false });
  return value;
}

/** Every declared object of a value, with its path as the walk writes it. */
function declaredObjects(value: unknown, at: Array<string | number> = []): Array<{ object: Record<string, unknown>; at: string }> {
  if (typeof value !== "object" || value === null) return [];
  if (Array.isArray(value)) return value.flatMap((item, index) => declaredObjects(item, [...at, index]));
  const record = value as Record<string | symbol, unknown>;
  if (record[MAP]) return Object.keys(record).flatMap((key, index) => declaredObjects(record[key], [...at, index, "value"]));
  if (!record[DECLARED] && !record[OPEN]) return [];
  const inside = Object.keys(record).flatMap((key) => declaredObjects(record[key], [...at, key]));
  return record[DECLARED] ? [{ object: record as Record<string, unknown>, at: pathText(at) }, ...inside] : inside;
}

/** A name no type of the table declares. */
const UNDECLARED = "undeclared_field_x";

/** A copy of the body (generated values are shared between runs: never changed) with the undeclared field added to `target`. */
function withField(value: unknown, target: object): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => withField(item, target));
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) copy[key] = withField(item, target);
  if (value === target) copy[UNDECLARED] = 1;
  return copy;
}

const bodies = fc.constantFrom(...REQUESTS).chain((request) => arbitraryOf(table.requests[request], 0).map((body) => ({ request, body })));

describe("declared fields, property", () => {
  it("the table declares no field named like the injected one", () => {
    const all = Object.values(table.types).flatMap((node) =>
      typeof node === "object" && "fields" in node ? Object.keys(node.fields) : [],
    );
    assert.ok(!all.includes(UNDECLARED));
  });

  it("finds no unknown field in a body made of declared fields", () => {
    fc.assert(
      fc.property(bodies, ({ request, body }) => {
        assert.deepEqual(unknownFields(request, body), []);
      }),
      runs(400),
    );
  });

  it("finds exactly the one undeclared field added to any declared object, at its path", () => {
    fc.assert(
      fc.property(bodies, fc.nat(), ({ request, body }, pick) => {
        const objects = declaredObjects(body);
        fc.pre(objects.length > 0);
        const target = objects[pick % objects.length]!;
        assert.deepEqual(unknownFields(request, withField(body, target.object)), [{ name: UNDECLARED, at: target.at }]);
      }),
      runs(400),
    );
  });
});
