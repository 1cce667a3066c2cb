// A Docker runtime for integration tests: its own instance name, so the containers it makes are
// found and removed at the end whatever the tests did.

import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import Docker from "dockerode";
import { loadConfig } from "../../server/common/config.js";
import { dockerRuntimeFor } from "../../server/emulator.js";
import type { DockerRuntime } from "../../server/sandbox/docker/docker-runtime.js";
import { LABEL_ENVIRONMENT, LABEL_INSTANCE, LABEL_LEASE_EXPIRES, LABEL_POOLED } from "../../server/sandbox/docker/labels.js";

/** settings: configuration variables over the defaults (e.g. a smaller EMULATOR_SANDBOX_MEMORY_MB). */
export async function testDockerRuntime(settings: Record<string, string> = {}): Promise<DockerRuntime> {
  const runtime = dockerRuntimeFor(
    loadConfig({
      ...process.env,
      EMULATOR_INSTANCE: `itest-${randomBytes(4).toString("hex")}`,
      EMULATOR_SANDBOX_PIDS: "256",
      ...settings,
    }),
  );
  await runtime.prepare(() => undefined);
  return runtime;
}

export async function removeAllSandboxes(runtime: DockerRuntime): Promise<void> {
  for (const handle of await runtime.list()) await runtime.remove(handle);
}

/**
 * How many containers, volumes and images on the engine are labelled with the emulator instance;
 * `pool: false` leaves out its warm pool containers that no environment has taken (their number
 * changes in the background).
 */
export async function objectsOfInstance(
  instance: string,
  /**
   * pool: false leaves out warm pool containers no environment has taken; sandboxes: true counts only
   * containers of an environment (no pool, and none of the start-up probes, which run in the background
   * after a start, so their short-lived containers come and go at any time); leases: false leaves out
   * the instance's lease volumes.
   */
  options: { pool?: boolean; sandboxes?: boolean; leases?: boolean } = {},
): Promise<{ containers: number; volumes: number; images: number }> {
  const docker = new Docker();
  const filters = { label: [`${LABEL_INSTANCE}=${instance}`] };
  const [containers, volumes, images] = await Promise.all([
    docker.listContainers({ all: true, filters }),
    docker.listVolumes({ filters }),
    docker.listImages({ filters }),
  ]);
  const counted = containers.filter((container) => {
    if ((options.pool === false || options.sandboxes) && isUntakenPoolContainer(container, instance)) return false;
    return !options.sandboxes || (container.Labels[LABEL_ENVIRONMENT] ?? "") !== "";
  });
  const countedVolumes = (volumes.Volumes ?? []).filter(
    (volume) => options.leases !== false || volume.Labels?.[LABEL_LEASE_EXPIRES] === undefined,
  );
  return { containers: counted.length, volumes: countedVolumes.length, images: images.length };
}

/** A warm pool container no environment has taken: labelled pooled and still named iemu-<instance>-pool-…. */
export function isUntakenPoolContainer(container: Docker.ContainerInfo, instance: string): boolean {
  return container.Labels[LABEL_POOLED] === "true" && (container.Names ?? []).some((name) => name.startsWith(`/iemu-${instance}-pool-`));
}

/** Runs argv in the container as root, beside the sandbox (where the sandbox user cannot); its output (both streams, raw) and exit code. */
export async function execAsRoot(container: Docker.Container, argv: string[]): Promise<{ output: string; exitCode: number | null }> {
  const exec = await container.exec({ Cmd: argv, User: "0:0", AttachStdout: true, AttachStderr: true });
  const stream = await exec.start({ hijack: true, stdin: false });
  // Without a TTY the engine multiplexes stdout and stderr in frames with 8-byte headers: demultiplexed
  // here into one text, so a program that writes in small pieces (an unbuffered Python) reads as it printed.
  const output = await new Promise<string>((resolve) => {
    let text = "";
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        text += chunk.toString("latin1");
        done();
      },
    });
    container.modem.demuxStream(stream, sink, sink);
    stream.on("end", () => resolve(text));
  });
  return { output, exitCode: (await exec.inspect()).ExitCode ?? null };
}

/**
 * Whether this run's sandboxes run under gVisor (EMULATOR_SANDBOX_RUNTIME=runsc, docs/security.md#gvisor),
 * for the few tests of what gVisor does differently: they skip under it, saying why.
 */
export const UNDER_GVISOR = loadConfig(process.env).EMULATOR_SANDBOX_RUNTIME === "runsc";

/** node:test options that skip a test under gVisor, with the reason printed; none elsewhere. */
export function unlessGvisor(reason: string): { skip?: string } {
  return UNDER_GVISOR ? { skip: `under gVisor: ${reason} (docs/security.md#gvisor)` } : {};
}
