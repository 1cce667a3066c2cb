// The final answer when it is not the agent's report (docs/api.md#scripted-answers,
// docs/api.md#structured-answers): the input's ```response block, exactly, or, when the request asks for
// JSON, that block checked against the schema or else the schema's minimal instance. Decided before
// anything runs, so a scripted answer that cannot be given is a 400, not a surprise at the end.

import { compileAnswerSchema } from "../../agent/answer-schema.js";
import type { ResponseFormatChoice } from "../../agent/response-format.js";
import type { SchemaBounds } from "./schema-bounds.js";
import { DEFAULT_INSTANCE_BOUNDS, minimalInstance } from "./schema-instance.js";

export type FixedAnswer =
  /** The agent's own report is the answer. */
  | { kind: "none" }
  | { kind: "fixed"; text: string }
  /** `field`: the request field to fix ("input", "response_format.schema", …). */
  | { kind: "invalid"; field: string; message: string };

export type UsableFormat = Exclude<ResponseFormatChoice, { kind: "invalid" }>;

const SCRIPT_IT = "script the answer instead: put JSON that fits the schema in a ```response block in the input";

/** `scripted`: the text of the input's response block, if it has one. */
export function fixedAnswerFor(scripted: string | undefined, format: UsableFormat, bounds?: SchemaBounds): FixedAnswer {
  if (format.kind === "text") return scripted === undefined ? { kind: "none" } : { kind: "fixed", text: scripted };
  // A scripted answer is checked against what the service enforces, the minimal one against everything.
  const use = scripted === undefined ? "full" : "asEnforced";
  const compiled = format.schema === undefined ? undefined : compileAnswerSchema(format.schema, bounds?.maxSchemaChars, use);
  if (compiled && !compiled.ok) return invalid(format.where, compiled.message);
  const schema = compiled?.schema;
  const asked = format.where === "response_mime_type" ? "response_mime_type" : "response_format";
  if (scripted !== undefined) {
    let value: unknown;
    try {
      value = JSON.parse(scripted);
    } catch (error) {
      return invalid("input", `${asked} asks for JSON, but the response block does not parse as JSON (${(error as Error).message})`);
    }
    const check = schema?.asEnforced(value);
    if (check && !check.ok)
      return invalid("input", `the response block does not match the schema in ${format.where}: ${check.problems.join("; ")}`);
    // Exactly as scripted: the test decides the formatting of its JSON.
    return { kind: "fixed", text: scripted };
  }
  // [choice] JSON without a schema: the smallest JSON object.
  if (!schema) return { kind: "fixed", text: "{}" };
  const instance = minimalInstance(schema.schema, bounds?.instance ?? DEFAULT_INSTANCE_BOUNDS);
  if (!instance.ok) return invalid(format.where, `the emulator cannot build an answer for this schema (${instance.reason}); ${SCRIPT_IT}`);
  // Fail closed: the generator reads most keywords, Ajv checks all of them.
  const check = schema.full(instance.value);
  if (!check.ok) {
    return invalid(
      format.where,
      `the emulator cannot build an answer for this schema (its smallest candidate, ${preview(instance.value)}, fails it: ${check.problems.join("; ")}); ${SCRIPT_IT}`,
    );
  }
  return { kind: "fixed", text: JSON.stringify(instance.value) };
}

function preview(value: unknown): string {
  const text = JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

function invalid(field: string, message: string): { kind: "invalid"; field: string; message: string } {
  return { kind: "invalid", field, message };
}
