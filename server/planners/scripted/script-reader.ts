// The exact way to ask the emulated agent for tool calls (docs/api.md#the-emulated-agent): one block
// fenced as ```tool_calls holding a JSON array of {name, args}. Tests rely on it, so a malformed script
// is refused with a message naming each bad item and what to fix, never guessed at. A name the request
// declares as a function (and that is no sandbox tool) is a call for the client (function-calls.ts).

import { describeValueKind, isToolName, parseToolCall } from "../../tools/tool-call.js";
import { findFencedBlocks } from "./fenced-blocks.js";
import { FunctionCallChecker, type PlannedCall } from "../../agent/function-calls.js";
import { mcpNameHint, readMcpScriptItem } from "./mcp-script-item.js";

const EXAMPLE_CALL = '{"name": "read_file", "args": {"path": "/workspace/a.txt"}}';
/** An info string whose first word is tool_calls or a near miss of it (tool-calls, toolcall, …). */
export const TOOL_CALLS_OPENER = /^tool[_-]?calls?(?:\s|$)/i;

export type ScriptReading = { kind: "absent" } | { kind: "calls"; calls: PlannedCall[] } | { kind: "invalid"; message: string };

export interface ScriptOptions {
  /** The names of the MCP servers the request declares, which items with a "server" key may call. */
  mcpServers?: readonly string[];
}

/**
 * The calls of the input's tool_calls block; "absent" when it has none (the phrasings are read then).
 * `functions` knows the request's declared functions, which the script may call too, as it may the
 * tools of the declared MCP servers.
 */
export function readToolCallsScript(
  text: string,
  functions: FunctionCallChecker = new FunctionCallChecker(),
  options: ScriptOptions = {},
): ScriptReading {
  const script = findToolCallsScript(text);
  return script.kind === "found" ? parseScript(script.body, functions, options.mcpServers ?? []) : script;
}

type ScriptSearch = { kind: "absent" } | { kind: "found"; body: string } | { kind: "invalid"; message: string };

function findToolCallsScript(text: string): ScriptSearch {
  const scripts = findFencedBlocks(text, (info) => TOOL_CALLS_OPENER.test(info));
  if (scripts.length === 0) {
    // A one-line ```tool_calls [...]``` has no opener line; say so rather than read it as prose.
    if (/```[ \t]*tool[_-]?calls?\b/i.test(text)) {
      return invalid(
        "the tool_calls block must be fenced on lines of its own: ```tool_calls on one line, the JSON array on the next lines, then ``` on a line by itself",
      );
    }
    return { kind: "absent" };
  }
  if (scripts.length > 1) return invalid(`found ${scripts.length} tool_calls blocks; put all the calls in one block's JSON array`);
  const [script] = scripts;
  if (!script) return { kind: "absent" };
  const [marker, ...extra] = script.info.split(/\s+/);
  if (marker?.toLowerCase() !== "tool_calls") {
    return invalid(`found a \`\`\`${marker} block; the emulated agent runs only blocks marked exactly \`\`\`tool_calls`);
  }
  if (extra.length > 0) return invalid("nothing may follow ```tool_calls on its opening line; start the JSON array on the next line");
  if (!script.closed) return invalid("the tool_calls block is not closed; end it with ``` on a line by itself");
  return { kind: "found", body: script.body };
}

function parseScript(body: string, functions: FunctionCallChecker, mcpServers: readonly string[]): ScriptReading {
  if (body.trim() === "") return invalid(`the tool_calls block is empty; it must hold a JSON array of calls like [${EXAMPLE_CALL}]`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return invalid(`the tool_calls block is not valid JSON (${reason}); it must hold a JSON array of calls like [${EXAMPLE_CALL}]`);
  }
  if (!Array.isArray(parsed)) {
    const looksLikeOneCall = typeof parsed === "object" && parsed !== null && "name" in parsed;
    return invalid(
      looksLikeOneCall
        ? "the tool_calls block must hold a JSON array; wrap the single call in [ ]"
        : `the tool_calls block must hold a JSON array of calls like [${EXAMPLE_CALL}], got ${describeValueKind(parsed)}`,
    );
  }
  if (parsed.length === 0) return invalid(`the tool_calls array is empty; add at least one call like ${EXAMPLE_CALL}`);

  const calls: PlannedCall[] = [];
  const problems: string[] = [];
  parsed.forEach((item: unknown, index) => {
    // 1-based, as a person counts the lines of their script.
    const label = `tool_calls item ${index + 1}`;
    const checked = checkScriptItem(item, functions, mcpServers);
    if (typeof checked === "string") problems.push(`${label}: ${checked}`);
    else calls.push(checked);
  });
  // One line per item, so several mistakes can be fixed in one go.
  if (problems.length > 0) return invalid(problems.join("\n"));
  return { kind: "calls", calls };
}

const MISNAMED_ARGS_KEYS = new Set(["arguments", "parameters", "params", "input", "tool_input"]);

function checkScriptItem(item: unknown, functions: FunctionCallChecker, mcpServers: readonly string[]): PlannedCall | string {
  if (typeof item !== "object" || item === null || Array.isArray(item)) {
    return `expected an object like ${EXAMPLE_CALL}, got ${describeValueKind(item)}`;
  }
  const record = item as Record<string, unknown>;
  const unknownKeys = Object.keys(record).filter((key) => key !== "name" && key !== "args" && key !== "server");
  const firstUnknown = unknownKeys[0];
  if (firstUnknown !== undefined) {
    // "arguments" is what the interaction's steps use, so it is the likeliest slip.
    if (MISNAMED_ARGS_KEYS.has(firstUnknown) && !("args" in record))
      return `unknown key "${firstUnknown}"; write the arguments under "args"`;
    const mcpNote = mcpServers.length > 0 ? ' (and "server", for an MCP tool)' : "";
    return `unknown key${unknownKeys.length > 1 ? "s" : ""} ${unknownKeys.map((key) => `"${key}"`).join(", ")}; an item has only "name" and "args"${mcpNote}`;
  }
  if ("server" in record) return readMcpScriptItem(record, mcpServers);
  if (!("name" in record)) return `missing "name"; ${functions.hint}`;
  const withMcpHint = (message: string): string => {
    const hint = mcpNameHint(record.name, mcpServers);
    return hint === undefined ? message : `${message}; ${hint}`;
  };
  // [choice] A sandbox tool's name always means the sandbox tool, even if a function of that name is declared.
  if (typeof record.name === "string" && !isToolName(record.name)) {
    const checked = functions.check(record.name, record.args);
    return checked.ok ? checked.call : withMcpHint(checked.message);
  }
  const parsed = parseToolCall(record.name, record.args);
  return parsed.ok ? parsed.call : withMcpHint(parsed.message);
}

function invalid(message: string): { kind: "invalid"; message: string } {
  return { kind: "invalid", message };
}
