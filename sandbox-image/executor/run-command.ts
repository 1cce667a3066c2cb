// One `exec` request: spawn argv without a shell, stream capped output, enforce the deadline, and
// report exactly one exit once the process is gone.

import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { randomBytes } from "node:crypto";
import { statSync } from "node:fs";
import { describeError, logDiagnostic } from "./diagnostics.js";
import type { Identity } from "./identities.js";
import type { OomScore } from "./oom-score.js";
import { killProcessTree } from "./process-tree.js";
import { EXEC_MARKER_VARIABLE, type ExecRequest, type ExitMessage } from "./protocol.js";

/** Carried into every exec's environment so the process-tree killer can find its descendants. */

/**
 * How long to keep reading after the spawned process exited while something still holds its
 * stdout/stderr (a backgrounded grandchild inherited them). Whatever the process wrote before exiting
 * is already in the kernel's pipe buffer, so draining it takes a few event-loop turns; 100 ms covers
 * that on a loaded machine while keeping `exit` prompt. A process still holding the pipe after that
 * has outlived its parent, and we stop listening to it (its next write gets SIGPIPE/EPIPE, as a
 * background job does when its terminal goes away).
 */
const PIPE_GRACE_MS = 100;

/** setTimeout treats larger delays as 1 ms, which would kill every long-deadline command at once. */
const MAX_TIMER_DELAY_MS = 2_147_483_647;

export type StreamName = "stdout" | "stderr";
export type ExitReport = Omit<ExitMessage, "type" | "id">;

/** The exit of an exec cancelled before its command started: as if it had been killed at once. */
export function notStartedExit(): ExitReport {
  return {
    exitCode: null,
    signal: "SIGKILL",
    timedOut: false,
    cancelled: true,
    overDiskLimit: false,
    stdoutBytes: 0,
    stderrBytes: 0,
    durationMs: 0,
  };
}

export interface CommandEvents {
  output(stream: StreamName, chunk: Buffer): void;
  exit(report: ExitReport): void;
}

export interface CommandIdentity {
  /** Who runs the command; undefined runs it as the executor itself (no identities were given). */
  identity?: Identity;
  /** Set for the sandbox user's commands: they start first in line for the OOM killer. */
  oomScore?: OomScore;
}

