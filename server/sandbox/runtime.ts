// The sandbox runtime seam: the agent loop and the hooks engine decide, a runtime executes. Docker
// through dockerode is the production implementation and a local executor process the fast one for
// tests; nothing above this interface may assume a local Docker socket or a local file path.

import type { Duplex, Readable } from "node:stream";
import { CodedError, EmulatorError } from "../common/errors.js";
import type { FileEntry, FileInfo, RunAs, TreeEntry } from "../../sandbox-image/executor/protocol.js";

export type { FileEntry, FileInfo, RunAs, TreeEntry };

/** A file to place in a new sandbox, at an absolute, already validated path. */
export interface SandboxFile {
  /** Absolute path inside the sandbox, normalised, e.g. "/workspace/data.json". */
  path: string;
  content: Buffer;
  /** Permission bits; 0o644 for data, 0o755 for scripts that start with "#!". */
  mode: number;
  /** A file of the emulator's own in a system folder: owned by root, parents left as they are. */
  system?: boolean;
}

/** A folder mounted read-only at `path` (a repository source): neither tools nor hooks can change it. */
export interface ReadOnlyTree {
  path: string;
  /** Its content, root-owned and without write bits. */
  tar: Buffer;
}

export interface SandboxSpec {
  environmentId: string;
  /** Opaque owner tag (a hash of the API key), recorded as a container label. */
  owner: string;
  files: SandboxFile[];
  readOnlyTrees?: ReadOnlyTree[];
  /**
   * A sandbox's saved files (a state snapshot's tar, paths from "/", owners and modes kept), put back
   * at "/" after `files` and before the sandbox starts. Only create() takes it.
   */
  restore?: () => Readable;
}

export interface CommandRequest {
  argv: string[];
  cwd?: string;
  env?: Record<string, string>;
  stdin?: Buffer;
  timeoutMs: number;
  maxOutputBytes: number;
  /** Called with output as it is produced (already capped). */
  onOutput?: (stream: "stdout" | "stderr", chunk: Buffer) => void;
  signal?: AbortSignal;
  /**
   * Who runs it: the sandbox user (the default), or the hooks user, whom sandbox code can neither
   * signal nor trace (docs/security.md#who-runs-what-in-a-sandbox). A runtime without identities runs both alike.
   */
  runAs?: RunAs;
  /**
   * Start only if these files still read as they did when read with these tokens (FreshRead.token),
   * checked in the sandbox right before the start; otherwise nothing starts and run() rejects with
   * SandboxFilesChangedError. The hooks decide on their hooks.json and have the tool's own request
   * confirm it, instead of reading it in a round trip of its own.
   */
  unlessChanged?: { paths: string[]; maxBytes: number; tokens: string[] };
  /** With unlessChanged: called when the files were found unchanged and the command starts. */
  onStarted?: () => void;
  /** Files to read once the command has ended, as readFiles would: the result's readsAfter. */
  readAfter?: { paths: string[]; maxBytes: number };
}

/**
 * Files a file operation's own request reads around it, as a command's do (CommandRequest's
 * unlessChanged, onStarted and readAfter): the hooks confirm the hooks.json they decided on in the file
 * tool's own request, and take the files as read after it for the post hooks, instead of a round trip
 * of their own on each side.
 */
export interface FileOperationReads extends Pick<CommandRequest, "unlessChanged" | "readAfter"> {
  /**
   * Called once the operation went ahead (with unlessChanged: its files found unchanged), right before
   * its outcome, a result or its own failure, is delivered; never when the files had changed.
   */
  onStarted?: () => void;
  /** Given the readAfter files as read once the operation had ended, done or failed; not called when they could not be read. */
  onReadsAfter?: (reads: FreshRead[]) => void;
}

export interface CommandResult {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  cancelled: boolean;
  /** Killed because the sandbox's files passed its disk limit in total (the executor's disk guard). */
  overDiskLimit: boolean;
  stdout: Buffer;
  stderr: Buffer;
  /** Total bytes written, including what was dropped past maxOutputBytes. */
  stdoutBytes: number;
  stderrBytes: number;
  durationMs: number;
  /** The request's readAfter files, read once the command had ended; absent when they could not be (read them then). */
  readsAfter?: FreshRead[];
}

export interface ReadFileResult {
  content: Buffer;
  size: number;
  truncated: boolean;
  /** The path of the file read, every symlink resolved (inside the sandbox). */
  realPath: string;
  /** The file lies on a read-only mount (a repository source): nothing in the sandbox can change it. */
  readOnlyMount: boolean;
}

/** A file operation that failed inside the sandbox (ENOENT, EISDIR, EACCES, …). */
export class SandboxFileError extends CodedError {}

/**
 * One file of readFiles: what readFile would have answered (for a truncated file, without its content)
 * or failed with. `token` changes whenever anything about the read does; null where the channel gives none.
 */
