// Runs one built-in tool call inside a sandbox through its executor channel and turns the outcome into
// the text the interaction records. The tools run as the sandbox's unprivileged user, so the
// operating system's permissions (and read-only mounts) apply to them as they would to the agent.

import { isAscii, isUtf8 } from "node:buffer";
import path from "node:path/posix";
import { StringDecoder } from "node:string_decoder";
import type { ToolCall } from "./tool-call.js";
import { SANDBOX_WORKDIR } from "../sandbox/layout.js";
import { SandboxFileError, type CommandRequest, type FileOperationReads, type FreshRead, type SandboxChannel } from "../sandbox/runtime.js";

export interface ToolLimits {
  timeoutMs: number;
  maxOutputBytes: number;
  /** The sandbox's disk limit (EMULATOR_SANDBOX_DISK_MB), named when a write hits it. */
  diskLimitMb?: number;
}

export interface ToolContext extends ToolLimits {
  /** The environment's variables (environment.env), seen by every command. */
  env?: Record<string, string>;
}

export interface ToolExecution {
  /**
   * The result text recorded in the step. For code_execution it begins with exactly the text passed to
   * `onOutput` (stdout and stderr as they arrived), followed by truncation and status notes.
   */
  result: string;
  isError: boolean;
  /** For post hooks: stderr text or the failed file operation's message; absent on a clean run. */
  errorText?: string;
  exitCode?: number | null;
  /** The files the observer's `reads.readAfter` asked for, as read once the tool had ended. */
  readsAfter?: FreshRead[];
}

/** Relative paths in tool arguments resolve against the working folder, as a shell would. */
export function resolveToolPath(input: string): string {
  return path.resolve(SANDBOX_WORKDIR, input);
}

export interface ToolObserver {
  /** code_execution output (stdout and stderr, decoded as UTF-8) as it is produced. */
  onOutput?: (text: string) => void;
  /** Cancels a running command: its process tree is killed and the result says "[cancelled]". */
  signal?: AbortSignal;
  /**
   * Files the tool's own request reads around it (the hooks' hooks.json): a command's, see
   * CommandRequest; a file operation's, see FileOperationReads.
   */
  reads?: Pick<CommandRequest, "unlessChanged" | "onStarted" | "readAfter">;
}

export async function runTool(
  channel: SandboxChannel,
  call: ToolCall,
  limits: ToolContext,
  observer: ToolObserver = {},
): Promise<ToolExecution> {
  if (call.name === "code_execution") {
    return await runCode(channel, String(call.args.code ?? ""), call.args.language === "python" ? "python" : "bash", limits, observer);
  }
  // A file tool's reads after it are the post hooks' whether it succeeded or failed.
  let readsAfter: FreshRead[] | undefined;
  const reads: FileOperationReads | undefined = observer.reads && {
    ...observer.reads,
    onReadsAfter: (files) => {
      readsAfter = files;
    },
  };
  const withReads = (execution: ToolExecution): ToolExecution => (readsAfter ? { ...execution, readsAfter } : execution);
  try {
    switch (call.name) {
      case "read_file":
        return withReads(await readFile(channel, resolveToolPath(String(call.args.path)), limits, reads));
      case "write_file": {
        const target = resolveToolPath(String(call.args.path));
        const content = Buffer.from(String(call.args.content ?? ""), "utf8");
        await channel.writeFile(target, content, undefined, reads);
        return withReads({ result: `Wrote ${content.length} bytes to ${target}.`, isError: false });
      }
      case "list_files":
        return withReads(await listFiles(channel, resolveToolPath(String(call.args.path ?? ".")), reads));
      case "delete_file": {
        const target = resolveToolPath(String(call.args.path));
        await channel.deleteFile(target, call.args.recursive === true, reads);
        return withReads({ result: `Deleted ${target}.`, isError: false });
      }
    }
  } catch (error) {
    if (error instanceof SandboxFileError) {
      const full = ["EFBIG", "ENOSPC", "EDQUOT"].includes(error.code) ? diskLimitNote(limits.diskLimitMb) : "";
      return withReads({ result: error.message + full, isError: true, errorText: error.message });
    }
    throw error;
  }
}

