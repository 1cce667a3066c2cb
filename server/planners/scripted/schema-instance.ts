// The smallest, plainest value a JSON Schema allows: the emulated agent's answer when the request asks
// for JSON (response_format) and the input scripts none (docs/api.md#structured-answers). Deterministic:
// the same schema always gives the same value.
//
// [choice] The rules, keyword by keyword:
//   - `const` is the value, `enum` its first value;
//   - `$ref` (inside the schema: "#", "#/json/pointer", "#anchor", or a subschema's `$id`) is followed;
//     `allOf` is merged into one schema; `anyOf` / `oneOf` take their first branch;
//   - `type` (the first listed when several are) or, without one, the type its keywords imply;
//   - objects: the `required` properties only (plus `dependentRequired` ones, and more from `properties`
//     in order up to `minProperties`), in `propertyOrdering` / `properties` order;
//   - arrays: `minItems` items (`prefixItems` first, then `items`; at least `minContains` matches of
//     `contains`); items of a `uniqueItems` array are made different from each other;
//   - numbers: 0 when allowed, else the bound nearest to it (`minimum`, `exclusiveMinimum`, `maximum`,
//     `exclusiveMaximum`), a multiple of `multipleOf`; integers likewise;
//   - strings: "" (or `minLength` letters "a"); a `format` gives a fixed example (date, time, date-time,
//     email, uri, uuid, ipv4, ipv6, hostname); a `pattern` must accept one of a few plain candidates;
//   - booleans false, null null, an unconstrained schema {}.
// Keywords the generator does not read (not, if/then/else, patternProperties on optional properties,
// …) are still checked: the caller validates the value against the whole schema with Ajv and refuses
// the request when it does not fit, rather than answer with JSON that breaks the schema.

import { setOwn } from "../../common/own-keys.js";
import RE2 from "re2";
import type { JsonValue } from "../../agent/planner.js";

/**
 * What one instance may cost (docs/security.md#bounded-work). Every `min*`, every property and item,
 * every nesting level is charged against these *before* the work is done, so a schema whose smallest
 * value would pass them is refused at once (`minProperties: 100000000` costs nothing to refuse).
 */
export interface InstanceBounds {
  /** How many values (objects, arrays and scalars) one instance may have (EMULATOR_MAX_ANSWER_VALUES). */
  maxValues: number;
  /** How long the instance may be as JSON, in characters (EMULATOR_MAX_ANSWER_BYTES). */
  maxChars: number;
}

/** How many values one instance may have by default (EMULATOR_MAX_ANSWER_VALUES). */
export const MAX_INSTANCE_VALUES = 10_000;
/** How long one instance may be as JSON by default (EMULATOR_MAX_ANSWER_BYTES). */
export const MAX_INSTANCE_CHARS = 1024 * 1024;
export const DEFAULT_INSTANCE_BOUNDS: InstanceBounds = { maxValues: MAX_INSTANCE_VALUES, maxChars: MAX_INSTANCE_CHARS };
/** The longest string an instance may hold. */
export const MAX_INSTANCE_STRING = 100_000;
/** How many `$ref`s may be followed on one path (a required recursion never ends). */
const MAX_REF_DEPTH = 32;
/** How deeply the instance may nest (as deep as a request body may: docs/security.md#large-requests). */
export const MAX_INSTANCE_DEPTH = 100;
/**
 * Steps of reading the schema itself (merging allOf parts, following dependencies, comparing enums): a
 * 256 KiB schema can ask for quadratic work there without asking for a large value.
 */
export const MAX_SCHEMA_STEPS = 2_000_000;

type Schema = boolean | SchemaObject;
type SchemaObject = { [keyword: string]: unknown };

export type InstanceResult = { ok: true; value: JsonValue } | { ok: false; reason: string };

class CannotInstantiate extends Error {}

export function minimalInstance(schema: unknown, bounds: InstanceBounds = DEFAULT_INSTANCE_BOUNDS): InstanceResult {
  if (typeof schema !== "boolean" && !isObject(schema)) return { ok: false, reason: "the schema is not an object" };
  try {
    return { ok: true, value: new Generator(schema, bounds).instance(schema, 0, "", 0) };
  } catch (error) {
    if (error instanceof CannotInstantiate) return { ok: false, reason: error.message };
    throw error;
  }
}

