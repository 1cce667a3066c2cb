// The five built-in sandbox tools and the exact argument shapes the emulated agent may call them with
// (docs/api.md#tools-and-steps). Hooks receive these args verbatim on stdin, so the schemas are the contract users
// write their matchers and gate scripts against: validation here is strict (unknown keys are refused)
// so a typo in a test script fails loudly instead of reaching a hook in an unexpected shape.

import { z } from "zod";

export const TOOL_NAMES = ["code_execution", "read_file", "write_file", "list_files", "delete_file"] as const;

export type ToolName = (typeof TOOL_NAMES)[number];

/** The loose shape the rest of the emulator passes around (and hooks see as `tool_call`). */
export interface ToolCall {
  name: ToolName;
  args: Record<string, unknown>;
}

export const CODE_LANGUAGES = ["bash", "python"] as const;

export type CodeLanguage = (typeof CODE_LANGUAGES)[number];

const pathArgument = z.string().min(1);

export const toolArgSchemas = {
  code_execution: z.strictObject({
    code: z.string().min(1).describe("the program text to run inside the sandbox"),
    language: z.enum(CODE_LANGUAGES).default("bash").describe('the interpreter: "bash" (default) or "python"'),
  }),
  read_file: z.strictObject({
    path: pathArgument.describe("the file to read; relative paths resolve against /workspace"),
  }),
  write_file: z.strictObject({
    path: pathArgument.describe("the file to create or overwrite; parent folders are created"),
    content: z.string().describe("the complete text to write (may be empty)"),
  }),
  list_files: z.strictObject({
    path: pathArgument.default(".").describe('the folder to list; default "." (/workspace)'),
  }),
  delete_file: z.strictObject({
    path: pathArgument.describe("the file (or, with recursive, folder) to remove"),
    recursive: z.boolean().optional().describe("must be true to remove a folder and its contents"),
  }),
} as const satisfies Record<ToolName, z.ZodType>;

export type ToolArgs<N extends ToolName> = z.output<(typeof toolArgSchemas)[N]>;

/** A validated call: the args match the tool's schema, with defaults filled in. */
export type TypedToolCall = { [N in ToolName]: { name: N; args: ToolArgs<N> } }[ToolName];

export type ParseToolCallResult = { ok: true; call: TypedToolCall } | { ok: false; message: string };

export function isToolName(value: unknown): value is ToolName {
  return typeof value === "string" && (TOOL_NAMES as readonly string[]).includes(value);
}

export function describeValueKind(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string":
      return "a string";
    case "number":
      return "a number";
    case "boolean":
      return "a boolean";
    case "object":
      return "an object";
    default:
      return typeof value;
  }
}

export const UNKNOWN_TOOL_HINT = `emulated tools are ${TOOL_NAMES.join(", ")}`;

/**
 * Validates one call. Missing `args` counts as `{}` so `{"name":"list_files"}` works with its default;
 * every other problem comes back as one sentence naming the argument and what to write instead.
 */
export function parseToolCall(name: unknown, args: unknown): ParseToolCallResult {
  if (!isToolName(name)) {
    const shown = typeof name === "string" ? `"${name}"` : describeValueKind(name);
    return { ok: false, message: `unknown tool ${shown}; ${UNKNOWN_TOOL_HINT}` };
  }
  const givenArgs = args === undefined ? {} : args;
  if (typeof givenArgs !== "object" || givenArgs === null || Array.isArray(givenArgs)) {
    return {
      ok: false,
      message: `"args" of ${name} must be an object, got ${describeValueKind(givenArgs)}`,
    };
  }
  const schema: z.ZodType = toolArgSchemas[name];
  const parsed = schema.safeParse(givenArgs, { reportInput: true });
  if (!parsed.success) {
    return { ok: false, message: parsed.error.issues.map((issue) => describeIssue(name, issue)).join("; ") };
  }
  // The schema for `name` produced this value, so the pairing is sound; TypeScript cannot correlate
  // a union-keyed schema lookup with its output type on its own.
  return { ok: true, call: { name, args: parsed.data } as TypedToolCall };
}

function describeIssue(tool: ToolName, issue: z.core.$ZodIssue): string {
  const argument = issue.path.length > 0 ? `argument "${issue.path.join(".")}"` : "arguments";
  const fieldDescription = describeField(tool, issue.path[0]);
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) {
        return `${tool} ${argument} is missing (expected ${issue.expected}: ${fieldDescription})`;
      }
      return `${tool} ${argument} must be ${withArticle(issue.expected)}, got ${describeValueKind(issue.input)}`;
    case "invalid_value":
      return `${tool} ${argument} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}, got ${JSON.stringify(issue.input)}`;
    case "too_small":
      return `${tool} ${argument} must not be empty`;
    case "unrecognized_keys": {
      const known = Object.keys(toolArgSchemas[tool].shape).join(", ");
      const keys = issue.keys.map((key) => `"${key}"`).join(", ");
      return `${tool} has no argument ${keys}; its arguments are ${known}`;
    }
    default:
      return `${tool} ${argument}: ${issue.message}`;
  }
}

function describeField(tool: ToolName, key: PropertyKey | undefined): string {
  if (typeof key !== "string") return "see the tool's arguments";
  const shape: Record<string, z.ZodType> = toolArgSchemas[tool].shape;
  return shape[key]?.description ?? "see the tool's arguments";
}

function withArticle(typeName: string): string {
  return /^[aeiou]/.test(typeName) ? `an ${typeName}` : `a ${typeName}`;
}
