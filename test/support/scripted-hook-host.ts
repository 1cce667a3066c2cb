// A HookHost whose config files live in memory and whose handlers answer as a test scripts them: the
// hooks engine's decisions in milliseconds, with every request it made kept for assertions.

import type {
  HookCommandRequest,
  HookCommandResult,
  HookConfigRead,
  HookHost,
  HookHttpRequest,
  HookHttpResult,
} from "../../server/hooks/hook-host.js";

export const ROOT_HOOKS = "/.agents/hooks.json";
export const WORKSPACE_HOOKS = "/workspace/.agents/hooks.json";

/** A command hook that ran to its end, printing `stdout`. */
export function exited(stdout = "", exitCode = 0): HookCommandResult {
  return {
    exitCode,
    signal: null,
    timedOut: false,
    stdout: Buffer.from(stdout),
    stderr: Buffer.alloc(0),
    stdoutBytes: Buffer.byteLength(stdout),
    stderrBytes: 0,
    durationMs: 1,
  };
}

/** What a command hook prints to deny a call. */
export function denyOutput(reason: string): string {
  return JSON.stringify({ decision: "deny", reason });
}

export class ScriptedHost implements HookHost {
  readonly configs = new Map<string, HookConfigRead>();
  readonly commands: HookCommandRequest[] = [];
  readonly posts: HookHttpRequest[] = [];
  onCommand: (request: HookCommandRequest) => Promise<HookCommandResult> = async () => exited();
  onPost: (request: HookHttpRequest) => Promise<HookHttpResult> = async () => ({
    ok: true,
    status: 200,
    body: Buffer.from("{}"),
    bodyBytes: 2,
    durationMs: 1,
  });

  /** readOnly: as a file on a read-only mount (a repository source) would be read. */
  withHooks(path: string, document: unknown, { readOnly = false } = {}): this {
    const text = JSON.stringify(document);
    this.configs.set(path, { status: "found", realPath: path, text, bytes: text.length, readOnly });
    return this;
  }

  async readConfig(path: string): Promise<HookConfigRead> {
    return this.configs.get(path) ?? { status: "missing" };
  }

  runCommand(request: HookCommandRequest): Promise<HookCommandResult> {
    this.commands.push(request);
    return this.onCommand(request);
  }

  postJson(request: HookHttpRequest): Promise<HookHttpResult> {
    this.posts.push(request);
    return this.onPost(request);
  }
}
