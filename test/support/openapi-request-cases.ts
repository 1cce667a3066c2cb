// Request bodies derived from the service's OpenAPI document itself, for the request audit
// (test/integration/openapi-requests.test.ts): for every JSON request body of the document's operations,
// every schema reachable from it (through $ref, oneOf, anyOf, allOf, items, maps) gives
//   - document-VALID bodies: the minimal body (required fields only), and one that adds each optional
//     field with a valid value (the schema's const, each enum value, a boolean's both values, its example,
//     else a value of its type), each oneOf/anyOf branch once;
//   - document-INVALID bodies: each required field left out, each field given a value of a wrong type,
//     an unknown field in each object (the service, like every Google API, refuses those).
// Each case is built around the minimal body, so a case differs from it in one place: the field it is
// about. A named schema is expanded once per operation (at its first, shallowest place), so a schema
// reached from many places (Content, Step) costs its cases once. Pure: no I/O; the caller gives the
// patched document, the values that must be real (referenced IDs, loopback URLs) and the bases that
// the exceptions file gives (what the emulator needs where the document requires less).

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = Record<string, unknown>;

export type CaseKind = "minimal" | "optional" | "branch" | "value" | "missing" | "wrong type" | "unknown";

export interface RequestCase {
  /** The document's operationId (`CreateInteraction`). */
  operation: string;
  method: string;
  /** The document's path template. */
  route: string;
  /**
   * The row id of the field the case is about, as docs/coverage.md names it: the request's table
   * (`CreateAgentInteraction`, `CreateCredential`), then field names joined by dots, an alternative
   * told apart by its `type` in parentheses; the request's table alone for the body itself.
   */
  field: string;
  /** Where in the body, for messages: `environment.sources[0].target`. */
  at: string;
  /** The name a refusal's message must say: the field's own (or the unknown field's). */
  name: string;
  kind: CaseKind;
  /** Whether the document allows the body. */
  valid: boolean;
  body: Json;
}

export interface RequestBody {
  operation: string;
  method: string;
  route: string;
  /** The table name of each top-level branch's schema (`CreateAgentInteractionParams` → `CreateAgentInteraction`). */
  schema: Schema;
}

export interface CaseOptions {
  /**
   * A value that must be real rather than made up (an ID the emulator looks up, a loopback URL) for the
   * field with this row id, or undefined to derive one from the schema. `serial` differs in each call.
   */
  valueFor?: (field: string, name: string, serial: number) => Json | undefined;
  /** What the emulator needs at a field beyond the document's required fields (the exceptions' `base`). */
  baseFor?: (field: string) => Json | undefined;
}

/** A body's table name in docs/coverage.md: the SDK's for the two it lists from the SDK's types. */
export function tableOf(operation: string, schemaName: string | undefined): string {
  if (schemaName === "CreateAgentInteractionParams") return "CreateAgentInteraction";
  if (schemaName === "CreateModelInteractionParams") return "CreateModelInteraction";
  if (operation === "CreateEnvironment") return "CreateEnvironmentRequest";
  return operation;
}

/** Every JSON request body of the document's operations. */
export function requestBodies(document: Record<string, unknown>): RequestBody[] {
  const bodies: RequestBody[] = [];
  const paths = document.paths as Record<string, Record<string, Schema>>;
  for (const [route, item] of Object.entries(paths)) {
    for (const method of ["get", "post", "put", "patch", "delete"]) {
      const operation = item[method] as
        | { operationId?: string; requestBody?: { content?: Record<string, { schema?: Schema }> } }
        | undefined;
      const schema = operation?.requestBody?.content?.["application/json"]?.schema;
      if (operation?.operationId && schema) bodies.push({ operation: operation.operationId, method: method.toUpperCase(), route, schema });
    }
  }
  return bodies;
}

interface Variant {
  /** Row id suffix below the position's own (`.target`, `(text).text`), "" for the position itself. */
  field: string;
  /** JSON path below the position (`.sources[0].target`). */
  at: string;
  name: string;
  kind: CaseKind;
  valid: boolean;
  value: Json | typeof OMIT;
}

/** A required field left out: the value its parent's object drops. */
const OMIT = Symbol("omit");
const UNKNOWN_FIELD = "unknown_audit_field";

