// An in-memory SandboxChannel for tests of what sits above the sandbox (the agent loop, the
// interactions): files live in a Map, and commands answer as the test scripts them, streaming their
// output through onOutput and honouring the signal the way the executor does. Only what tools and
// hooks use is implemented; the rest throws, so a test that needs more says so loudly.

import type { Duplex } from "node:stream";
import {
  SandboxFileError,
  SandboxLostError,
  SandboxUnavailableError,
  type CommandRequest,
  type CommandResult,
  type FileEntry,
  type FileInfo,
  type FileOperationReads,
  type FreshRead,
  type ReadFileResult,
  type SandboxChannel,
  type TreeEntry,
} from "../../server/sandbox/runtime.js";

export interface ScriptedOutput {
  stdout?: string;
  stderr?: string;
  exitCode?: number;
}

/** A command's result as the executor reports it (the output already passed through onOutput). */
export function commandResult(output: ScriptedOutput = {}, extra: Partial<CommandResult> = {}): CommandResult {
  const stdout = Buffer.from(output.stdout ?? "");
  const stderr = Buffer.from(output.stderr ?? "");
  return {
    exitCode: output.exitCode ?? 0,
    signal: null,
    timedOut: false,
    cancelled: false,
    overDiskLimit: false,
    stdout,
    stderr,
    stdoutBytes: stdout.length,
    stderrBytes: stderr.length,
    durationMs: 1,
    ...extra,
  };
}

/** The code a tool or hook asked to run: the last argument of `bash -c CODE` / `python3 -c CODE`. */
export function codeOf(request: CommandRequest): string {
  return request.argv[request.argv.length - 1] ?? "";
}

export class FakeSandboxChannel implements SandboxChannel {
  /** Absolute path → content. */
  readonly files = new Map<string, string>();
  /** Paths among `files` that read as lying on a read-only mount. */
  readonly readOnlyFiles = new Set<string>();
  /** Every command run, tools and hooks alike, in order. */
  readonly commands: CommandRequest[] = [];
  /** Answers each command; the default prints nothing and exits 0. */
  onRun: (request: CommandRequest) => Promise<ScriptedOutput | CommandResult> = async () => ({});
  private goneReason: string | null = null;
  private goneLost = false;
  private markClosed!: () => void;
  readonly closed = new Promise<void>((resolve) => (this.markClosed = resolve));

  /** From now on every operation fails as a sandbox that stopped answering does. */
  goAway(reason = "the executor closed its output"): void {
    this.goneReason = reason;
  }

  /** From now on every call fails as on a sandbox lost with its machine (SandboxLostError). */
  lose(reason: string): void {
    this.goneReason = reason;
    this.goneLost = true;
  }

  /** Runs `onRun` while streaming its stdout and stderr; a signal that aborts meanwhile cancels it. */
  async run(request: CommandRequest): Promise<CommandResult> {
    this.checkAlive();
    // Its reads carry no tokens, so nothing above it can have a token to ask about.
    if (request.unlessChanged) throw new Error("the fake sandbox channel does not implement unlessChanged");
    this.commands.push(request);
    const answer = await this.onRun(request);
    this.checkAlive();
    if ("durationMs" in answer) return answer;
    if (answer.stdout) request.onOutput?.("stdout", Buffer.from(answer.stdout));
    if (answer.stderr) request.onOutput?.("stderr", Buffer.from(answer.stderr));
    return commandResult(answer, request.signal?.aborted ? { cancelled: true, exitCode: null, signal: "SIGKILL" } : {});
  }

  /**
   * File operations take no reads around them: nothing above has a token to confirm (see run), and the
   * files asked for after are left for the hooks to read themselves, as when the executor cannot.
   */
  private refuseTokens(reads: FileOperationReads | undefined): void {
    if (reads?.unlessChanged) throw new Error("the fake sandbox channel does not implement unlessChanged");
  }

  async readFile(path: string, maxBytes: number, reads?: FileOperationReads): Promise<ReadFileResult> {
    this.refuseTokens(reads);
    return this.readStored(path, maxBytes);
  }

