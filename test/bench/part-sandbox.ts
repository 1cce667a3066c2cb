// The measurements taken on one sandbox directly through the Docker runtime, without the HTTP API: the
// references the goals divide by (a `docker exec`, a `docker run --rm`, a spawn inside the container),
// the executor channel itself and the memory of the sandbox before it runs anything; with the table
// part, file operations, the cost of separated identities and a new environment at the runtime's level.

import { PassThrough, type Writable } from "node:stream";
import Docker from "dockerode";
import type { DockerRuntime } from "../../server/sandbox/docker/docker-runtime.js";
import { EXECUTOR_PATH } from "../../server/sandbox/docker/image.js";
import { LABEL_INSTANCE } from "../../server/sandbox/docker/labels.js";
import { ExecutorClient } from "../../server/sandbox/executor-client.js";
import type { SandboxChannel } from "../../server/sandbox/runtime.js";
import { measureCoreWake } from "./core-wake.js";
import { containerCpuMs } from "./cpu-accounting.js";
import { dockerExec, dockerExecCarryMs, dockerRunRm, loopCostInContainer, shellLoop, spawnCostInContainer } from "./docker-floor.js";
import { FIGURE, type FigureBook, megabytesPerSecond } from "./figures.js";
import { idleSandboxMemory } from "./sandbox-memory.js";
import { measure, measurePair, summarize } from "./stats.js";

const MIB = 1024 * 1024;

/**
 * The executor as it ran before issue 9: as the sandbox user, doing everything itself (no identities).
 * Only for comparing costs: sandbox code can stop such an executor.
 */
async function unseparatedChannel(docker: Docker, containerId: string): Promise<SandboxChannel> {
  const exec = await docker.getContainer(containerId).exec({
    Cmd: [EXECUTOR_PATH],
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    User: "1000:1000",
    WorkingDir: "/workspace",
  });
  const stream = (await exec.start({ hijack: true, stdin: true })) as NodeJS.ReadWriteStream;
  const stdout = new PassThrough();
  docker.modem.demuxStream(stream, stdout, process.stderr);
  stream.on("end", () => stdout.end());
  const client = new ExecutorClient(stdout, stream as unknown as Writable);
  await client.ping();
  return client;
}

/**
 * The goal "an idle sandbox ≤ 8 MiB" (goals.ts): the container's memory once its executor answered and
 * its file worker is up, before any command, with what it is made of for the bound.
 */
async function idleSandboxPart(book: FigureBook, docker: Docker, containerId: string): Promise<void> {
  const { container, rss } = await idleSandboxMemory(docker, containerId, EXECUTOR_PATH);
  const idle = "an idle sandbox";
  book.add(FIGURE.idleSandboxMemory, `${idle}: container memory (docker stats)`, container.usedMiB, "MiB");
  book.add(FIGURE.idleSandboxAnonymous, `${idle}: of which anonymous memory`, container.anonymousMiB, "MiB");
  book.add(FIGURE.idleSandboxPageCache, `${idle}: of which page cache not inactive`, container.pageCacheMiB, "MiB");
  book.add(FIGURE.idleSandboxExecutorRss, `${idle}: RSS of the executor`, rss.executor, "MiB");
  book.add(FIGURE.idleSandboxFileWorkerRss, `${idle}: RSS of its file worker`, rss.fileWorker, "MiB");
  book.add(FIGURE.idleSandboxKeepAliveRss, `${idle}: RSS of the keep-alive`, rss.keepAlive, "MiB");
  book.add(FIGURE.idleSandboxInitRss, `${idle}: RSS of the engine's init`, rss.init, "MiB");
  book.add(FIGURE.idleSandboxOtherRss, `${idle}: RSS of other processes`, rss.other, "MiB");
  book.addNote("An idle sandbox's memory (before it runs anything)", [
    `container ${container.usedMiB.toFixed(1)} MiB: anonymous ${container.anonymousMiB.toFixed(1)} MiB, page cache ${container.pageCacheMiB.toFixed(1)} MiB`,
    `RSS: executor ${rss.executor.toFixed(1)} MiB, file worker ${rss.fileWorker.toFixed(1)} MiB, keep-alive ${rss.keepAlive.toFixed(1)} MiB, init ${rss.init.toFixed(1)} MiB, other ${rss.other.toFixed(1)} MiB`,
  ]);
}