async function runCode(
  channel: SandboxChannel,
  code: string,
  language: "bash" | "python",
  limits: ToolContext,
  observer: ToolObserver,
): Promise<ToolExecution> {
  const argv = language === "python" ? ["python3", "-c", code] : ["bash", "-c", code];
  // stdout and stderr interleaved as they arrive, as a terminal shows them; one decoder per stream so
  // a character split across chunks is never garbled.
  const decoders = { stdout: new StringDecoder("utf8"), stderr: new StringDecoder("utf8") };
  let output = "";
  const take = (text: string) => {
    if (text === "") return;
    output += text;
    observer.onOutput?.(text);
  };
  const run = await channel.run({
    argv,
    cwd: SANDBOX_WORKDIR,
    timeoutMs: limits.timeoutMs,
    maxOutputBytes: limits.maxOutputBytes,
    ...(limits.env ? { env: limits.env } : {}),
    onOutput: (stream, chunk) => take(decoders[stream].write(chunk)),
    ...(observer.signal ? { signal: observer.signal } : {}),
    ...observer.reads,
  });
  take(decoders.stdout.end());
  take(decoders.stderr.end());
  const stderr = run.stderr.toString("utf8");
  const parts = [output];
  if (run.stdoutBytes > run.stdout.length) parts.push(truncationNote("stdout", run.stdout.length, run.stdoutBytes));
  if (run.stderrBytes > run.stderr.length) parts.push(truncationNote("stderr", run.stderr.length, run.stderrBytes));
  let failed = false;
  if (run.timedOut) {
    parts.push(`\n[killed: the command ran longer than ${Math.round(limits.timeoutMs / 1000)} s]`);
    failed = true;
  } else if (run.overDiskLimit) {
    parts.push(`\n[killed: ${overDiskLimitNote(limits.diskLimitMb)}]`);
    failed = true;
  } else if (run.cancelled) {
    parts.push("\n[cancelled]");
    failed = true;
  } else if (run.exitCode !== 0) {
    parts.push(run.exitCode === null ? `\n[killed by ${run.signal ?? "a signal"}]` : `\n[exit status ${run.exitCode}]`);
    // SIGXFSZ (or a shell's 128 + 25 for a child it killed), or a program that ignores the signal and
    // reports EFBIG or ENOSPC (Python does): a write reached the disk limit.
    if (run.signal === "SIGXFSZ" || run.exitCode === 153 || /File too large|No space left on device/.test(stderr)) {
      parts.push(diskLimitNote(limits.diskLimitMb));
    }
    failed = true;
  }
  const execution: ToolExecution = { result: parts.join(""), isError: failed, exitCode: run.exitCode };
  if (stderr) execution.errorText = stderr;
  if (run.readsAfter) execution.readsAfter = run.readsAfter;
  return execution;
}

/** Why a write stopped at the disk limit, and what to do; the limit is named when it is known. */
export function diskLimitNote(limitMb: number | undefined): string {
  const limit =
    limitMb === undefined ? "the sandbox's disk limit" : `the sandbox's disk limit of ${limitMb} MiB (EMULATOR_SANDBOX_DISK_MB)`;
  return `\n[a write was stopped at ${limit}: no file, nor the sandbox's files together, may grow past it; delete files you do not need, or raise the setting]`;
}

/** Why the disk guard stopped everything of the sandbox's, and what to do. */
function overDiskLimitNote(limitMb: number | undefined): string {
  const limit = limitMb === undefined ? "its disk limit" : `its disk limit of ${limitMb} MiB (EMULATOR_SANDBOX_DISK_MB)`;
  return `the sandbox's files passed ${limit} in total, so every process of the sandbox's was stopped; delete files you do not need, or raise the setting`;
}

function truncationNote(stream: string, kept: number, total: number): string {
  return `\n[${stream} truncated: kept ${kept} of ${total} bytes]\n`;
}

async function readFile(channel: SandboxChannel, target: string, limits: ToolLimits, reads?: FileOperationReads): Promise<ToolExecution> {
  const file = await channel.readFile(target, limits.maxOutputBytes, reads);
  const note = file.truncated ? `\n[truncated: showing ${file.content.length} of ${file.size} bytes]` : "";
  // Valid UTF-8 is shown as text (checked in place, not by encoding the text again); binary content as base64.
  // ASCII (most files an agent reads) is decoded as Latin-1: the same text, without UTF-8's decoding work.
  if (isAscii(file.content)) return { result: file.content.toString("latin1") + note, isError: false };
  if (isUtf8(file.content)) return { result: file.content.toString("utf8") + note, isError: false };
  return { result: `[binary file, ${file.size} bytes, shown as base64]\n${file.content.toString("base64")}${note}`, isError: false };
}

async function listFiles(channel: SandboxChannel, target: string, reads?: FileOperationReads): Promise<ToolExecution> {
  const entries = await channel.listFiles(target, reads);
  if (entries.length === 0) return { result: `${target} is empty.`, isError: false };
  const lines = entries.map((entry) =>
    entry.type === "directory"
      ? `${entry.name}/`
      : entry.type === "file"
        ? `${entry.name} (${entry.size} bytes)`
        : `${entry.name} (${entry.type})`,
  );
  return { result: lines.join("\n"), isError: false };
}
