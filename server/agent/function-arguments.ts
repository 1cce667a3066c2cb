// Checks a scripted function call's arguments against the `parameters` JSON Schema its declaration gives,
// with Ajv (the standard validator), before anything runs: a script that calls a function with
// arguments it does not declare is a 400 naming the path that failed, not a surprise in the client.
//
// [choice] The keywords the SDK documents as "ignored and not enforced" by the service (minLength,
// maxLength, minProperties, maxProperties, uniqueItems, contains, minContains, maxContains) are not
// enforced here either: a script plays the model, and the model may produce such arguments. Formats are
// not checked (the service names no format support), and unknown keywords (propertyOrdering, nullable,
// …) are ignored rather than refused. Patterns are compiled with RE2, so a declared pattern cannot stall
// the server with catastrophic backtracking (docs/security.md).

import type { ErrorObject, ValidateFunction } from "ajv";
import { describeValueKind } from "../tools/tool-call.js";
import type { FunctionDeclaration } from "./declared-functions.js";
import { MAX_SCHEMA_CHARS } from "./answer-schema.js";
import { type Ajv, type Dialect, dialectOf, newAjv } from "./json-schema-engine.js";

/** Beyond this many problems in one call's arguments, the rest are counted, not listed. */
const MAX_PROBLEMS = 10;

/**
 * One request's checker: it compiles each declaration it is asked about once. A new one per request, so
 * the schemas of one request are never kept by the server after it (Ajv caches what it compiles).
 */
export class FunctionArgumentChecker {
  private readonly engines = new Map<Dialect, Ajv>();
  private readonly compiled = new Map<FunctionDeclaration, ValidateFunction | string>();

  /** `maxSchemaChars`: the largest parameters schema compiled, as compact JSON (EMULATOR_MAX_SCHEMA_BYTES). */
  constructor(private readonly maxSchemaChars = MAX_SCHEMA_CHARS) {}

  /** The problems of `args` against the declaration's parameters, one sentence each; [] when they fit. */
  check(declaration: FunctionDeclaration, args: Record<string, unknown>): string[] {
    if (declaration.parameters === undefined || declaration.parameters === null) return [];
    const validate = this.validatorOf(declaration);
    if (typeof validate === "string") return [validate];
    let valid: boolean;
    try {
      valid = validate(args) as boolean;
    } catch (error) {
      // A schema whose $ref leads back to itself with nothing in between recurses without end in Ajv.
      return [
        `its declaration's parameters (tools[${declaration.toolIndex}].parameters) cannot be checked: ${(error as Error).message} (does a $ref lead back to itself?)`,
      ];
    }
    if (valid) return [];
    const problems = [...new Set((validate.errors ?? []).map(describeError))];
    if (problems.length <= MAX_PROBLEMS) return problems;
    return [...problems.slice(0, MAX_PROBLEMS), `and ${problems.length - MAX_PROBLEMS} more problems`];
  }

  private validatorOf(declaration: FunctionDeclaration): ValidateFunction | string {
    let validator = this.compiled.get(declaration);
    if (validator === undefined) {
      validator = compile(declaration, this.engine(dialectOf(declaration.parameters, "draft-07")), this.maxSchemaChars);
      this.compiled.set(declaration, validator);
    }
    return validator;
  }

  /** A dialect the schema names that is none of ours is read as draft-07, Ajv's default, as a client library would. */
  private engine(named: Dialect | { given: unknown }): Ajv {
    const dialect = typeof named === "string" ? named : "draft-07";
    let engine = this.engines.get(dialect);
    if (!engine) {
      // Formats are not checked: the service names no format support.
      engine = newAjv(dialect, { validateFormats: false, verbose: true, enforcedOnly: true });
      this.engines.set(dialect, engine);
    }
    return engine;
  }
}

function compile(declaration: FunctionDeclaration, engine: Ajv, maxSchemaChars: number): ValidateFunction | string {
  const where = `tools[${declaration.toolIndex}].parameters`;
  const { parameters } = declaration;
  if (typeof parameters !== "object" || Array.isArray(parameters)) {
    return `its declaration's parameters (${where}) must be a JSON Schema object like {"type": "object", "properties": {…}}, got ${describeValueKind(parameters)}`;
  }
  // Ajv compiles a schema into code, its time growing with the schema: a larger one is refused unread.
  const size = JSON.stringify(parameters).length;
  if (size > maxSchemaChars) {
    return `its declaration's parameters (${where}) are ${size} characters of JSON, more than the ${maxSchemaChars} the emulator compiles (EMULATOR_MAX_SCHEMA_BYTES)`;
  }
  try {
    return engine.compile(parameters as object);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    // The Gemini API's own Schema type writes types in capitals; JSON Schema's are lowercase.
    const capitals = /"type":"(?:OBJECT|STRING|NUMBER|INTEGER|BOOLEAN|ARRAY|NULL)"/.test(JSON.stringify(parameters));
    const hint = capitals ? ' (JSON Schema type names are lowercase: "object", "string", …)' : "";
    return `its declaration's parameters (${where}) are not a JSON Schema the emulator can check arguments against: ${reason}${hint}`;
  }
}

function describeError(error: ErrorObject): string {
  const path = argumentPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return `${argumentPath(`${error.instancePath}/${escapePointer(String(params.missingProperty))}`)} is missing (the declared parameters require it)`;
    case "additionalProperties":
      return `${argumentPath(`${error.instancePath}/${escapePointer(String(params.additionalProperty))}`)} is not a declared parameter (the schema allows no other properties)`;
    case "type": {
      const types = Array.isArray(params.type) ? params.type.map(String) : [String(params.type)];
      return `${path} must be ${types.map(withArticle).join(" or ")}, got ${describeValueKind(error.data)}`;
    }
    case "enum":
      return `${path} must be one of ${(params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(", ")}, got ${JSON.stringify(error.data)}`;
    case "const":
      return `${path} must be ${JSON.stringify(params.allowedValue)}, got ${JSON.stringify(error.data)}`;
    default:
      return `${path} ${error.message ?? `fails "${error.keyword}"`}`;
  }
}

/** A JSON Pointer into the arguments, as a person writes it: arguments.days[0].name, arguments["a b"]. */
export function argumentPath(pointer: string): string {
  let path = "arguments";
  if (pointer === "") return path;
  for (const raw of pointer.slice(1).split("/")) {
    const segment = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (/^(?:0|[1-9]\d*)$/.test(segment)) path += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$]*$/.test(segment)) path += `.${segment}`;
    else path += `[${JSON.stringify(segment)}]`;
  }
  return path;
}

function withArticle(type: string): string {
  if (type === "null") return "null";
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}
