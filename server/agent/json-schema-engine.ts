// What the two JSON Schema checks of a request share (function arguments, function-arguments.ts; a
// structured answer, answer-schema.ts): the schemas come from the request, so they are untrusted, and
// both follow the same rules for them (docs/security.md#function-schemas,
// docs/security.md#structured-answers): patterns on RE2, the dialect named by `$schema`, and the keywords
// the service documents as "ignored and not enforced" (the SDK's FunctionT.parameters and
// TextResponseFormat.schema) left out where a scripted value plays the model's.

import { useJsonEquality } from "./json-equality-keywords.js";
import type AjvModule from "ajv";
import type { Options } from "ajv";
import type Ajv2019Module from "ajv/dist/2019.js";
import type Ajv2020Module from "ajv/dist/2020.js";
import RE2 from "re2";
import { loadOnFirstUse } from "../common/load-on-first-use.js";

// Ajv is 95 files: loaded with the first schema a request brings, not at start-up (load-on-first-use.ts).
const ajv07 = loadOnFirstUse<typeof AjvModule>("ajv");
const ajv2019 = loadOnFirstUse<typeof Ajv2019Module>("ajv/dist/2019.js");
const ajv2020 = loadOnFirstUse<typeof Ajv2020Module>("ajv/dist/2020.js");

export type Ajv = InstanceType<(typeof Ajv2020Module)["default"]>;

/**
 * Loads Ajv now rather than at the first schema: for a worker thread whose jobs have deadlines
 * (schema-worker.ts), where loading belongs to the worker's start, not to the first request's budget.
 */
export function loadSchemaEngine(): void {
  ajv07();
  ajv2019();
  ajv2020();
}

/** Keywords the service documents as ignored and not enforced, in function parameters and answer schemas alike. */
export const NOT_ENFORCED_KEYWORDS = [
  "minLength",
  "maxLength",
  "minProperties",
  "maxProperties",
  "uniqueItems",
  "contains",
  "minContains",
  "maxContains",
];

export type Dialect = "draft-07" | "2019-09" | "2020-12";

/** The dialect a schema names in `$schema` (`fallback` when it names none), or what it named that is none of ours. */
export function dialectOf(schema: unknown, fallback: Dialect): Dialect | { given: unknown } {
  const given = typeof schema === "object" && schema !== null ? (schema as { $schema?: unknown }).$schema : undefined;
  if (given === undefined) return fallback;
  if (typeof given !== "string") return { given };
  const uri = given.replace(/#$/, "").replace(/^http:/, "https:");
  if (uri === "https://json-schema.org/draft-07/schema") return "draft-07";
  if (uri === "https://json-schema.org/draft/2019-09/schema") return "2019-09";
  if (uri === "https://json-schema.org/draft/2020-12/schema") return "2020-12";
  return { given };
}

/** The largest referenced subschema (in keywords) compiled in place of its $ref rather than as a function of its own. */
const MAX_INLINED_KEYWORDS = 16;

/** `pattern` and `patternProperties` on RE2: linear time, whatever the expression (no ReDoS). */
const re2Engine = Object.assign(
  (pattern: string, flags: string) => {
    try {
      return new RE2(pattern, flags);
    } catch (error) {
      throw new Error(
        `the pattern ${JSON.stringify(pattern)} is not an RE2 expression (no lookaround, no backreferences): ${(error as Error).message}`,
      );
    }
  },
  { code: "re2" },
);

/**
 * An Ajv instance for `dialect`, with patterns on RE2, unknown keywords (Gemini's propertyOrdering,
 * OpenAPI's nullable, …) ignored rather than refused, and, when `enforcedOnly`, without the keywords
 * the service does not enforce.
 */
export function newAjv(dialect: Dialect, options: Options & { enforcedOnly?: boolean } = {}): Ajv {
  const { enforcedOnly, ...rest } = options;
  // inlineRefs: a referenced subschema is inlined only when it is small; Ajv's default inlines any
  // subschema without refs of its own, so one large $defs entry named by thousands of $refs would be
  // compiled into thousands of copies of its code.
  // ownProperties: a required "constructor" or "__proto__" is met by the JSON's own key, never by Object.prototype's.
  const settings: Options = {
    strict: false,
    allErrors: true,
    logger: false,
    inlineRefs: MAX_INLINED_KEYWORDS,
    ownProperties: true,
    ...rest,
    code: { regExp: re2Engine },
  };
  const ajv =
    dialect === "draft-07"
      ? (new (ajv07().default)(settings) as unknown as Ajv)
      : dialect === "2019-09"
        ? (new (ajv2019().default)(settings) as unknown as Ajv)
        : new (ajv2020().default)(settings);
  useJsonEquality(ajv);
  if (enforcedOnly) for (const keyword of NOT_ENFORCED_KEYWORDS) ajv.removeKeyword(keyword);
  return ajv;
}
