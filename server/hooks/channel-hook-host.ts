// A HookHost over a sandbox's executor channel: config files are read, command hooks run, and HTTP
// hooks POST from inside the sandbox, as the documentation says they do. HTTP goes through curl in the
// sandbox so the request leaves through whatever network the sandbox has (and later the egress proxy,
// through HTTP(S)_PROXY), never from the emulator's own host.

import { isWithin } from "../common/paths.js";
import { PSEUDO_FOLDERS } from "../sandbox/layout.js";
import {
  SandboxFileError,
  type CommandResult,
  type FreshRead,
  type ReadFileResult,
  type RunAs,
  type SandboxChannel,
} from "../sandbox/runtime.js";
import { ConfigReadsMemory } from "./config-reads-memory.js";
import type {
  HookCommandRequest,
  HookCommandResult,
  HookConfigRead,
  HookHost,
  HookHttpRequest,
  HookHttpResult,
  LastConfigReads,
} from "./hook-host.js";

export interface ChannelHookHostOptions {
  /** The working folder of command hooks (and of curl). */
  cwd: string;
  /** The environment's variables, merged over the sandbox's own. */
  env: Record<string, string>;
  /** Replaces reading config files through the channel (a fake keeps them in memory). */
  readConfig?: (path: string, maxBytes: number) => Promise<HookConfigRead>;
}

/** curl's -w output goes to stderr after this line, so a body can never forge it. */
const STATUS_MARKER = "\n@@hook-http-status@@";

/**
 * Beyond the hook's own timeout, how long the executor waits before killing curl itself: curl's
 * --max-time normally ends the request first and reports it properly (exit 28).
 */
const CURL_KILL_GRACE_MS = 5_000;

/** curl's exit codes (man curl, EXIT CODES) that a hook can meet, as a reason a person understands. */
const CURL_FAILURES: Record<number, string> = {
  1: "unsupported protocol",
  3: "malformed URL",
  5: "could not resolve the proxy",
  6: "could not resolve the host",
  7: "could not connect (refused or unreachable)",
  16: "HTTP/2 framing error",
  18: "the answer ended early",
  22: "HTTP error",
  28: "timed out",
  35: "TLS handshake failed",
  47: "too many redirects",
  52: "the server closed the connection without answering",
  55: "sending the request failed",
  56: "receiving the answer failed",
  58: "client certificate problem",
  60: "the server's TLS certificate is not trusted",
  77: "the CA certificate bundle could not be read",
  97: "proxy handshake failed",
  126: "curl could not be started in the sandbox",
  127: "curl is not installed in the sandbox",
};

export class ChannelHookHost implements HookHost {
  private readonly memory: ConfigReadsMemory;

  constructor(
    private readonly channel: SandboxChannel,
    private readonly options: ChannelHookHostOptions,
  ) {
    this.memory = new ConfigReadsMemory(channel);
  }

  readConfig(path: string, maxBytes: number): Promise<HookConfigRead> {
    return this.options.readConfig ? this.options.readConfig(path, maxBytes) : readConfigFromChannel(this.channel, path, maxBytes);
  }

  /** All candidates in one round trip; a file read as before is not sent again (SandboxChannel.readFiles). */
  async readConfigs(paths: readonly string[], maxBytes: number): Promise<HookConfigRead[]> {
    const { readConfig } = this.options;
    if (readConfig) {
      const reads: HookConfigRead[] = [];
      for (const path of paths) reads.push(await readConfig(path, maxBytes));
      return reads;
    }
    return this.adopt(paths, maxBytes, await this.channel.readFiles([...paths], maxBytes));
  }

  lastConfigReads(paths: readonly string[], maxBytes: number): LastConfigReads | null {
    return this.options.readConfig ? null : this.memory.last(paths, maxBytes);
  }

  async takeConfigReads(paths: readonly string[], maxBytes: number, reads: readonly FreshRead[]): Promise<HookConfigRead[]> {
    // Config files kept elsewhere (a test's, in memory) are read there, whatever the sandbox's files say.
    return this.options.readConfig ? this.readConfigs(paths, maxBytes) : this.adopt(paths, maxBytes, reads);
  }