class Generator {
  /** Values and JSON characters of the instance so far (charged before they are made). */
  private spentValues = 0;
  private spentChars = 0;
  /** Steps spent reading the schema. */
  private steps = 0;
  /** How deeply the value being made nests. */
  private depth = 0;
  private readonly named = new Map<string, SchemaObject>();
  private readonly resolved = new Map<string, Schema>();
  private readonly patterns = new Map<string, RE2 | null>();

  constructor(
    private readonly root: Schema,
    private readonly bounds: InstanceBounds,
  ) {
    if (isObject(root)) collectNamed(root, this.named);
  }

  /** A value for `schema`; `variant` > 0 asks for a different value than variant 0 (for uniqueItems). */
  instance(schema: Schema, variant: number, where: string, refDepth: number): JsonValue {
    this.spend(1, 1, where);
    if (this.depth >= MAX_INSTANCE_DEPTH)
      throw cannot(where, `the smallest value the schema allows nests more than ${MAX_INSTANCE_DEPTH} levels deep`);
    let current: Schema = schema;
    let depth = refDepth;
    // Fold the applicators into one schema, one keyword at a time (a followed $ref may bring more).
    for (;;) {
      if (current === true) return variant === 0 ? {} : variant;
      if (current === false) throw cannot(where, "the schema allows no value here (false, or parts that contradict each other)");
      if (!isObject(current)) throw cannot(where, "a subschema is not an object");
      this.step(Object.keys(current).length, where);
      const { $ref, allOf, anyOf, oneOf, ...rest } = current;
      if (typeof $ref === "string") {
        if (++depth > MAX_REF_DEPTH)
          throw cannot(where, `$ref ${JSON.stringify($ref)} recurses without end (more than ${MAX_REF_DEPTH} deep)`);
        current = this.merge(this.resolve($ref, where), withApplicators(rest, { allOf, anyOf, oneOf }), where);
      } else if (Array.isArray(allOf)) {
        current = (allOf as Schema[]).reduce<Schema>(
          (merged, part) => this.merge(merged, part, where),
          withApplicators(rest, { anyOf, oneOf }),
        );
      } else if (Array.isArray(anyOf) && anyOf.length > 0) {
        current = this.merge(withApplicators(rest, { oneOf }), anyOf[0] as Schema, where);
      } else if (Array.isArray(oneOf) && oneOf.length > 0) {
        current = this.merge(rest, oneOf[0] as Schema, where);
      } else break;
    }
    return this.plain(current, variant, where, depth);
  }

  /** A schema without $ref / allOf / anyOf / oneOf. */
  private plain(schema: SchemaObject, variant: number, where: string, refDepth: number): JsonValue {
    if ("const" in schema) return this.copy(schema.const, where, "const");
    if (Array.isArray(schema.enum)) {
      if (schema.enum.length === 0) throw cannot(where, "enum is empty");
      return this.copy(schema.enum[variant % schema.enum.length], where, "enum");
    }
    switch (typeOf(schema)) {
      case "null":
        this.spend(0, 4, where);
        return null;
      case "boolean":
        this.spend(0, 5, where);
        return variant % 2 === 1;
      case "integer":
        return this.charged(numberFor(schema, variant, true, where), where);
      case "number":
        return this.charged(numberFor(schema, variant, false, where), where);
      case "string":
        return this.stringFor(schema, variant, where);
      case "array":
        return this.nested(() => this.arrayFor(schema, variant, where, refDepth));
      case "object":
        return this.nested(() => this.objectFor(schema, variant, where, refDepth));
      default:
        this.spend(0, 2, where);
        return variant === 0 ? {} : variant;
    }
  }

  private nested(make: () => JsonValue): JsonValue {
    this.depth++;
    try {
      return make();
    } finally {
      this.depth--;
    }
  }

