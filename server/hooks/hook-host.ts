// What the hooks engine needs from wherever the hooks run. The engine is pure policy over this
// interface: it decides; a host reads the config files and runs the handlers. The Docker host runs
// everything inside the environment's sandbox (as the documentation says hooks do); a fake host runs
// the same behaviour table in milliseconds.
//
// Failures that are the hook's own (a missing file, a crash, a timeout, an HTTP error) come back as
// data. A method throws only when the sandbox itself is gone or the call was cancelled: the engine
// lets that propagate, and the interaction fails instead of pretending a hook ran.

import type { FreshRead } from "../sandbox/runtime.js";

export type HookConfigRead =
  | {
      status: "found";
      /** Where it really lives after symlinks; two paths naming one file are read once. */
      realPath: string;
      text: string;
      bytes: number;
      /**
       * It lies on a read-only mount (a repository source), so nothing in the sandbox can change it: its
       * handlers run where sandbox code cannot interfere with them.
       */
      readOnly: boolean;
      /**
       * Stands for this read as a whole (path, content and all): equal tokens mean the same parse, so
       * the parse is reused. Absent where the host gives none.
       */
      token?: string;
    }
  | { status: "missing" }
  /** Exists but cannot be used: not readable, a folder, larger than the cap. */
  | { status: "unreadable"; realPath: string | null; error: string };

export interface LastConfigReads {
  reads: HookConfigRead[];
  tokens: string[];
}

export interface HookCommandRequest {
  /** A command line, run through bash -c. */
  command: string;
  stdin: Buffer;
  timeoutMs: number;
  /** Output kept per stream; the rest is counted and dropped. */
  maxOutputBytes: number;
  /** Cancels the run (the process tree is killed); the call then rejects. */
  signal?: AbortSignal;
  /** The handler comes from a read-only configuration: run it where sandbox code cannot signal it. */
  fromReadOnlyConfig: boolean;
  /**
   * Start only if the hooks' files still read with these tokens (LastConfigReads), else reject with
   * SandboxFilesChangedError, having started nothing: the first handler confirms the files its hooks
   * were planned on. Only asked of a host that gave lastConfigReads.
   */
  unlessChanged?: { paths: string[]; maxBytes: number; tokens: string[] };
}

export interface HookCommandResult {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  stdout: Buffer;
  stderr: Buffer;
  /** Total bytes written, including what was dropped past the cap. */
  stdoutBytes: number;
  stderrBytes: number;
  durationMs: number;
}

export interface HookHttpRequest {
  url: string;
  /** Sent as given, after Content-Type: application/json (a same-named header replaces it). */
  headers: Record<string, string>;
  body: Buffer;
  timeoutMs: number;
  maxBodyBytes: number;
  signal?: AbortSignal;
  /** The handler comes from a read-only configuration: run it where sandbox code cannot signal it. */
  fromReadOnlyConfig: boolean;
  /** As HookCommandRequest's. */
  unlessChanged?: HookCommandRequest["unlessChanged"];
}

export type HookHttpResult =
  | {
      ok: true;
      status: number;
      body: Buffer;
      /** Total body bytes, including what was dropped past the cap. */
      bodyBytes: number;
      durationMs: number;
      /** Set when the answer came from the egress proxy refusing the request (its x-proxy-error). */
      proxyRefusal?: string;
    }
  /** No HTTP answer at all: connection refused, DNS failure, TLS failure, timeout, tunnel refused by the egress proxy. */
  | { ok: false; reason: string; timedOut: boolean; proxyRefused: boolean; durationMs: number };

export interface HookHost {
  /** Reads one candidate config file, at most `maxBytes` of it. */
  readConfig(path: string, maxBytes: number): Promise<HookConfigRead>;
  /**
   * Reads every candidate, in order, each exactly as readConfig would, where the host can do it at once
   * (the channel: one round trip for all of them). Discovery uses it when present.
   */
  readConfigs?(paths: readonly string[], maxBytes: number): Promise<HookConfigRead[]>;
  /**
   * The candidates as this host last read them, each with the token that stands for its read, when it
   * has them all (read with this maxBytes) and a tool's own request can have them confirmed unchanged
   * right before the tool starts (CommandRequest.unlessChanged); null otherwise.
   */
  lastConfigReads?(paths: readonly string[], maxBytes: number): LastConfigReads | null;
  /**
   * The candidates as a tool's own request read them once it ended (CommandResult.readsAfter), taken as
   * this host's reads; a host that reads its files elsewhere reads them itself instead.
   */
  takeConfigReads?(paths: readonly string[], maxBytes: number, reads: readonly FreshRead[]): Promise<HookConfigRead[]>;
  /**
   * Runs a command hook: the command line through a shell, with `stdin` as its standard input, in the
   * sandbox's working folder with the environment's variables, as the sandbox user, or, for a handler
   * of a read-only configuration, as a user that sandbox code cannot signal. The whole process tree is
   * killed at the deadline.
   */
  runCommand(request: HookCommandRequest): Promise<HookCommandResult>;
  /** POSTs `body` (JSON) to `url` from inside the sandbox, through its egress path. */
  postJson(request: HookHttpRequest): Promise<HookHttpResult>;
}
