// The wire types of the service, server/wire/openapi-types.ts, written from the service's OpenAPI document
// (schemas/interactions.openapi.json with its defects patched, as the contract check reads it:
// patchedDocument in server/http/contract-document.ts) instead of a second time by hand. Every schema of
// components.schemas that a request or response body of an operation reaches becomes a type (objects →
// interfaces with the document's required fields, enums and consts → literal unions, oneOf/anyOf → unions,
// allOf → intersections, additionalProperties → Record, `format: int64` strings stay strings as the wire
// has them), and each operation gets aliases named from its operationId: `CreateInteractionRequestBody`,
// `CreateInteractionResponseBody`, `CreateInteractionStreamEvent`. `npm run schemas` writes the file
// (tools/write-schemas.ts); test/unit/openapi-types-generated.test.ts fails while the committed file differs.

import path from "node:path";
import { projectRoot } from "../server/common/paths.js";
import { patchedDocument } from "../server/http/contract-document.js";

export const OPENAPI_TYPES_FILE = path.join(projectRoot, "server", "wire", "openapi-types.ts");

const HEADER = `// The service's wire types: every schema a request or response body of the Interactions API's operations
// reaches, and each operation's request and response body. Generated from schemas/interactions.openapi.json
// (with schemas/interactions.openapi.defects.json applied) by \`npm run schemas\` (tools/openapi-types.ts):
// do not edit; test/unit/openapi-types-generated.test.ts fails while this file is stale.
`;

const SCHEMA_PREFIX = "#/components/schemas/";
const METHODS = ["get", "put", "post", "patch", "delete"] as const;

type Node = Record<string, unknown>;

interface OperationBodies {
  name: string;
  request?: unknown;
  /** The request is the operation's request message, which the document names but does not attach as its body. */
  unattached?: boolean;
  response?: unknown;
  stream?: unknown;
}

/** server/wire/openapi-types.ts as the document (by default the vendored one, patched) declares it now. */
export function openApiTypesText(document: Node = patchedDocument().document): string {
  const schemas = (
    isObject(document["components"]) && isObject(document["components"]["schemas"]) ? document["components"]["schemas"] : {}
  ) as Node;
  const operations = operationsOf(document);
  const reached = reachedSchemas(
    schemas,
    operations.flatMap((operation) => [operation.request, operation.response, operation.stream]),
    allResponseBodies(document),
  );
  const out = [HEADER];
  for (const name of [...reached].sort()) {
    const schema = schemas[name];
    out.push("", ...docComment(schema, ""), declaration(name, schema));
  }
  out.push("", "// Each operation's bodies, named from its operationId.");
  for (const operation of [...operations].sort((a, b) => compare(a.name, b.name))) {
    const { name, request, response, stream } = operation;
    if (operation.unattached) out.push(`/** ${name} has no requestBody in the document: its request message stands for the body. */`);
    if (request !== undefined) out.push(`export type ${name}RequestBody = ${typeOf(request, "")};`);
    if (response !== undefined) out.push(`export type ${name}ResponseBody = ${typeOf(response, "")};`);
    if (stream !== undefined) out.push(`export type ${name}StreamEvent = ${streamEventOf(stream, schemas)};`);
  }
  return `${out.join("\n")}\n`;
}

/** The operations in the document's order, each with its JSON request body and its success answers' bodies. */
function operationsOf(document: Node): OperationBodies[] {
  const operations: OperationBodies[] = [];
  const paths = isObject(document["paths"]) ? document["paths"] : {};
  for (const item of Object.values(paths)) {
    if (!isObject(item)) continue;
    for (const method of METHODS) {
      const operation = item[method];
      if (!isObject(operation) || typeof operation["operationId"] !== "string") continue;
      const name = pascal(operation["operationId"]);
      const attached = contentSchema(operation["requestBody"], "application/json");
      const request = attached ?? unattachedRequest(document, method, name);
      const responses = isObject(operation["responses"]) ? operation["responses"] : {};
      const success =
        Object.keys(responses).find((status) => /^2(?:\d\d|XX)$/.test(status)) ?? ("default" in responses ? "default" : undefined);
      const answer = success === undefined ? undefined : responses[success];
      operations.push({
        name,
        ...(request !== undefined ? { request } : {}),
        ...(attached === undefined && request !== undefined ? { unattached: true } : {}),
        ...(contentSchema(answer, "application/json") !== undefined ? { response: contentSchema(answer, "application/json") } : {}),
        ...(contentSchema(answer, "text/event-stream") !== undefined ? { stream: contentSchema(answer, "text/event-stream") } : {}),
      });
    }
  }
  return operations;
}