  private charged(value: number, where: string): number {
    this.spend(0, String(value).length, where);
    return value;
  }

  /** A copy of a `const` or `enum` value, charged for its size before it is copied. */
  private copy(value: unknown, where: string, keyword: string): JsonValue {
    const size = measure(value, this.bounds.maxValues - this.spentValues + 1, this.bounds.maxChars - this.spentChars + 1);
    this.spend(size.values, size.chars, where, `its ${keyword} value`);
    return structuredClone(value) as JsonValue;
  }

  private objectFor(schema: SchemaObject, variant: number, where: string, refDepth: number): JsonValue {
    const properties = isObject(schema.properties) ? schema.properties : {};
    const keys = new Set<string>();
    // dependentRequired (and draft-07's array form of dependencies): a present key brings others.
    const dependencies = {
      ...(isObject(schema.dependencies) ? schema.dependencies : {}),
      ...(isObject(schema.dependentRequired) ? schema.dependentRequired : {}),
    };
    // One pass over the keys a key brings, each key added once (a chain of n dependencies is n steps).
    const add = (key: string) => {
      const todo = [key];
      for (let next = todo.pop(); next !== undefined; next = todo.pop()) {
        this.step(1, where);
        if (keys.has(next)) continue;
        keys.add(next);
        if (Object.hasOwn(dependencies, next)) for (const needed of strings(dependencies[next])) todo.push(needed);
      }
    };
    for (const key of strings(schema.required)) add(key);
    const minProperties = nonNegative(schema.minProperties) ?? 0;
    // Every property is at least one value and its key's characters: refused before one is made.
    this.affordValues(minProperties, where, `minProperties asks for ${minProperties} properties`);
    this.affordValues(keys.size, where, `required names ${keys.size} properties`);
    for (const key of Object.keys(properties)) {
      if (keys.size >= minProperties) break;
      add(key);
    }
    if (keys.size < minProperties && schema.additionalProperties === false)
      throw cannot(where, `minProperties is ${minProperties} but only ${keys.size} properties are allowed`);
    for (let extra = 1; keys.size < minProperties; extra++) {
      const key = `property_${extra}`;
      this.step(1, where);
      keys.add(key);
    }
    const order = [...strings(schema.propertyOrdering), ...Object.keys(properties), ...keys];
    this.step(order.length, where);
    this.spend(0, 2, where);
    const value: { [key: string]: JsonValue } = {};
    let first = true;
    for (const key of order) {
      if (!keys.has(key) || Object.hasOwn(value, key)) continue;
      const path = `${where}/${escapePointer(key)}`;
      this.spend(0, key.length + 4, path);
      const propertySchema = Object.hasOwn(properties, key) ? (properties[key] as Schema) : this.additionalSchema(schema, key, path);
      setOwn(value, key, this.instance(propertySchema, first ? variant : 0, path, refDepth));
      first = false;
    }
    return value;
  }

  /** The schema of a property not named in `properties`. */
  private additionalSchema(schema: SchemaObject, key: string, where: string): Schema {
    if (isObject(schema.patternProperties)) {
      for (const [pattern, patternSchema] of Object.entries(schema.patternProperties)) {
        this.step(1 + key.length / 100, where);
        if (this.matches(pattern, key)) return patternSchema as Schema;
      }
    }
    const additional = schema.additionalProperties;
    if (additional === false)
      throw cannot(
        where,
        `the property ${JSON.stringify(key)} is required but additionalProperties is false and properties does not name it`,
      );
    return additional === undefined ? true : (additional as Schema);
  }

