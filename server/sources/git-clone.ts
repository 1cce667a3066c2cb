// Runs `git clone` for a repository source, holding git to what the API promises:
//   - only the transports we mean: https and http (through the guarded egress path) for URLs, file for
//     an operator's local repository; `protocol.allow=never` refuses every other one (ssh, git, ext::,
//     fd::, file:: by way of a redirect or a submodule);
//   - none of the host's git configuration (no system or global config, no url.insteadOf rewrites, no
//     credential helpers, no proxy variables, no templates with hooks): a clean environment;
//   - a bounded time (the whole process group is killed at the deadline) and a bounded size (the
//     checkout is measured while it grows, and the clone is killed past the limit).

import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { EmulatorError } from "../common/errors.js";

export class GitCloneError extends EmulatorError {}

export interface CloneOptions {
  /** "https://…", "http://…" or "file://…" (already checked by the caller). */
  url: string;
  into: string;
  /** For git's http.proxy: the guarded forwarder (network clones only). */
  proxyUrl?: string;
  timeoutMs: number;
  maxBytes: number;
  maxEntries: number;
  /** Scratch folder for git's HOME. */
  home: string;
}

const WATCH_INTERVAL_MS = 200;
const KILL_GRACE_MS = 1000;

/** What git may see of the server's environment: enough to run, nothing that changes where it goes. */
function cleanEnvironment(home: string): NodeJS.ProcessEnv {
  const keep = ["PATH", "SSL_CERT_FILE", "SSL_CERT_DIR", "GIT_SSL_CAINFO", "GIT_SSL_CAPATH", "GIT_EXEC_PATH"];
  const env: NodeJS.ProcessEnv = {};
  for (const name of keep) if (process.env[name] !== undefined) env[name] = process.env[name];
  return {
    ...env,
    HOME: home,
    LC_ALL: "C",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    // Never prompt for credentials: a prompt would hang the request.
    GIT_TERMINAL_PROMPT: "0",
    GIT_ASKPASS: "true",
  };
}

function configArguments(options: CloneOptions): string[] {
  const local = options.url.startsWith("file://");
  const settings = [
    "protocol.allow=never",
    ...(local ? ["protocol.file.allow=always"] : ["protocol.https.allow=always", "protocol.http.allow=always"]),
    ...(options.proxyUrl ? [`http.proxy=${options.proxyUrl}`] : []),
    // A server that stops sending is given up on before the deadline.
    "http.lowSpeedLimit=1000",
    "http.lowSpeedTime=30",
    "credential.helper=",
    "core.askPass=true",
  ];
  return settings.flatMap((setting) => ["-c", setting]);
}

/** Bytes and entries under `root`, stopping as soon as either passes its limit; tolerant of files git renames meanwhile. */
async function usageExceeds(root: string, maxBytes: number, maxEntries: number): Promise<string | null> {
  let bytes = 0;
  let entries = 0;
  const stack = [root];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    let names: string[];
    try {
      names = await fs.readdir(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      entries += 1;
      if (entries > maxEntries) return `more than ${maxEntries} files, folders and links (EMULATOR_MAX_SOURCES_FILES)`;
      try {
        const stat = await fs.lstat(path.join(dir, name));
        if (stat.isDirectory()) stack.push(path.join(dir, name));
        else bytes += stat.size;
      } catch {
        // renamed or removed by git in the meantime
      }
      if (bytes > maxBytes) return `larger than ${maxBytes} bytes (EMULATOR_MAX_SOURCES_BYTES)`;
    }
  }
  return null;
}

export async function cloneRepository(options: CloneOptions): Promise<void> {
  const args = [
    ...configArguments(options),
    "clone",
    "--depth",
    "1",
    "--quiet",
    "--no-tags",
    "--template=",
    "--",
    options.url,
    options.into,
  ];
  const child = spawn("git", args, { env: cleanEnvironment(options.home), detached: true, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  let stopped: string | null = null;
  const stop = (why: string) => {
    if (stopped !== null) return;
    stopped = why;
    // git runs helpers (git-remote-https, index-pack): the whole group goes. SIGTERM first, so each
    // git can clean up and reap its own helpers; SIGKILL for whatever is still there a moment later.
    signalGroup("SIGTERM");
    killTimer = setTimeout(() => signalGroup("SIGKILL"), KILL_GRACE_MS);
  };
  let killTimer: NodeJS.Timeout | undefined;
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  };
  const deadline = setTimeout(
    () => stop(`did not finish within ${options.timeoutMs / 1000} s (EMULATOR_REPO_CLONE_TIMEOUT_SECONDS)`),
    options.timeoutMs,
  );
  let watching = false;
  const watch = setInterval(() => {
    if (watching) return;
    watching = true;
    usageExceeds(options.into, options.maxBytes, options.maxEntries)
      .then((over) => {
        if (over !== null) stop(`was stopped: the repository is ${over}`);
      })
      .finally(() => {
        watching = false;
      });
  }, WATCH_INTERVAL_MS);
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      // No git on the host is the operator's fault, not the request's: a 500 that says what to install.
      child.once("error", (error: NodeJS.ErrnoException) =>
        reject(
          new Error(
            `git could not be started on the emulator's host (${error.code ?? error.message}); install git to use repository sources`,
          ),
        ),
      );
      child.once("close", (exitCode) => resolve(exitCode));
    });
    if (stopped !== null) throw new GitCloneError(stopped);
    if (code !== 0) {
      const detail = stderr.trim().split("\n").slice(-2).join(" ");
      throw new GitCloneError(`failed: ${detail || `git exited with ${code}`}`);
    }
  } finally {
    clearTimeout(deadline);
    clearTimeout(killTimer);
    clearInterval(watch);
  }
}
