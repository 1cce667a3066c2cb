// What the pinned SDK offers, read from its own declarations: every method of the resources the
// `GoogleGenAI` client exposes (its getters interactions, environments, credentials, agents, webhooks,
// triggers, voices, decisions, and the objects they hold, such as environments.files) and every field
// path of the request bodies the parity table lists. Read with the TypeScript compiler API, as
// tools/sdk-request-fields.ts reads the declared-fields table, so a new SDK version shows what is new.

import path from "node:path";
import ts from "typescript";
import type { FieldNode, FieldsTable, ObjectNode } from "../../server/api/declared-fields.js";
import { projectRoot } from "../../server/common/paths.js";
import { sdkRequestFieldsTable } from "../sdk-request-fields.js";

export const SDK_DECLARATIONS = path.join(projectRoot, "node_modules", "@google", "genai", "dist", "genai.d.ts");

/** The SDK's resources the issue names, in the order the table shows them. */
export const RESOURCES = ["interactions", "environments", "credentials", "agents", "webhooks", "triggers", "voices", "decisions"] as const;

/**
 * The request bodies whose fields the table lists: the name the table shows (the SDK's public name),
 * and the type in genai.d.ts (the environment's is the internal `_2` alias the SDK's namespace re-exports).
 */
export const REQUESTS = [
  { name: "CreateAgentInteraction", type: "CreateAgentInteraction" },
  { name: "CreateModelInteraction", type: "CreateModelInteraction" },
  { name: "CreateEnvironmentRequest", type: "CreateEnvironmentRequest_2" },
] as const;

export type RequestTableName = (typeof REQUESTS)[number]["name"];

/** Every public method under each resource, as `resource.method` or `resource.part.method`, sorted. */
export function sdkMethods(declarationFile = SDK_DECLARATIONS): Record<string, string[]> {
  const program = ts.createProgram([declarationFile], { noEmit: true, skipLibCheck: true, types: [] });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(declarationFile);
  if (!source) throw new Error(`cannot read ${declarationFile}`);
  const client = source.statements.find(
    (statement): statement is ts.ClassDeclaration => ts.isClassDeclaration(statement) && statement.name?.text === "GoogleGenAI",
  );
  if (!client?.name) throw new Error(`${declarationFile} declares no class GoogleGenAI`);
  const clientType = checker.getTypeAtLocation(client.name);
  const methods: Record<string, string[]> = {};
  for (const resource of RESOURCES) {
    const property = clientType.getProperty(resource);
    if (!property) throw new Error(`GoogleGenAI has no ${resource}: the SDK changed its resources; revisit RESOURCES`);
    methods[resource] = publicMethods(checker, checker.getTypeOfSymbol(property), resource, 0).sort();
  }
  return methods;
}

/** A resource object's callable members, and those of the objects it holds (one level: environments.files). */
function publicMethods(checker: ts.TypeChecker, type: ts.Type, prefix: string, depth: number): string[] {
  const found: string[] = [];
  for (const member of checker.getPropertiesOfType(type)) {
    const declaration = member.valueDeclaration ?? member.declarations?.[0];
    if (!declaration) continue;
    const modifiers = ts.getCombinedModifierFlags(declaration);
    if (modifiers & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected) || member.name.startsWith("#")) continue;
    const memberType = checker.getTypeOfSymbol(member);
    if (ts.isMethodDeclaration(declaration) || ts.isMethodSignature(declaration)) {
      found.push(`${prefix}.${member.name}`);
    } else if (depth === 0 && memberType.isClass()) {
      found.push(...publicMethods(checker, memberType, `${prefix}.${member.name}`, depth + 1));
    }
  }
  return found;
}

/**
 * Every field path of each listed request body, sorted. A path is field names joined by dots; lists
 * and maps add nothing (`tools.name`, `environment.env.credential`); where a value may be one of several
 * object types told apart by `type`, the tag follows in parentheses (`tools(function).parameters`).
 * A type met again below itself ends the path there.
 */
export function sdkRequestPaths(table: FieldsTable = sdkRequestFieldsTable()): Record<RequestTableName, string[]> {
  const paths = {} as Record<RequestTableName, string[]>;
  for (const { name, type } of REQUESTS) {
    if (!(type in table.types)) throw new Error(`genai.d.ts declares no ${type} (the request ${name})`);
    const found = new Set<string>();
    new PathWalker(table, found).walk({ ref: type }, "", new Set());
    paths[name] = [...found].sort(comparePaths);
  }
  return paths;
}

/** Parents before children, then by name: `tools` < `tools(function)` < `tools(function).name` < `tools.type`. */
export function comparePaths(a: string, b: string): number {
  const split = (value: string) => value.split(/(?=[.(])/);
  const left = split(a);
  const right = split(b);
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const order = (left[i] as string).localeCompare(right[i] as string);
    if (order !== 0) return order;
  }
  return left.length - right.length;
}

class PathWalker {
  constructor(
    private readonly table: FieldsTable,
    private readonly found: Set<string>,
  ) {}

  walk(node: FieldNode, at: string, above: ReadonlySet<string>): void {
    if (typeof node === "string") return this.leaf(at);
    if ("ref" in node) {
      if (above.has(node.ref)) return this.leaf(at);
      return this.walk(this.table.types[node.ref] ?? "any", at, new Set([...above, node.ref]));
    }
    if ("array" in node) return this.walk(node.array, at, above);
    if ("map" in node) return this.walk(node.map, at, above);
    if ("union" in node) return this.union(node.union, at, above);
    this.leaf(at);
    this.object(node, at, above);
  }

  private union(members: FieldNode[], at: string, above: ReadonlySet<string>): void {
    this.leaf(at);
    const objects = members.filter((member) => this.objectOf(member) !== null);
    for (const member of members) {
      const tags = this.objectOf(member)?.tags;
      // A tag names the alternative only where there are several to tell apart (`environment` is an
      // object or an ID string: its fields need no tag).
      const tagged = objects.length > 1 && tags ? `${at}(${tags.join("/")})` : at;
      this.walk(member, tagged, above);
    }
  }

  private object(node: ObjectNode, at: string, above: ReadonlySet<string>): void {
    for (const [field, child] of Object.entries(node.fields)) {
      // The emulator's own additions (`env` on environments.create) are not the SDK's fields.
      if (node.extensions?.includes(field)) continue;
      this.walk(child, at === "" ? field : `${at}.${field}`, above);
    }
    if (node.additional !== undefined) this.walk(node.additional, at, above);
  }

  /** The object a member stands for, looking through names, lists and maps (`Content[]` is still Content). */
  private objectOf(member: FieldNode): ObjectNode | null {
    let node: FieldNode | undefined = member;
    for (let hops = 0; hops < 20 && node !== undefined; hops++) {
      if (typeof node === "string") return null;
      if ("ref" in node) node = this.table.types[node.ref];
      else if ("array" in node) node = node.array;
      else if ("map" in node) node = node.map;
      else if ("union" in node) return null;
      else return node;
    }
    return null;
  }

  private leaf(at: string): void {
    if (at !== "") this.found.add(at);
  }
}
