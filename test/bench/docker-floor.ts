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
  const script = `s=$(date +%s%N); for ((i = 0; i < ${count}; i++)); do bash -c true; done; e=$(date +%s%N); echo $((e - s))`;
  const output = await dockerExec(docker, containerId, ["bash", "-c", script]);
  const nanoseconds = Number(output.trim());
  if (!Number.isFinite(nanoseconds) || nanoseconds <= 0)
    throw new Error(`the spawn loop printed ${JSON.stringify(output)}, not a duration`);
  return nanoseconds / 1e6 / count;
}