export function requestCases(document: Record<string, unknown>, options: CaseOptions = {}): RequestCase[] {
  const schemas = ((document.components as { schemas?: Record<string, Schema> } | undefined)?.schemas ?? {}) as Record<string, Schema>;
  const cases: RequestCase[] = [];
  let serial = 0;
  for (const body of requestBodies(document)) {
    // The top-level oneOf (CreateInteraction: agent or model) is two bodies, each its own table.
    const top = body.schema.oneOf as Schema[] | undefined;
    const roots = top && !body.schema.properties ? top : [body.schema];
    for (const root of roots) {
      const table = tableOf(body.operation, refName(root) ?? refName(body.schema));
      const generator = new Generator(schemas, options, () => serial++);
      const position = generator.position(root, table, "");
      const push = (variant: Variant, value: Json) =>
        cases.push({
          operation: body.operation,
          method: body.method,
          route: body.route,
          field: `${table}${variant.field}`,
          at: variant.at.replace(/^\./, "") || "request body",
          name: variant.name,
          kind: variant.kind,
          valid: variant.valid,
          body: value,
        });
      push({ field: "", at: "", name: "", kind: "minimal", valid: true, value: position.minimal }, position.minimal);
      for (const variant of position.variants) if (variant.value !== OMIT) push(variant, variant.value);
    }
  }
  return cases;
}

class Generator {
  private readonly expanded = new Set<string>();
  constructor(
    private readonly schemas: Record<string, Schema>,
    private readonly options: CaseOptions,
    private readonly serial: () => number,
  ) {}

  /** The minimal value at a place and the variants of it (each a whole value for that place). */
  position(schema: Schema, field: string, name: string, depth = 0): { minimal: Json; variants: Variant[] } {
    const named = refName(schema);
    const target = this.resolve(schema);
    if (depth > 40) return { minimal: {}, variants: [] };
    const expand = named === undefined || !this.expanded.has(named);
    if (named !== undefined) this.expanded.add(named);
    const branches = [...((target.oneOf as Schema[]) ?? []), ...((target.anyOf as Schema[]) ?? [])];
    if (branches.length > 0 && !target.properties) return this.union(branches, field, name, depth, expand);
    const merged = this.merged(target);
    if (merged.const !== undefined) return { minimal: merged.const as Json, variants: [] };
    if (Array.isArray(merged.enum)) {
      // A value the emulator must be given (the agent it runs) first, every other documented value a case.
      const values = merged.enum as Json[];
      const own = this.options.valueFor?.(field, name, this.serial());
      const minimal = own ?? values[0] ?? null;
      const rest = values.filter((value) => value !== minimal);
      return { minimal, variants: expand ? rest.map((value) => valueVariant(name, value)) : [] };
    }
    switch (typeOf(merged)) {
      case "object":
        return this.object(merged, field, name, depth, expand);
      case "array":
        return this.array(merged, field, name, depth, expand);
      case "boolean":
        return { minimal: false, variants: [valueVariant(name, true)] };
      case "integer":
      case "number":
        return this.number(merged);
      case "string": {
        const own = this.options.valueFor?.(field, name, this.serial());
        return own === undefined ? this.string(merged) : { minimal: own, variants: [] };
      }
      default:
        return { minimal: {}, variants: [] };
    }
  }

  private union(branches: Schema[], field: string, name: string, depth: number, expand: boolean) {
    const objects = branches.filter((branch) => this.isObject(branch));
    const tagged = (branch: Schema) => {
      const tag = this.tagOf(branch);
      return objects.length > 1 && this.isObject(branch) && tag !== undefined ? `(${tag})` : "";
    };
    // The simplest branch is the minimal value (a string ID before an object, "disabled" before an allowlist).
    const scalarFirst = [...branches].sort((a, b) => Number(this.isScalar(b)) - Number(this.isScalar(a)));
    const first = scalarFirst[0] as Schema;
    const minimal = this.position(first, `${field}${tagged(first)}`, name, depth + 1).minimal;
    const variants: Variant[] = [];
    if (expand) {
      for (const branch of branches) {
        const tag = tagged(branch);
        const inner = this.position(branch, `${field}${tag}`, name, depth + 1);
        if (branch !== first) variants.push({ field: tag, at: "", name, kind: "branch", valid: true, value: inner.minimal });
        for (const variant of inner.variants) variants.push({ ...variant, field: `${tag}${variant.field}` });
      }
    }
    return { minimal, variants };
  }

