// The shape of hooks.json, defined once in zod. The parser (hooks-file.ts) checks each element with
// these schemas on its own, so that one bad element never takes its neighbours down; the JSON Schema
// that editors use (`npx interactions-emulator hooks check`, /schemas/hooks.json,
// schemas/hooks.schema.json) is generated from the same definitions, with the arrays holding the
// element schemas instead of "anything". The error texts live here too: they are what the trace shows.

import { z } from "zod";

/** Optional fields accept null as "not given", as a protobuf-backed JSON parser would. */
const optional = <T extends z.ZodType>(schema: T) => schema.nullish();

export const timeoutSchema = optional(
  z
    .number({ error: "must be a number of seconds" })
    .positive({ error: "must be more than 0 seconds" })
    .finite({ error: "must be a finite number of seconds" })
    .describe("Seconds the handler may run before it is killed (its process tree); default 30. A pre hook that times out allows."),
);

export const enabledSchema = optional(
  z
    .boolean({ error: "must be true or false (a JSON boolean, not a string)" })
    .describe('false turns the whole group off (its rules are never evaluated); default true. A string such as "false" skips the group.'),
);

export const matcherSchema = optional(
  z
    .string({ error: "must be a string (an RE2 regular expression)" })
    .describe(
      'RE2 regular expression matched against the whole tool name (code_execution, read_file, write_file, list_files, delete_file). "*", "" and ".*" match every tool; a shell glob such as "*_file" is invalid and matches nothing (write ".*_file").',
    ),
);

/** RFC 9110 token: also keeps curl from reading a header that starts with "@" as a file name. */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const FORBIDDEN_IN_HEADER_VALUE = /[\r\n\0]/;

// Checked on the object as written, not on a copy: a copy made by assigning each name into a plain
// object loses a header named "__proto__" (a valid token) to the prototype setter, and with it the
// checks of its value. So the input is validated entry by entry as it is, and copied afterwards with
// Object.fromEntries (hooks-file.ts), which keeps every name as an own property. zod cannot describe
// such a custom check in JSON Schema, so HEADERS_JSON_SCHEMA says the same for editors.
const plainObjectSchema = z.custom<Record<string, unknown>>(isPlainObject, { error: "must be an object of header names to strings" });
const headersObjectSchema = plainObjectSchema.superRefine((headers, context) => {
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== "string") {
      context.addIssue({ code: "custom", path: [name], message: "header values must be strings" });
    } else if (!HEADER_NAME.test(name)) {
      context.addIssue({ code: "custom", path: [name], message: `${JSON.stringify(name)} is not a valid header name` });
    } else if (FORBIDDEN_IN_HEADER_VALUE.test(value)) {
      context.addIssue({ code: "custom", path: [name], message: "header values must not contain line breaks or NUL" });
    }
  }
});

/** What headersObjectSchema checks, in JSON Schema (draft-07) terms. */
const HEADERS_JSON_SCHEMA: z.core.JSONSchema.JSONSchema = {
  type: "object",
  description:
    'Extra request headers, name to value (Content-Type: application/json is sent unless replaced here). For secrets, use the environment\'s network allowlist "transform" instead: the egress proxy injects them on the wire.',
  propertyNames: { pattern: HEADER_NAME.source },
  additionalProperties: { type: "string", pattern: "^[^\\r\\n\\u0000]*$" },
};

export const headersSchema = optional(headersObjectSchema);

export const commandHandlerSchema = z
  .looseObject({
    type: z.literal("command"),
    command: z
      .string({ error: "must be a string" })
      .refine((text) => text.trim().length > 0, { error: "must not be empty" })
      // The refinement above in JSON Schema terms (at least one character that is not white space).
      .meta({
        pattern: "\\S",
        description:
          'Command line run with bash -c inside the sandbox, in /workspace, with the payload JSON on stdin. A pre hook denies only by exiting 0 and printing one JSON object whose decision is exactly "deny".',
      }),
    timeout: timeoutSchema,
  })
  .meta({ id: "hooks_command_handler" });

export const httpHandlerSchema = z
  .looseObject({
    type: z.literal("http"),
    url: z.string({ error: "must be a string" }).refine(isHttpUrl, { error: "must be an absolute http:// or https:// URL" }).meta({
      pattern: "^[Hh][Tt][Tt][Pp][Ss]?://[^/?#]",
      description:
        'URL the payload JSON is POSTed to from inside the sandbox, through the egress proxy (the environment\'s allowlist applies; loopback and private addresses are refused). A pre hook denies only with a 2xx whose body is one JSON object whose decision is exactly "deny".',
    }),
    headers: headersSchema,
    timeout: timeoutSchema,
  })
  .meta({ id: "hooks_http_handler" });

export const handlerSchema = z
  .discriminatedUnion("type", [commandHandlerSchema, httpHandlerSchema])
  .describe('A handler: {"type": "command", "command": …} or {"type": "http", "url": …}.');

/** An array of `element`: the parser checks the array with `z.unknown()` elements and each element on its own. */
export const handlerListOf = <T extends z.ZodType>(element: T) =>
  z.array(element, { error: "must be an array of handlers" }).describe("Handlers, run one at a time in this order.");

// The ids name the parts that occur more than once in the JSON Schema: each is written once, under
// "definitions", and referred to from both events.
export const ruleSchema = z
  .looseObject({
    matcher: matcherSchema,
    hooks: handlerListOf(handlerSchema),
  })
  .meta({ id: "hooks_rule", description: "A rule: the handlers to run for the tools its matcher matches." });

export const ruleListOf = <T extends z.ZodType>(element: T) => z.array(element, { error: "must be an array of rules" });

const eventSchema = (description: string) => optional(ruleListOf(ruleSchema).describe(description));

export const groupSchema = z
  .looseObject({
    enabled: enabledSchema,
    pre_tool_execution: eventSchema(
      "Rules run right before a built-in tool runs; a handler may deny the call. Everything but an explicit deny allows (fail-open).",
    ),
    post_tool_execution: eventSchema("Rules run right after a built-in tool ran (not after a denied call); their output is ignored."),
  })
  .describe("A group of hooks, named by its key. Groups run in the order the file writes them.");

/** A top-level "$schema" is the editor's link to this schema, never a group. */
export const SCHEMA_KEY = "$schema";

/** The whole file: named groups, and the editor's "$schema". */
export const hooksFileSchema = z
  .object({
    [SCHEMA_KEY]: z
      .string()
      .optional()
      .describe("URL or path of this JSON Schema, for editors (e.g. http://127.0.0.1:8080/schemas/hooks.json); the emulator ignores it."),
  })
  .catchall(groupSchema)
  .meta({
    title: "hooks.json",
    description:
      "Agent hooks of the Gemini Interactions API remote sandbox (/.agents/hooks.json or /workspace/.agents/hooks.json): named groups of pre_tool_execution and post_tool_execution rules. Check a file with `npx interactions-emulator hooks check`.",
  });

/**
 * The JSON Schema of hooks.json, as committed in schemas/hooks.schema.json and served at
 * /schemas/hooks.json. Draft-07, the draft every common editor's JSON language service supports.
 */
export function hooksJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(hooksFileSchema, {
    target: "draft-07",
    io: "input",
    unrepresentable: (context) => {
      // The refined schema and the one it refines (zod visits both).
      if (context.zodSchema === headersObjectSchema || context.zodSchema === plainObjectSchema) return HEADERS_JSON_SCHEMA;
      // Anything else zod cannot express would silently vanish from the editors' view: refuse instead.
      return "throw";
    },
  }) as Record<string, unknown>;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}
