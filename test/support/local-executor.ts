// Runs the executor as a plain child process on this host: for tests, and for debugging the protocol
// without Docker. No isolation whatsoever; never hand one of these to untrusted code.

import { spawn, type ChildProcessByStdio } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { ExecutorClient } from "../../server/sandbox/executor-client.js";

export interface LocalExecutorOptions {
  /** Working directory of the executor (relative request paths resolve against it). */
  cwd?: string;
  /** The executor's environment; defaults to this process's. */
  env?: NodeJS.ProcessEnv;
  /** Where the executor's diagnostics go; defaults to this process's stderr. */
  onDiagnostics?: (text: string) => void;
}

export interface LocalExecutor {
  channel: ExecutorClient;
  child: ChildProcessByStdio<Writable, Readable, Readable>;
  /** Resolves with how the executor process ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Graceful: close the channel (the executor kills its commands and exits); SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
  /** Immediate SIGKILL of the executor alone; commands it started keep running (they have their own sessions). */
  kill(): Promise<void>;
}

/** `executorPath` is the executor binary (executorBinaryPath in server/common/paths.ts): a program of its own, no runtime. */
export function spawnLocalExecutor(executorPath: string, options: LocalExecutorOptions = {}): LocalExecutor {
  const child = spawn(executorPath, [], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const onDiagnostics = options.onDiagnostics ?? ((text: string) => process.stderr.write(text));
  child.stderr.on("data", (chunk: Buffer) => onDiagnostics(chunk.toString("utf8")));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("exit", (code, signal) => resolve({ code, signal }));
    // A failed spawn emits 'close' but never 'exit'.
    child.once("close", (code, signal) => resolve({ code, signal }));
  });
  // A spawn failure (a missing binary) surfaces as a closed channel; the 'error' itself must not crash us.
  child.on("error", (error) => onDiagnostics(`local executor: ${error.message}\n`));
  const channel = new ExecutorClient(child.stdout, child.stdin);

  const kill = async (): Promise<void> => {
    child.kill("SIGKILL");
    await exited;
  };
  const stop = async (graceMs = 5000): Promise<void> => {
    channel.close();
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    try {
      await exited;
    } finally {
      clearTimeout(timer);
    }
  };
  return { channel, child, exited, stop, kill };
}