  private object(schema: Schema, field: string, name: string, depth: number, expand: boolean) {
    const properties = Object.entries((schema.properties as Record<string, Schema> | undefined) ?? {}).filter(
      ([, child]) => !(child as { readOnly?: boolean }).readOnly,
    );
    // An anyOf of bare `required` lists (an interaction needs `input` or a `continuation_token`): its
    // first alternative's fields are required as far as the cases go.
    const alternatives = (schema.anyOf as Schema[] | undefined) ?? [];
    const either = alternatives.every((branch) => Object.keys(branch).join() === "required") ? alternatives[0]?.required : undefined;
    const required = new Set([...((schema.required as string[] | undefined) ?? []), ...((either as string[] | undefined) ?? [])]);
    const minimal: Record<string, Json> = {};
    const children = new Map<string, { minimal: Json; variants: Variant[] }>();
    for (const [key, child] of properties) {
      // A schema expanded elsewhere needs only its required fields here.
      if (!expand && !required.has(key)) continue;
      const inner = this.position(child, `${field}.${key}`, key, depth + 1);
      children.set(key, inner);
      if (required.has(key)) minimal[key] = inner.minimal;
    }
    const base = this.options.baseFor?.(field);
    const documentMinimal = { ...minimal };
    if (isRecord(base)) Object.assign(minimal, base);
    const additional = schema.additionalProperties;
    if (properties.length === 0 && typeof additional === "object" && additional !== null && Object.keys(additional).length > 0) {
      // A map: its values are the fields of the place (maps add nothing to the row id).
      const inner = this.position(additional as Schema, field, name, depth + 1);
      const variants: Variant[] = expand
        ? [
            { field: "", at: "", name, kind: "optional", valid: true, value: { key: inner.minimal } },
            ...inner.variants.map((variant) => wrap(variant, "", `.key`, (value) => ({ key: value }))),
            ...this.wrongTypes(additional as Schema).map((value) => ({
              field: "",
              at: ".key",
              name,
              kind: "wrong type" as const,
              valid: false,
              value: { key: value },
            })),
          ]
        : [];
      return { minimal: {}, variants };
    }
    if (!expand) return { minimal, variants: [] };
    const variants: Variant[] = [];
    if (base !== undefined) {
      // The document's own minimal where the emulator needs more: the case that shows the difference.
      variants.push({ field: "", at: "", name, kind: "minimal", valid: true, value: documentMinimal });
    }
    const withField = (key: string, value: Json | typeof OMIT): Json => {
      const copy: Record<string, Json> = { ...minimal };
      if (value === OMIT) delete copy[key];
      else copy[key] = value;
      return copy;
    };
    for (const [key, child] of properties) {
      const inner = children.get(key) as { minimal: Json; variants: Variant[] };
      if (required.has(key)) {
        variants.push({ field: `.${key}`, at: `.${key}`, name: key, kind: "missing", valid: false, value: withField(key, OMIT) });
      } else
        variants.push({ field: `.${key}`, at: `.${key}`, name: key, kind: "optional", valid: true, value: withField(key, inner.minimal) });
      for (const variant of inner.variants) {
        if (variant.value === OMIT) continue;
        variants.push(wrap(variant, `.${key}`, `.${key}`, (value) => withField(key, value)));
      }
      for (const value of this.wrongTypes(child)) {
        variants.push({ field: `.${key}`, at: `.${key}`, name: key, kind: "wrong type", valid: false, value: withField(key, value) });
      }
    }
    // An object without properties (`{"type": "object"}`: a Struct, an MCP tool's result) is free-form: any field is its own.
    if (properties.length > 0 && (additional === undefined || additional === false)) {
      variants.push({
        field: "",
        at: "",
        name: UNKNOWN_FIELD,
        kind: "unknown",
        valid: false,
        value: { ...minimal, [UNKNOWN_FIELD]: 1 },
      });
    }
    return { minimal, variants };
  }

  private array(schema: Schema, field: string, name: string, depth: number, expand: boolean) {
    const items = (schema.items as Schema | undefined) ?? {};
    const inner = this.position(items, field, name, depth + 1);
    const minItems = typeof schema.minItems === "number" ? schema.minItems : 0;
    const minimal: Json = minItems > 0 ? [inner.minimal] : [];
    if (!expand) return { minimal, variants: [] };
    const variants: Variant[] = [];
    if (minItems === 0) variants.push({ field: "", at: "", name, kind: "value", valid: true, value: [inner.minimal] });
    for (const variant of inner.variants) variants.push(wrap(variant, "", "[0]", (value) => [value]));
    for (const value of this.wrongTypes(items)) {
      variants.push({ field: "", at: "[0]", name, kind: "wrong type", valid: false, value: [value] });
    }
    return { minimal, variants };
  }

