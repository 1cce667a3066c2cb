// The plain phrasing for an MCP tool call (docs/api.md#mcp-server-tools): "call the MCP tool `search`
// on `docs` with {"q": "hooks"}". Literal like the other phrasings: the tool and the server in
// backticks or quotes (or a bare word), the arguments one JSON object (bare, in backticks or in a
// fenced block); anything else in such a step is named in the answer, never guessed. "call" is a verb
// only right before "(the) MCP tool", so prose that says "call" is read as before.

import { isMcpCall, type McpToolCall } from "../../agent/agent-call.js";
import { resolvePlaceholders, type MaskedText } from "./protected-spans.js";
import { unreadable, type PhrasingStep, type StepReading } from "./step-reading.js";

/** What must follow "call" for it to be a request. */
export const MCP_TOOL_AFTER = /^\s+(?:the\s+)?mcp\s+tool\b/i;

const NAME = "(\\uE000\\d+\\uE001|[\\w.\\-/]+)";
const CALL_SHAPE = new RegExp(
  `^\\s+(?:the\\s+)?mcp\\s+tool\\s+${NAME}\\s+(?:on|from|of|at)\\s+(?:the\\s+)?(?:mcp\\s+)?(?:server\\s+)?${NAME}` +
    "(?:\\s*,?\\s+with\\b\\s*:?\\s*(?:the\\s+)?(?:(?:arguments|args|input)\\b\\s*:?\\s*)?([\\s\\S]*?))?[\\s.!?]*$",
  "i",
);
const EXAMPLE = 'call the MCP tool `search` on `docs` with {"q": "hooks"}';

export function readMcpCallStep(step: PhrasingStep): StepReading {
  const { segment, masked, verb } = step;
  const shape = CALL_SHAPE.exec(segment.slice(verb.end));
  if (!shape) return unreadable(step, "call an MCP tool", `I could not tell which tool of which server (write it like: ${EXAMPLE})`);
  const name = nameOf(shape[1] ?? "", masked);
  const server = nameOf(shape[2] ?? "", masked);
  const argsText = shape[3] === undefined ? "" : argumentsText(shape[3], masked);
  let args: Record<string, unknown> = {};
  if (argsText !== "") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(argsText);
    } catch {
      parsed = undefined;
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
      return unreadable(step, "call an MCP tool", `its arguments are not one JSON object (write it like: ${EXAMPLE})`);
    }
    args = parsed as Record<string, unknown>;
  }
  const call: McpToolCall = { server, name, args };
  return { kind: "calls", calls: [call], lastPath: step.context.lastPath };
}

/** A name in backticks or quotes is taken exactly; a bare word as it is. */
function nameOf(token: string, masked: MaskedText): string {
  const placeholder = /^\uE000(\d+)\uE001$/.exec(token);
  const span = placeholder ? masked.spans[Number(placeholder[1])] : undefined;
  return span ? resolvePlaceholders(span.value, masked.spans) : token;
}

/** The arguments as written: one span's content, or the text restored with its quotes. */
function argumentsText(text: string, masked: MaskedText): string {
  const trimmed = text.trim();
  const placeholder = /^\uE000(\d+)\uE001$/.exec(trimmed);
  const span = placeholder ? masked.spans[Number(placeholder[1])] : undefined;
  return (span ? resolvePlaceholders(span.value, masked.spans) : resolvePlaceholders(trimmed, masked.spans)).trim();
}

/**
 * The phrased MCP calls whose server the request declares; each other one becomes a note for the
 * answer (a plain request is never refused, it is told what was skipped).
 */
export function keepDeclaredMcpCalls<Call extends { name: string }>(
  calls: readonly Call[],
  servers: readonly string[],
): { calls: Call[]; notes: string[] } {
  const kept: Call[] = [];
  const notes: string[] = [];
  for (const call of calls) {
    if (isMcpCall(call) && !servers.includes(call.server)) notes.push(undeclaredNote(call, servers));
    else kept.push(call);
  }
  return { calls: kept, notes };
}

function undeclaredNote(call: McpToolCall, servers: readonly string[]): string {
  const declared =
    servers.length === 0
      ? "the request declares no mcp_server tools"
      : `the request declares ${servers.map((name) => `"${name}"`).join(", ")}`;
  return `I skipped the call of the MCP tool "${call.name}" on "${call.server}": no mcp_server of that name is in the request's tools (${declared}).`;
}
