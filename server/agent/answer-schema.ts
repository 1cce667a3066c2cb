// The JSON Schema of a structured answer (response_format), compiled with Ajv, the standard validator
// (docs/api.md#structured-answers). The schema comes from the request, so it is untrusted: Ajv's own
// advice for that is followed (docs/security.md#structured-answers): the schema's size is capped, the
// request's depth is already capped at the edge, `pattern` runs on RE2 (linear time, no ReDoS), formats
// are checked by small linear functions, `$data` stays off, and remote `$ref`s are never fetched.
//
// Two validators come from one schema:
//   - `full` enforces every keyword: the emulator's own minimal answer must pass it;
//   - `asEnforced` leaves out the keywords the service documents as "ignored and not enforced"
//     (minLength, maxLength, minProperties, maxProperties, uniqueItems, contains, minContains,
//     maxContains): a scripted answer is held to what the service holds a model's answer to, so a test
//     can script an answer that breaks them and see its application's own validation catch it.

import type { ErrorObject, ValidateFunction } from "ajv";
import { type Ajv, type Dialect, dialectOf, newAjv } from "./json-schema-engine.js";

/** The largest schema accepted by default, as compact JSON (Ajv compiles a schema to code: its time grows with it). */
export const MAX_SCHEMA_CHARS = 256 * 1024;
const MAX_REPORTED_PROBLEMS = 5;

export type SchemaCheck = { ok: true } | { ok: false; problems: string[] };

export interface AnswerSchema {
  /** The schema as given. */
  readonly schema: Record<string, unknown> | boolean;
  /** Every keyword. */
  full(value: unknown): SchemaCheck;
  /** The keywords the service enforces. */
  asEnforced(value: unknown): SchemaCheck;
}

export type CompiledSchema = { ok: true; schema: AnswerSchema } | { ok: false; message: string };

export type SchemaUse = "full" | "asEnforced";

/**
 * `maxChars`: EMULATOR_MAX_SCHEMA_BYTES. `first`: the validator compiled now (its errors are the
 * answer's); the other is compiled when first used, since compiling is the costly part and a request
 * needs one of them (a scripted answer is held to what is enforced, the minimal one to everything).
 */
export function compileAnswerSchema(
  schema: Record<string, unknown> | boolean,
  maxChars = MAX_SCHEMA_CHARS,
  first: SchemaUse = "full",
): CompiledSchema {
  const size = JSON.stringify(schema).length;
  if (size > maxChars) {
    return {
      ok: false,
      message: `the schema is ${size} characters of JSON, more than the ${maxChars} the emulator compiles (EMULATOR_MAX_SCHEMA_BYTES)`,
    };
  }
  const dialect = dialectOf(schema, "2020-12");
  if (typeof dialect !== "string") {
    return {
      ok: false,
      message: `$schema ${JSON.stringify(dialect.given)} is not supported; use JSON Schema 2020-12 (the default), 2019-09 or draft-07`,
    };
  }
  const engines = validators(dialect);
  const later = (use: SchemaUse): ((value: unknown) => SchemaCheck) => {
    let check: ((value: unknown) => SchemaCheck) | undefined;
    return (value) => {
      try {
        check ??= checker(compileOnce(engines[use], schema));
      } catch (error) {
        return { ok: false, problems: [`the schema cannot be compiled: ${(error as Error).message}`] };
      }
      return check(value);
    };
  };
  try {
    const now = checker(compileOnce(engines[first], schema));
    const other = later(first === "full" ? "asEnforced" : "full");
    const [full, asEnforced] = first === "full" ? [now, other] : [other, now];
    return { ok: true, schema: { schema, full, asEnforced } };
  } catch (error) {
    return { ok: false, message: `it is not a JSON Schema the emulator can use: ${(error as Error).message}` };
  }
}

/**
 * Compiles `schema` on a shared instance and drops it from the instance at once: the validator keeps
 * what it needs, the instance keeps nothing of the request (no cache that grows with every request, no
 * `$id` that the next request's schema would clash with). Synchronous, so no other request's schema is
 * ever on the instance at the same time.
 */
function compileOnce(ajv: Ajv, schema: Record<string, unknown> | boolean): ValidateFunction {
  try {
    return ajv.compile(schema);
  } finally {
    ajv.removeSchema(schema);
  }
}

/** One problem per line, as Ajv reports it: the instance path ("(root)" for the whole value) and what is wrong. */
export function describeProblems(errors: readonly ErrorObject[]): string[] {
  const shown = errors.slice(0, MAX_REPORTED_PROBLEMS).map(describeProblem);
  if (errors.length > MAX_REPORTED_PROBLEMS) shown.push(`… and ${errors.length - MAX_REPORTED_PROBLEMS} more`);
  return shown;
}

function describeProblem(error: ErrorObject): string {
  const where = error.instancePath === "" ? "(root)" : error.instancePath;
  const params = error.params as { additionalProperty?: string; allowedValues?: unknown[]; allowedValue?: unknown };
  let detail = "";
  if (params.additionalProperty !== undefined) detail = ` (${JSON.stringify(params.additionalProperty)})`;
  else if (params.allowedValues !== undefined) detail = ` (${shortJson(params.allowedValues)})`;
  else if (error.keyword === "const") detail = ` (${shortJson(params.allowedValue)})`;
  return `${where} ${error.message ?? `fails ${error.keyword}`}${detail}`;
}

function shortJson(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

function checker(validate: ValidateFunction): (value: unknown) => SchemaCheck {
  return (value) => {
    try {
      return validate(value) ? { ok: true } : { ok: false, problems: describeProblems(validate.errors ?? []) };
    } catch (error) {
      // A schema whose $ref leads back to itself with nothing in between recurses without end in Ajv.
      return { ok: false, problems: [`the schema cannot be checked: ${(error as Error).message} (does a $ref lead back to itself?)`] };
    }
  };
}

/** One pair of instances per dialect, made when first needed (making one costs tens of milliseconds). */
const instances = new Map<Dialect, { full: Ajv; asEnforced: Ajv }>();

function validators(dialect: Dialect): { full: Ajv; asEnforced: Ajv } {
  let pair = instances.get(dialect);
  if (!pair) {
    pair = { full: newAjv(dialect, { formats: FORMATS }), asEnforced: newAjv(dialect, { formats: FORMATS, enforcedOnly: true }) };
    instances.set(dialect, pair);
  }
  return pair;
}

// [choice] The formats the emulator checks (and writes in its minimal answers); any other format is
// accepted as is. Linear checks only: the answer is untrusted text.
const DATE = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const TIME = /^([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?(z|[+-]([01]\d|2[0-3]):[0-5]\d)?$/i;
const FORMATS = {
  date: DATE,
  time: TIME,
  "date-time": (value: string) => {
    const split = value.search(/[tT ]/);
    return split === 10 && DATE.test(value.slice(0, split)) && TIME.test(value.slice(split + 1));
  },
  email: (value: string) => {
    const at = value.lastIndexOf("@");
    return at > 0 && at < value.length - 1 && !/\s/.test(value) && value.slice(at + 1).includes(".");
  },
  uri: /^[a-z][a-z0-9+.-]*:\S*$/i,
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  ipv4: (value: string) => {
    const parts = value.split(".");
    return parts.length === 4 && parts.every((part) => /^(0|[1-9]\d{0,2})$/.test(part) && Number(part) <= 255);
  },
};
