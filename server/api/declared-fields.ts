// Which fields a request body may hold: the table generated from the pinned SDK's types
// (schemas/sdk-request-fields.json, written by `npm run schemas` from server/sdk-request-fields.ts), and
// the walk that finds the fields a body holds beyond it. Like every Google API, the service refuses
// such a field ("Unknown name …: Cannot find field."), so a typo that passes here would fail there.
// This checks only names; the zod schemas check the values of the fields the emulator reads.

import fs from "node:fs";
import path from "node:path";
import { projectRoot } from "../common/paths.js";

export type RequestName = "interactions.create" | "environments.create" | "credentials.create" | "credentials.update";

/**
 * What a value may be, as the SDK types it: "any" (free-form JSON such as a JSON Schema or a function's
 * arguments: nothing below it is checked), "scalar" (a string, number, boolean or enum), a named type,
 * an object with declared fields, a list, a map of free keys, or one of several of these.
 */
export type FieldNode =
  | "any"
  | "scalar"
  | { ref: string }
  | ObjectNode
  | { array: FieldNode }
  | { map: FieldNode }
  | { union: FieldNode[] };

export interface ObjectNode {
  fields: Record<string, FieldNode>;
  /** Fields the type requires: among untagged alternatives, the ones whose required fields are all there are the candidates. */
  required?: string[];
  /** The values of its `type` field, when it is a literal: how a union of such objects is told apart. */
  tags?: string[];
  /** Free keys beside the declared fields (an index signature). */
  additional?: FieldNode;
  /** Fields the emulator accepts beyond the SDK's type (docs/fidelity.md). */
  extensions?: string[];
}

export interface FieldsTable {
  sdk: string;
  requests: Record<RequestName, FieldNode>;
  types: Record<string, FieldNode>;
}

/** A field the request holds that its type does not declare: its name, and the path of the object holding it ("" at the top). */
export interface UnknownField {
  name: string;
  at: string;
}

export const SDK_FIELDS_FILE = path.join(projectRoot, "schemas", "sdk-request-fields.json");

let committedTable: FieldsTable | undefined;

/** The committed table, read once. */
export function declaredFieldsTable(): FieldsTable {
  committedTable ??= JSON.parse(fs.readFileSync(SDK_FIELDS_FILE, "utf8")) as FieldsTable;
  return committedTable;
}

/** At most this many unknown fields are collected from one body: enough for any typo, bounded for a hostile body. */
export const MAX_UNKNOWN_FIELDS = 100;

type PathPart = string | number;
type Concrete = "any" | "scalar" | ObjectNode | { array: FieldNode } | { map: FieldNode };

/**
 * The fields of `body` that the request's type does not declare, in the order met (depth first). Each
 * value is visited once, whatever the number of alternatives its type has, so the walk is linear in the
 * body; its depth is bounded by the JSON depth limit (http/json-depth.ts) checked before.
 */
export function unknownFields(request: RequestName, body: unknown, table: FieldsTable = declaredFieldsTable()): UnknownField[] {
  const found: UnknownField[] = [];
  const visit = (value: unknown, nodes: readonly FieldNode[], at: PathPart[]): void => {
    if (found.length >= MAX_UNKNOWN_FIELDS || typeof value !== "object" || value === null) return;
    const concrete = resolve(nodes, table);
    if (concrete.includes("any")) return;
    if (Array.isArray(value)) {
      const items = concrete.flatMap((node) => (isArrayNode(node) ? [node.array] : []));
      if (items.length > 0) for (const [index, item] of value.entries()) visit(item, items, [...at, index]);
      return;
    }
    const record = value as Record<string, unknown>;
    const objects = concrete.filter(isObjectNode);
    const tagged = taggedAs(record, objects);
    const values = concrete.flatMap((node) => (isMapNode(node) ? [node.map] : []));
    if (tagged.length === 0 && values.length > 0) {
      // A map (free keys, e.g. labels, or a JSON Schema where a response_format may be one), unless the
      // object's `type` names one of the declared objects beside it. Its entries are written the way
      // Google's errors write a protobuf map entry: `env[0].value`.
      for (const [index, key] of Object.keys(record).entries()) visit(record[key], values, [...at, index, "value"]);
      return;
    }
    if (objects.length === 0) return;
    const candidates = tagged.length > 0 ? tagged : candidatesFor(record, objects);
    for (const key of Object.keys(record)) {
      if (found.length >= MAX_UNKNOWN_FIELDS) return;
      const fieldNodes = candidates.flatMap((node) => {
        const field = Object.hasOwn(node.fields, key) ? node.fields[key] : node.additional;
        return field === undefined ? [] : [field];
      });
      if (fieldNodes.length === 0) found.push({ name: key, at: pathText(at) });
      else visit(record[key], fieldNodes, [...at, key]);
    }
  };
  visit(body, [table.requests[request]], []);
  return found;
}

/** The alternatives whose `type` tag the object carries: a tool of type "function" has only a function's fields. */
function taggedAs(record: Record<string, unknown>, objects: readonly ObjectNode[]): readonly ObjectNode[] {
  const tag = record.type;
  return typeof tag === "string" ? objects.filter((node) => node.tags?.includes(tag)) : [];
}

/**
 * The alternatives an object without a known tag may be: those whose required fields it has (an
 * interaction with `agent` is an agent interaction), otherwise all. A field any candidate declares is accepted.
 */
function candidatesFor(record: Record<string, unknown>, objects: readonly ObjectNode[]): readonly ObjectNode[] {
  if (objects.length === 1) return objects;
  const complete = objects.filter((node) => (node.required ?? []).every((field) => Object.hasOwn(record, field)));
  return complete.length > 0 ? complete : objects;
}

/** The nodes with every named type and union opened, each named type once. */
function resolve(nodes: readonly FieldNode[], table: FieldsTable): Concrete[] {
  const out: Concrete[] = [];
  const seen = new Set<string>();
  const pending = [...nodes];
  while (pending.length > 0) {
    const node = pending.pop() as FieldNode;
    if (typeof node === "object" && "ref" in node) {
      if (seen.has(node.ref)) continue;
      seen.add(node.ref);
      pending.push(table.types[node.ref] ?? "any");
    } else if (typeof node === "object" && "union" in node) pending.push(...node.union);
    else out.push(node);
  }
  return out.reverse();
}

function isObjectNode(node: Concrete): node is ObjectNode {
  return typeof node === "object" && "fields" in node;
}
function isArrayNode(node: Concrete): node is { array: FieldNode } {
  return typeof node === "object" && "array" in node;
}
function isMapNode(node: Concrete): node is { map: FieldNode } {
  return typeof node === "object" && "map" in node;
}

/** `environment.sources[0]`, as Google's errors write a field's path; "" for the body itself. */
export function pathText(parts: readonly PathPart[]): string {
  let out = "";
  for (const part of parts) out += typeof part === "number" ? `[${part}]` : out === "" ? part : `.${part}`;
  return out;
}