  /** What readFile answers, for readFiles too (a subclass's readFile is not readFiles' business). */
  private readStored(path: string, maxBytes: number): ReadFileResult {
    this.checkAlive();
    const text = this.files.get(path);
    if (text === undefined) throw new SandboxFileError("ENOENT", `ENOENT: no such file or directory, open '${path}'`);
    const content = Buffer.from(text);
    return {
      content: content.subarray(0, maxBytes),
      size: content.length,
      truncated: content.length > maxBytes,
      realPath: path,
      readOnlyMount: this.readOnlyFiles.has(path),
    };
  }

  /** One readFile per path, without tokens (so nothing is ever taken for unchanged). */
  async readFiles(paths: string[], maxBytes: number): Promise<FreshRead[]> {
    const reads: FreshRead[] = [];
    for (const path of paths) {
      try {
        const file = this.readStored(path, maxBytes);
        reads.push({ ok: true, file: file.truncated ? { ...file, content: Buffer.alloc(0) } : file, token: null });
      } catch (error) {
        if (!(error instanceof SandboxFileError)) throw error;
        reads.push({ ok: false, code: error.code, message: error.message, token: null });
      }
    }
    return reads;
  }

  async writeFile(path: string, content: Buffer, _mode?: number, reads?: FileOperationReads): Promise<void> {
    this.refuseTokens(reads);
    this.checkAlive();
    this.files.set(path, content.toString("utf8"));
  }

  async listFiles(path: string, reads?: FileOperationReads): Promise<FileEntry[]> {
    this.refuseTokens(reads);
    this.checkAlive();
    const prefix = path.endsWith("/") ? path : `${path}/`;
    return [...this.files.entries()]
      .filter(([name]) => name.startsWith(prefix) && !name.slice(prefix.length).includes("/"))
      .map(([name, text]): FileEntry => ({ name: name.slice(prefix.length), type: "file", size: Buffer.byteLength(text), mtimeMs: 0 }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  async deleteFile(path: string, _recursive?: boolean, reads?: FileOperationReads): Promise<void> {
    this.refuseTokens(reads);
    this.checkAlive();
    if (!this.files.delete(path)) throw new SandboxFileError("ENOENT", `ENOENT: no such file or directory, unlink '${path}'`);
  }

  async ping(): Promise<{ version: number; pid: number; uid: number }> {
    this.checkAlive();
    return { version: 1, pid: 1, uid: 1000 };
  }

  stat(_path: string): Promise<{ info: FileInfo | null; realPath: string }> {
    return notInFake("stat");
  }

  walk(
    _path: string,
    _options: { recursive: boolean; after?: string; limit: number; exclude?: string[] },
  ): Promise<{ entries: TreeEntry[]; more: boolean }> {
    return notInFake("walk");
  }

  /** What usage() answers (the fake holds no files), and how often it was asked. */
  usageAnswer = { files: 0, bytes: 0 };
  usageCalls = 0;

  async usage(): Promise<{ files: number; bytes: number }> {
    this.usageCalls += 1;
    return this.usageAnswer;
  }

  readFileChunk(_path: string, _offset: number, _length: number): Promise<{ content: Buffer; size: number }> {
    return notInFake("readFileChunk");
  }

  appendFile(_path: string, _offset: number, _content: Buffer, _options?: { create?: boolean }): Promise<number> {
    return notInFake("appendFile");
  }

  moveFile(_from: string, _to: string, _overwrite: boolean): Promise<void> {
    return notInFake("moveFile");
  }

  listenEgress(): Promise<number> {
    return notInFake("listenEgress");
  }

  onEgressStream(_handler: (stream: Duplex) => void): void {
    throw new Error("the fake sandbox channel has no egress");
  }

  close(): void {
    this.goneReason ??= "the channel was closed";
    this.markClosed();
  }

  private checkAlive(): void {
    if (this.goneReason === null) return;
    const message = `sandbox executor unavailable: ${this.goneReason}`;
    throw this.goneLost ? new SandboxLostError(message) : new SandboxUnavailableError(message);
  }
}

function notInFake(method: string): Promise<never> {
  return Promise.reject(new Error(`the fake sandbox channel does not implement ${method}`));
}
