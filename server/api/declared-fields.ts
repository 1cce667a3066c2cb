// Which fields a request body may hold: the table generated from the pinned SDK's types
// (schemas/sdk-request-fields.json, written by `npm run schemas` from tools/sdk-request-fields.ts), and
// the walk that finds the fields a body holds beyond it. Like every Google API, the service refuses
// such a field ("Unknown name …: Cannot find field."), so a typo that passes here would fail there.
// This checks only names; the zod schemas check the values of the fields the emulator reads.

import fs from "node:fs";
import path from "node:path";
import { yieldToEventLoop } from "../common/event-loop.js";
import { projectRoot } from "../common/paths.js";

export type RequestName =
  | "interactions.create"
  | "environments.create"
  | "credentials.create"
  | "credentials.update"
  | "agents.create"
  | "triggers.create"
  | "triggers.update";

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
  /** A declared field of the same object the name was likely meant to be (`headerName` → `header_name`). */
  suggestion?: string;
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
/** A value's path, from the value up (built only when an unknown field is reported). */
interface Path {
  parent: Path | null;
  part: PathPart;
}

/**
 * The fields of `body` that the request's type does not declare, in the order met (depth first). Each
 * value is visited once, whatever the number of alternatives its type has, and what a set of
 * alternatives allows is worked out once per set (Resolver), so the walk is linear in the body with a
 * small constant.
 */
export function unknownFields(request: RequestName, body: unknown, table: FieldsTable = declaredFieldsTable()): UnknownField[] {
  const walk = walkBody(request, body, table);
  let step = walk.next();
  while (!step.done) step = walk.next();
  return step.value;
}

/**
 * The same, yielding to the event loop every few thousand values: a body of millions of small objects
 * (up to EMULATOR_MAX_BODY_BYTES) is then checked in slices, with other requests served between them.
 */
export async function unknownFieldsInSlices(
  request: RequestName,
  body: unknown,
  table: FieldsTable = declaredFieldsTable(),
): Promise<UnknownField[]> {
  const walk = walkBody(request, body, table);
  let step = walk.next();
  while (!step.done) {
    await yieldToEventLoop();
    step = walk.next();
  }
  return step.value;
}

/** How many values are visited between two pauses of unknownFieldsInSlices. */
const VALUES_PER_SLICE = 4096;

type Task = { value: unknown; nodes: readonly FieldNode[]; at: Path | null } | { unknown: string; at: Path | null; suggestion?: string };

/** The walk, with an explicit stack (no recursion) that pauses (yields) every VALUES_PER_SLICE values. */
function* walkBody(request: RequestName, body: unknown, table: FieldsTable): Generator<void, UnknownField[]> {
  const resolver = resolverOf(table);
  const found: UnknownField[] = [];
  // Tasks are pushed in reverse, so they are taken in the body's order: an unknown key is reported
  // between the unknown fields of the values before and after it, as a recursive walk would.
  const stack: Task[] = [{ value: body, nodes: [table.requests[request]], at: null }];
  let visited = 0;
  while (stack.length > 0 && found.length < MAX_UNKNOWN_FIELDS) {
    if (++visited % VALUES_PER_SLICE === 0) yield;
    const task = stack.pop() as Task;
    if ("unknown" in task) {
      found.push({ name: task.unknown, at: pathText(partsOf(task.at)), ...(task.suggestion ? { suggestion: task.suggestion } : {}) });
      continue;
    }
    const { value, nodes, at } = task;
    if (typeof value !== "object" || value === null) continue;
    const allowed = resolver.resolved(nodes);
    if (allowed.any) continue;
    if (Array.isArray(value)) {
      if (allowed.items.length === 0) continue;
      for (let index = value.length - 1; index >= 0; index--)
        stack.push({ value: value[index], nodes: allowed.items, at: { parent: at, part: index } });
      continue;
    }
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    const tag = record.type;
    const tagged = typeof tag === "string" ? (allowed.byTag.get(tag) ?? NONE) : NONE;
    if (tagged.length === 0 && allowed.values.length > 0) {
      // A map (free keys, e.g. labels, or a JSON Schema where a response_format may be one), unless the
      // object's `type` names one of the declared objects beside it. Its entries are written the way
      // Google's errors write a protobuf map entry: `env[0].value`.
      for (let index = keys.length - 1; index >= 0; index--) {
        stack.push({
          value: record[keys[index] as string],
          nodes: allowed.values,
          at: { parent: { parent: at, part: index }, part: "value" },
        });
      }
      continue;
    }
    if (allowed.objects.length === 0) continue;
    const candidates = tagged.length > 0 ? tagged : candidatesFor(record, allowed.objects);
    for (let index = keys.length - 1; index >= 0; index--) {
      const key = keys[index] as string;
      const fieldNodes: FieldNode[] = [];
      for (const node of candidates) {
        const field = Object.hasOwn(node.fields, key) ? node.fields[key] : node.additional;
        if (field !== undefined) fieldNodes.push(field);
      }
      if (fieldNodes.length > 0) {
        stack.push({ value: record[key], nodes: fieldNodes, at: { parent: at, part: key } });
        continue;
      }
      const suggestion = likelyMeant(key, candidates);
      stack.push({ unknown: key, at, ...(suggestion ? { suggestion } : {}) });
    }
  }
  return found;
}