  /** Reads of the channel as this host's, remembered for the next call's hooks. */
  private adopt(paths: readonly string[], maxBytes: number, reads: readonly FreshRead[]): HookConfigRead[] {
    if (reads.length !== paths.length) throw new Error(`${reads.length} reads for ${paths.length} hooks.json paths`);
    return reads.map((fresh, index) => {
      const read = configRead(fresh, maxBytes);
      this.memory.remember(paths[index]!, maxBytes, fresh.token, read);
      return read;
    });
  }

  async runCommand(request: HookCommandRequest): Promise<HookCommandResult> {
    const result = await this.channel.run({
      argv: ["bash", "-c", request.command],
      stdin: request.stdin,
      cwd: this.options.cwd,
      env: this.options.env,
      timeoutMs: request.timeoutMs,
      maxOutputBytes: request.maxOutputBytes,
      signal: request.signal,
      runAs: identityFor(request),
      ...(request.unlessChanged ? { unlessChanged: request.unlessChanged } : {}),
    });
    throwIfCancelled(result, request.signal);
    return {
      exitCode: result.exitCode,
      signal: result.signal,
      timedOut: result.timedOut,
      stdout: result.stdout,
      stderr: result.stderr,
      stdoutBytes: result.stdoutBytes,
      stderrBytes: result.stderrBytes,
      durationMs: result.durationMs,
    };
  }

  async postJson(request: HookHttpRequest): Promise<HookHttpResult> {
    const result = await this.channel.run({
      argv: curlArgv(request),
      stdin: request.body,
      cwd: this.options.cwd,
      env: this.options.env,
      timeoutMs: request.timeoutMs + CURL_KILL_GRACE_MS,
      // stderr carries curl's status line; keep room for it even under a tiny body cap.
      maxOutputBytes: Math.max(request.maxBodyBytes, 64 * 1024),
      signal: request.signal,
      runAs: identityFor(request),
      ...(request.unlessChanged ? { unlessChanged: request.unlessChanged } : {}),
    });
    throwIfCancelled(result, request.signal);
    return interpretCurl(result, request);
  }
}

/**
 * A handler from a read-only configuration runs as the hooks user, whom sandbox code can neither signal
 * nor trace; any other handler as the sandbox user: its configuration is the sandbox's to rewrite
 * anyway, and the hooks user must never run what sandbox code wrote (docs/security.md#who-runs-what-in-a-sandbox).
 */
function identityFor(request: { fromReadOnlyConfig: boolean }): RunAs {
  return request.fromReadOnlyConfig ? "hooks" : "sandbox";
}

async function readConfigFromChannel(channel: SandboxChannel, path: string, maxBytes: number): Promise<HookConfigRead> {
  try {
    return fileRead(await channel.readFile(path, maxBytes), maxBytes, null);
  } catch (error) {
    if (!(error instanceof SandboxFileError)) throw error;
    return failedRead(error);
  }
}

function configRead(read: FreshRead, maxBytes: number): HookConfigRead {
  return read.ok ? fileRead(read.file, maxBytes, read.token) : failedRead(read);
}

function fileRead(file: ReadFileResult, maxBytes: number, token: string | null): HookConfigRead {
  if (file.truncated) {
    return {
      status: "unreadable",
      realPath: file.realPath,
      error: `${file.size} bytes, more than the ${maxBytes}-byte limit for hooks.json`,
    };
  }
  return {
    status: "found",
    realPath: file.realPath,
    text: file.content.toString("utf8"),
    bytes: file.size,
    // The kernel's own read-only mounts (/proc/sys, /sys) hold nothing anyone authored as hooks.
    readOnly: file.readOnlyMount && !PSEUDO_FOLDERS.some((folder) => isWithin(file.realPath, folder)),
    ...(token === null ? {} : { token }),
  };
}

function failedRead(error: { code: string; message: string }): HookConfigRead {
  // ENOTDIR: a path component is a file (e.g. /workspace/.agents is a file), so there is no hooks.json there.
  if (error.code === "ENOENT" || error.code === "ENOTDIR") return { status: "missing" };
  return { status: "unreadable", realPath: null, error: error.message };
}