/** Every body schema of every answer (error answers too), for what the file must declare. */
function allResponseBodies(document: Node): unknown[] {
  const bodies: unknown[] = [];
  for (const item of Object.values(isObject(document["paths"]) ? document["paths"] : {})) {
    for (const method of METHODS) {
      const operation = isObject(item) ? item[method] : undefined;
      const responses = isObject(operation) && isObject(operation["responses"]) ? operation["responses"] : {};
      for (const answer of Object.values(responses)) {
        const content = isObject(answer) && isObject(answer["content"]) ? answer["content"] : {};
        for (const media of Object.values(content)) if (isObject(media)) bodies.push(media["schema"]);
      }
    }
  }
  return bodies;
}

/**
 * A POST without a requestBody whose request message the document still declares (RunTrigger's
 * RunTriggerRequest, an object without fields): what a route that takes such a body holds its schema to.
 */
function unattachedRequest(document: Node, method: string, name: string): unknown {
  if (method !== "post") return undefined;
  const components = isObject(document["components"]) ? document["components"] : {};
  const schemas = isObject(components["schemas"]) ? components["schemas"] : {};
  return `${name}Request` in schemas ? { $ref: `${SCHEMA_PREFIX}${name}Request` } : undefined;
}

function contentSchema(holder: unknown, media: string): unknown {
  const content = isObject(holder) && isObject(holder["content"]) ? holder["content"] : undefined;
  const entry = content?.[media];
  return isObject(entry) ? entry["schema"] : undefined;
}

/** The names of the component schemas the roots reach through $refs, transitively. */
function reachedSchemas(schemas: Node, ...roots: unknown[][]): Set<string> {
  const reached = new Set<string>();
  const pending = roots.flat();
  while (pending.length > 0) {
    const node = pending.pop();
    if (Array.isArray(node)) {
      pending.push(...node);
    } else if (isObject(node)) {
      const ref = node["$ref"];
      if (typeof ref === "string") {
        const name = refName(ref);
        if (!reached.has(name)) {
          if (!(name in schemas)) throw new Error(`the OpenAPI document refers to ${ref}, which it does not declare`);
          reached.add(name);
          pending.push(schemas[name]);
        }
      }
      pending.push(...Object.values(node));
    }
  }
  return reached;
}

/** `export interface Name {…}` for a plain object, else `export type Name = …;`. */
function declaration(name: string, schema: unknown): string {
  if (isObject(schema) && isPlainObject(schema)) return `export interface ${name} ${objectBody(schema, "")}`;
  return `export type ${name} = ${typeOf(schema, "")};`;
}

/** The TypeScript type of a schema node, written at `indent`. */
function typeOf(node: unknown, indent: string): string {
  if (!isObject(node)) return "unknown";
  if (typeof node["$ref"] === "string") return refName(node["$ref"]);
  const parts: string[] = [];
  if (Array.isArray(node["allOf"])) parts.push(...node["allOf"].map((branch) => typeOf(branch, indent)));
  const branches = Array.isArray(node["oneOf"]) ? node["oneOf"] : Array.isArray(node["anyOf"]) ? node["anyOf"] : undefined;
  if (branches) parts.push(union(branches.map((branch) => typeOf(branch, indent))));
  const own = ownType(node, indent, parts.length > 0);
  if (own !== undefined) parts.push(own);
  if (parts.length === 0) return "unknown";
  return parts.length === 1
    ? parts[0]!
    : parts.map((part) => (/[|&]/.test(part) && !part.startsWith("{") ? `(${part})` : part)).join(" & ");
}

