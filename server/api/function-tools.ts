// The function declarations of a request's `tools` ({"type": "function", name, description, parameters},
// the SDK's FunctionT), for the agent. [choice] Nothing about a declaration is refused here: a request
// that declares functions and never calls them runs as it did before functions could be called (they
// are echoed). A declaration is checked when a script calls it (agent/function-calls.ts), and a problem
// with it is then a 400 naming tools[i].

import type { FunctionDeclaration } from "../agent/declared-functions.js";
import type { CreateInteractionRequest } from "./create-interaction.js";

export function declaredFunctions(tools: CreateInteractionRequest["tools"]): FunctionDeclaration[] {
  const declarations: FunctionDeclaration[] = [];
  (tools ?? []).forEach((tool, toolIndex) => {
    if (tool.type !== "function" || typeof tool.name !== "string" || tool.name === "") return;
    declarations.push({
      name: tool.name,
      ...(typeof tool.description === "string" ? { description: tool.description } : {}),
      ...(tool.parameters !== undefined ? { parameters: tool.parameters } : {}),
      toolIndex,
    });
  });
  return declarations;
}