  private number(schema: Schema) {
    const example = exampleOf(schema);
    const minimum = typeof schema.minimum === "number" ? schema.minimum : undefined;
    const value = typeof example === "number" ? example : (minimum ?? 1);
    return { minimal: value, variants: [] as Variant[] };
  }

  private string(schema: Schema) {
    const example = exampleOf(schema);
    const byFormat: Record<string, string> = {
      "date-time": "2026-08-01T00:00:00Z",
      int64: "1000",
      byte: "aGVsbG8=",
      "google-duration": "60s",
      uri: "http://127.0.0.1/",
    };
    const format = typeof schema.format === "string" ? byFormat[schema.format] : undefined;
    const value = format ?? (typeof example === "string" ? example : "audit");
    return { minimal: value, variants: [] as Variant[] };
  }

  /** Values of another JSON type than the schema's (the caller keeps those the document refuses). */
  private wrongTypes(schema: Schema): Json[] {
    const target = this.merged(this.resolve(schema));
    const branches = [...((target.oneOf as Schema[]) ?? []), ...((target.anyOf as Schema[]) ?? [])];
    const types = new Set(branches.length > 0 ? branches.map((branch) => typeOf(this.merged(this.resolve(branch)))) : [typeOf(target)]);
    if (types.has(undefined)) return [];
    for (const candidate of [12345, "wrong", true, ["wrong"]] as Json[]) {
      const type = Array.isArray(candidate) ? "array" : typeof candidate;
      if (!types.has(type) && !(type === "number" && types.has("integer"))) return [candidate];
    }
    return [];
  }

  private resolve(schema: Schema): Schema {
    let target = schema;
    for (let hops = 0; hops < 10; hops++) {
      const name = refName(target);
      if (name === undefined) break;
      target = this.schemas[name] ?? {};
    }
    return target;
  }

  /** An allOf's parts as one object schema. */
  private merged(schema: Schema): Schema {
    const parts = schema.allOf as Schema[] | undefined;
    if (!parts) return schema;
    const merged: Schema = { ...schema, properties: { ...((schema.properties as Schema) ?? {}) } };
    delete merged.allOf;
    for (const part of parts.map((p) => this.merged(this.resolve(p)))) {
      Object.assign(merged.properties as Schema, part.properties ?? {});
      if (part.required) merged.required = [...((merged.required as string[]) ?? []), ...(part.required as string[])];
      for (const key of ["type", "enum", "const", "format", "items", "additionalProperties"]) {
        if (part[key] !== undefined && merged[key] === undefined) merged[key] = part[key];
      }
    }
    if (Object.keys(merged.properties as Schema).length === 0) delete merged.properties;
    return merged;
  }

  private isObject(branch: Schema): boolean {
    const target = this.merged(this.resolve(branch));
    return target.properties !== undefined || target.type === "object";
  }

  private isScalar(branch: Schema): boolean {
    const type = typeOf(this.merged(this.resolve(branch)));
    return type === "string" || type === "number" || type === "integer" || type === "boolean";
  }

  /** A branch's tag as docs/coverage.md writes it: its constant `type`, else its schema's name. */
  private tagOf(branch: Schema): string | undefined {
    const target = this.merged(this.resolve(branch));
    const type = (target.properties as Record<string, Schema> | undefined)?.type;
    const constant = type?.const ?? (Array.isArray(type?.enum) && type.enum.length === 1 ? type.enum[0] : undefined);
    if (typeof constant === "string") return constant;
    return refName(branch);
  }
}

function wrap(variant: Variant, field: string, at: string, place: (value: Json) => Json): Variant {
  return {
    ...variant,
    field: `${field}${variant.field}`,
    at: `${at}${variant.at}`,
    value: variant.value === OMIT ? OMIT : place(variant.value),
  };
}

function valueVariant(name: string, value: Json): Variant {
  return { field: "", at: "", name, kind: "value", valid: true, value };
}

function refName(schema: Schema): string | undefined {
  return typeof schema.$ref === "string" ? schema.$ref.replace("#/components/schemas/", "") : undefined;
}

function typeOf(schema: Schema): string | undefined {
  if (typeof schema.type === "string") return schema.type;
  if (schema.properties !== undefined || schema.additionalProperties !== undefined) return "object";
  if (schema.items !== undefined) return "array";
  if (typeof schema.const === "string") return "string";
  return undefined;
}

function exampleOf(schema: Schema): unknown {
  if (schema.example !== undefined) return schema.example;
  const examples = schema.examples;
  if (Array.isArray(examples) && examples.length > 0) return examples[0];
  return undefined;
}

function isRecord(value: unknown): value is Record<string, Json> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