/** What the node's own keywords say (type, enum, const, properties); undefined when a combinator says all. */
function ownType(node: Node, indent: string, combined: boolean): string | undefined {
  if ("const" in node) return JSON.stringify(node["const"]);
  if (Array.isArray(node["enum"])) return union(node["enum"].map((value) => JSON.stringify(value)));
  const type = node["type"];
  if (Array.isArray(type)) return union(type.map((one) => ownType({ ...node, type: one }, indent, combined) ?? "unknown"));
  switch (type) {
    case "string":
      return "string";
    case "integer":
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array":
      return `Array<${typeOf(node["items"], indent)}>`;
  }
  const hasShape = isObject(node["properties"]) || node["additionalProperties"] !== undefined;
  if (type === "object" || hasShape) {
    // `type: object` beside a oneOf or allOf only restates that the branches are objects.
    if (combined && !hasShape) return undefined;
    return objectType(node, indent);
  }
  return combined ? undefined : "unknown";
}

function objectType(node: Node, indent: string): string {
  const extra = node["additionalProperties"];
  const rest = extra === undefined || extra === false ? undefined : `Record<string, ${extra === true ? "unknown" : typeOf(extra, indent)}>`;
  if (!isObject(node["properties"])) return rest ?? "Record<string, unknown>";
  const body = objectBody(node, indent);
  return rest === undefined ? body : `${body} & ${rest}`;
}

/** `{ name?: type; … }` with each property's description, required as the schema declares. */
function objectBody(node: Node, indent: string): string {
  const properties = isObject(node["properties"]) ? node["properties"] : {};
  const required = new Set(Array.isArray(node["required"]) ? node["required"] : []);
  const inner = `${indent}  `;
  const lines = ["{"];
  for (const [key, property] of Object.entries(properties)) {
    const name = /^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key);
    lines.push(...docComment(property, inner), `${inner}${name}${required.has(key) ? "" : "?"}: ${typeOf(property, inner)};`);
  }
  lines.push(`${indent}}`);
  return lines.join("\n");
}

/** A stream's frame is `{data: event}` (InteractionSseStreamEvent): the event is its `data`. */
function streamEventOf(frame: unknown, schemas: Node): string {
  const resolved = isObject(frame) && typeof frame["$ref"] === "string" ? schemas[refName(frame["$ref"])] : frame;
  const data = isObject(resolved) && isObject(resolved["properties"]) ? resolved["properties"]["data"] : undefined;
  return data === undefined ? typeOf(frame, "") : typeOf(data, "");
}

function docComment(node: unknown, indent: string): string[] {
  const description = isObject(node) && typeof node["description"] === "string" ? node["description"].trim() : "";
  if (description === "") return [];
  const lines = description.replaceAll("*/", "*\\/").split("\n");
  return [`${indent}/**`, ...lines.map((line) => `${indent} *${line.trimEnd() === "" ? "" : ` ${line.trimEnd()}`}`), `${indent} */`];
}

function union(members: string[]): string {
  const unique = [...new Set(members)];
  return unique.length === 1
    ? unique[0]!
    : unique.map((member) => (member.includes("&") && !member.startsWith("{") ? `(${member})` : member)).join(" | ");
}

function isPlainObject(schema: Node): boolean {
  return (
    isObject(schema["properties"]) &&
    schema["additionalProperties"] === undefined &&
    !schema["oneOf"] &&
    !schema["anyOf"] &&
    !schema["allOf"]
  );
}

function refName(ref: string): string {
  if (!ref.startsWith(SCHEMA_PREFIX)) throw new Error(`the OpenAPI document refers to ${ref}: only ${SCHEMA_PREFIX}… is supported`);
  return ref.slice(SCHEMA_PREFIX.length);
}

function pascal(operationId: string): string {
  return operationId.charAt(0).toUpperCase() + operationId.slice(1);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function isObject(value: unknown): value is Node {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
