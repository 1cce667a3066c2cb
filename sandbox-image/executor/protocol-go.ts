// The Go executor's side of the protocol (sandbox-image/executor-go/protocol_gen.go), generated from the
// tables here, which stay the one definition: the constants, the flags, and for every operation, result,
// message and egress frame both a descriptor the Go checker interprets (protocol_check.go, which reads
// requests exactly as protocol-check.ts does) and the Go types the executor reads and writes them as.
// `npm run schemas` writes the file (tools/write-schemas.ts); test/unit/protocol-go-generated.test.ts
// fails while the committed file differs from what this produces.
//
// A rule spanning several fields is a TypeScript function, which cannot be translated: the descriptor
// names it (the member and field path it belongs to) and carries its source as a comment, and the Go
// executor refuses to start when a named rule has no Go implementation (protocol_rules.go). A changed
// rule changes the generated file, so the staleness test points at the Go twin of that one function.

import * as constants from "./protocol-constants.js";
import { egressFrame, egressStreamError } from "./protocol-egress.js";
import type { Field, ObjectField, Shape, TaggedUnionField } from "./protocol-fields.js";
import { responseMessage } from "./protocol-messages.js";
import {
  fileEntry,
  fileInfo,
  operations,
  readAfterFiles,
  readBeforeFiles,
  readFilesEntry,
  requestHeader,
  resultPayload,
  treeEntry,
} from "./protocol-operations.js";

export const GO_PROTOCOL_FILE = "sandbox-image/executor-go/protocol_gen.go";

/** How the members of each tagged union are called as Go types. */
const memberTypeNames = new Map<Field, (tagValue: string) => string>([
  [requestHeader, (op) => `${pascal(op)}Request`],
  [resultPayload, (op) => `${pascal(op)}Result`],
  [responseMessage, (type) => `${pascal(type)}Message`],
  [egressFrame, (kind) => `Egress${pascal(kind)}Frame`],
  [readFilesEntry, (status) => `ReadFiles${pascal(status)}Entry`],
]);

/** Structs several fields share, by the name the protocol's tables give them. */
const sharedTypeNames = new Map<Field, string>([
  [fileEntry, "FileEntry"],
  [fileInfo, "FileInfo"],
  [treeEntry, "TreeEntry"],
  [readBeforeFiles, "ReadBefore"],
  [readAfterFiles, "ReadAfter"],
  [egressStreamError, "EgressStreamError"],
]);

class GoWriter {
  private readonly types: string[] = [];
  private readonly typeNames = new Map<Field, string>();
  private readonly descriptorNames = new Map<Field, string>();
  private readonly descriptors: string[] = [];

  /** The Go type values of `field` are read and written as; `hint` names a struct it needs. */
  goType(field: Field, hint: string): string {
    switch (field.kind) {
      case "string":
      case "oneOf":
        return "string";
      case "integer":
        return "int64";
      case "number":
        return "float64";
      case "boolean":
        return "bool";
      case "nullable":
      case "optional": {
        const inner = this.goType(field.of, hint);
        return inner === "any" ? "any" : `*${inner}`;
      }
      case "array":
        return `[]${this.goType(field.of, hint)}`;
      case "record":
        return `map[string]${this.goType(field.values, hint)}`;
      case "object":
        return this.structFor(field, hint, []);
      case "taggedUnion":
        this.unionMembers(field, hint);
        // A union held in a field is one of its member structs; the executor builds the one it means.
        return "any";
    }
  }

  unionMembers(union: TaggedUnionField, hint: string): void {
    if (this.typeNames.has(union)) return;
    this.typeNames.set(union, hint);
    const naming = memberTypeNames.get(union) ?? ((tagValue: string) => `${hint}${pascal(tagValue)}`);
    for (const [tagValue, member] of Object.entries(union.members)) {
      const tagField = [pascal(union.tag), "string", `\`json:"${union.tag}"\``];
      this.structFor(member, naming(tagValue), [tagField, ...this.fieldLines(union.common, naming(tagValue))]);
    }
  }

  private structFor(object: ObjectField, hint: string, leading: string[][]): string {
    const known = this.typeNames.get(object);
    if (known !== undefined) return known;
    const name = sharedTypeNames.get(object) ?? hint;
    this.typeNames.set(object, name);
    const rows = [...leading, ...this.fieldLines(object.shape, name)];
    this.types.push(rows.length === 0 ? `type ${name} struct{}` : `type ${name} struct {\n${aligned(rows, "\t")}\n}`);
    return name;
  }

  private fieldLines(shape: Shape, owner: string): string[][] {
    return Object.entries(shape).map(([key, field]) => {
      const omit = field.kind === "optional" ? ",omitempty" : "";
      return [pascal(key), this.goType(field, `${owner}${pascal(key)}`), `\`json:"${key}${omit}"\``];
    });
  }

  /** A Go expression for the descriptor (a variable for objects and unions, which several fields may share). */
  descriptor(field: Field, ruleName: string): string {
    switch (field.kind) {
      case "string":
        return `&Field{Kind: "string", NonEmpty: ${field.nonEmpty}, Forbidden: ${goStrings(field.forbidden)}}`;
      case "integer":
        return `&Field{Kind: "integer", Min: ${field.min}, Max: ${field.max}}`;
      case "number":
      case "boolean":
        return `&Field{Kind: "${field.kind}"}`;
      case "oneOf":
        return `&Field{Kind: "oneOf", Values: ${goStrings(field.values)}}`;
      case "nullable":
      case "optional":
        return `&Field{Kind: "${field.kind}", Of: ${this.descriptor(field.of, ruleName)}}`;
      case "array":
        return `&Field{Kind: "array", Of: ${this.descriptor(field.of, `${ruleName}[]`)}, MinItems: ${field.minItems}, MaxItems: ${field.maxItems}}`;
      case "record":
        return `&Field{Kind: "record", Keys: ${this.descriptor(field.keys, ruleName)}, Of: ${this.descriptor(field.values, ruleName)}}`;
      case "object":
      case "taggedUnion":
        return this.namedDescriptor(field, ruleName);
    }
  }