  private arrayFor(schema: SchemaObject, variant: number, where: string, refDepth: number): JsonValue {
    // 2020-12: prefixItems then items; draft-07 / 2019-09: items as a list, then additionalItems.
    const tuple = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : [];
    const rest: Schema = Array.isArray(schema.items)
      ? ((schema.additionalItems as Schema | undefined) ?? true)
      : ((schema.items as Schema | undefined) ?? true);
    const contains = schema.contains as Schema | undefined;
    const containsCount = contains === undefined ? 0 : (nonNegative(schema.minContains) ?? 1);
    const count = Math.max(nonNegative(schema.minItems) ?? 0, containsCount);
    const asked = count === containsCount && containsCount > 0 ? `minContains asks for ${count} items` : `minItems asks for ${count} items`;
    // Every item is at least one value and a character with its comma: refused before one is made.
    this.affordValues(count, where, asked);
    this.spend(0, 2 + count, where, asked);
    const unique = schema.uniqueItems === true;
    const items: JsonValue[] = [];
    for (let index = 0; index < count; index++) {
      let itemSchema = (index < tuple.length ? tuple[index] : rest) as Schema;
      if (index < containsCount && contains !== undefined) itemSchema = this.merge(itemSchema, contains, where);
      const itemVariant = unique ? index + variant * count : index === 0 ? variant : 0;
      items.push(this.instance(itemSchema, itemVariant, `${where}/${index}`, refDepth));
    }
    return items;
  }

  private stringFor(schema: SchemaObject, variant: number, where: string): string {
    const minLength = nonNegative(schema.minLength) ?? 0;
    if (minLength > MAX_INSTANCE_STRING)
      throw cannot(where, `minLength is ${minLength}, longer than the ${MAX_INSTANCE_STRING} characters an answer's string may have`);
    // Charged before the string is made; the candidates below are at most minLength + 8 long.
    this.spend(0, minLength + 2, where, `minLength asks for ${minLength} characters`);
    const example = typeof schema.format === "string" ? formatExample(schema.format, variant) : undefined;
    const plain = (variant === 0 ? "" : lettersFor(variant)).padEnd(minLength, "a");
    this.spend(0, plain.length - minLength, where);
    const candidates = example !== undefined ? [example] : [plain];
    if (typeof schema.pattern === "string") {
      const pattern = schema.pattern;
      // Runs of one plain character, a few lengths from minLength up ("000" for ^[0-9]{3}$).
      if (example === undefined) {
        for (let length = minLength; length <= minLength + 8; length++) {
          for (const char of ["a", "0", "A"]) candidates.push(variant === 0 ? char.repeat(length) : `${char.repeat(length)}${variant}`);
        }
      }
      const fitting = candidates.find((candidate) => {
        this.step(1 + candidate.length / 100, where);
        return candidate.length >= minLength && this.matches(pattern, candidate);
      });
      if (fitting === undefined) {
        throw cannot(
          where,
          `the emulator does not invent strings for patterns, and none of its plain candidates matches ${JSON.stringify(pattern)}`,
        );
      }
      this.spend(0, fitting.length - minLength, where);
      return fitting;
    }
    const chosen = candidates[0] ?? "";
    this.spend(0, chosen.length - plain.length, where);
    return chosen;
  }

  /** Charges values and JSON characters of the instance; past a bound the schema is refused. */
  private spend(values: number, chars: number, where: string, asked?: string): void {
    this.spentValues += values;
    this.spentChars += Math.max(0, chars);
    if (this.spentValues > this.bounds.maxValues) {
      throw cannot(
        where,
        `${asked ?? "the smallest value the schema allows"}: more than the ${this.bounds.maxValues} values an answer may hold (EMULATOR_MAX_ANSWER_VALUES)`,
      );
    }
    if (this.spentChars > this.bounds.maxChars) {
      throw cannot(
        where,
        `${asked ?? "the smallest value the schema allows"}: longer than the ${this.bounds.maxChars} characters of JSON an answer may have (EMULATOR_MAX_ANSWER_BYTES)`,
      );
    }
  }

  /** Refuses, before anything is made, `count` more values than the budget has left. */
  private affordValues(count: number, where: string, asked: string): void {
    if (count > this.bounds.maxValues - this.spentValues)
      throw cannot(where, `${asked}, more than the ${this.bounds.maxValues} values an answer may hold (EMULATOR_MAX_ANSWER_VALUES)`);
  }

  /** Charges the work of reading the schema (not the value made from it). */
  private step(count: number, where: string): void {
    this.steps += count;
    if (this.steps > MAX_SCHEMA_STEPS)
      throw cannot(
        where,
        `the schema takes more than ${MAX_SCHEMA_STEPS} steps to read (its allOf, $ref and dependencies combine too often)`,
      );
  }

