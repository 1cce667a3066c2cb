// Short builders for the tool calls tests expect, shared by the planner and report tests.
import type { ToolCall } from "../../server/tools/tool-call.js";

export const bash = (code: string): ToolCall => ({ name: "code_execution", args: { code, language: "bash" } });
export const python = (code: string): ToolCall => ({ name: "code_execution", args: { code, language: "python" } });
export const read = (path: string): ToolCall => ({ name: "read_file", args: { path } });
export const write = (path: string, content: string): ToolCall => ({ name: "write_file", args: { path, content } });
export const list = (path: string): ToolCall => ({ name: "list_files", args: { path } });
export const remove = (path: string, recursive?: true): ToolCall => ({
  name: "delete_file",
  args: recursive ? { path, recursive } : { path },
});
