// What one hook evaluation adds to its owner's coverage: a handful of counter keys, one for the call,
// one per rule considered and one per handler planned. Pure: the trace in, keys out; the store adds
// them up (coverage-store.ts), so a thousand calls of one configuration cost a thousand increments of
// the same few rows, not a thousand rows.

import type { HookEvent, HookHandlerTrace, HookTrace } from "../hooks/trace.js";

/** The built-in tools hooks guard (docs/hooks.md): the ones `unmatched_tools` is chosen from. */
export const BUILTIN_TOOLS = ["code_execution", "read_file", "write_file", "list_files", "delete_file"] as const;

/** Rule and handler index of a count about the call as a whole, or about a rule (no handler). */
export const NONE = -1;

/**
 * What a counter counts. About the call (sha256 ""): `call` (an evaluation of the tool), `call_matched`
 * (one in which some rule matched). About a rule (handler_index NONE): its RuleMatch. About a handler:
 * `allowed`, `denied`, `failed_open:<code>`, `not_run` (pre); `ran`, `error:<code>`, `not_run` (post).
 */
export type CountOutcome = string;

export interface CountKey {
  sha256: string;
  path: string;
  group: string;
  event: HookEvent;
  ruleIndex: number;
  handlerIndex: number;
  toolName: string;
  outcome: CountOutcome;
}

export function countsOfTrace(trace: HookTrace): CountKey[] {
  const { event, tool_name: toolName } = trace;
  const shaOf = new Map(trace.files.flatMap((file) => (file.sha256 ? [[file.path, file.sha256] as const] : [])));
  const call = { sha256: "", path: "", group: "", event, ruleIndex: NONE, handlerIndex: NONE, toolName };
  const keys: CountKey[] = [{ ...call, outcome: "call" }];
  if (trace.rules.some((rule) => rule.match === "matched")) keys.push({ ...call, outcome: "call_matched" });
  for (const rule of trace.rules) {
    const sha256 = shaOf.get(rule.file);
    if (sha256 === undefined) continue;
    keys.push({
      sha256,
      path: rule.file,
      group: rule.group,
      event,
      ruleIndex: rule.rule_index,
      handlerIndex: NONE,
      toolName,
      outcome: rule.match,
    });
  }
  for (const handler of trace.handlers) {
    const sha256 = shaOf.get(handler.file);
    if (sha256 === undefined) continue;
    keys.push({
      sha256,
      path: handler.file,
      group: handler.group,
      event,
      ruleIndex: handler.rule_index,
      handlerIndex: handler.handler_index,
      toolName,
      outcome: handlerOutcome(handler),
    });
  }
  return keys;
}

function handlerOutcome(handler: HookHandlerTrace): CountOutcome {
  switch (handler.decision) {
    case "not_run":
      return "not_run";
    case "deny":
      return "denied";
    case "allow":
      return handler.fail_open ? `failed_open:${handler.fail_open.code}` : "allowed";
    case "ignored":
      return handler.failure ? `error:${handler.failure.code}` : "ran";
  }
}