  private merge(a: Schema, b: Schema, where: string): Schema {
    return merge(a, b, (count) => this.step(count, where));
  }

  /** RE2 compiled once per pattern and instance (linear matching, no backtracking). */
  private matches(pattern: string, text: string): boolean {
    let compiled = this.patterns.get(pattern);
    if (compiled === undefined) {
      this.step(pattern.length / 10, "");
      try {
        compiled = new RE2(pattern, "u");
      } catch {
        compiled = null;
      }
      this.patterns.set(pattern, compiled);
    }
    return compiled?.test(text) === true;
  }

  /** The schema `ref` points at, looked up once per instance. */
  private resolve(ref: string, where: string): Schema {
    let target = this.resolved.get(ref);
    if (target === undefined) {
      this.step(1 + ref.length / 10, where);
      target = this.lookUp(ref, where);
      this.resolved.set(ref, target);
    }
    return target;
  }

  private lookUp(ref: string, where: string): Schema {
    const rootId = isObject(this.root) && typeof this.root.$id === "string" ? this.root.$id : undefined;
    const local = rootId !== undefined && ref.startsWith(`${rootId}#`) ? ref.slice(rootId.length) : ref;
    if (local === "#" || local === "" || local === rootId) return this.root;
    if (local.startsWith("#/")) {
      let target: unknown = this.root;
      for (const raw of local.slice(2).split("/")) {
        const segment = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
        target = isObject(target) || Array.isArray(target) ? (target as Record<string, unknown>)[segment] : undefined;
        if (target === undefined) throw cannot(where, `$ref ${JSON.stringify(ref)} points at nothing in the schema`);
      }
      return target as Schema;
    }
    const named = this.named.get(local) ?? this.named.get(ref);
    if (named) return named;
    throw cannot(where, `$ref ${JSON.stringify(ref)} is not inside the schema (use "#/$defs/…", an $anchor or a subschema's $id)`);
  }
}

/** Subschemas by `$anchor` ("#name") and by `$id`, for $ref. */
function collectNamed(schema: unknown, into: Map<string, SchemaObject>): void {
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) for (const child of node) stack.push(child);
    else if (isObject(node)) {
      if (typeof node.$anchor === "string" && !into.has(`#${node.$anchor}`)) into.set(`#${node.$anchor}`, node);
      if (typeof node.$id === "string" && !into.has(node.$id)) into.set(node.$id, node);
      for (const [key, child] of Object.entries(node))
        if (key !== "enum" && key !== "const" && key !== "default" && key !== "examples") stack.push(child);
    }
  }
}

/** `rest` with the applicators that are still to be folded (undefined ones left out). */
function withApplicators(rest: SchemaObject, applicators: Record<string, unknown>): SchemaObject {
  const out: SchemaObject = { ...rest };
  for (const [key, value] of Object.entries(applicators)) if (value !== undefined) setOwn(out, key, value);
  return out;
}

const LOWER_BOUNDS = new Set(["minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties", "minContains"]);
const UPPER_BOUNDS = new Set(["maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains"]);
/** Keywords whose two values cannot be combined into one: the second goes under allOf. */
const APPLICATORS = new Set(["$ref", "anyOf", "oneOf", "not", "if", "then", "else", "contains", "propertyNames"]);

