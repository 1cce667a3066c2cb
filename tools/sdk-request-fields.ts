// The table of the fields each request body may hold, read from the pinned SDK's own types
// (node_modules/@google/genai/dist/genai.d.ts) with the TypeScript compiler API. `npm run schemas`
// writes it to schemas/sdk-request-fields.json, which the HTTP edge checks bodies against
// (server/api/declared-fields.ts); test/unit/sdk-request-fields.test.ts fails while the committed copy
// differs from what the installed SDK gives. This file runs only to generate the table (typescript is
// a devDependency): the server reads the committed JSON.

import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import type { FieldNode, FieldsTable, ObjectNode, RequestName } from "../server/api/declared-fields.js";
import { projectRoot } from "../server/common/paths.js";

const SDK_DIR = path.join(projectRoot, "node_modules", "@google", "genai");

/** The SDK type of each request body the emulator accepts (the body the SDK's method sends, without its own options). */
const REQUEST_TYPES: Readonly<Record<RequestName, string>> = {
  "interactions.create": "CreateInteractionRequestBody",
  "environments.create": "CreateEnvironmentRequest_2",
  "credentials.create": "CredentialCreateParams",
  "credentials.update": "CredentialUpdate",
  "agents.create": "Agent",
  "triggers.create": "TriggerCreateParams",
  "triggers.update": "TriggerUpdate",
};

/**
 * Fields whose type the emulator reads as another named type of the table than the SDK gives. A
 * trigger's `interaction`: the SDK types it as an agent interaction only, the OpenAPI document's
 * CreateTrigger (and the emulator) take a model interaction as well, so it is any interactions.create body.
 */
const FIELD_TYPES: Readonly<Partial<Record<RequestName, Readonly<Record<string, string>>>>> = {
  "triggers.create": { interaction: "CreateInteractionRequestBody" },
};

/**
 * Fields the emulator accepts beyond the SDK's types, each documented in docs/fidelity.md. `env` on
 * environments.create: the SDK's CreateEnvironmentRequest lacks it, but its `from_environment`
 * documentation names it ("sources and env must be empty"), so the service has it.
 */
const EMULATOR_EXTENSIONS: Readonly<Partial<Record<RequestName, Readonly<Record<string, { sameAs: string; field: string }>>>>> = {
  "environments.create": { env: { sameAs: "Environment_2", field: "env" } },
};

export function sdkVersion(): string {
  return (JSON.parse(fs.readFileSync(path.join(SDK_DIR, "package.json"), "utf8")) as { version: string }).version;
}

/** The table, built from the installed SDK's genai.d.ts. */
export function sdkRequestFieldsTable(declarationFile = path.join(SDK_DIR, "dist", "genai.d.ts")): FieldsTable {
  const program = ts.createProgram([declarationFile], { noEmit: true, skipLibCheck: true, types: [] });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(declarationFile);
  if (!source) throw new Error(`cannot read ${declarationFile}`);
  const declarations = new Map<string, ts.TypeAliasDeclaration | ts.InterfaceDeclaration>();
  for (const statement of source.statements) {
    if (ts.isTypeAliasDeclaration(statement) || ts.isInterfaceDeclaration(statement)) declarations.set(statement.name.text, statement);
  }
  const types: Record<string, FieldNode> = {};
  const walker = new TypeWalker(checker, types);
  const requests = {} as Record<RequestName, FieldNode>;
  for (const [request, typeName] of Object.entries(REQUEST_TYPES) as Array<[RequestName, string]>) {
    const declaration = declarations.get(typeName);
    if (!declaration) throw new Error(`genai.d.ts declares no ${typeName} (the request type of ${request})`);
    requests[request] = walker.named(typeName, checker.getTypeAtLocation(declaration.name));
  }
  for (const [request, fields] of Object.entries(EMULATOR_EXTENSIONS) as Array<
    [RequestName, Record<string, { sameAs: string; field: string }>]
  >) {
    const target = types[REQUEST_TYPES[request]] as ObjectNode;
    for (const [name, { sameAs, field }] of Object.entries(fields)) {
      const node = (types[sameAs] as ObjectNode | undefined)?.fields[field];
      if (!node) throw new Error(`${sameAs}.${field} is gone from the SDK: revisit the emulator extension ${request}.${name}`);
      target.fields[name] = node;
      target.extensions = [...(target.extensions ?? []), name].sort();
    }
  }
  for (const [request, fields] of Object.entries(FIELD_TYPES) as Array<[RequestName, Record<string, string>]>) {
    const target = types[REQUEST_TYPES[request]] as ObjectNode;
    for (const [name, typeName] of Object.entries(fields)) {
      if (!(name in target.fields) || !(typeName in types)) throw new Error(`revisit the field type ${request}.${name}: ${typeName}`);
      target.fields[name] = { ref: typeName };
    }
  }
  return { sdk: `@google/genai ${sdkVersion()}`, requests, types: sortedKeys(types) };
}

