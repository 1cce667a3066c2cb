// What a model is told it may call, and how a call it makes is read back (docs/model-agent.md#tools).
// Three kinds of tool share one list of function declarations: the built-in sandbox tools (their
// schemas derived from the very zod schemas that check a call, server/tools/tool-call.ts), the
// request's functions (declared as the client declared them), and the tools its MCP servers list
// (named mcp__<server>__<tool>, since a model sees one flat namespace). A call is resolved to what the
// loop runs, or to a sentence saying what was wrong with it, which goes back to the model as the call's
// error result.

import { z } from "zod";
import type { AgentCall } from "../../agent/agent-call.js";
import type { ClientFunctionCall } from "../../agent/conversation.js";
import type { DeclaredFunctions } from "../../agent/declared-functions.js";
import { FunctionCallChecker } from "../../agent/function-calls.js";
import type { McpToolInfo } from "../../mcp/mcp-servers.js";
import { parseToolCall, TOOL_NAMES, type ToolName, toolArgSchemas } from "../../tools/tool-call.js";
import type { FunctionDeclaration } from "./model-backend.js";

/** What each built-in tool does, as the model reads it. */
const BUILTIN_DESCRIPTIONS: Readonly<Record<ToolName, string>> = {
  code_execution:
    "Runs a program in the sandbox (a Linux container; the working folder is /workspace) and returns its combined stdout and stderr. language: bash (default) or python.",
  read_file: "Reads a text file in the sandbox and returns its content.",
  write_file: "Creates or overwrites a file in the sandbox with the given text; parent folders are created.",
  list_files: "Lists a folder of the sandbox (default /workspace).",
  delete_file: "Deletes a file in the sandbox, or a folder with recursive: true.",
};

/** OpenAI's rule for function names, which Gemini's accepts too. */
const NAME_CHARS = /[^A-Za-z0-9_-]/g;
const MAX_NAME_CHARS = 64;

export type ResolvedCall =
  | { kind: "agent"; call: AgentCall }
  | { kind: "client"; call: ClientFunctionCall }
  | { kind: "malformed"; message: string };

export interface ToolDirectoryInput {
  /** Whether code_execution is offered (an agent interaction unless `tools` leaves it out). */
  codeExecution: boolean;
  /** Whether the file tools are offered (always for an agent; never for a model interaction). */
  fileTools: boolean;
  functions: DeclaredFunctions;
  /** Each MCP server's tools as listed (allowed_tools applied). */
  mcp: ReadonlyArray<{ server: string; tools: readonly McpToolInfo[] }>;
  /** The largest parameters schema compiled to check a call (EMULATOR_MAX_SCHEMA_BYTES). */
  maxSchemaChars?: number;
}

export class ToolDirectory {
  readonly declarations: FunctionDeclaration[] = [];
  private readonly builtins = new Set<ToolName>();
  private readonly mcpTools = new Map<string, { server: string; name: string }>();
  private readonly functions: FunctionCallChecker;

  constructor(input: ToolDirectoryInput) {
    for (const name of TOOL_NAMES) {
      const offered = name === "code_execution" ? input.codeExecution : input.fileTools;
      if (!offered) continue;
      this.builtins.add(name);
      this.declarations.push({ name, description: BUILTIN_DESCRIPTIONS[name], parameters: builtinParameters(name) });
    }
    // [choice] A request function named like a built-in tool is not declared: the built-in is.
    const functions = input.functions.filter((declared) => !this.builtins.has(declared.name as ToolName));
    this.functions = new FunctionCallChecker(functions, input.maxSchemaChars);
    for (const declared of functions) {
      this.declarations.push({
        name: declared.name,
        description: declared.description ?? "",
        parameters: isObject(declared.parameters) ? declared.parameters : { type: "object", properties: {} },
      });
    }
    for (const { server, tools } of input.mcp) {
      for (const tool of tools) {
        const name = this.uniqueName(`mcp__${server}__${tool.name}`);
        this.mcpTools.set(name, { server, name: tool.name });
        this.declarations.push({
          name,
          description: `${tool.description}${tool.description ? " " : ""}(tool "${tool.name}" of the MCP server "${server}")`,
          parameters: tool.inputSchema,
        });
      }
    }
  }

  /** What the model's call asks for, or why it cannot be made (the model is told, and may try again). */
  resolve(name: string, argumentsText: string): ResolvedCall {
    let args: unknown;
    try {
      args = argumentsText.trim() === "" ? {} : JSON.parse(argumentsText);
    } catch {
      return { kind: "malformed", message: `the arguments of ${name} are not JSON (${shorten(argumentsText)}); send a JSON object` };
    }
    if (typeof args !== "object" || args === null || Array.isArray(args)) {
      return { kind: "malformed", message: `the arguments of ${name} must be a JSON object, not ${shorten(argumentsText)}` };
    }
    const record = args as Record<string, unknown>;
    if (this.builtins.has(name as ToolName)) {
      const parsed = parseToolCall(name, record);
      return parsed.ok ? { kind: "agent", call: parsed.call } : { kind: "malformed", message: parsed.message };
    }
    const mcp = this.mcpTools.get(name);
    if (mcp) return { kind: "agent", call: { server: mcp.server, name: mcp.name, args: record } };
    if (this.functions.isDeclared(name)) {
      const checked = this.functions.check(name, record, "function");
      return checked.ok
        ? { kind: "client", call: { name, arguments: checked.call.args } }
        : { kind: "malformed", message: checked.message };
    }
    const known = this.declarations.map((declaration) => declaration.name).join(", ");
    return { kind: "malformed", message: `there is no tool "${name}"; the tools are ${known || "none"}` };
  }

  /** The declared name of an MCP tool: only the characters models accept, shortened, never a duplicate. */
  private uniqueName(wanted: string): string {
    const base = wanted.replace(NAME_CHARS, "_").slice(0, MAX_NAME_CHARS);
    let name = base;
    for (let n = 2; this.declarations.some((declaration) => declaration.name === name); n++) {
      const suffix = `_${n}`;
      name = base.slice(0, MAX_NAME_CHARS - suffix.length) + suffix;
    }
    return name;
  }
}

/** A built-in tool's parameters as JSON Schema, from the zod schema that checks its calls. */
function builtinParameters(name: ToolName): Record<string, unknown> {
  // io: "input": a field with a default (language, path) is optional to the caller.
  const { $schema: _dialect, ...schema } = z.toJSONSchema(toolArgSchemas[name], { io: "input" }) as Record<string, unknown>;
  return schema;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function shorten(text: string): string {
  return text.length > 80 ? `${JSON.stringify(text.slice(0, 80))}…` : JSON.stringify(text);
}
