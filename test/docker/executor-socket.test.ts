// The executor's channel over the sandbox's Unix socket (socket-channel.ts, channel_server.go): tool
// calls' bytes do not pass through the Docker engine, nothing in the sandbox can reach the socket or its
// secret, a connection without the secret is refused, and an emulator started again reconnects to the
// sandboxes it finds over their sockets. The emulator talks to the engine through a relay that counts
// the bytes it carries (DOCKER_HOST=unix://<relay>).

import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import type { GoogleGenAI } from "@google/genai";
import Docker from "dockerode";
import {
  CHANNEL_FOLDER,
  CHANNEL_SECRET_FILE,
  CHANNEL_SOCKET_FILE,
  encodeFrame,
  PROTOCOL_VERSION,
} from "../../sandbox-image/executor/protocol.js";
import type { DockerRuntime } from "../../server/sandbox/docker/docker-runtime.js";
import type { SandboxChannel, SandboxHandle } from "../../server/sandbox/runtime.js";
import { execAsRoot, removeAllSandboxes, testDockerRuntime, unlessGvisor } from "../support/docker-fixture.js";
import { startDockerRelay, type DockerRelay } from "../support/docker-relay.js";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";
import { bash, KEY, resultsOf, runIn, script, sdk, AGENT, type Interaction } from "../support/fault-harness.js";

const TEN_MIB = 10 * 1024 * 1024;
/** Prints the command line of the executor's parent: the keep-alive when the channel is its socket. */
const EXECUTORS_PARENT = "tr '\\0' ' ' < /proc/$(awk '/^PPid/{print $2}' /proc/$PPID/status)/cmdline 2>&1 || echo none";

async function download(emulator: EmulatorProcess, environmentId: string, file: string): Promise<Buffer> {
  const response = await fetch(`${emulator.url}/v1beta/environments/${environmentId}/files/${file}?alt=media`, {
    headers: { "x-goog-api-key": KEY },
  });
  assert.equal(response.status, 200);
  return Buffer.from(await response.arrayBuffer());
}

/** An environment holding /workspace/big (10 MiB); returns its ID and what EXECUTORS_PARENT printed. */
async function environmentWithBigFile(ai: GoogleGenAI): Promise<{ environmentId: string; parent: string }> {
  const made = (await ai.interactions.create({
    agent: AGENT,
    input: script([bash(`head -c ${TEN_MIB} /dev/urandom > /workspace/big && ${EXECUTORS_PARENT}`)]),
    environment: { type: "remote" },
  })) as Interaction;
  assert.equal(made.status, "completed", JSON.stringify(made.errors));
  return { environmentId: made.environment_id!, parent: resultsOf(made)[0]! };
}

/** How many times the keep-alive's threads went to sleep so far (the executor serving `channel` is its child). */
async function keepAliveSleeps(channel: SandboxChannel): Promise<number> {
  const result = await channel.run({
    argv: [
      "sh",
      "-c",
      "cat /proc/$(awk '/^PPid/{print $2}' /proc/$PPID/status)/task/*/status | awk '/^voluntary_ctxt_switches/{n+=$2} END{print n}'",
    ],
    timeoutMs: 10_000,
    maxOutputBytes: 1000,
  });
  return Number(result.stdout.toString());
}

describe("the executor's channel over the sandbox's socket", unlessGvisor("the gVisor keep-alive serves no socket"), () => {
  let relay: DockerRelay;
  const emulators: EmulatorProcess[] = [];

  before(async () => {
    relay = await startDockerRelay();
  });

  after(async () => {
    for (const emulator of emulators) await emulator.destroy();
    await relay?.close();
  });

  it("carries a 10 MiB download without the engine; the exec stream (EMULATOR_CHANNEL=exec) carries it through the engine", async () => {
    const moved: Record<string, number> = {};
    for (const channel of ["socket", "exec"]) {
      const emulator = await startEmulatorProcess({ DOCKER_HOST: relay.dockerHost, EMULATOR_CHANNEL: channel, EMULATOR_POOL_SIZE: "0" });
      emulators.push(emulator);
      const { environmentId, parent } = await environmentWithBigFile(sdk(emulator));
      if (channel === "socket") assert.match(parent, /--hold-port/, "the executor is not the keep-alive's child");
      const before = relay.bytes;
      const bytes = await download(emulator, environmentId, "workspace/big");
      moved[channel] = relay.bytes - before;
      assert.equal(bytes.length, TEN_MIB);
    }
    assert.ok(moved.socket! < 1024 * 1024, `the socket channel moved ${moved.socket} bytes through the engine`);
    assert.ok(moved.exec! > TEN_MIB, `the exec stream moved only ${moved.exec} bytes through the engine`);
  });

  it("reconnects over the socket to the sandbox it finds after a restart, its files kept", async () => {
    const emulator = await startEmulatorProcess({ DOCKER_HOST: relay.dockerHost, EMULATOR_CHANNEL: "socket", EMULATOR_POOL_SIZE: "0" });
    emulators.push(emulator);
    const first = await runIn(sdk(emulator), (await environmentWithBigFile(sdk(emulator))).environmentId, "echo kept > /workspace/kept");
    assert.equal(first.status, "completed");
    const environmentId = first.environment_id!;
    await emulator.stop();
    const again = await startEmulatorProcess(
      { DOCKER_HOST: relay.dockerHost, EMULATOR_CHANNEL: "socket", EMULATOR_POOL_SIZE: "0" },
      emulator,
    );
    emulators[emulators.indexOf(emulator)] = again;
    const check = await runIn(sdk(again), environmentId, `cat /workspace/kept; ${EXECUTORS_PARENT}`);
    assert.equal(check.status, "completed", JSON.stringify(check.errors));
    assert.match(resultsOf(check)[0]!, /^kept\n.*--hold-port/);
    const before = relay.bytes;
    assert.equal((await download(again, environmentId, "workspace/big")).length, TEN_MIB);
    assert.ok(relay.bytes - before < 1024 * 1024, `${relay.bytes - before} bytes through the engine after the restart`);
  });
});