  private namedDescriptor(field: ObjectField | TaggedUnionField, ruleName: string): string {
    const known = this.descriptorNames.get(field);
    if (known !== undefined) return known;
    const name = `descriptor${this.descriptorNames.size}`;
    this.descriptorNames.set(field, name);
    let body: string;
    let comment = "";
    if (field.kind === "object") {
      const rule = field.rule === undefined ? "" : `, Rule: ${JSON.stringify(ruleName)}`;
      if (field.rule !== undefined) comment = `// Rule ${ruleName}: ${oneLine(field.rule.toString())}\n`;
      body = `&Field{Kind: "object", Shape: ${this.shape(field.shape, ruleName)}${rule}}`;
    } else {
      const members = Object.entries(field.members).map(
        ([tagValue, member]) =>
          `\t{Value: ${JSON.stringify(tagValue)}, Label: ${JSON.stringify(field.label(tagValue))}, Object: ${this.descriptor(member, tagValue)}},`,
      );
      body = `&Field{Kind: "taggedUnion", Tag: ${JSON.stringify(field.tag)}, Common: ${this.shape(field.common, ruleName)}, Members: []Member{\n${members.join("\n")}\n}}`;
    }
    this.descriptors.push(`${comment}var ${name} = ${body}`);
    return name;
  }

  private shape(shape: Shape, ruleName: string): string {
    const entries = Object.entries(shape).map(
      ([key, field]) => `{${JSON.stringify(key)}, ${this.descriptor(field, `${ruleName}.${key}`)}}`,
    );
    return `[]NamedField{${entries.join(", ")}}`;
  }

  typeText(): string {
    return this.types.join("\n\n");
  }

  descriptorText(): string {
    return this.descriptors.join("\n\n");
  }
}

/** Rows as gofmt aligns them: every cell but the last padded to its column's widest. */
function aligned(rows: readonly string[][], indent: string): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.slice(0, -1).forEach((cell, index) => {
      widths[index] = Math.max(widths[index] ?? 0, cell.length);
    });
  }
  return rows
    .map((row) => indent + row.map((cell, index) => (index < row.length - 1 ? cell.padEnd(widths[index]! + 1) : cell)).join(""))
    .join("\n");
}

function pascal(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

function constantName(name: string): string {
  return name
    .toLowerCase()
    .split("_")
    .map((part) => pascal(part))
    .join("");
}

function goStrings(values: readonly string[]): string {
  return values.length === 0 ? "nil" : `[]string{${values.map((value) => JSON.stringify(value)).join(", ")}}`;
}

function oneLine(source: string): string {
  return source.replace(/\s+/g, " ").trim();
}

function goValue(value: unknown): string {
  if (typeof value === "number" || typeof value === "string") return JSON.stringify(value);
  throw new Error(`no Go constant for ${JSON.stringify(value)}`);
}

/** The text of protocol_gen.go. */
export function goProtocolText(): string {
  const writer = new GoWriter();
  const scalarConstants: string[][] = [];
  const listConstants: string[] = [];
  for (const [name, value] of Object.entries(constants)) {
    if (Array.isArray(value)) listConstants.push(`var ${constantName(name)} = ${goStrings(value as string[])}`);
    else scalarConstants.push([constantName(name), `= ${goValue(value)}`]);
  }
  writer.unionMembers(requestHeader, "Request");
  writer.unionMembers(resultPayload, "Result");
  writer.unionMembers(responseMessage, "Message");
  writer.unionMembers(egressFrame, "EgressFrame");
  const requestDescriptor = writer.descriptor(requestHeader, "");
  const responseDescriptor = writer.descriptor(responseMessage, "");
  const egressDescriptor = writer.descriptor(egressFrame, "");
  const ops = Object.keys(operations);
  const newRequest = ops.map((op) => [`${JSON.stringify(op)}:`, `func() any { return &${pascal(op)}Request{} },`]);
  const carriesBody = Object.entries(operations)
    .filter(([, spec]) => "result" in spec)
    .map(([op, spec]) => [`${JSON.stringify(op)}:`, `${"resultBody" in spec},`]);
  return `// Code generated by sandbox-image/executor/protocol-go.ts (npm run schemas); DO NOT EDIT.
// The protocol is declared once, in sandbox-image/executor/protocol-*.ts; this is its Go rendering.

package main

const (
${aligned(scalarConstants, "\t")}
)

${listConstants.join("\n")}

// Every operation, in the table's order.
var operationNames = ${goStrings(ops)}

// A new, empty request of each operation, for decoding a checked header into.
var newRequest = map[string]func() any{
${aligned(newRequest, "\t")}
}

// Whether a result of the operation carries a frame body.
var resultCarriesBody = map[string]bool{
${aligned(carriesBody, "\t")}
}

${writer.typeText()}

// The descriptors of every request header, response message and egress frame.
var (
	requestHeaderDescriptor   = ${requestDescriptor}
	responseMessageDescriptor = ${responseDescriptor}
	egressFrameDescriptor     = ${egressDescriptor}
)

${writer.descriptorText()}
`;
}
