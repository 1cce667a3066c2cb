// What Docker itself costs, measured beside the emulator's figures so the goals can be ratios: a
// `docker exec` per call, a `docker run --rm`, and a process spawn inside a running sandbox. Through the
// engine's API (dockerode), as the emulator talks to it: the `docker` CLI's own start-up would make
// every reference slower and every ratio look better.

import { PassThrough } from "node:stream";
import type Docker from "dockerode";

/** Runs argv in the container with one `docker exec` (as the sandbox user, as tool calls run); its stdout. */
export async function dockerExec(docker: Docker, containerId: string, argv: string[], user = "1000:1000"): Promise<string> {
  const exec = await docker.getContainer(containerId).exec({ Cmd: argv, AttachStdout: true, AttachStderr: true, User: user });
  const stream = await exec.start({ hijack: true, stdin: false });
  const stdout = new PassThrough();
  const chunks: Buffer[] = [];
  stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
  docker.modem.demuxStream(stream, stdout, new PassThrough().resume());
  await new Promise<void>((resolve, reject) => {
    stream.on("end", () => resolve());
    stream.on("error", reject);
  });
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * How long the engine takes to carry a command's output to us through an exec's attached stream: from
 * its first byte to its end (ms), so that the exec's creation and the process's start are not in it.
 * The executor's channel is such a stream; this is what its 1 MiB read cannot go below.
 */
export async function dockerExecCarryMs(docker: Docker, containerId: string, argv: string[], expectBytes: number): Promise<number> {
  const exec = await docker.getContainer(containerId).exec({ Cmd: argv, AttachStdout: true, AttachStderr: true, User: "1000:1000" });
  const stream = await exec.start({ hijack: true, stdin: false });
  let first = 0n;
  let bytes = 0;
  await new Promise<void>((resolve, reject) => {
    stream.on("data", (chunk: Buffer) => {
      if (first === 0n) first = process.hrtime.bigint();
      bytes += chunk.length;
    });
    stream.on("end", () => resolve());
    stream.on("error", reject);
  });
  const ms = Number(process.hrtime.bigint() - first) / 1e6;
  // The stream multiplexes: an 8-byte header per frame on top of the output.
  if (bytes < expectBytes) throw new Error(`the exec stream carried ${bytes} bytes, less than the ${expectBytes} expected`);
  return ms;
}

/**
 * `docker run --rm <image> true` as the CLI does it over the API: create with auto-removal, wait for
 * the removal (asked before the start, so it cannot be missed), start. The engine's default network, as
 * the command line has it. `labels` mark the container for the benchmark's clean-up.
 */
export async function dockerRunRm(docker: Docker, image: string, labels: Record<string, string>): Promise<void> {
  const container = await docker.createContainer({ Image: image, Cmd: ["true"], Labels: labels, HostConfig: { AutoRemove: true } });
  const removed = container.wait({ condition: "removed" });
  await container.start();
  await removed;
}

/**
 * Milliseconds per `bash -c true` spawned inside the container, as the sandbox user: one `docker exec`
 * runs a loop of `count` spawns and times it itself (nanoseconds, from the container's clock), so the
 * exec's own cost is not in the figure. This is the floor a tool call `true` wraps: the executor
 * spawns `bash -c <code>`.
 */
export async function spawnCostInContainer(docker: Docker, containerId: string, count: number): Promise<number> {
  return loopCostInContainer(docker, containerId, "bash -c true", count);
}

/**
 * Exports SHELL as the executor gives it to every command it starts (sandbox-image/executor-go/login_shell.go):
 * the user's shell from /etc/passwd, unless the environment has one. Without it each `bash` of the loop
 * would look its user up at start, which the tool call's own `bash` does not (60–80 µs more a spawn).
 * bash sets (without exporting) its SHELL variable from the passwd entry when the environment has none;
 * a POSIX sh standing in for it does not, so then the entry is read here.
 */
export const LOGIN_SHELL_AS_THE_EXECUTOR_SETS_IT = `login_shell=\${SHELL:-$(awk -F: -v uid="$(id -u)" '$3 == uid { print $7; exit }' /etc/passwd)}; [ -z "$login_shell" ] || export SHELL="$login_shell"`;

/** A POSIX shell loop running `command` `iterations` times (the image's `bash` may be its /bin/sh standing in). */
export function shellLoop(command: string, iterations: number): string {
  return `i=0; while [ "$i" -lt ${iterations} ]; do ${command}; i=$((i + 1)); done`;
}

/**
 * What one run of `command` costs (ms), timed inside the container over `count` runs in one shell loop,
 * as `user`, with SHELL as the executor sets it. The loop is POSIX (the image's `bash` may be its /bin/sh standing in, docs/setup.md#what-a-base-image-must-have).
 * Where the container's `date` has no nanoseconds (BusyBox prints `%N` as it is), the loop is timed from
 * here instead, less the same exec running no iteration, so the exec's own cost is still left out.
 */
export async function loopCostInContainer(
  docker: Docker,
  containerId: string,
  command: string,
  count: number,
  user = "1000:1000",
): Promise<number> {
  const loop = async (iterations: number) => {
    // The loop's commands get the environment a tool call's command gets from the executor.
    const script = `${LOGIN_SHELL_AS_THE_EXECUTOR_SETS_IT}; s=$(date +%s%N); ${shellLoop(command, iterations)}; e=$(date +%s%N); echo "$s $e"`;
    const started = process.hrtime.bigint();
    const output = await dockerExec(docker, containerId, ["bash", "-c", script], user);
    return { output, wallNs: process.hrtime.bigint() - started };
  };
  const { output, wallNs } = await loop(count);
  const clock = /^(\d+) (\d+)$/.exec(output.trim());
  const nanoseconds = clock ? BigInt(clock[2]!) - BigInt(clock[1]!) : wallNs - (await loop(0)).wallNs;
  if (nanoseconds <= 0n) throw new Error(`the loop of ${JSON.stringify(command)} printed ${JSON.stringify(output)}, not a duration`);
  return Number(nanoseconds) / 1e6 / count;
}
