// hooks.json files for the benchmark: one command hook on code_execution, alone or among rules that
// match other tools (a bigger file with the same work per call).

const OTHER_TOOLS = ["read_file", "write_file", "list_files", "delete_file"];

/**
 * A hooks.json of `rules` rules: the first runs `true` before every code_execution call, the others
 * match only the file tools, which the benchmark's calls never use. So the work per call is one hook
 * whatever the size, and a cost that grows with the file is overhead.
 */
export function hooksFile(rules: number): string {
  const commandRule = { matcher: "code_execution", hooks: [{ type: "command", command: "true" }] };
  const others = Array.from({ length: rules - 1 }, (_, index) => ({
    matcher: OTHER_TOOLS[index % OTHER_TOOLS.length]!,
    hooks: [{ type: "command", command: `echo rule ${index + 2}` }],
  }));
  return JSON.stringify({ bench: { pre_tool_execution: [commandRule, ...others] } }, null, 2);
}

/** The environment body whose working folder holds that hooks.json. */
export function environmentWithHooks(rules: number): Record<string, unknown> {
  return { sources: [{ type: "inline", target: "workspace/.agents/hooks.json", content: hooksFile(rules) }] };
}
