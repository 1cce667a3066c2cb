// The service's OpenAPI document as a contract (docs/testing.md#the-openapi-document-as-a-contract):
// schemas/interactions.openapi.json (a public copy of the service's document), with the document's own
// defects patched as schemas/interactions.openapi.defects.json lists them, compiled with Ajv. It answers
// which operation a request is and whether a body (JSON answer, error body, stream event) is what the
// document says that operation answers with that status.

import fs from "node:fs";
import path from "node:path";
import type AjvModule from "ajv";
import type { ErrorObject, ValidateFunction } from "ajv";
import { loadOnFirstUse } from "../common/load-on-first-use.js";
import { openApiFile, projectRoot } from "../common/paths.js";
import { VERSION_SEGMENT } from "./base-path.js";

export const OPENAPI_FILE = openApiFile;
export const DEFECTS_FILE = path.join(projectRoot, "schemas", "interactions.openapi.defects.json");

const ajvModule = loadOnFirstUse<typeof AjvModule>("ajv");

/** One step of a JSON Patch (RFC 6902), the operations the defects file uses. */
export interface PatchStep {
  op: "add" | "remove" | "replace" | "move" | "copy";
  path: string;
  from?: string;
  value?: unknown;
}

export interface Defect {
  id: string;
  why: string;
  patch: PatchStep[];
}

/** What a checked body is measured against: the schema's place in the document, for messages. */
export interface BodySchema {
  /** A JSON pointer into the patched document, e.g. `#/components/schemas/Interaction`. */
  pointer: string;
  validate: ValidateFunction;
}

export interface Operation {
  /** `GET /{api_version}/interactions/{id}`: the document's template. */
  name: string;
  method: string;
  template: string;
  responses: Record<string, unknown>;
}

/** What is wrong with a body: where in it, which keyword of which schema, and the value found there. */
export interface Violation {
  schema: string;
  instancePath: string;
  keyword: string;
  message: string;
  value: unknown;
}

/** The error answer of an operation that declares none (the defect `errors-undeclared`). */
const ERROR_ENVELOPE_OF = "/paths/~1{api_version}~1interactions/post/responses/4XX/content/application~1json/schema";

/** Requests the document spells another way, checked as the operation it names (docs/fidelity.md). */
const ALIASES: ReadonlyArray<{ method: string; pattern: RegExp; operation: string }> = [
  // The SDK's and the REST examples' `:cancel` custom-method form of `POST /interactions/{id}/cancel`.
  { method: "POST", pattern: /^\/[^/]+\/interactions\/[^/]+:cancel$/, operation: "POST /{api_version}/interactions/{id}/cancel" },
  // The webhooks page's REST example's `{id}/rotate_secret` form of `POST /webhooks/{id}:rotateSigningSecret`.
  {
    method: "POST",
    pattern: /^\/[^/]+\/webhooks\/[^/]+\/rotate_secret$/,
    operation: "POST /{api_version}/webhooks/{id}:rotateSigningSecret",
  },
];

export class ContractDocument {
  private readonly ajv: InstanceType<(typeof AjvModule)["default"]>;
  private readonly compiled = new Map<string, BodySchema>();
  private readonly branches = new Map<string, Array<{ pointer: string; only: string[] }> | null>();
  private readonly matchers: Array<{ operation: Operation; pattern: RegExp }>;
  private readonly byName = new Map<string, Operation>();

  constructor(
    readonly document: Record<string, unknown>,
    readonly defects: readonly Defect[],
  ) {
    this.ajv = new (ajvModule().default)({
      // The document is OpenAPI 3.0: `example`, `x-google-*`, `x-speakeasy-*`, `discriminator` are no JSON
      // Schema keywords; unknown keywords are ignored rather than refused.
      strict: false,
      allErrors: false,
      // Each error carries its schema (what a request's 400 lists as allowed: request-violation.ts).
      verbose: true,
      // The document's oneOfs with a discriminator (stream events by event_type): a violation is reported
      // inside the branch the value names rather than as "must match exactly one schema".
      discriminator: true,
      validateSchema: false,
      formats: DOCUMENT_FORMATS,
    });
    this.ajv.addSchema(document, "openapi");
    this.matchers = [];
    const paths = (document["paths"] ?? {}) as Record<string, Record<string, unknown>>;
    for (const [template, item] of Object.entries(paths)) {
      for (const method of ["get", "post", "put", "patch", "delete"]) {
        const entry = item[method] as { responses?: Record<string, unknown> } | undefined;
        if (!entry) continue;
        const operation = {
          name: `${method.toUpperCase()} ${template}`,
          method: method.toUpperCase(),
          template,
          responses: entry.responses ?? {},
        };
        this.matchers.push({ operation, pattern: templatePattern(template) });
        this.byName.set(operation.name, operation);
      }
    }
    // The template with more fixed text first: `/webhooks/{id}:ping` before `/webhooks/{id}`.
    this.matchers.sort((a, b) => literalLength(b.operation.template) - literalLength(a.operation.template));
  }

