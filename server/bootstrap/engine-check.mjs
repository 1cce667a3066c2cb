// The Docker engine check's fast path for a warm start: one request over the engine's socket instead
// of ensure-docker.sh's `docker version` and `docker info` (two CLI starts, half a second on a busy
// machine). It answers "nothing to do" only where the script would do nothing either: the engine
// answers, and gVisor is neither wanted nor installed, or is registered with exactly the arguments
// the script gives it. Anything else (no answer, a TCP DOCKER_HOST, runsc to register) runs the script.
// Plain JavaScript with no dependencies: it runs before anything is installed.

import fs from "node:fs";
import http from "node:http";
import path from "node:path";

/** The engine's socket: DOCKER_HOST when it names one, the default socket when unset; null for TCP and others. */
export function engineSocket(dockerHost) {
  if (!dockerHost) return "/var/run/docker.sock";
  return dockerHost.startsWith("unix://") ? dockerHost.slice("unix://".length) : null;
}

/** The runtime arguments ensure-docker.sh registers runsc with, read from the script so there is one copy. */
export function scriptRunscArgs(scriptText) {
  const match = /^RUNSC_ARGS='(.*)'$/m.exec(scriptText);
  if (!match) return null;
  try {
    return JSON.parse(match[1]);
  } catch {
    return null;
  }
}

/** Whether `name` is an executable on PATH (or a path to one). */
export function onPath(name, pathVariable) {
  const candidates = name.includes("/")
    ? [name]
    : (pathVariable ?? "")
        .split(":")
        .filter(Boolean)
        .map((dir) => path.join(dir, name));
  return candidates.some((file) => {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  });
}

/**
 * Whether the script has nothing to do, from the engine's /info (null: it did not answer): gVisor not
 * wanted and not installed, or registered as the script registers it.
 */
export function nothingToDo(info, { runscWanted, runscInstalled, runscArgs }) {
  if (info === null || typeof info !== "object") return false;
  if (!runscWanted && !runscInstalled) return true;
  const registered = info.Runtimes?.runsc?.runtimeArgs;
  return runscArgs !== null && JSON.stringify(registered ?? null) === JSON.stringify(runscArgs);
}

/** GET `route` over the socket: its status and JSON body (null when not JSON); null when the engine does not answer within `timeoutMs`. */
function engineGet(socketPath, route, timeoutMs) {
  return new Promise((resolve) => {
    const request = http.get({ socketPath, path: route, timeout: timeoutMs }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => {
        body += chunk;
      });
      response.on("end", () => {
        let json = null;
        try {
          json = JSON.parse(body);
        } catch {
          // Not JSON: an answer all the same.
        }
        resolve({ status: response.statusCode, json });
      });
      response.on("error", () => resolve(null));
    });
    request.on("timeout", () => request.destroy());
    request.on("error", () => resolve(null));
  });
}

/** GET /info over the socket; null when the engine does not answer within `timeoutMs`. */
export async function engineInfo(socketPath, timeoutMs = 3000) {
  const answer = await engineGet(socketPath, "/info", timeoutMs);
  return answer?.status === 200 && answer.json !== null ? answer.json : null;
}

/**
 * What an engine that answers /info did not answer within `timeoutMs`: "" when it answered both (or has
 * no container to inspect). Docker 20.10 can deadlock in libnetwork under container churn: its version,
 * /info and the container list still answer, but every inspect, create and removal waits until the
 * engine is restarted (docs/security.md#availability-faults-of-docker-are-never-the-users-loss). A
 * container's inspect takes the locks that deadlock holds.
 */
export async function engineUnanswered(socketPath, timeoutMs = 10_000) {
  const list = await engineGet(socketPath, "/containers/json?all=1&limit=1", timeoutMs);
  if (list === null) return "the list of its containers";
  const [newest] = Array.isArray(list.json) ? list.json : [];
  if (typeof newest?.Id !== "string") return "";
  const inspect = await engineGet(socketPath, `/containers/${encodeURIComponent(newest.Id)}/json`, timeoutMs);
  return inspect === null ? `an inspect of its newest container (${newest.Id.slice(0, 12)})` : "";
}

/** What to tell a user whose engine did not answer `what` within `timeoutMs`. */
export function hungEngineAdvice(what, timeoutMs) {
  return (
    `the Docker engine answers, but not ${what} within ${Math.round(timeoutMs / 1000)} s: it is hung ` +
    "(Docker 20.10 can deadlock in libnetwork when many containers change at once). Restart it " +
    "(`systemctl restart docker`, or stop and start dockerd), then run this again."
  );
}

/** Whether the engine is ready as ensure-docker.sh would leave it, without running it. */
export async function engineReady(env, scriptText) {
  const socket = engineSocket(env.DOCKER_HOST);
  if (socket === null) return false;
  const info = await engineInfo(socket);
  return nothingToDo(info, {
    runscWanted: env.EMULATOR_SANDBOX_RUNTIME === "runsc",
    runscInstalled: onPath(env.EMULATOR_RUNSC || "runsc", env.PATH),
    runscArgs: scriptRunscArgs(scriptText),
  });
}
