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
 * network namespace of a recent kernel for the host's and refuses to start (docs/security.md#gvisor).
 */
export const RUNSC_DAEMON_ENTRY =
  '"runtimes": {"runsc": {"path": "/usr/bin/runsc", "runtimeArgs": ["--platform=ptrace", "--network=none"]}}';

/** The HostConfig part that selects the runtime; nothing (the engine's default) when none is set. */
export function runtimeHostConfig(runtime: string | undefined): Pick<Docker.HostConfig, "Runtime"> {
  return runtime === undefined ? {} : { Runtime: runtime };
}

/** Fails, saying what to do, when the engine has no runtime of that name. */
export async function checkEngineHasRuntime(docker: Docker, runtime: string | undefined, timeoutMs: number): Promise<void> {
  if (runtime === undefined) return;
  let info: { Runtimes?: Record<string, unknown> };
  try {
    info = (await withEngineTimeout(docker.info(), timeoutMs, "listing its runtimes")) as typeof info;
  } catch (error) {
    throw engineUnreachable(error, `checking that it has the runtime ${RUNTIME_SETTING}=${runtime} names`);
  }
  const known = Object.keys(info.Runtimes ?? {});
  if (known.includes(runtime)) return;
  throw new ConfigError(missingRuntimeMessage(runtime, known));
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