  /** The operation a request is (its path without the query, after any base path), or null when the document has none. */
  operationFor(method: string, pathname: string): Operation | null {
    const upper = method.toUpperCase();
    for (const alias of ALIASES) {
      if (alias.method === upper && alias.pattern.test(pathname)) return this.byName.get(alias.operation) ?? null;
    }
    for (const { operation, pattern } of this.matchers) {
      if (operation.method !== upper) continue;
      const match = pattern.exec(pathname);
      if (match && VERSION_SEGMENT.test(match.groups?.["api_version"] ?? "")) return operation;
    }
    return null;
  }

  /**
   * The schema an answer of `operation` with `status` and media type `media` (`application/json`,
   * `text/event-stream`) must meet, or null when the document declares no body for it. For a stream it
   * is the schema of one event (the `data` of the document's InteractionSseStreamEvent). An error status
   * of an operation that declares no error answer (or none at all: `operation` null) gets the error
   * envelope (the defect `errors-undeclared`).
   */
  schemaFor(operation: Operation | null, status: number, media: string): BodySchema | null {
    const error = status >= 400;
    if (operation) {
      const family = `${Math.floor(status / 100)}XX`;
      const key = [String(status), family, ...(error ? [] : ["default"])].find((name) => name in operation.responses);
      if (key !== undefined) {
        const content = (operation.responses[key] as { content?: Record<string, { schema?: unknown }> }).content;
        if (!content?.[media]?.schema) return error && media === "application/json" ? this.errorEnvelope() : null;
        const base = `/paths/${escapePointer(operation.template)}/${operation.method.toLowerCase()}/responses/${escapePointer(key)}/content/${escapePointer(media)}/schema`;
        return this.compile(media === "text/event-stream" ? this.eventSchemaPointer(base) : base);
      }
    }
    return error && media === "application/json" ? this.errorEnvelope() : null;
  }

  /** The schema of an operation's JSON request body (`POST /{api_version}/credentials`), or null when it has none. */
  requestSchemaFor(name: string): BodySchema | null {
    const operation = this.byName.get(name);
    if (!operation) return null;
    const base = `/paths/${escapePointer(operation.template)}/${operation.method.toLowerCase()}/requestBody/content/application~1json/schema`;
    return resolvePointer(this.document, base) === undefined ? null : this.compile(base);
  }

  /**
   * What a request body is checked against: its schema, or, when that is a oneOf without a
   * discriminator, the branch `body` names: the one whose required fields include one the body has and
   * no other branch requires (`agent` picks CreateAgentInteraction, `model` CreateModelInteraction).
   * Null when the body names no branch or several: the route's own check then says which fields to give.
   */
  requestSchemaForBody(schema: BodySchema, body: Record<string, unknown>): BodySchema | null {
    const branches = this.namedBranchesOf(schema.pointer);
    if (branches === null) return schema;
    const named = branches.filter((branch) => branch.only.some((field) => Object.hasOwn(body, field)));
    return named.length === 1 ? this.compile(named[0]!.pointer) : null;
  }

