// What is wrong with a request body that the service's OpenAPI document refuses, said the way a user
// fixes it: the field's path as they wrote it and what the document expects there
// (`tools[0].headers: must be an object of strings`, `input[0].call_id: is required`,
// `input[0].type: "funtion_call" is not one of "function_call", "function_result", …`). Ajv reports
// every branch it tried; the one reported is the deepest into the value, with what all the branches
// tried at that place would have taken (a oneOf of a string and an array: "must be a string or an array").

import type { ErrorObject } from "ajv";
import { fieldPath } from "../api/zod-issues.js";
import { type BodySchema, type ContractDocument, resolvePointer } from "./contract-document.js";

export interface RequestProblem {
  /** `environment.sources[0].target`, "request body", or "" when the message names the place itself. */
  field: string;
  /** What the document expects there. */
  message: string;
}

type Schema = Record<string, unknown>;

/** Null when `body` meets `schema`, else the one problem worth reporting. */
export function requestProblem(contract: ContractDocument, schema: BodySchema, body: unknown): RequestProblem | null {
  if (schema.validate(body)) return null;
  const errors = (schema.validate.errors ?? []).filter((error) => error.keyword !== "oneOf" || isAmbiguous(error));
  const ambiguous = errors.find(isAmbiguous);
  if (ambiguous) return { field: pathOf(ambiguous.instancePath), message: "matches more than one of the alternatives the document gives" };
  const deepest = bestOf(errors, body);
  if (!deepest) return { field: "request body", message: "does not match the service's OpenAPI document" };
  const here = errors.filter((error) => error.instancePath === deepest.instancePath && depthOf(error) === depthOf(deepest));
  const resolve = (node: unknown): Schema | undefined => resolved(contract.document, node);
  switch (deepest.keyword) {
    case "required": {
      // Alternatives that fit the body as well as each other (an interaction with neither agent nor model): each one's field.
      const tied = here.filter((error) => error.keyword === "required" && fitOf(error, body) === fitOf(deepest, body));
      const names = [...new Set(tied.map(missingOf))];
      if (names.length === 1) return { field: pathOf(deepest.instancePath, missingOf(deepest)), message: "is required" };
      return { field: pathOf(deepest.instancePath), message: `needs one of ${names.join(", ")}` };
    }
    case "type":
    case "const":
    case "enum": {
      // What is taken there, then the value given: `must be one of "gcs", "inline", …, got "skill_registry"`.
      const given = valueAt(body, deepest.instancePath);
      const got = typeof given === "string" && given.length <= 64 ? `, got ${JSON.stringify(given)}` : "";
      return { field: pathOf(deepest.instancePath), message: `${expected(here, resolve)}${got}` };
    }
    case "discriminator": {
      const params = deepest.params as { tag?: string; tagValue?: unknown };
      const tag = params.tag ?? "type";
      const values = [
        ...new Set(
          here.filter((error) => error.keyword === "discriminator").flatMap((error) => tagValues(error.parentSchema, tag, resolve)),
        ),
      ];
      const choices = values.length > 0 ? `: one of ${values.map((value) => JSON.stringify(value)).join(", ")}` : "";
      const field = pathOf(deepest.instancePath, tag);
      if (params.tagValue === undefined) return { field, message: `is required${choices}` };
      if (typeof params.tagValue !== "string") return { field, message: `must be a string${choices}` };
      // The API errors page's words for an unknown tool type, for every tagged union.
      const where = deepest.instancePath === "" ? "" : ` at '${pathOf(deepest.instancePath)}'`;
      const supported = values.map((value) => `'${String(value)}'`).join(", ");
      return {
        field: "",
        message: `The value '${params.tagValue}' is not supported for '${tag}'${where}. Supported values: ${supported}.`,
      };
    }
    case "additionalProperties": {
      const name = (deepest.params as { additionalProperty: string }).additionalProperty;
      return { field: pathOf(deepest.instancePath, name), message: "is not a field here" };
    }
    case "format":
      return { field: pathOf(deepest.instancePath), message: formatText((deepest.params as { format: string }).format) };
    default:
      return { field: pathOf(deepest.instancePath), message: deepest.message ?? "does not match the service's OpenAPI document" };
  }
}

/**
 * The error worth reporting: the deepest into the value; at one depth, a wrong value before a missing
 * field (the missing field is likely another alternative's); among missing fields, the one of the
 * alternative that declares more of the fields the object has (`model` for `{"model": …}`, not `agent`).
 */
function bestOf(errors: readonly ErrorObject[], body: unknown): ErrorObject | undefined {
  let best: ErrorObject | undefined;
  for (const error of errors) {
    if (best === undefined) {
      best = error;
      continue;
    }
    const depth = depthOf(error) - depthOf(best);
    if (depth !== 0) {
      if (depth > 0) best = error;
      continue;
    }
    const rank = rankOf(error) - rankOf(best);
    if (rank !== 0) {
      if (rank > 0) best = error;
      continue;
    }
    if (error.keyword === "required" && fitOf(error, body) > fitOf(best, body)) best = error;
  }
  return best;
}