export type FreshRead =
  | { ok: true; file: ReadFileResult; token: string | null }
  // A failure as plain fields, not a SandboxFileError: a missing hooks.json is the common case, read
  // twice around every command, and an Error's stack capture was the largest part of reading it.
  | { ok: false; code: string; message: string; token: string | null };

/** A run with unlessChanged did not start: the files are no longer as they were read (or could not be read). */
export class SandboxFilesChangedError extends CodedError {}

/** A sandbox's files to export pass the size they may have (exportFiles' maxBytes). */
export class SandboxFilesTooLargeError extends CodedError {}

/** The executor could not open its egress listener (EADDRINUSE after retrying, EALREADY, …). */
export class SandboxEgressError extends CodedError {}

/** The sandbox (or the channel to it) is gone or broken; the operation's outcome is unknown. */
export class SandboxUnavailableError extends EmulatorError {}

/**
 * The runtime's backend (the Docker engine) did not answer, or failed, so nothing is known about the
 * sandbox: it may well be fine. Never a reason to give an environment up; retrying later may help.
 */
export class RuntimeUnreachableError extends SandboxUnavailableError {}

/**
 * The sandbox is gone for good with its files (the machine holding it was lost: the swarm runtime's
 * node watcher, docs/scale-out.md#losing-a-machine). Unlike its parent, retrying cannot help.
 */
export class SandboxLostError extends SandboxUnavailableError {}

/** A live connection to one sandbox's executor. */
export interface SandboxChannel {
  ping(): Promise<{ version: number; pid: number; uid: number }>;
  run(request: CommandRequest): Promise<CommandResult>;
  /** `reads`: files its own request reads around it (FileOperationReads); so for writeFile, listFiles and deleteFile. */
  readFile(path: string, maxBytes: number, reads?: FileOperationReads): Promise<ReadFileResult>;
  /**
   * Reads small files (at most MAX_READ_FILES, up to maxBytes each) now, one after another, each as
   * readFile would, in one round trip; a file read as before is not transferred again. Only the sandbox
   * being gone rejects: each file's own failure is its entry.
   */
  readFiles(paths: string[], maxBytes: number): Promise<FreshRead[]>;
  writeFile(path: string, content: Buffer, mode?: number, reads?: FileOperationReads): Promise<void>;
  listFiles(path: string, reads?: FileOperationReads): Promise<FileEntry[]>;
  deleteFile(path: string, recursive: boolean, reads?: FileOperationReads): Promise<void>;
  /** What the path names (symlinks followed; info null when absent) and where it really is or would be created. */
  stat(path: string): Promise<{ info: FileInfo | null; realPath: string }>;
  /** A page of the tree at path, depth first and name-sorted, the start itself first (see WalkRequest). */
  walk(
    path: string,
    options: { recursive: boolean; after?: string; limit: number; exclude?: string[] },
  ): Promise<{ entries: TreeEntry[]; more: boolean }>;
  /** Regular files and their bytes under the paths, each inode once, symlinks not followed. */
  usage(paths: string[], exclude?: string[]): Promise<{ files: number; bytes: number }>;
  /** Up to `length` bytes (at most MAX_FILE_CHUNK_BYTES) from offset; size is the file's whole size. */
  readFileChunk(path: string, offset: number, length: number): Promise<{ content: Buffer; size: number }>;
  /** Writes content at offset of a file that has exactly offset bytes; `create` makes a new file instead. Returns the new size. */
  appendFile(path: string, offset: number, content: Buffer, options?: { create?: boolean }): Promise<number>;
  /** Moves a file into place, creating parents; without overwrite, anything already at `to` is EEXIST. */
  moveFile(from: string, to: string, overwrite: boolean): Promise<void>;
  /**
   * Makes the sandbox accept egress connections on host:port (host defaults to 127.0.0.1); resolves with
   * the port bound (0 picks one). A port still held by a previous executor is retried for a few seconds.
   * Rejects with SandboxEgressError. Once per channel.
   */
  listenEgress(port: number, host?: string): Promise<number>;
  /**
   * Sets the handler (replacing any previous one) that gets every egress connection as a Duplex:
   * backpressure on both sides, end() half-closes, destroy() resets the sandbox program's socket
   * (after end() and without an error, it instead closes it once the bytes already sent arrive;
   * bytes still buffered in the stream are dropped either way, so let end() finish rather than destroy),
   * failures surface as 'error' (attach a listener). Without a handler, connections are refused.
   * Every stream is destroyed when the channel closes.
   */
  onEgressStream(handler: (stream: Duplex) => void): void;
  /** Resolves when the channel closes, for whatever reason. */
  readonly closed: Promise<void>;
  close(): void;
}

export interface SandboxHandle {
  /** The runtime's own id for the sandbox (a container id for Docker). */
  sandboxId: string;
  environmentId: string;
  /** Set by list() on a warm pool sandbox that no environment has taken yet (sandbox-pool.ts). */
  pooled?: boolean;
}