/** One schema that allows what both allow (as far as the generator reads them; Ajv checks the rest). */
export function merge(a: Schema, b: Schema, charge: (steps: number) => void = () => undefined): Schema {
  if (a === false || b === false) return false;
  if (a === true) return b;
  if (b === true) return a;
  charge(Object.keys(a).length + Object.keys(b).length);
  const out: SchemaObject = { ...a };
  const later: Schema[] = [];
  for (const [key, value] of Object.entries(b)) {
    if (!Object.hasOwn(out, key)) {
      setOwn(out, key, value);
      continue;
    }
    const mine = out[key];
    if (key === "type") {
      const both = intersectTypes(mine, value);
      if (both.length === 0) return false;
      out.type = both.length === 1 ? both[0] : both;
    } else if (key === "required") {
      charge(strings(mine).length + strings(value).length);
      out.required = [...new Set([...strings(mine), ...strings(value)])];
    } else if (key === "allOf" && Array.isArray(mine) && Array.isArray(value)) {
      charge(mine.length + value.length);
      out.allOf = [...mine, ...value];
    } else if (
      (key === "properties" || key === "patternProperties" || key === "$defs" || key === "definitions") &&
      isObject(mine) &&
      isObject(value)
    ) {
      charge(Object.keys(mine).length + Object.keys(value).length);
      const combined: SchemaObject = { ...mine };
      for (const [name, schema] of Object.entries(value))
        setOwn(combined, name, Object.hasOwn(combined, name) ? { allOf: [combined[name], schema] } : schema);
      out[key] = combined;
    } else if (LOWER_BOUNDS.has(key) && typeof mine === "number" && typeof value === "number") out[key] = Math.max(mine, value);
    else if (UPPER_BOUNDS.has(key) && typeof mine === "number" && typeof value === "number") out[key] = Math.min(mine, value);
    else if (key === "enum" && Array.isArray(mine) && Array.isArray(value)) {
      const allowed = new Set(value.map((item) => chargedCanonical(item, charge)));
      out.enum = mine.filter((item) => allowed.has(chargedCanonical(item, charge)));
    } else if (key === "const") {
      if (chargedCanonical(mine, charge) !== chargedCanonical(value, charge)) return false;
    } else if ((key === "items" || key === "additionalProperties") && !Array.isArray(mine) && !Array.isArray(value)) {
      out[key] = mine === false || value === false ? false : { allOf: [mine, value] };
    } else if (APPLICATORS.has(key)) later.push({ [key]: value });
    else setOwn(out, key, value);
  }
  if (later.length > 0) out.allOf = [...(Array.isArray(out.allOf) ? out.allOf : []), ...later];
  return out;
}

const JSON_TYPES = ["null", "boolean", "object", "array", "number", "integer", "string"];

function intersectTypes(a: unknown, b: unknown): string[] {
  const left = typeof a === "string" ? [a] : strings(a);
  const right = new Set(typeof b === "string" ? [b] : strings(b));
  const both: string[] = [];
  for (const type of left) {
    if (right.has(type)) both.push(type);
    else if (type === "number" && right.has("integer")) both.push("integer");
    else if (type === "integer" && right.has("number")) both.push("integer");
  }
  return [...new Set(both)];
}

function typeOf(schema: SchemaObject): string | undefined {
  const declared = typeof schema.type === "string" ? [schema.type] : strings(schema.type);
  const known = declared.filter((type) => JSON_TYPES.includes(type));
  if (known.length > 0) return known[0];
  if (declared.length > 0) return undefined;
  const has = (...keywords: string[]) => keywords.some((keyword) => keyword in schema);
  if (has("properties", "required", "additionalProperties", "patternProperties", "minProperties", "dependentRequired", "propertyOrdering"))
    return "object";
  if (has("items", "prefixItems", "minItems", "maxItems", "contains", "uniqueItems")) return "array";
  if (has("minLength", "maxLength", "pattern", "format")) return "string";
  if (has("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")) return "number";
  return undefined;
}

