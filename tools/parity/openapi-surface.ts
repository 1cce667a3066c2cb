// What the service's OpenAPI document offers (schemas/interactions.openapi.json, a copy of the public
// document): every operation, the SDK method that calls it, and every field path of every JSON request
// body. Pure reads of the document; the parity table gives the marks. The interaction and environment
// create bodies are left out here: their fields are listed from the SDK's types (sdk-surface.ts).

import fs from "node:fs";
import { openApiFile } from "../../server/common/paths.js";

export const OPENAPI_FILE = openApiFile;

type Schema = Record<string, unknown>;
export interface OpenApiDocument {
  paths: Record<string, Record<string, { operationId?: string; requestBody?: { content?: Record<string, { schema?: Schema }> } }>>;
  components?: { schemas?: Record<string, Schema> };
}

export interface OpenApiOperation {
  operationId: string;
  method: string;
  path: string;
  /** The SDK methods that send this request (the files GET is both list and download). */
  sdkMethods: string[];
}

/** Request bodies listed from the SDK's types instead (sdk-surface.ts REQUESTS). */
export const BODIES_FROM_SDK = ["CreateInteraction", "CreateEnvironment"] as const;

const HTTP_METHODS = ["get", "post", "put", "patch", "delete"];

export function readOpenApi(file = OPENAPI_FILE): OpenApiDocument {
  return JSON.parse(fs.readFileSync(file, "utf8")) as OpenApiDocument;
}

/**
 * The SDK method of an operation, from the shape of its route: a collection's GET lists and POST creates,
 * an item's GET gets, PATCH updates, DELETE deletes, `{id}:verb` and `{id}/verb` are that verb, a nested
 * collection (`{trigger_id}/executions`) lists or runs; the files routes are environments.files.
 */
export function sdkMethodsOf(method: string, route: string): string[] {
  const parts = route.split("/").filter((part) => part !== "" && part !== "{api_version}");
  if (parts[0] === "upload") return ["environments.files.upload"];
  const resource = parts[0] ?? "";
  if (parts[2] === "files") return ["environments.files.list", "environments.files.download"];
  const last = parts.at(-1) ?? "";
  const verb = /^\{[^}]+\}:(\w+)$/.exec(last)?.[1];
  if (verb) return [`${resource}.${verb}`];
  if (parts.length === 1) return [`${resource}.${method === "get" ? "list" : "create"}`];
  if (parts.length === 2) return [`${resource}.${{ get: "get", patch: "update", delete: "delete", post: "create" }[method] ?? method}`];
  const nested = parts[2] ?? "";
  if (nested === "cancel") return [`${resource}.cancel`];
  return [`${resource}.${method === "get" ? `list${nested[0]?.toUpperCase()}${nested.slice(1)}` : "run"}`];
}

export function openApiOperations(document: OpenApiDocument): OpenApiOperation[] {
  const operations: OpenApiOperation[] = [];
  for (const [route, item] of Object.entries(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation) continue;
      operations.push({
        operationId: operation.operationId ?? `${method} ${route}`,
        method: method.toUpperCase(),
        path: route,
        sdkMethods: sdkMethodsOf(method, route),
      });
    }
  }
  return operations;
}

/**
 * Every field path of each JSON request body (but BODIES_FROM_SDK), by operationId: `a.b` for an object's
 * field, `a(tag)` for a `oneOf` branch told apart by a constant `type` (or its schema's name), lists and
 * maps looked through. A `$ref` already being walked is not entered again.
 */
export function openApiRequestFields(document: OpenApiDocument): Record<string, string[]> {
  const schemas = document.components?.schemas ?? {};
  const bodies: Record<string, string[]> = {};
  // A field that holds a whole body listed from the SDK (a trigger's `interaction`) is one row, not its hundreds.
  const listedElsewhere = new Set<string>();
  for (const item of Object.values(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!operation?.operationId || !(BODIES_FROM_SDK as readonly string[]).includes(operation.operationId)) continue;
      const schema = operation.requestBody?.content?.["application/json"]?.schema ?? {};
      const top = refName(schema);
      const target = top === undefined ? schema : (schemas[top] ?? {});
      for (const branch of [schema, ...((target.oneOf as Schema[]) ?? []), ...((target.anyOf as Schema[]) ?? [])]) {
        const name = refName(branch);
        if (name !== undefined) listedElsewhere.add(name);
      }
    }
  }
  for (const [route, item] of Object.entries(document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      const schema = operation?.requestBody?.content?.["application/json"]?.schema;
      const id = operation?.operationId;
      if (!schema || !id || (BODIES_FROM_SDK as readonly string[]).includes(id)) continue;
      const found = new Set<string>();
      walk(schemas, schema, "", new Set([`${method} ${route}`]), found, listedElsewhere);
      if (found.size > 0) bodies[id] = [...found].sort();
    }
  }
  return bodies;
}

function refName(schema: Schema): string | undefined {
  return typeof schema.$ref === "string" ? schema.$ref.replace("#/components/schemas/", "") : undefined;
}

function walk(
  schemas: Record<string, Schema>,
  schema: Schema,
  at: string,
  above: ReadonlySet<string>,
  found: Set<string>,
  stop: ReadonlySet<string>,
): void {
  const name = refName(schema);
  if (name !== undefined) {
    const target = schemas[name];
    if (!target || above.has(name) || (stop.has(name) && at !== "")) {
      if (at !== "") found.add(at);
      return;
    }
    walk(schemas, target, at, new Set([...above, name]), found, stop);
    return;
  }
  if (at !== "") found.add(at);
  const branches = [...((schema.oneOf as Schema[]) ?? []), ...((schema.anyOf as Schema[]) ?? [])];
  const objects = branches.filter((branch) => objectOf(schemas, branch));
  for (const branch of branches) {
    if (objects.length > 1 && objectOf(schemas, branch)) {
      const tag = tagOf(schemas, branch);
      // A branch that is a whole body listed elsewhere is not tagged: the field stays one row.
      const whole = stop.has(refName(branch) ?? "");
      walk(schemas, branch, tag && at !== "" && !whole ? `${at}(${tag})` : at, above, found, stop);
    } else walk(schemas, branch, at, above, found, stop);
  }
  for (const part of (schema.allOf as Schema[]) ?? []) walk(schemas, part, at, above, found, stop);
  if (schema.items && typeof schema.items === "object") walk(schemas, schema.items as Schema, at, above, found, stop);
  if (schema.additionalProperties && typeof schema.additionalProperties === "object") {
    walk(schemas, schema.additionalProperties as Schema, at, above, found, stop);
  }
  for (const [field, child] of Object.entries((schema.properties as Record<string, Schema>) ?? {})) {
    if ((child as { readOnly?: boolean }).readOnly) continue;
    walk(schemas, child, at === "" ? field : `${at}.${field}`, above, found, stop);
  }
}

/** The object schema a branch stands for, through one $ref. */
function objectOf(schemas: Record<string, Schema>, branch: Schema): Schema | undefined {
  const name = refName(branch);
  const target = name === undefined ? branch : schemas[name];
  return target && (target.properties !== undefined || target.type === "object") ? target : undefined;
}

/** A branch's tag: its constant `type` (or the enum's only value), else its schema's name. */
function tagOf(schemas: Record<string, Schema>, branch: Schema): string | undefined {
  const target = objectOf(schemas, branch);
  const type = (target?.properties as Record<string, Schema> | undefined)?.type;
  const constant = type?.const ?? (Array.isArray(type?.enum) && type.enum.length === 1 ? type.enum[0] : undefined);
  if (typeof constant === "string") return constant;
  return refName(branch);
}