export interface RuntimeHealth {
  ok: boolean;
  detail: string;
  /** The Docker engine's: answering, not answering (it takes connections but its answers stopped), or unreachable. */
  state?: "answering" | "not answering" | "unreachable";
  /** Since when it has not answered (ISO 8601), while not answering. */
  since?: string;
  /** How long ago (ms) the engine gave the answer this state is from: /health repeats a recent one (engine-gate.ts). */
  checked_ms_ago?: number;
}

export interface SandboxRuntime {
  readonly name: string;
  health(): Promise<RuntimeHealth>;
  /** Make everything the runtime needs (images, …) present, reporting progress. */
  prepare(progress: (line: string) => void): Promise<void>;
  /**
   * Tells other emulators on the same engine that this one runs, until about the lease's length from now
   * (see docs/environments-and-files.md#sandboxes-of-an-emulator-that-is-gone). Renewed while it runs.
   */
  renewLease?(): Promise<void>;
  /** Ends the lease at a clean shutdown. */
  dropLease?(): Promise<void>;
  /**
   * Removes the sandboxes, volumes and images of other emulators whose lease expired and whose data folder
   * no longer holds their store; says what it removed.
   */
  removeAbandoned?(): Promise<{ instances: string[]; containers: number; volumes: number; images: number; failures: string[] } | null>;
  /** Makes sandboxes created from now on trust this CA certificate (the egress proxy's). */
  trustCertificate?(caPem: string): Promise<void>;
  /**
   * Resolves once work left running in the background (start-up's probe containers, the names given
   * to taken pool containers) has ended, however it ended: a shutdown waits for it, so that no probe
   * container outlives the emulator and no taken pool container keeps the pool's name.
   */
  backgroundSettled?(): Promise<void>;
  /**
   * Starts the work prepare() and trustCertificate() left for later. Called once the start-up's reconcile
   * has listed the containers: it would take a probe container for an orphan and remove it under the probe.
   */
  startBackground?(): void;
  /** Create and start a sandbox with its files in place; on failure nothing is left behind. */
  create(spec: SandboxSpec): Promise<SandboxHandle>;
  /**
   * Create and start a sandbox whose whole file system is a copy of `source`'s as it is now (its
   * processes are not copied), plus spec.files; on failure nothing is left behind.
   */
  fork(source: SandboxHandle, spec: SandboxSpec): Promise<SandboxHandle>;
  /**
   * A warm sandbox for the pool (sandbox-pool.ts): made and started as create() makes one, with nothing
   * of anyone's in it (only the emulator's CA), for the environment that will take it, whose ID is
   * chosen now (labels cannot change later); list() marks it pooled until it is taken. Runtimes without
   * one have no pool.
   */
  createPooled?(environmentId: string): Promise<SandboxHandle>;
  /**
   * Makes a pooled sandbox (started, its executor idle, nothing of any user's ever run in it) the sandbox
   * of its environment (spec.environmentId must be the one it was made for): spec.files are written as
   * create() writes them, as root before the sandbox user's first use, and list() stops marking it
   * pooled: at once, or (the Docker runtime) a moment later, while claimsUnderway() counts it.
   * spec.readOnlyTrees must be empty (they are mounted at creation). On failure the caller removes the
   * sandbox.
   */
  claimPooled?(pooled: SandboxHandle, spec: SandboxSpec): Promise<SandboxHandle>;
  /** Sandboxes claimPooled() has made an environment's that list() still marks pooled (the engine is told after). */
  claimsUnderway?(): number;
  /** A channel to the sandbox's executor (opened once and reused by the caller). */
  connect(handle: SandboxHandle): Promise<SandboxChannel>;
  /** Whether the sandbox still exists and runs; throws RuntimeUnreachableError when the runtime cannot tell. */
  isAlive(handle: SandboxHandle): Promise<boolean>;
  /**
   * Starts the sandbox again if it exists but stopped (e.g. after the engine restarted). False only when
   * the runtime positively reports it gone; throws RuntimeUnreachableError when the runtime does not
   * answer or fails, so a brief outage never passes for a lost sandbox.
   */
  ensureRunning(handle: SandboxHandle): Promise<boolean>;
  remove(handle: SandboxHandle): Promise<void>;
  /**
   * A tar of what the sandbox holds under `folders` (absolute; ones the sandbox lacks are skipped), paths
   * from "/", owners and modes kept: what SandboxSpec.restore puts back. Rejects past maxBytes.
   */
  exportFiles?(handle: SandboxHandle, folders: readonly string[], maxBytes: number): Promise<Buffer>;
  /**
   * Sandboxes this runtime manages for this emulator instance, e.g. to find them after a restart; throws
   * (RuntimeUnreachableError) rather than answer with a list it could not get.
   */
  list(): Promise<SandboxHandle[]>;
  /**
   * Runtimes that can lose a sandbox with its files behind the emulator's back (a Swarm node going
   * down) call `listener` once per sandbox lost, after failing its open channels with SandboxLostError.
   */
  onSandboxLost?(listener: (handle: SandboxHandle, reason: string) => void): void;
}