  /**
   * For a oneOf of `$ref`s without a discriminator: each branch with the required fields no other branch
   * requires. Null for any other schema (checked whole). Worked out once per schema.
   */
  private namedBranchesOf(pointer: string): Array<{ pointer: string; only: string[] }> | null {
    if (!this.branches.has(pointer)) {
      const node = resolvePointer(this.document, pointer.replace(/^#/, "")) as
        | { oneOf?: Array<{ $ref?: string }>; discriminator?: unknown }
        | undefined;
      const pointers = Array.isArray(node?.oneOf) && node.discriminator === undefined ? node.oneOf.map((branch) => branch.$ref) : [];
      if (pointers.length === 0 || pointers.some((ref) => !ref?.startsWith("#/"))) this.branches.set(pointer, null);
      else {
        const required = pointers.map((ref) => {
          const branch = resolvePointer(this.document, (ref as string).slice(1)) as { required?: unknown } | undefined;
          return Array.isArray(branch?.required) ? (branch.required as string[]) : [];
        });
        this.branches.set(
          pointer,
          pointers.map((ref, index) => ({
            pointer: (ref as string).slice(1),
            only: required[index]!.filter((field) => required.every((other, at) => at === index || !other.includes(field))),
          })),
        );
      }
    }
    return this.branches.get(pointer) ?? null;
  }

  /** The sentinel that ends a stream of `operation` (`x-speakeasy-sse-sentinel`), or null. */
  streamSentinel(operation: Operation): string | null {
    const ok = operation.responses["200"] as { content?: Record<string, Record<string, unknown>> } | undefined;
    const sentinel = ok?.content?.["text/event-stream"]?.["x-speakeasy-sse-sentinel"];
    return typeof sentinel === "string" ? sentinel : null;
  }

  /** Null when `value` meets `schema`, else the violation deepest in the value. */
  check(schema: BodySchema, value: unknown): Violation | null {
    if (schema.validate(value)) return null;
    const errors = schema.validate.errors ?? [];
    // A value that matches more than one branch of a oneOf: the branches' own errors would mislead.
    const ambiguous = errors.find(
      (error) => error.keyword === "oneOf" && Array.isArray((error.params as { passingSchemas?: unknown }).passingSchemas),
    );
    if (ambiguous) {
      const branches = (ambiguous.params as { passingSchemas: number[] }).passingSchemas.join(" and ");
      return {
        schema: /^#\/(?:components|paths)\//.test(ambiguous.schemaPath)
          ? ambiguous.schemaPath
          : `${schema.pointer}${ambiguous.schemaPath.replace(/^#/, "")}`,
        instancePath: ambiguous.instancePath,
        keyword: "oneOf",
        message: `matches more than one branch of a oneOf (branches ${branches})`,
        value: valueAt(value, ambiguous.instancePath),
      };
    }
    const deepest = errors.reduce<ErrorObject | undefined>(
      (best, next) => (best === undefined || next.instancePath.length > best.instancePath.length ? next : best),
      undefined,
    );
    if (!deepest) return { schema: schema.pointer, instancePath: "", keyword: "unknown", message: "does not match", value };
    return {
      // Ajv names a keyword reached through a $ref by its place in the document, else relative to the schema.
      schema: /^#\/(?:components|paths)\//.test(deepest.schemaPath)
        ? deepest.schemaPath
        : `${schema.pointer}${deepest.schemaPath.replace(/^#/, "")}`,
      instancePath: deepest.instancePath,
      keyword: deepest.keyword,
      message: `${deepest.message ?? "does not match"}${describeParams(deepest)}`,
      value: valueAt(value, deepest.instancePath),
    };
  }

  private errorEnvelope(): BodySchema {
    return this.compile(ERROR_ENVELOPE_OF);
  }

  /** The stream's schema is `{data: event}` (InteractionSseStreamEvent): what each frame's JSON must meet is its `data`. */
  private eventSchemaPointer(base: string): string {
    const frame = resolvePointer(this.document, base) as { $ref?: string } | undefined;
    const frameAt = frame?.$ref?.startsWith("#/") ? frame.$ref.slice(1) : base;
    return `${frameAt}/properties/data`;
  }

  private compile(pointer: string): BodySchema {
    let schema = this.compiled.get(pointer);
    if (!schema) {
      const validate = this.ajv.getSchema(`openapi#${pointer}`);
      if (!validate) throw new Error(`the OpenAPI document has no schema at #${pointer}`);
      schema = { pointer: `#${pointer}`, validate };
      this.compiled.set(pointer, schema);
    }
    return schema;
  }
}

/** The vendored document with its defects patched, compiled once per process when the check first needs it. */
let loaded: ContractDocument | undefined;
export function contractDocument(): ContractDocument {
  if (!loaded) {
    const { document, defects } = patchedDocument();
    loaded = new ContractDocument(document, defects);
  }
  return loaded;
}

/**
 * The same document as request bodies are held to (documented-requests.ts): a 64-bit integer, which
 * Google's JSON mapping writes as a decimal string, is read from a number as well (proto3 JSON parsing
 * takes both; the SDKs send numbers), so `{"max_total_tokens": 5000}` is as good as `"5000"`. Its own
 * copy, compiled on the first request body that needs it.
 */
let loadedForRequests: ContractDocument | undefined;
export function requestDocument(): ContractDocument {
  if (!loadedForRequests) {
    const { document, defects } = patchedDocument();
    loadedForRequests = new ContractDocument(int64FromNumbers(document), defects);
  }
  return loadedForRequests;
}

/**
 * The vendored document with its defects patched, open enums opened and tagged unions marked: what the
 * contract check compiles, and what tools/openapi-types.ts writes the wire types from.
 */
export function patchedDocument(): { document: Record<string, unknown>; defects: Defect[] } {
  const document = JSON.parse(fs.readFileSync(OPENAPI_FILE, "utf8")) as Record<string, unknown>;
  const { defects } = JSON.parse(fs.readFileSync(DEFECTS_FILE, "utf8")) as { defects: Defect[] };
  return { document: taggedUnions(openEnums(applyDefects(document, defects))), defects };
}

/** Each `{"type": "string", "format": "int64"}` also takes an integer (the format checks strings only). */
export function int64FromNumbers(document: Record<string, unknown>): Record<string, unknown> {
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!isObject(node)) return;
    if (node["type"] === "string" && node["format"] === "int64") node["type"] = ["string", "integer"];
    for (const value of Object.values(node)) walk(value);
  };
  walk(document);
  return document;
}