describe("the channel's socket folder and secret", unlessGvisor("the gVisor keep-alive serves no socket"), () => {
  let runtime: DockerRuntime;
  let handle: SandboxHandle;
  let channel: SandboxChannel;
  let hostFolder: string;

  before(async () => {
    runtime = await testDockerRuntime({ EMULATOR_CHANNEL: "socket" });
    assert.equal(runtime.channelTransport, "socket");
    handle = await runtime.create({ environmentId: "env_itestsocketreach", owner: "owner", files: [] });
    channel = await runtime.connect(handle);
    const found = runtime.channelFolderOf(handle.environmentId);
    assert.ok(found && fs.existsSync(path.join(found, CHANNEL_SOCKET_FILE)), "no socket in the sandbox's channel folder");
    hostFolder = found;
  });

  after(async () => {
    channel?.close();
    if (runtime) await removeAllSandboxes(runtime);
  });

  for (const runAs of ["sandbox", "hooks"] as const) {
    it(`is out of the ${runAs} user's reach: no listing, no secret, no connection`, async () => {
      const probe = [
        `ls ${CHANNEL_FOLDER} >/dev/null 2>&1; echo "ls: $?"`,
        `cat ${CHANNEL_FOLDER}/${CHANNEL_SECRET_FILE} >/dev/null 2>&1; echo "cat: $?"`,
        `python3 -c "import socket; s = socket.socket(socket.AF_UNIX); s.connect('${CHANNEL_FOLDER}/${CHANNEL_SOCKET_FILE}'); print('connected')" 2>&1 | tail -1`,
        `ls -ld ${path.posix.dirname(CHANNEL_FOLDER)} | cut -d' ' -f1,3`,
      ].join("; ");
      const result = await channel.run({ argv: ["sh", "-c", probe], runAs, timeoutMs: 10_000, maxOutputBytes: 10_000 });
      assert.equal(result.stdout.toString(), "ls: 2\ncat: 1\nPermissionError: [Errno 13] Permission denied\ndrwx------ root\n");
    });
  }

  it("refuses and closes a connection without the secret: no executor answers it", async () => {
    const secret = fs.readFileSync(path.join(hostFolder, CHANNEL_SECRET_FILE), "utf8");
    const wrong = secret.replace(/^./, (first) => (first === "0" ? "1" : "0"));
    const ping = encodeFrame({ id: 1, op: "ping" });
    const preamble = (body: object) => {
      const json = Buffer.from(JSON.stringify(body));
      const length = Buffer.alloc(4);
      length.writeUInt32BE(json.length);
      return Buffer.concat([length, json]);
    };
    const argv = ["--identity", "sandbox=1000:1000:/home/sandbox", "--identity", "hooks=1001:1001:/home/hooks"];
    const attempts: Array<[string, Buffer]> = [
      ["a wrong secret", preamble({ secret: wrong, argv })],
      ["no secret", preamble({ argv })],
      ["no preamble, a frame at once", ping],
      ["the keep-alive's own arguments", preamble({ secret, argv: ["--hold-port", "127.0.0.1:3129"] })],
    ];
    for (const [what, opening] of attempts) {
      const answer = await new Promise<Buffer>((resolve, reject) => {
        const socket = net.connect(path.join(hostFolder, CHANNEL_SOCKET_FILE));
        const chunks: Buffer[] = [];
        socket.on("data", (chunk: Buffer) => chunks.push(chunk));
        socket.on("error", () => undefined);
        socket.on("close", () => resolve(Buffer.concat(chunks)));
        socket.on("connect", () => socket.write(Buffer.concat([opening, ping])));
        setTimeout(() => reject(new Error(`${what}: the connection stayed open`)), 20_000).unref();
      });
      assert.equal(answer.length, 0, `${what}: got an answer`);
    }
    // The right secret is answered, by an executor of this protocol.
    const other = await runtime.connect(handle);
    assert.equal((await other.ping()).version, PROTOCOL_VERSION);
    other.close();
  });

  it("leaves the keep-alive asleep while the channel carries frames (its copy of the connection is out of Go's poller)", async () => {
    const before = await keepAliveSleeps(channel);
    const runs = 200;
    for (let run = 0; run < runs; run++) await channel.run({ argv: ["true"], timeoutMs: 10_000, maxOutputBytes: 1000 });
    const woken = (await keepAliveSleeps(channel)) - before;
    // Watched by the runtime's poller, it woke two or three times a command (each frame in, each write out).
    assert.ok(woken < runs / 5, `the keep-alive woke ${woken} times for ${runs} commands`);
  });

  it("leaves an idle sandbox's keep-alive asleep: no timer wakes it while its channel is open and idle", async () => {
    // What the tests before left (a closed connection's grace, Go's collector) settles first.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const before = await keepAliveSleeps(channel);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const woken = (await keepAliveSleeps(channel)) - before;
    // Watching for the hang-up with a timed wait (500 ms), it and Go's monitor thread woke about eight
    // times a second, for each live environment: 24 in these 3 s with that build.
    assert.ok(woken <= 3, `the idle keep-alive woke ${woken} times in 3 s`);
  });

  it("starts the executor and its file worker with a timer slack of 1 ms, and every command with the kernel's 50 µs", async () => {
    const command = await channel.run({ argv: ["cat", "/proc/self/timerslack_ns"], timeoutMs: 10_000, maxOutputBytes: 100 });
    assert.equal(command.stdout.toString().trim(), "50000");
    const hook = await channel.run({ argv: ["cat", "/proc/self/timerslack_ns"], runAs: "hooks", timeoutMs: 10_000, maxOutputBytes: 100 });
    assert.equal(hook.stdout.toString().trim(), "50000");
    // Read from the host: the executor's threads change their file system identity, which makes it
    // undumpable, so no process in the sandbox may read its /proc entries.
    const top = (await new Docker().getContainer(handle.sandboxId).top({ ps_args: "-eo pid,args" })) as { Processes: string[][] };
    /** The distinct timer slacks of every thread of every process whose command line matches (/proc/<tid> has a thread's). */
    const slackOf = (match: (args: string) => boolean) => {
      const pids = top.Processes.filter((process) => match(process[1] ?? "")).map((process) => process[0]!);
      assert.ok(pids.length > 0, `no such process in ${JSON.stringify(top.Processes)}`);
      const tasks = pids.flatMap((pid) => fs.readdirSync(`/proc/${pid}/task`).map((task) => `/proc/${task}/timerslack_ns`));
      return [...new Set(tasks.map((file) => fs.readFileSync(file, "utf8").trim()))];
    };
    assert.deepEqual(
      slackOf((args) => args.includes("--identity") && !args.includes("--file-worker")),
      ["1000000"],
    );
    assert.deepEqual(
      slackOf((args) => args.includes("--file-worker")),
      ["1000000"],
    );
    // The keep-alive's own thread got its slack back after starting the executor.
    assert.deepEqual(
      slackOf((args) => args.includes("--hold-port") && !args.includes("docker-init")),
      ["50000"],
    );
  });

  it("ends an executor that does not end by itself once the emulator hangs up", async () => {
    const second = await runtime.connect(handle);
    const executor = Number(
      (await second.run({ argv: ["sh", "-c", "echo $PPID"], timeoutMs: 10_000, maxOutputBytes: 100 })).stdout.toString(),
    );
    const container = new Docker().getContainer(handle.sandboxId);
    const alive = async () => (await execAsRoot(container, ["kill", "-0", String(executor)])).exitCode === 0;
    assert.ok(await alive());
    // Stopped, it reads nothing: only the keep-alive, seeing the hang-up, can end it (SIGCONT and SIGTERM
    // after 2 s, SIGKILL 2 s later).
    assert.equal((await execAsRoot(container, ["kill", "-STOP", String(executor)])).exitCode, 0);
    second.close();
    const deadline = Date.now() + 15_000;
    while ((await alive()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(await alive(), false, "the executor outlived its channel");
    // The keep-alive still serves the socket.
    const third = await runtime.connect(handle);
    assert.equal((await third.ping()).version, PROTOCOL_VERSION);
    third.close();
  });

  it("removes the sandbox's channel folder with the sandbox", async () => {
    const extra = await runtime.create({ environmentId: "env_itestsocketgone", owner: "owner", files: [] });
    const folder = runtime.channelFolderOf(extra.environmentId)!;
    assert.ok(fs.existsSync(folder));
    await runtime.remove(extra);
    assert.equal(fs.existsSync(folder), false);
  });
});