/** At one depth: a wrong value, then a missing field, then a `type` that names another alternative's member. */
function rankOf(error: ErrorObject): number {
  if (error.keyword === "discriminator") return 0;
  return error.keyword === "required" ? 1 : 2;
}

/** How many fields of the object lacking a required field the schema requiring it declares. */
function fitOf(error: ErrorObject, body: unknown): number {
  const value = valueAt(body, error.instancePath);
  const properties = (error.parentSchema as Schema | undefined)?.["properties"];
  if (typeof value !== "object" || value === null || typeof properties !== "object" || properties === null) return 0;
  return Object.keys(value).filter((key) => Object.hasOwn(properties, key)).length;
}

function valueAt(body: unknown, instancePath: string): unknown {
  let value = body;
  for (const token of instancePath.split("/").slice(1)) {
    if (typeof value !== "object" || value === null) return undefined;
    value = (value as Record<string, unknown>)[token.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  return value;
}

function isAmbiguous(error: ErrorObject): boolean {
  return error.keyword === "oneOf" && Array.isArray((error.params as { passingSchemas?: unknown }).passingSchemas);
}

function missingOf(error: ErrorObject): string {
  return (error.params as { missingProperty: string }).missingProperty;
}

/** How deep into the value an error is: a missing field counts as one level below the object lacking it. */
function depthOf(error: ErrorObject): number {
  const levels = error.instancePath === "" ? 0 : error.instancePath.split("/").length - 1;
  return error.keyword === "required" || error.keyword === "discriminator" ? levels + 1 : levels;
}

function pathOf(instancePath: string, last?: string): string {
  const parts: Array<string | number> = instancePath
    .split("/")
    .slice(1)
    .map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((token) => (/^(0|[1-9]\d{0,8})$/.test(token) ? Number(token) : token));
  if (last !== undefined) parts.push(last);
  return fieldPath(parts);
}

/** What the branches failing at one place would take: "must be a string or an array of strings", `must be one of "a", "b"`. */
function expected(errors: readonly ErrorObject[], resolve: (node: unknown) => Schema | undefined): string {
  const values: unknown[] = [];
  const kinds: string[] = [];
  for (const error of errors) {
    const params = error.params as { allowedValue?: unknown; allowedValues?: unknown[]; type?: string };
    if (error.keyword === "const") values.push(params.allowedValue);
    if (error.keyword === "enum") values.push(...(params.allowedValues ?? []));
    if (error.keyword === "type") kinds.push(typeText(String(params.type), resolve(error.parentSchema), resolve));
  }
  const parts = [...new Set(kinds)];
  const unique = [...new Set(values.map((value) => JSON.stringify(value)))];
  if (unique.length === 1) parts.push(unique[0] as string);
  if (unique.length > 1) parts.push(`one of ${unique.join(", ")}`);
  return `must be ${parts.join(" or ")}`;
}

/** `string` → "a string"; an object whose values have one type → "an object of strings"; likewise an array. */
function typeText(type: string, schema: Schema | undefined, resolve: (node: unknown) => Schema | undefined): string {
  const plain = (name: string): string => (name === "integer" || name === "array" || name === "object" ? `an ${name}` : `a ${name}`);
  const plural = (node: unknown): string | undefined => {
    const inner = resolve(node)?.["type"];
    return typeof inner === "string" && inner !== "object" && inner !== "array" ? `${inner}s` : undefined;
  };
  const names = type.split(",");
  return names
    .map((name) => {
      const of = name === "array" ? plural(schema?.["items"]) : name === "object" ? plural(schema?.["additionalProperties"]) : undefined;
      return of ? `${plain(name)} of ${of}` : plain(name);
    })
    .join(" or ");
}

function formatText(format: string): string {
  switch (format) {
    case "int64":
      return "must be a 64-bit integer written as a decimal string";
    case "int32":
      return "must be a 32-bit integer";
    case "byte":
      return "must be base64";
    case "date-time":
      return 'must be an RFC 3339 date-time, e.g. "2026-08-01T12:00:00Z"';
    case "google-duration":
      return 'must be a duration in seconds, e.g. "3.5s"';
    case "uri":
      return "must be a URI";
    default:
      return `must be a ${format}`;
  }
}

/** The values the `tag` of a discriminated oneOf's branches may take. */
function tagValues(parent: unknown, tag: string, resolve: (node: unknown) => Schema | undefined): unknown[] {
  const branches = resolve(parent)?.["oneOf"];
  if (!Array.isArray(branches)) return [];
  return branches.flatMap((branch) => {
    const property = resolve(resolve(branch)?.["properties"] as unknown)?.[tag] as Schema | undefined;
    if (property?.["const"] !== undefined) return [property["const"]];
    return Array.isArray(property?.["enum"]) ? (property["enum"] as unknown[]) : [];
  });
}

/** A schema with its `$ref` followed (within the document). */
function resolved(document: Record<string, unknown>, node: unknown): Schema | undefined {
  if (typeof node !== "object" || node === null || Array.isArray(node)) return undefined;
  const ref = (node as Schema)["$ref"];
  if (typeof ref === "string" && ref.startsWith("#/")) return resolved(document, resolvePointer(document, ref));
  return node as Schema;
}