/** A copy of `document` with every defect's patch applied, in the file's order. */
export function applyDefects(document: Record<string, unknown>, defects: readonly Defect[]): Record<string, unknown> {
  const patched = structuredClone(document);
  for (const defect of defects) {
    for (const step of defect.patch) {
      try {
        applyStep(patched, step);
      } catch (error) {
        throw new Error(`the defect ${defect.id} does not apply to the OpenAPI document: ${(error as Error).message}`);
      }
    }
  }
  return patched;
}

/**
 * An enum marked `x-speakeasy-unknown-values: allow` is open (the SDKs' types add `string & {}`: AgentOption,
 * ModelOption, a webhook's event names): its values are examples, any string of its type is allowed.
 */
export function openEnums(document: Record<string, unknown>): Record<string, unknown> {
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!isObject(node)) return;
    if (node["x-speakeasy-unknown-values"] === "allow") delete node["enum"];
    for (const value of Object.values(node)) walk(value);
  };
  walk(document);
  return document;
}

/**
 * Each oneOf whose branches are told apart by a required `type` of distinct constant values (a Step, a
 * Content, a Tool, a credential) gets the `discriminator` it lacks. It allows and refuses the same
 * values; what changes is the report: a refused value is reported inside the branch its `type` names
 * ("input[0].call_id is required") rather than as the failures of every branch.
 */
export function taggedUnions(document: Record<string, unknown>): Record<string, unknown> {
  const resolve = (node: unknown): unknown => {
    const ref = isObject(node) && typeof node["$ref"] === "string" ? node["$ref"] : undefined;
    return ref?.startsWith("#/") ? resolvePointer(document, ref) : node;
  };
  const tagsOf = (branch: unknown, parentRequired: readonly unknown[]): string[] | null => {
    const schema = resolve(branch);
    if (!isObject(schema) || !isObject(schema["properties"])) return null;
    const tag = schema["properties"]["type"];
    const required = Array.isArray(schema["required"]) ? schema["required"] : [];
    if (!isObject(tag) || !(required.includes("type") || parentRequired.includes("type"))) return null;
    if (typeof tag["const"] === "string") return [tag["const"]];
    if (Array.isArray(tag["enum"]) && tag["enum"].every((value) => typeof value === "string")) return tag["enum"] as string[];
    return null;
  };
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (!isObject(node)) return;
    const branches = node["oneOf"];
    if (Array.isArray(branches) && branches.length > 1 && node["discriminator"] === undefined) {
      const parentRequired = Array.isArray(node["required"]) ? node["required"] : [];
      const tags = branches.map((branch) => tagsOf(branch, parentRequired));
      const all = tags.flatMap((values) => values ?? []);
      if (tags.every((values) => values !== null) && new Set(all).size === all.length) node["discriminator"] = { propertyName: "type" };
    }
    for (const value of Object.values(node)) walk(value);
  };
  walk(document);
  return document;
}

