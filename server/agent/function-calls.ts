// The calls of a script that go to the client rather than the sandbox: a name the request declares as a
// function in `tools`, with arguments that fit its declared parameters. The script and phrasing readers
// hand every such call to a FunctionCallChecker, which either returns the planned call or says, in one
// sentence, what to fix (docs/api.md#function-calling).

import { describeValueKind } from "../tools/tool-call.js";
import type { AgentCall } from "./agent-call.js";
import { callableNamesHint, declarationsOf, type DeclaredFunctions } from "./declared-functions.js";
import { FunctionArgumentChecker } from "./function-arguments.js";

/** A call of a declared function: the agent hands it to the client, which runs it and sends the result. */
export interface PlannedFunctionCall {
  kind: "function";
  name: string;
  args: Record<string, unknown>;
}

/**
 * One call of a plan: a sandbox tool (run by the agent, guarded by hooks), an MCP server's tool (run by
 * the agent outside the sandbox, no hook firing), or a function (run by the client).
 */
export type PlannedCall = AgentCall | PlannedFunctionCall;

export function isFunctionCall(call: PlannedCall): call is PlannedFunctionCall {
  return (call as Partial<PlannedFunctionCall>).kind === "function";
}

export type FunctionCallCheck = { ok: true; call: PlannedFunctionCall } | { ok: false; message: string };

/** Checks calls against one request's declared functions; make one per request. */
export class FunctionCallChecker {
  private readonly argumentChecker: FunctionArgumentChecker;

  /** `maxSchemaChars`: the largest parameters schema compiled (EMULATOR_MAX_SCHEMA_BYTES). */
  constructor(
    readonly functions: DeclaredFunctions = [],
    maxSchemaChars?: number,
  ) {
    this.argumentChecker = new FunctionArgumentChecker(maxSchemaChars);
  }

  isDeclared(name: string): boolean {
    return declarationsOf(this.functions, name).length > 0;
  }

  /** What a script may call, for a message about a name it may not. */
  get hint(): string {
    return callableNamesHint(this.functions);
  }

  /**
   * The call of the declared function `name` with `args` (missing args count as {}), or why it cannot be
   * made: the name is not declared, declared twice, or the arguments do not fit its parameters.
   * `named` says what the input called the name: any tool (a script's item), or a function (a phrasing).
   */
  check(name: string, args: unknown, named: "tool" | "function" = "tool"): FunctionCallCheck {
    const declarations = declarationsOf(this.functions, name);
    const [declaration] = declarations;
    if (!declaration) {
      const what = named === "function" ? `no function "${name}" is declared` : `unknown tool "${name}"`;
      return { ok: false, message: `${what}; ${this.hint}` };
    }
    if (declarations.length > 1) {
      const where = declarations.map((each) => `tools[${each.toolIndex}]`).join(", ");
      return { ok: false, message: `function ${name} is declared ${declarations.length} times (${where}); declare each function once` };
    }
    const givenArgs = args === undefined ? {} : args;
    if (typeof givenArgs !== "object" || givenArgs === null || Array.isArray(givenArgs)) {
      return { ok: false, message: `the arguments of function ${name} must be an object, got ${describeValueKind(givenArgs)}` };
    }
    const record = givenArgs as Record<string, unknown>;
    const problems = this.argumentChecker.check(declaration, record);
    if (problems.length > 0) return { ok: false, message: `function ${name}: ${problems.join("; ")}` };
    return { ok: true, call: { kind: "function", name, args: record } };
  }
}