const NONE: readonly ObjectNode[] = [];

/**
 * The declared field an unknown name was likely meant to be: its snake_case form (the REST examples'
 * camelCase, `headerName`), or a name one or two edits away (a typo, `toolz`); none when nothing is close.
 */
function likelyMeant(name: string, candidates: readonly ObjectNode[]): string | undefined {
  if (name.length > 64) return undefined;
  const declared = [...new Set(candidates.flatMap((node) => Object.keys(node.fields)))];
  const snake = name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
  if (snake !== name && declared.includes(snake)) return snake;
  const allowed = Math.min(2, Math.floor(name.length / 3));
  let best: { field: string; distance: number } | undefined;
  for (const field of declared) {
    const distance = editDistance(name, field, allowed);
    if (distance <= allowed && (!best || distance < best.distance)) best = { field, distance };
  }
  return best?.field;
}

/** Levenshtein distance, or `limit + 1` as soon as it must pass `limit` (names are short; the work is bounded). */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const value = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
      current.push(value);
      rowMin = Math.min(rowMin, value);
    }
    if (rowMin > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length] as number;
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

/** What a set of alternatives allows, with every named type and union opened. */
interface Resolved {
  /** Free-form JSON among them: nothing below is checked. */
  any: boolean;
  objects: ObjectNode[];
  /** The objects by the values of their `type` tag: a tool of type "function" has only a function's fields. */
  byTag: Map<string, ObjectNode[]>;
  /** What a list's items may be. */
  items: FieldNode[];
  /** What a map's values may be. */
  values: FieldNode[];
}

const resolvers = new WeakMap<FieldsTable, Resolver>();

function resolverOf(table: FieldsTable): Resolver {
  let resolver = resolvers.get(table);
  if (!resolver) {
    resolver = new Resolver(table);
    resolvers.set(table, resolver);
  }
  return resolver;
}

/** Resolves sets of alternatives once: by the set (a list's items are one set for all of them) and by a single node. */
class Resolver {
  private readonly bySet = new WeakMap<readonly FieldNode[], Resolved>();
  private readonly byNode = new WeakMap<object, Resolved>();
  private readonly free: Resolved = { any: true, objects: [], byTag: new Map(), items: [], values: [] };
  private readonly scalar: Resolved = { any: false, objects: [], byTag: new Map(), items: [], values: [] };

  constructor(private readonly table: FieldsTable) {}

  resolved(nodes: readonly FieldNode[]): Resolved {
    if (nodes.length === 1) return this.ofNode(nodes[0] as FieldNode);
    let resolved = this.bySet.get(nodes);
    if (!resolved) {
      resolved = this.open(nodes);
      this.bySet.set(nodes, resolved);
    }
    return resolved;
  }

  private ofNode(node: FieldNode): Resolved {
    if (node === "any") return this.free;
    if (node === "scalar") return this.scalar;
    let resolved = this.byNode.get(node);
    if (!resolved) {
      resolved = this.open([node]);
      this.byNode.set(node, resolved);
    }
    return resolved;
  }

  private open(nodes: readonly FieldNode[]): Resolved {
    const resolved: Resolved = { any: false, objects: [], byTag: new Map(), items: [], values: [] };
    const seen = new Set<string>();
    const pending = [...nodes].reverse();
    while (pending.length > 0) {
      const node = pending.pop() as FieldNode;
      if (node === "any") resolved.any = true;
      else if (node === "scalar") continue;
      else if ("ref" in node) {
        if (seen.has(node.ref)) continue;
        seen.add(node.ref);
        pending.push(this.table.types[node.ref] ?? "any");
      } else if ("union" in node) pending.push(...[...node.union].reverse());
      else if ("array" in node) resolved.items.push(node.array);
      else if ("map" in node) resolved.values.push(node.map);
      else {
        resolved.objects.push(node);
        for (const tag of node.tags ?? []) resolved.byTag.set(tag, [...(resolved.byTag.get(tag) ?? []), node]);
      }
    }
    return resolved;
  }
}

function partsOf(at: Path | null): PathPart[] {
  const parts: PathPart[] = [];
  for (let step = at; step !== null; step = step.parent) parts.push(step.part);
  return parts.reverse();
}

/** `environment.sources[0]`, as Google's errors write a field's path; "" for the body itself. */
export function pathText(parts: readonly PathPart[]): string {
  let out = "";
  for (const part of parts) out += typeof part === "number" ? `[${part}]` : out === "" ? part : `.${part}`;
  return out;
}