/** The table as committed: stable key order, one field per line. */
export function sdkRequestFieldsText(table = sdkRequestFieldsTable()): string {
  return `${JSON.stringify(table, null, 1)}\n`;
}

class TypeWalker {
  constructor(
    private readonly checker: ts.TypeChecker,
    private readonly types: Record<string, FieldNode>,
  ) {}

  /** A named type: described once in `types`, referenced by name (which also ends recursion). */
  named(name: string, type: ts.Type): FieldNode {
    if (!(name in this.types)) {
      this.types[name] = "any"; // a placeholder while its own fields are walked (a type that contains itself)
      this.types[name] = this.describe(type);
    }
    return { ref: name };
  }

  node(type: ts.Type): FieldNode {
    const name = this.nameOf(type);
    const described = name === null ? this.describe(type) : this.named(name, type);
    return described;
  }

  private nameOf(type: ts.Type): string | null {
    if (this.isScalar(type) || this.checker.isArrayType(type)) return null;
    const alias = type.aliasSymbol?.name;
    if (alias && alias !== "Array" && alias !== "Record") return alias;
    const symbol = type.getSymbol()?.name;
    if (symbol && !symbol.startsWith("__") && type.isClassOrInterface()) return symbol;
    return null;
  }

  private isScalar(type: ts.Type): boolean {
    const scalarFlags =
      ts.TypeFlags.StringLike |
      ts.TypeFlags.NumberLike |
      ts.TypeFlags.BooleanLike |
      ts.TypeFlags.BigIntLike |
      ts.TypeFlags.EnumLike |
      ts.TypeFlags.Null |
      ts.TypeFlags.Undefined |
      ts.TypeFlags.Void;
    if (type.flags & scalarFlags) return true;
    // `string & {}` is how the SDK writes an open enum ("disabled" | (string & {})): a string.
    if (type.isIntersection()) return type.types.some((member) => this.isScalar(member));
    return type.isUnion() && type.types.every((member) => this.isScalar(member));
  }

  private describe(type: ts.Type): FieldNode {
    if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown | ts.TypeFlags.NonPrimitive)) return "any";
    if (this.isScalar(type)) return "scalar";
    if (type.isUnion()) {
      const members = type.types.filter((member) => !(member.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null)));
      const alternatives = members.filter((member) => !this.isScalar(member)).map((member) => this.node(member));
      if (members.some((member) => this.isScalar(member))) alternatives.push("scalar");
      return alternatives.length === 1 ? (alternatives[0] as FieldNode) : { union: alternatives };
    }
    if (this.checker.isArrayType(type) || this.checker.isTupleType(type)) {
      const [item] = this.checker.getTypeArguments(type as ts.TypeReference);
      return { array: item ? this.node(item) : "any" };
    }
    if (type.flags & ts.TypeFlags.Object || type.isIntersection()) return this.object(type);
    return "any";
  }

  private object(type: ts.Type): FieldNode {
    const properties = this.checker.getPropertiesOfType(type);
    const index = this.checker.getIndexInfosOfType(type).find((info) => info.keyType.flags & ts.TypeFlags.String);
    if (properties.length === 0 && this.checker.getSignaturesOfType(type, ts.SignatureKind.Call).length > 0) return "any";
    const additional = index ? this.node(index.type) : undefined;
    if (properties.length === 0 && additional !== undefined) return { map: additional };
    if (properties.length === 0 && additional === undefined) return "any"; // `{}` or `object`: anything
    const fields: Record<string, FieldNode> = {};
    const required: string[] = [];
    let tags: string[] | undefined;
    for (const property of [...properties].sort((a, b) => a.name.localeCompare(b.name))) {
      const propertyType = this.checker.getNonNullableType(this.checker.getTypeOfSymbol(property));
      fields[property.name] = this.node(propertyType);
      if (!(property.flags & ts.SymbolFlags.Optional)) required.push(property.name);
      if (property.name === "type") {
        const literals = (propertyType.isUnion() ? propertyType.types : [propertyType]).filter((member) => member.isStringLiteral());
        if (literals.length > 0) tags = literals.map((literal) => (literal as ts.StringLiteralType).value).sort();
      }
    }
    const node: ObjectNode = { fields };
    if (required.length > 0) node.required = required;
    if (tags) node.tags = tags;
    if (additional !== undefined) node.additional = additional;
    return node;
  }
}

function sortedKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}
