// The functions a request declares in `tools` ({"type": "function", name, description, parameters}, the
// SDK's FunctionT), as the agent sees them. A script may call any of them; the interaction then waits in
// requires_action for the client to run it and send its result (docs/api.md#function-calling). The
// request layer reads them from the request (api/function-tools.ts); the agent only looks them up.

import { TOOL_NAMES } from "../tools/tool-call.js";

export interface FunctionDeclaration {
  name: string;
  description?: string;
  /** The JSON Schema of the arguments as declared; absent when the declaration has none (any object fits). */
  parameters?: unknown;
  /** Its index in the request's `tools`, so a message can point at the declaration. */
  toolIndex: number;
}

export type DeclaredFunctions = readonly FunctionDeclaration[];

/** Every declaration of `name` (more than one is a mistake the caller reports when the name is called). */
export function declarationsOf(functions: DeclaredFunctions, name: string): FunctionDeclaration[] {
  return functions.filter((declaration) => declaration.name === name);
}

/**
 * What a script may call, for the message about a name it may not: the sandbox tools, then the declared
 * functions (or how to declare one). Starts as the message did before functions existed, "emulated tools
 * are …", so a reader who knows it finds the same words.
 */
export function callableNamesHint(functions: DeclaredFunctions): string {
  const sandboxTools = `emulated tools are ${TOOL_NAMES.join(", ")}`;
  const names = [...new Set(functions.map((declaration) => declaration.name))];
  if (names.length === 0) {
    return `${sandboxTools}; no function is declared (to call your own, add {"type": "function", "name": "…", "parameters": {…}} to tools)`;
  }
  return `${sandboxTools}; the functions declared in tools are ${names.join(", ")}`;
}