function numberFor(schema: SchemaObject, variant: number, integer: boolean, where: string): number {
  let lower = Number.NEGATIVE_INFINITY;
  let lowerOpen = false;
  let upper = Number.POSITIVE_INFINITY;
  let upperOpen = false;
  if (typeof schema.minimum === "number") lower = schema.minimum;
  if (typeof schema.exclusiveMinimum === "number" && schema.exclusiveMinimum >= lower) [lower, lowerOpen] = [schema.exclusiveMinimum, true];
  if (typeof schema.maximum === "number") upper = schema.maximum;
  if (typeof schema.exclusiveMaximum === "number" && schema.exclusiveMaximum <= upper) [upper, upperOpen] = [schema.exclusiveMaximum, true];
  const multipleOf = typeof schema.multipleOf === "number" && schema.multipleOf > 0 ? schema.multipleOf : undefined;
  const step = multipleOf ?? (integer ? 1 : undefined);
  const above = (value: number) => (lowerOpen ? value > lower : value >= lower);
  const below = (value: number) => (upperOpen ? value < upper : value <= upper);
  let start: number;
  let direction = 1;
  if (above(0) && below(0)) start = 0;
  else if (!above(0)) {
    // Everything allowed is above 0: the lowest allowed value.
    start =
      step !== undefined ? (lowerOpen ? Math.floor(lower / step) + 1 : Math.ceil(lower / step)) * step : lowerOpen ? lower + 1 : lower;
    if (step === undefined && !below(start)) start = (lower + upper) / 2;
  } else {
    // Everything allowed is below 0: the highest allowed value.
    direction = -1;
    start =
      step !== undefined ? (upperOpen ? Math.ceil(upper / step) - 1 : Math.floor(upper / step)) * step : upperOpen ? upper - 1 : upper;
    if (step === undefined && !above(start)) start = (lower + upper) / 2;
  }
  const value = start + direction * variant * (step ?? 1) + 0;
  if (!Number.isFinite(value) || !above(value) || !below(value)) {
    throw cannot(
      where,
      variant === 0 ? "no number fits its bounds" : "there are not enough different numbers within its bounds for uniqueItems",
    );
  }
  return value;
}

function formatExample(format: string, variant: number): string | undefined {
  switch (format) {
    case "date":
      return new Date(variant * 86_400_000).toISOString().slice(0, 10);
    case "date-time":
      return `${new Date(variant * 1000).toISOString().slice(0, 19)}Z`;
    case "time":
      return `${new Date((variant % 86_400) * 1000).toISOString().slice(11, 19)}Z`;
    case "email":
      return `user${variant === 0 ? "" : variant}@example.com`;
    case "uri":
      return `https://example.com/${variant === 0 ? "" : variant}`;
    case "uuid":
      return `00000000-0000-0000-0000-${variant.toString(16).padStart(12, "0")}`;
    case "ipv4":
      return `0.0.${Math.floor(variant / 256) % 256}.${variant % 256}`;
    case "ipv6":
      return `::${variant.toString(16)}`;
    case "hostname":
      return variant === 0 ? "example.com" : `host${variant}.example.com`;
    default:
      return undefined;
  }
}

/** "b", "c", … "z", "ba", …: a different short text for each variant > 0. */
function lettersFor(variant: number): string {
  let text = "";
  for (let n = variant; n > 0; n = Math.floor(n / 26)) text = String.fromCharCode(97 + (n % 26)) + text;
  return text;
}

/** The canonical text of a value (for comparing enums and consts), charged by its length. */
function chargedCanonical(value: unknown, charge: (steps: number) => void): string {
  const text = canonical(value);
  charge(1 + text.length / 100);
  return text;
}

/**
 * The values and JSON characters of `value`, counted until either passes its limit (then the count
 * stops there: the caller refuses it, so the rest need not be walked).
 */
function measure(value: unknown, maxValues: number, maxChars: number): { values: number; chars: number } {
  let values = 0;
  let chars = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && values <= maxValues && chars <= maxChars) {
    const node = stack.pop();
    values++;
    if (Array.isArray(node)) {
      chars += 1 + node.length;
      for (const child of node) stack.push(child);
    } else if (isObject(node)) {
      chars += 1;
      for (const [key, child] of Object.entries(node)) {
        chars += key.length + 4;
        stack.push(child);
      }
    } else chars += typeof node === "string" ? node.length + 2 : String(node).length;
  }
  return { values, chars };
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "undefined";
}

function escapePointer(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

function nonNegative(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.ceil(value) : undefined;
}

function isObject(value: unknown): value is SchemaObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function cannot(where: string, why: string): CannotInstantiate {
  return new CannotInstantiate(`at ${where === "" ? "(root)" : where}: ${why}`);
}
