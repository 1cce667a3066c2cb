// The command line (bin/interactions-emulator.mjs) as a user runs it: a child process, its output
// collected, its exit awaited. `detached` puts it in a process group of its own, so that a test can
// send Ctrl-C the way a terminal does (to the whole foreground group).

import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { projectRoot } from "../../server/common/paths.js";

export const CLI_BIN = path.join(projectRoot, "bin", "interactions-emulator.mjs");

export interface CliRun {
  child: ChildProcess;
  /** Everything printed so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has exited. */
  exited: Promise<{ status: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the first match of `pattern` in stdout + stderr (rejects if the process ends first). */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
  /** SIGINT to the process group, as Ctrl-C in a terminal (needs `detached`). */
  interrupt(): void;
}

export function startCli(argv: string[], options: { cwd?: string; env?: Record<string, string>; command?: string[] } = {}): CliRun {
  const command = options.command ?? [process.execPath, CLI_BIN];
  const env: Record<string, string | undefined> = { ...process.env, ...options.env };
  // Set by node:test in the files it runs: a `node --test` started here would take itself for a subtest.
  delete env.NODE_TEST_CONTEXT;
  const child = spawn(command[0]!, [...command.slice(1), ...argv], {
    cwd: options.cwd ?? projectRoot,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let out = "";
  let err = "";
  const waiters: Array<() => void> = [];
  const notify = () => {
    for (const waiter of waiters.splice(0)) waiter();
  };
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
    notify();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString("utf8");
    notify();
  });
  let ended = false;
  const exited = new Promise<{ status: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("close", (status, signal) => {
      ended = true;
      resolve({ status, signal });
      notify();
    }),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        const look = () => {
          const match = pattern.exec(out + err);
          if (match) return resolve(match);
          if (ended) return reject(new Error(`exited before printing ${pattern}:\n${out}\n${err}`));
          waiters.push(look);
        };
        look();
      }),
    interrupt: () => {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGINT");
    },
  };
}

/** Runs the command line to its end. */
export async function runCliProcess(
  argv: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const run = startCli(argv, options);
  const { status } = await run.exited;
  return { status, stdout: run.stdout(), stderr: run.stderr() };
}