function throwIfCancelled(result: CommandResult, signal: AbortSignal | undefined): void {
  if (!result.cancelled) return;
  throw signal?.reason ?? new Error("the hook was cancelled");
}

/** argv, never a shell line: the URL and headers come from a user's file. */
export function curlArgv(request: HookHttpRequest): string[] {
  const headers = new Map<string, string>([["content-type", "Content-Type: application/json"]]);
  for (const [name, value] of Object.entries(request.headers)) {
    // `Name;` is curl's spelling of a header with an empty value (`Name:` would remove the header).
    headers.set(name.toLowerCase(), value === "" ? `${name};` : `${name}: ${value}`);
  }
  return [
    "curl",
    "-q", // first: ignore any ~/.curlrc the sandbox user (or the agent) wrote
    "-sS",
    "-X",
    "POST",
    "--proto",
    "=http,https",
    "--max-time",
    (request.timeoutMs / 1000).toFixed(3),
    "--data-binary",
    "@-",
    ...[...headers.values()].flatMap((header) => ["-H", header]),
    // Without this curl sends "Expect: 100-continue" for large bodies and waits for a go-ahead.
    "-H",
    "Expect:",
    "-o",
    "-",
    "-w",
    `%{stderr}${STATUS_MARKER}%{http_code} %{header_json}`,
    "--url",
    request.url,
  ];
}

function interpretCurl(result: CommandResult, request: HookHttpRequest): HookHttpResult {
  const stderr = result.stderr.toString("utf8");
  const markerAt = stderr.lastIndexOf(STATUS_MARKER);
  const curlMessage = (markerAt === -1 ? stderr : stderr.slice(0, markerAt)).trim();
  const statusLine = markerAt === -1 ? "" : stderr.slice(markerAt + STATUS_MARKER.length);
  const durationMs = result.durationMs;

  if (result.timedOut || result.signal !== null) {
    const reason = result.timedOut ? `no answer within ${request.timeoutMs} ms` : `curl was killed by ${result.signal}`;
    return { ok: false, reason, timedOut: result.timedOut, proxyRefused: false, durationMs };
  }
  if (result.exitCode !== 0) {
    const code = result.exitCode ?? -1;
    const tunnel = /CONNECT tunnel failed, response (\d+)/.exec(curlMessage);
    const meaning = tunnel
      ? `the egress proxy refused the connection (CONNECT answered ${tunnel[1]})`
      : (CURL_FAILURES[code] ?? "request failed");
    const reason = `${meaning}; curl exit ${code}${curlMessage ? `: ${curlMessage}` : ""}`;
    return { ok: false, reason, timedOut: code === 28, proxyRefused: tunnel !== null, durationMs };
  }
  const spaceAt = statusLine.indexOf(" ");
  const status = Number.parseInt(spaceAt === -1 ? statusLine : statusLine.slice(0, spaceAt), 10);
  if (!Number.isInteger(status) || status <= 0) {
    return {
      ok: false,
      reason: `curl reported no HTTP status (${curlMessage || "no message"})`,
      timedOut: false,
      proxyRefused: false,
      durationMs,
    };
  }
  const proxyRefusal = spaceAt === -1 ? undefined : proxyErrorHeader(statusLine.slice(spaceAt + 1));
  return {
    ok: true,
    status,
    body: result.stdout.subarray(0, request.maxBodyBytes),
    bodyBytes: result.stdoutBytes,
    durationMs,
    ...(proxyRefusal === undefined ? {} : { proxyRefusal }),
  };
}

/** The egress proxy marks its own refusals with x-proxy-error (docs/egress-and-credentials.md#refusals). */
function proxyErrorHeader(headerJson: string): string | undefined {
  try {
    const headers = JSON.parse(headerJson) as Record<string, unknown>;
    const values = headers["x-proxy-error"];
    return Array.isArray(values) && typeof values[0] === "string" ? values[0] : undefined;
  } catch {
    return undefined;
  }
}