function applyStep(document: Record<string, unknown>, step: PatchStep): void {
  switch (step.op) {
    case "add":
    case "replace":
      return setAt(document, step.path, structuredClone(step.value), step.op === "replace");
    case "remove":
      return void removeAt(document, step.path);
    case "move":
      return setAt(document, step.path, removeAt(document, fromOf(step)), false);
    case "copy": {
      const value = resolvePointer(document, fromOf(step));
      if (value === undefined) throw new Error(`nothing at ${step.from}`);
      return setAt(document, step.path, structuredClone(value), false);
    }
  }
}

function fromOf(step: PatchStep): string {
  if (step.from === undefined) throw new Error(`${step.op} without from`);
  return step.from;
}

function parentOf(document: unknown, pointer: string): { parent: Record<string, unknown>; key: string } {
  const tokens = pointerTokens(pointer);
  const key = tokens.pop();
  if (key === undefined) throw new Error("the document itself cannot be patched");
  const parent = tokens.reduce<unknown>((node, token) => (isObject(node) ? node[token] : undefined), document);
  if (!isObject(parent)) throw new Error(`no object at the parent of ${pointer}`);
  return { parent, key };
}

function setAt(document: unknown, pointer: string, value: unknown, mustExist: boolean): void {
  const { parent, key } = parentOf(document, pointer);
  if (mustExist && !(key in parent)) throw new Error(`nothing to replace at ${pointer}`);
  if (!mustExist && key in parent) throw new Error(`${pointer} exists already (the document may have been fixed: drop the defect)`);
  parent[key] = value;
}

function removeAt(document: unknown, pointer: string): unknown {
  const { parent, key } = parentOf(document, pointer);
  if (!(key in parent)) throw new Error(`nothing to remove at ${pointer}`);
  const value = parent[key];
  delete parent[key];
  return value;
}

export function resolvePointer(document: unknown, pointer: string): unknown {
  return pointerTokens(pointer).reduce<unknown>((node, token) => (isObject(node) ? node[token] : undefined), document);
}

function pointerTokens(pointer: string): string[] {
  return pointer
    .replace(/^#/, "")
    .split("/")
    .slice(1)
    .map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function escapePointer(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A path template as a pattern: `{path}` (a file's path) may hold slashes, every other parameter is one segment. */
function templatePattern(template: string): RegExp {
  let source = "";
  for (const part of template.split(/(\{[^}]+\})/)) {
    const name = /^\{([^}]+)\}$/.exec(part)?.[1];
    if (name === undefined) source += part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    else if (name === "path") source += `(?<${name}>.*)`;
    else source += `(?<${name}>[^/]+)`;
  }
  // The files listing of an environment's top folder: `/files/` and `/files` alike.
  return new RegExp(`^${source.replace(/\/\(\?<path>\.\*\)$/, "(?:/(?<path>.*))?")}$`);
}

function literalLength(template: string): number {
  return template.replace(/\{[^}]+\}/g, "").length;
}

function describeParams(error: ErrorObject): string {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === "enum") return ` (${JSON.stringify(params["allowedValues"])})`;
  if (error.keyword === "const") return ` (${JSON.stringify(params["allowedValue"])})`;
  return "";
}

function valueAt(value: unknown, instancePath: string): unknown {
  return resolvePointer(value, instancePath);
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;

/**
 * The formats the document uses, checked here rather than with ajv-formats (not a dependency of ours):
 * Google's JSON mapping writes 64-bit integers as decimal strings, `bytes` as base64 (standard or URL-safe)
 * and durations as seconds with an `s`.
 */
const DOCUMENT_FORMATS = {
  "date-time": { type: "string" as const, validate: (value: string) => DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)) },
  int64: { type: "string" as const, validate: /^-?\d+$/ },
  int32: { type: "number" as const, validate: (value: number) => Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31 },
  double: { type: "number" as const, validate: () => true },
  byte: { type: "string" as const, validate: /^[A-Za-z0-9+/_-]*={0,2}$/ },
  "google-duration": { type: "string" as const, validate: /^-?\d+(?:\.\d{1,9})?s$/ },
  "google-fieldmask": { type: "string" as const, validate: () => true },
  uri: { type: "string" as const, validate: (value: string) => URL.canParse(value) },
};