export async function sandboxPart(
  book: FigureBook,
  runtime: DockerRuntime,
  instance: string,
  parts: { goals: boolean; table: boolean },
  progress: (line: string) => void,
): Promise<void> {
  const docker = new Docker();
  const handle = await runtime.create({ environmentId: "env_bench", owner: "bench", files: [] });
  const channel = await runtime.connect(handle);
  const run = (argv: string[]) => channel.run({ argv, timeoutMs: 10_000, maxOutputBytes: 2 * MIB });
  try {
    if (parts.goals) {
      progress("the memory of the sandbox before it runs anything…");
      await idleSandboxPart(book, docker, handle.sandboxId);
    }
    await run(["bash", "-c", "head -c 1048576 /dev/zero > /tmp/1mib"]);
    if (parts.goals) {
      progress("one command in a running sandbox: the channel, `docker exec`, a spawn…");
      const cat = await measure("executor channel: `cat` of a 1 MiB file", 50, async () => {
        const result = await run(["cat", "/tmp/1mib"]);
        if (result.stdout.length !== MIB) throw new Error(`cat returned ${result.stdout.length} bytes, not 1 MiB`);
      });
      // Five loops of 200 spawns, each timed inside the container: the median loop's cost per spawn.
      const spawnLoops: number[] = [];
      for (let loop = 0; loop < 5; loop++) spawnLoops.push(await spawnCostInContainer(docker, handle.sandboxId, 200));
      const spawn = summarize("`bash -c true` in the container: per spawn, 5 loops of 200", spawnLoops);
      book.addTable("One command in a running sandbox", [
        { ...(await measure("executor channel: run `true`", 200, () => run(["true"]))), figure: FIGURE.channelTrue },
        {
          ...(await measure("docker exec per call: `true`", 30, () => dockerExec(docker, handle.sandboxId, ["true"]))),
          figure: FIGURE.dockerExec,
        },
        { ...spawn, figure: FIGURE.spawn },
        { ...cat, figure: FIGURE.channelCat },
      ]);
      // The floors behind the goals' bounds (goals.ts): what the engine takes to carry 1 MiB of a command's
      // output through an exec's stream (the channel is one), and one start of the executor's binary in a
      // sandbox (the executor and its file worker are two): as root, as the executor runs, with no
      // identities (so no file worker of its own) and stdin at its end, so it exits as soon as it reads.
      const carries: number[] = [];
      for (let run = 0; run < 15; run++) carries.push(await dockerExecCarryMs(docker, handle.sandboxId, ["cat", "/tmp/1mib"], MIB));
      const startLoops: number[] = [];
      for (let loop = 0; loop < 3; loop++)
        startLoops.push(await loopCostInContainer(docker, handle.sandboxId, `${EXECUTOR_PATH} </dev/null`, 20, "0:0"));
      book.addTable("Floors around a sandbox (what bounds the goals)", [
        { ...summarize("docker exec `cat` of 1 MiB: first byte to last", carries), figure: FIGURE.engineCarries1MiB },
        {
          ...summarize("`sandbox-executor </dev/null` in the container: per start, 3 loops of 20", startLoops),
          figure: FIGURE.executorStartInSandbox,
        },
      ]);
      // What a hand-off between processes on different cores costs here (core-wake.ts): a tool call has
      // at least four (emulator, executor, command, executor, emulator).
      const wake = await measureCoreWake();
      const handOff = wake.warmUs / 2;
      const idleWake = wake.coldUs - handOff;
      book.add(FIGURE.coreHandOff, "one thread waking another on another core, just idled", handOff, "µs");
      book.add(FIGURE.coreIdleWake, "one thread waking another on a core idle for 1 ms", idleWake, "µs");
      book.addNote("A hand-off between cores (two threads waking each other through a futex)", [
        `a round trip back to back: ${wake.warmUs.toFixed(0)} µs, so ${handOff.toFixed(0)} µs a wake-up`,
        `a round trip after the other core idled 1 ms: ${wake.coldUs.toFixed(0)} µs, so ${idleWake.toFixed(0)} µs to wake that core`,
      ]);
      // The sandbox's CPU per command, through the executor and spawned by a shell: what the executor
      // adds to a command, apart from process creation, which costs the same whoever spawns.
      const CPU_RUNS = 200;
      let before = await containerCpuMs(docker, handle.sandboxId);
      for (let index = 0; index < CPU_RUNS; index++) await run(["true"]);
      const channelCpu = ((await containerCpuMs(docker, handle.sandboxId)) - before) / CPU_RUNS;
      before = await containerCpuMs(docker, handle.sandboxId);
      await dockerExec(docker, handle.sandboxId, ["bash", "-c", shellLoop("/bin/true", CPU_RUNS)], "1000:1000");
      const shellCpu = ((await containerCpuMs(docker, handle.sandboxId)) - before) / CPU_RUNS;
      book.add(FIGURE.channelTrueSandboxCpu, "sandbox CPU per `true` through the executor channel", channelCpu, "ms");
      book.add(FIGURE.shellTrueSandboxCpu, "sandbox CPU per `/bin/true` a shell loop spawns", shellCpu, "ms");
      book.addNote("The sandbox's CPU per command (its cgroup)", [
        `\`true\` through the executor channel: ${channelCpu.toFixed(2)} ms (${CPU_RUNS} runs)`,
        `\`/bin/true\` spawned by a shell loop in the container: ${shellCpu.toFixed(2)} ms (${CPU_RUNS} spawns)`,
      ]);
      book.add(
        FIGURE.channelThroughput,
        "executor channel: `cat` of 1 MiB, throughput of the median run",
        megabytesPerSecond(MIB, cat.p50),
        "MB/s",
        "higher",
      );

      progress("`docker run --rm true`…");
      const image = (await docker.getContainer(handle.sandboxId).inspect()).Config.Image;
      book.addTable("A container from nothing (the reference for a new environment)", [
        {
          ...(await measure("docker run --rm <sandbox image> true", 8, () => dockerRunRm(docker, image, { [LABEL_INSTANCE]: instance }))),
          figure: FIGURE.dockerRun,
        },
      ]);
    }

    if (parts.table) {
      progress("file operations, separated identities, a new environment at the runtime's level…");
      await channel.writeFile("/workspace/small.txt", Buffer.from("hello"));
      book.addTable("One file operation in a running sandbox", [
        {
          ...(await measure("executor channel: readFile (5 bytes)", 500, () => channel.readFile("/workspace/small.txt", 1024))),
          figure: "channel.read_file_5_bytes.p50_ms",
        },
        {
          ...(await measure("executor channel: writeFile (5 bytes)", 500, () =>
            channel.writeFile("/workspace/w.txt", Buffer.from("hello")),
          )),
          figure: "channel.write_file_5_bytes.p50_ms",
        },
        {
          ...(await measure("executor channel: readFile (1 MiB)", 50, () => channel.readFile("/tmp/1mib", 2 * MIB))),
          figure: "channel.read_file_1mib.p50_ms",
        },
        {
          ...(await measure("docker exec per call: cat (5 bytes)", 30, () =>
            dockerExec(docker, handle.sandboxId, ["cat", "/workspace/small.txt"]),
          )),
          figure: "floor.docker_exec_cat_5_bytes.p50_ms",
        },
      ]);

      // What separating the identities costs (docs/security.md#who-runs-what-in-a-sandbox): commands started
      // as another user (a setuid spawn), file operations through the file worker (two more pipe hops).
      // Two fresh executors with the same history, so that only who they run as differs (the Node.js
      // executor forked more slowly once it had forwarded a lot of output: its heap had grown).
      const separated = await runtime.connect(handle);
      const unseparated = await unseparatedChannel(docker, handle.sandboxId);
      const runTrue = (on: SandboxChannel) => () => on.run({ argv: ["true"], timeoutMs: 10_000, maxOutputBytes: MIB });
      const pairs = [
        await measurePair(
          200,
          { label: "run `true`: as root, setuid to the sandbox user", once: runTrue(separated) },
          { label: "run `true`: executor as the sandbox user", once: runTrue(unseparated) },
        ),
        await measurePair(
          500,
          { label: "readFile (5 bytes): through the file worker", once: () => separated.readFile("/workspace/small.txt", 1024) },
          { label: "readFile (5 bytes): in the executor itself", once: () => unseparated.readFile("/workspace/small.txt", 1024) },
        ),
        await measurePair(
          500,
          {
            label: "writeFile (5 bytes): through the file worker",
            once: () => separated.writeFile("/workspace/w.txt", Buffer.from("hello")),
          },
          {
            label: "writeFile (5 bytes): in the executor itself",
            once: () => unseparated.writeFile("/workspace/w2.txt", Buffer.from("hello")),
          },
        ),
      ];
      book.addTable("Separated identities (as now) vs the executor as the sandbox user (as before), measured in turns", pairs.flat());
      separated.close();
      unseparated.close();

      const sources = Array.from({ length: 50 }, (_, i) => ({
        path: `/workspace/src/f${i}.txt`,
        content: Buffer.from(`file ${i}`),
        mode: 0o644,
      }));
      let n = 0;
      book.addTable("A new environment at the runtime's level (no HTTP, no pool)", [
        {
          ...(await measure("create + 50 sources + start + channel ping", 8, async () => {
            const created = await runtime.create({ environmentId: `env_benchnew${n++}`, owner: "bench", files: sources });
            const fresh = await runtime.connect(created);
            fresh.close();
            await runtime.remove(created);
          })),
          figure: "runtime.new_sandbox_50_sources.p50_ms",
        },
      ]);
    }
  } finally {
    channel.close();
    await runtime.remove(handle);
  }
}