export class RunningCommand {
  private readonly startedAt = performance.now();
  private readonly markerEntry = `${EXEC_MARKER_VARIABLE}=${randomBytes(16).toString("hex")}`;
  private child: ChildProcessWithoutNullStreams | null = null;
  private readonly forwarded = { stdout: 0, stderr: 0 };
  private readonly written = { stdout: 0, stderr: 0 };
  private timedOut = false;
  private cancelled = false;
  private overDiskLimit = false;
  private startFailed = false;
  private exitStatus: { code: number | null; signal: string | null } | null = null;
  private pipesClosed = false;
  private killing: Promise<void> | null = null;
  private killDone = false;
  private finished = false;
  private deadlineTimer: NodeJS.Timeout | null = null;
  private graceTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly request: ExecRequest,
    private readonly events: CommandEvents,
    private readonly runAs: CommandIdentity = {},
  ) {}

  start(stdin: Buffer): void {
    const [program, ...args] = this.request.argv as [string, ...string[]];
    const markerValue = this.markerEntry.slice(EXEC_MARKER_VARIABLE.length + 1);
    const { identity, oomScore } = this.runAs;
    const env: NodeJS.ProcessEnv = { ...process.env, ...this.request.env, [EXEC_MARKER_VARIABLE]: markerValue };
    // The hooks user's own HOME, whatever the environment's variables say: a HOME the sandbox user can
    // write to would let sandbox code plant startup files (Python's user site, say) in the hooks' programs.
    if (identity && identity.name !== "sandbox") env["HOME"] = identity.home;
    let child: ChildProcessWithoutNullStreams;
    try {
      const launch = (): ChildProcessWithoutNullStreams =>
        spawn(program, args, {
          cwd: this.request.cwd,
          env,
          // Own session and process group (pgid = pid), so the group can be signalled as a whole.
          detached: true,
          stdio: "pipe",
          // The child drops its supplementary groups, then sets gid and uid before exec: a process of that
          // user with no capabilities left (the kernel clears them as the uid leaves 0).
          ...(identity ? { uid: identity.uid, gid: identity.gid } : {}),
        });
      child = oomScore ? oomScore.raisedFor(launch) : launch();
    } catch (error) {
      void this.failToStart(error);
      return;
    }
    this.child = child;
    // When spawn fails (ENOENT, EACCES) Node emits 'error' and 'close' but never 'exit'.
    child.on("error", (error) => {
      if (child.pid === undefined) void this.failToStart(error);
      else logDiagnostic(`exec ${this.request.id}: ${describeError(error)}`);
    });
    // EPIPE when the program exits without reading its stdin: not the caller's problem.
    child.stdin.on("error", () => {});
    child.stdin.end(stdin);
    child.stdout.on("data", (chunk: Buffer) => this.forward("stdout", chunk));
    child.stderr.on("data", (chunk: Buffer) => this.forward("stderr", chunk));
    child.on("exit", (code, signal) => this.onExit(code, signal));
    child.on("close", () => this.onPipesClosed());
    this.deadlineTimer = setTimeout(
      () => {
        if (this.killing) return;
        this.timedOut = true;
        void this.kill();
      },
      Math.min(this.request.timeoutMs, MAX_TIMER_DELAY_MS),
    );
  }

  /** Kill on the caller's behalf; false when the command had already finished. */
  cancel(): boolean {
    if (this.finished) return false;
    if (!this.killing) this.cancelled = true;
    void this.kill();
    return true;
  }

  /** The disk guard is about to kill every process of the sandbox's: the exit says why. */
  markOverDiskLimit(): void {
    if (!this.finished) this.overDiskLimit = true;
  }

  /** Whose command this is: the disk guard stops the commands of the identities it guards. */
  get identity(): Identity | undefined {
    return this.runAs.identity;
  }

  /** Kill the whole process tree; the exit is reported once the tree is gone. */
  kill(): Promise<void> {
    if (this.killing) return this.killing;
    this.clearDeadline();
    const pid = this.child?.pid;
    this.killing = (pid === undefined ? Promise.resolve() : killProcessTree(pid, this.markerEntry, this.runAs.identity))
      .catch((error: unknown) => logDiagnostic(`exec ${this.request.id}: killing process tree: ${describeError(error)}`))
      .then(() => {
        this.killDone = true;
        this.finishIfDone();
      });
    return this.killing;
  }

  private forward(stream: StreamName, chunk: Buffer): void {
    this.written[stream] += chunk.length;
    // Past the cap we keep reading (and counting) so a chatty child never blocks on a full pipe.
    const room = this.request.maxOutputBytes - this.forwarded[stream];
    if (room <= 0) return;
    const kept = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.forwarded[stream] += kept.length;
    this.events.output(stream, kept);
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.startFailed) return;
    this.exitStatus = { code, signal };
    this.clearDeadline();
    this.graceTimer = setTimeout(() => this.abandonPipes(), PIPE_GRACE_MS);
    this.finishIfDone();
  }

  private onPipesClosed(): void {
    if (this.startFailed) return;
    this.pipesClosed = true;
    this.finishIfDone();
  }

  private abandonPipes(): void {
    this.child?.stdout.destroy();
    this.child?.stderr.destroy();
    this.pipesClosed = true;
    this.finishIfDone();
  }

  private finishIfDone(): void {
    if (this.finished || this.startFailed || !this.exitStatus || !this.pipesClosed) return;
    if (this.killing && !this.killDone) return;
    this.finish(this.exitStatus.code, this.exitStatus.signal);
  }

  private finish(exitCode: number | null, signal: string | null): void {
    this.finished = true;
    this.clearDeadline();
    if (this.graceTimer) clearTimeout(this.graceTimer);
    this.events.exit({
      exitCode,
      signal,
      timedOut: this.timedOut,
      cancelled: this.cancelled,
      overDiskLimit: this.overDiskLimit,
      stdoutBytes: this.written.stdout,
      stderrBytes: this.written.stderr,
      durationMs: Math.round(performance.now() - this.startedAt),
    });
  }

  /** Reported like a shell would: the reason on stderr, 127 for a missing program, 126 otherwise. */
  private async failToStart(error: unknown): Promise<void> {
    if (this.startFailed || this.finished) return;
    this.startFailed = true;
    this.clearDeadline();
    this.child?.stdout.destroy();
    this.child?.stderr.destroy();
    const { exitCode, text } = await describeStartFailure(error, this.request.argv[0] ?? "", this.request.cwd);
    this.forward("stderr", Buffer.from(`${text}\n`));
    this.finish(exitCode, null);
  }

  private clearDeadline(): void {
    if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
    this.deadlineTimer = null;
  }
}

async function describeStartFailure(error: unknown, program: string, cwd: string | undefined): Promise<{ exitCode: number; text: string }> {
  const code = (error as NodeJS.ErrnoException).code;
  // Node blames the program ("spawn bash ENOENT") when it is the working directory that is missing.
  if (cwd !== undefined && (code === "ENOENT" || code === "ENOTDIR" || code === "EACCES")) {
    // Synchronous, like every file system call of the executor's own: none may be in flight on libuv's
    // threads while it switches its credentials (identities.ts).
    let cwdProblem: string | null;
    try {
      cwdProblem = statSync(cwd).isDirectory() ? null : "Not a directory";
    } catch (error) {
      const statError = error as NodeJS.ErrnoException;
      cwdProblem = statError.code === "ENOENT" ? "No such file or directory" : statError.message;
    }
    if (cwdProblem !== null) return { exitCode: 126, text: `cd: ${cwd}: ${cwdProblem}` };
  }
  if (code === "ENOENT") {
    return { exitCode: 127, text: program.includes("/") ? `${program}: No such file or directory` : `${program}: command not found` };
  }
  if (code === "EACCES") return { exitCode: 126, text: `${program}: Permission denied` };
  return { exitCode: 126, text: `${program}: ${describeError(error)}` };
}
