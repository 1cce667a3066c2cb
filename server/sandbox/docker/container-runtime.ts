// The OCI runtime sandbox containers run under (EMULATOR_SANDBOX_RUNTIME): runc, the engine's usual
// default, or runsc, gVisor's user-space kernel between sandbox code and the host's
// (docs/security.md#gvisor). Every container made from the sandbox image runs under it, the helpers that
// copy a sandbox's files included, so that no sandbox file is ever read by code under a weaker wall.
//
// The engine only knows the runtimes registered with it (its daemon.json, `docker info` lists them). A
// missing one is found once, at start, rather than as a 500 on every new environment.

import type Docker from "dockerode";
import { ConfigError } from "../../common/config.js";
import { engineUnreachable, withEngineTimeout } from "./engine-errors.js";

export const RUNTIME_SETTING = "EMULATOR_SANDBOX_RUNTIME";

/**
 * How the set-up registers runsc (server/bootstrap/ensure-docker.sh), quoted in the error below so that
 * an engine the set-up did not start can be given the same entry by hand. --network=none: sandboxes
 * have no network anyway (NetworkMode "none"), and Debian bookworm's runsc (2022) mistakes every
 * network namespace of a recent kernel for the host's and refuses to start. --file-access=shared: files
 * the emulator writes into a running sandbox (a pooled one's sources, a newer executor) are seen at once,
 * where gVisor's default keeps serving a replaced file from its cache (docs/security.md#gvisor).
 */
export const RUNSC_DAEMON_ENTRY =
  '"runtimes": {"runsc": {"path": "/usr/bin/runsc", "runtimeArgs": ["--platform=ptrace", "--network=none", "--file-access=shared"]}}';

/** The HostConfig part that selects the runtime; nothing (the engine's default) when none is set. */
export function runtimeHostConfig(runtime: string | undefined): Pick<Docker.HostConfig, "Runtime"> {
  return runtime === undefined ? {} : { Runtime: runtime };
}

/**
 * The engine's cgroup pids limit counts the host's tasks of a container. Under runc those are the
 * sandbox's own processes and threads. Under gVisor they are its kernel's: the Sentry's threads, and on
 * the ptrace platform stub processes with a thread for each of the Sentry's threads that ran one of the
 * sandbox's processes, measured here at 54 for an idle sandbox, about 9 per sleeping process and up to
 * 15 per process of a fork bomb. A sandbox that reaches the limit does not see a failed fork: its
 * kernel panics and the whole container stops. So under gVisor the sandbox's processes are bounded
 * inside it, by RLIMIT_NPROC (per user, as the kernel counts them: the sandbox's kernel is its own, so
 * no other container's processes count), and the cgroup bounds the host tasks of that many processes.
 */
export const GVISOR_HOST_TASKS_PER_PROCESS = 16;
export const GVISOR_HOST_TASKS_BASE = 512;

/** The process-count limits of a sandbox of at most `pids` processes (see GVISOR_HOST_TASKS_PER_PROCESS). */
export function processLimitHostConfig(pids: number, gvisor: boolean): { PidsLimit: number; Ulimits: Docker.HostConfig["Ulimits"] } {
  if (!gvisor) return { PidsLimit: pids, Ulimits: [] };
  return {
    PidsLimit: pids * GVISOR_HOST_TASKS_PER_PROCESS + GVISOR_HOST_TASKS_BASE,
    Ulimits: [{ Name: "nproc", Soft: pids, Hard: pids }],
  };
}

/** What the engine says of the runtime sandboxes run under. */
export interface EngineRuntime {
  /** gVisor: registered as runsc, or its path is a runsc. */
  gvisor: boolean;
}

/**
 * Fails, saying what to do, when the engine has no runtime of that name; otherwise says whether it is
 * gVisor. No runtime named: the engine's default, which is not.
 */
export async function checkEngineHasRuntime(docker: Docker, runtime: string | undefined, timeoutMs: number): Promise<EngineRuntime> {
  if (runtime === undefined) return { gvisor: false };
  let info: { Runtimes?: Record<string, { path?: string }> };
  try {
    info = (await withEngineTimeout(docker.info(), timeoutMs, "listing its runtimes")) as typeof info;
  } catch (error) {
    throw engineUnreachable(error, `checking that it has the runtime ${RUNTIME_SETTING}=${runtime} names`);
  }
  const runtimes = info.Runtimes ?? {};
  const entry = runtimes[runtime];
  if (!entry) throw new ConfigError(missingRuntimeMessage(runtime, Object.keys(runtimes)));
  return { gvisor: runtime === "runsc" || /(^|\/)runsc$/.test(entry.path ?? "") };
}
export function missingRuntimeMessage(runtime: string, known: string[]): string {
  const has = known.length > 0 ? `its runtimes: ${known.join(", ")}` : "it lists no runtimes";
  const lines = [`${RUNTIME_SETTING}=${runtime}, but the Docker engine has no runtime named "${runtime}" (${has}).`];
  if (runtime === "runsc") {
    lines.push(
      "Register gVisor with the engine: as root, `EMULATOR_SANDBOX_RUNTIME=runsc bash server/bootstrap/ensure-docker.sh` installs runsc and registers it with an engine the set-up started;",
      `for any other engine, add ${RUNSC_DAEMON_ENTRY} to its daemon.json (usually /etc/docker/daemon.json) and reload it (\`sudo systemctl reload docker\`, or \`sudo kill -HUP $(cat /var/run/docker.pid)\`; a reload, not a restart).`,
    );
  } else {
    lines.push(`Register it in the engine's daemon.json ("runtimes") and reload dockerd (SIGHUP), or name one it has.`);
  }
  lines.push(`Or unset ${RUNTIME_SETTING} to use the engine's default runtime. See docs/setup.md#gvisor.`);
  return lines.join("\n");
}
