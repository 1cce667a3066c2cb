// Sandbox code against what guards it (issue 9, defects 5-7), with real sandboxes: it must not be able
// to stop, kill or starve the executor, the container's keep-alive or the hooks of a read-only
// configuration, and nothing the API does may hang on an executor that stops answering. Each scenario
// is the reproduction, run as the sandbox user would run it (docs/security.md#who-runs-what-in-a-sandbox).

import assert from "node:assert/strict";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, it } from "node:test";
import Docker from "dockerode";
import { GoogleGenAI } from "@google/genai";
import { tarBuffer } from "../../server/common/tar.js";
import { ChannelHookHost } from "../../server/hooks/channel-hook-host.js";
import { runPreToolHooks } from "../../server/hooks/engine.js";
import type { DockerRuntime } from "../../server/sandbox/docker/docker-runtime.js";
import type { CommandResult, SandboxChannel, SandboxHandle, SandboxSpec } from "../../server/sandbox/runtime.js";
import { runTool } from "../../server/tools/tool-runner.js";
import { PROTOCOL_VERSION } from "../../sandbox-image/executor/protocol.js";
import { execAsRoot, removeAllSandboxes, testDockerRuntime, UNDER_GVISOR, unlessGvisor } from "../support/docker-fixture.js";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";
import { installOlderExecutor } from "../support/older-executors.js";
import { bash, read } from "../support/tool-calls.js";

const limits = { timeoutMs: 20_000, maxOutputBytes: 1 << 20 };

async function run(channel: SandboxChannel, script: string, timeoutMs = 20_000): Promise<CommandResult> {
  return channel.run({ argv: ["bash", "-c", script], cwd: "/workspace", timeoutMs, maxOutputBytes: 1 << 20 });
}

async function sh(channel: SandboxChannel, script: string): Promise<string> {
  const result = await run(channel, script);
  assert.equal(result.exitCode, 0, `${script}\n${result.stderr.toString()}`);
  return result.stdout.toString("utf8");
}

// ---- The gate of a read-only hooks configuration, and the loop that hunts it ----

/** Slow enough that a loop of pkill surely finds it while it runs; denies what mentions the marker. */
const GATE_SCRIPT = `#!/bin/bash
payload=$(cat)
sleep 0.5
case "$payload" in
  *forbidden-marker*) printf '{"decision":"deny","reason":"blocked by the gate, as uid %s"}\\n' "$(id -u)";;
  *) echo '{"decision":"allow"}';;
esac
`;
const gateConfig = (scriptPath: string): string =>
  JSON.stringify({
    gate: {
      pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "command", command: `bash ${scriptPath}`, timeout: 20 }] }],
    },
  });
/**
 * The loop, left running in the background by one call. Its own command line must not contain
 * "deny-gate", or pkill would kill the loop itself: the pattern is assembled when the script is written.
 */
const START_KILLER = `printf 'while true; do pkill -KILL -f deny-%s; done\\n' gate > /tmp/killer.sh
nohup bash /tmp/killer.sh >/dev/null 2>&1 &
for _ in $(seq 50); do pgrep -f killer.sh >/dev/null && { echo hunting; exit 0; }; sleep 0.1; done; exit 1`;

// ---- Sandbox code against the egress port (issue 29, items 7 and 13) ----

/** A read-only gate whose handler is HTTP: curl as the hooks user, through the sandbox's egress port. */
const HTTP_GATE_CONFIG = JSON.stringify({
  gate: {
    pre_tool_execution: [{ matcher: "code_execution", hooks: [{ type: "http", url: "http://httpgate.example.com/check", timeout: 20 }] }],
  },
});
/**
 * Opens 400 connections to the egress port and leaves a process holding them, idle (the 400):
 * more than a sandbox may have open, so the executor closes the rest at once. Prints how many stay open.
 */
const HOLD_CONNECTIONS = `cat > /tmp/hold-connections.py <<'PY'
import socket, time
held = []
for _ in range(400):
    connection = socket.create_connection(("127.0.0.1", 3128))
    held.append(connection)
time.sleep(1)
open_ = 0
for connection in held:
    connection.setblocking(False)
    try:
        open_ += connection.recv(1) != b""
    except BlockingIOError:
        open_ += 1
    except OSError:
        pass
print("holding", open_, flush=True)
time.sleep(600)
PY
nohup python3 /tmp/hold-connections.py > /tmp/hold-connections.out 2>&1 &
for _ in $(seq 30); do grep -q holding /tmp/hold-connections.out && break; sleep 0.1; done; cat /tmp/hold-connections.out`;
/**
 * Tries to bind the egress port (the exact address and the wildcard one) every 20 ms, left running: it
 * notes every failure's reason once, and "taken" when a bind succeeds, then keeps the port.
 */
const GRAB_PORT = `cat > /tmp/grab-port.py <<'PY'
import socket, time
seen = set()
while True:
    for host in ("127.0.0.1", "0.0.0.0"):
        grab = socket.socket()
        grab.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            grab.bind((host, 3128))
            grab.listen(8)
        except OSError as error:
            grab.close()
            if error.strerror not in seen:
                seen.add(error.strerror)
                print("refused:", error.strerror, flush=True)
            continue
        print("taken", host, flush=True)
        time.sleep(600)
    time.sleep(0.02)
PY
nohup python3 /tmp/grab-port.py > /tmp/grab-port.out 2>&1 &
for _ in $(seq 30); do grep -qs refused /tmp/grab-port.out && break; sleep 0.1; done; cat /tmp/grab-port.out`;

async function readOnlyTree(
  folder: string,
  files: Record<string, { content: string; mode: number }>,
): Promise<SandboxSpec["readOnlyTrees"]> {
  const root = { uid: 0, gid: 0, mtime: new Date() };
  const tar = await tarBuffer(
    Object.entries(files).map(([name, file]) => ({ header: { name, mode: file.mode, ...root }, content: Buffer.from(file.content) })),
  );
  return [{ path: folder, tar }];
}

describe("sandbox code against what guards it, in a Docker sandbox", { timeout: 300_000 }, () => {
  let runtime: DockerRuntime;
  let handle: SandboxHandle;
  let channel: SandboxChannel;

  before(async () => {
    runtime = await testDockerRuntime();
    handle = await runtime.create({ environmentId: "env_itestisolation", owner: "owner", files: [] });
    channel = await runtime.connect(handle);
  });
  after(async () => {
    channel?.close();
    if (runtime) await removeAllSandboxes(runtime);
  });

  it("hands a command no descriptor of the executor's, only its standard streams", async () => {
    // The executor keeps its own oom_score_adj open: inherited, it would let sandbox code change it.
    // (A second command keeps bash from exec-ing ls, so $$ is bash's, not ls's with its own folder open.)
    assert.equal(await sh(channel, "ls /proc/$$/fd; true"), "0\n1\n2\n");
  });

  it("runs a tool as the sandbox user with an empty capability set and no way to gain one", async () => {
    const status = await sh(channel, "id -u; id -G; grep -E '^(CapInh|CapPrm|CapEff|CapAmb):' /proc/self/status");
    assert.deepEqual(status.trim().split("\n"), [
      "1000",
      "1000",
      "CapInh:\t0000000000000000",
      "CapPrm:\t0000000000000000",
      "CapEff:\t0000000000000000",
      // gVisor's kernel has no ambient set (and no such line).
      ...(UNDER_GVISOR ? [] : ["CapAmb:\t0000000000000000"]),
    ]);
    // no_new_privs from the kernel itself: gVisor's /proc/self/status has no NoNewPrivs line.
    assert.equal(await sh(channel, `python3 -c "import ctypes; print(ctypes.CDLL(None).prctl(39, 0, 0, 0, 0))"`), "1\n");
  });

  it("leaves the executor and its file worker out of the sandbox user's reach: kill -STOP $PPID has no effect", async (t) => {
    const before = await channel.ping();
    assert.equal(before.uid, 0, "the executor runs as root");
    if (UNDER_GVISOR) {
      // gVisor's kernel (bookworm's runsc) lets any user read another's /proc/<pid>/environ.
      const stop = await run(channel, 'kill -STOP $PPID; echo "kill: $?"');
      assert.equal(stop.stdout.toString(), "kill: 1\n");
      t.diagnostic("under gVisor: /proc/<pid>/environ of root's executor is readable; not checked (docs/security.md#gvisor)");
    } else {
      const stop = await run(channel, 'kill -STOP $PPID; echo "kill: $?"; cat /proc/$PPID/environ >/dev/null; echo "environ: $?"');
      assert.equal(stop.stdout.toString(), "kill: 1\nenviron: 1\n");
      assert.match(stop.stderr.toString(), /Operation not permitted[\s\S]*Permission denied/);
    }
    const worker = await run(channel, 'pid=$(pgrep -f -- \'--file-[w]orker\'); test -n "$pid" && kill -KILL $pid; echo "kill: $?"');
    assert.equal(worker.stdout.toString(), "kill: 1\n");
    assert.match(worker.stderr.toString(), /Operation not permitted/);
    // Still there and answering: the same executor, and file operations through the same worker.
    assert.equal((await channel.ping()).pid, before.pid);
    await channel.writeFile("/workspace/after-stop.txt", Buffer.from("ok"));
    assert.equal((await channel.readFile("/workspace/after-stop.txt", 10)).content.toString(), "ok");
  });

  it("starts the file worker again after it ended (killed as root: the sandbox user cannot)", async () => {
    const workerPid = (await sh(channel, "pgrep -f -- '--file-[w]orker'")).trim();
    assert.match(workerPid, /^\d+$/);
    const container = new Docker().getContainer(handle.sandboxId);
    const exec = await container.exec({ Cmd: ["kill", "-KILL", workerPid], User: "0:0", AttachStdout: true, AttachStderr: true });
    const stream = await exec.start({ hijack: true, stdin: false });
    await new Promise<void>((resolve) => {
      stream.on("end", resolve);
      stream.resume();
    });
    // Whether the executor has seen the worker end yet or not: a read or a write is sent again if need be.
    await channel.writeFile("/workspace/after-worker.txt", Buffer.from("again"));
    assert.equal((await channel.readFile("/workspace/after-worker.txt", 10)).content.toString(), "again");
    const newPid = (await sh(channel, "pgrep -f -- '--file-[w]orker'")).trim();
    assert.match(newPid, /^\d+$/);
    assert.notEqual(newPid, workerPid);
  });

  it("never runs sandbox code through the executor of a sandbox made by another version of the emulator", async () => {
    const other = await runtime.create({ environmentId: "env_itestoldexecutor", owner: "owner", files: [] });
    try {
      // As an older emulator's image would have it: the same executor, another protocol version. Such an
      // executor is replaced before anything is asked of it (test/docker/executor-upgrade.test.ts).
      await installOlderExecutor(new Docker().getContainer(other.sandboxId), { answersWithVersion: 3 });
      const upgraded = await runtime.connect(other);
      try {
        assert.equal((await upgraded.ping()).version, PROTOCOL_VERSION);
        assert.equal((await sh(upgraded, "id -u")).trim(), "1000", "sandbox code runs as the sandbox user");
      } finally {
        upgraded.close();
      }
    } finally {
      await runtime.remove(other);
    }
  });

  it("keeps the container up through a pkill of its keep-alive and kill -9 -1, and the call says what happened", async () => {
    const pid = (await channel.ping()).pid;
    const pkill = await runTool(
      channel,
      bash('sleep 300 & sleep 0.2; pkill sleep; pkill -f -- "--hold-[p]ort"; echo "pkill exit $?"'),
      limits,
    );
    // The sandbox user's own sleep goes; the keep-alive (root's, holding the egress port) refuses.
    assert.match(pkill.result, /killing pid \d+ failed: Operation not permitted/);
    const killAll = await runTool(channel, bash("echo before; sleep 300 & sh -c 'kill -9 -1'; echo never"), limits);
    assert.equal(killAll.isError, true);
    assert.match(killAll.result, /^before\n[\s\S]*\[killed by SIGKILL\]/);
    assert.doesNotMatch(killAll.result, /never/);
    assert.equal(await runtime.isAlive(handle), true, "the container stopped");
    assert.equal((await channel.ping()).pid, pid, "the executor was replaced");
    assert.equal(await sh(channel, "echo still here"), "still here\n");
  });

  it("lets a pkill loop left by one call kill a hook of a writable configuration: it is the sandbox's own", async () => {
    // The control for the next test: the loop does find and kill a gate it may signal, which then fails open.
    const writable = await runtime.create({
      environmentId: "env_itestwritablegate",
      owner: "owner",
      files: [
        { path: "/.agents/hooks.json", content: Buffer.from(gateConfig("/.agents/deny-gate.sh")), mode: 0o644 },
        { path: "/.agents/deny-gate.sh", content: Buffer.from(GATE_SCRIPT), mode: 0o755 },
      ],
    });
    const inside = await runtime.connect(writable);
    try {
      assert.equal(await sh(inside, START_KILLER), "hunting\n");
      const host = new ChannelHookHost(inside, { cwd: "/workspace", env: {} });
      const result = await runPreToolHooks(host, bash("touch /workspace/forbidden-marker"), "env_itestwritablegate");
      assert.equal(result.decision, "allow");
      assert.equal(result.trace.files[0]?.read_only, false);
      assert.equal(result.trace.handlers[0]?.signal, "SIGKILL");
      assert.equal(result.trace.handlers[0]?.fail_open?.code, "signal");
    } finally {
      inside.close();
      await runtime.remove(writable);
    }
  });

  it("runs a hook of a read-only configuration as the hooks user, where the same loop cannot touch it", async () => {
    const guarded = await runtime.create({
      environmentId: "env_itestreadonlygate",
      owner: "owner",
      files: [],
      readOnlyTrees: await readOnlyTree("/workspace/.agents", {
        "hooks.json": { content: gateConfig("/workspace/.agents/deny-gate.sh"), mode: 0o444 },
        "deny-gate.sh": { content: GATE_SCRIPT, mode: 0o555 },
      }),
    });
    const inside = await runtime.connect(guarded);
    try {
      assert.equal(await sh(inside, START_KILLER), "hunting\n");
      const host = new ChannelHookHost(inside, { cwd: "/workspace", env: {} });
      for (let attempt = 0; attempt < 3; attempt++) {
        const result = await runPreToolHooks(host, bash("touch /workspace/forbidden-marker"), "env_itestreadonlygate");
        assert.deepEqual(
          { decision: result.decision, reason: result.decision === "deny" ? result.reason : null },
          { decision: "deny", reason: "blocked by the gate, as uid 1001" },
        );
        assert.deepEqual(
          result.trace.files.map((file) => [file.path, file.status, file.read_only]),
          [
            ["/.agents/hooks.json", "missing", null],
            ["/workspace/.agents/hooks.json", "loaded", true],
          ],
        );
        assert.equal(result.trace.handlers[0]?.exit_code, 0);
        assert.equal(result.trace.handlers[0]?.fail_open, null);
      }
      // The loop is still at it (it did not die of anything but its own failures).
      assert.match(await sh(inside, "pgrep -fc killer.sh"), /^[1-9]/);
    } finally {
      inside.close();
      await runtime.remove(guarded);
    }
  });

  it("kills a read-only hook's whole process tree at its timeout, though it is not the sandbox user's", async () => {
    const slow = JSON.stringify({
      slow: { pre_tool_execution: [{ matcher: "read_file", hooks: [{ type: "command", command: "sleep 300 & sleep 301", timeout: 1 }] }] },
    });
    const guarded = await runtime.create({
      environmentId: "env_itestreadonlyslow",
      owner: "owner",
      files: [],
      readOnlyTrees: await readOnlyTree("/.agents", { "hooks.json": { content: slow, mode: 0o444 } }),
    });
    const inside = await runtime.connect(guarded);
    try {
      const host = new ChannelHookHost(inside, { cwd: "/workspace", env: {} });
      const result = await runPreToolHooks(host, read("/workspace/anything.txt"), "env_itestreadonlyslow");
      assert.equal(result.trace.files[0]?.read_only, true);
      assert.equal(result.trace.handlers[0]?.timed_out, true);
      // Neither sleep is left: the executor found and killed them as the hooks user.
      const left = await run(inside, 'pgrep -u hooks -a; echo "left: $?"');
      assert.equal(left.stdout.toString(), "left: 1\n");
    } finally {
      inside.close();
      await runtime.remove(guarded);
    }
  });
});

describe("memory pressure in a Docker sandbox", { timeout: 300_000 }, () => {
  let runtime: DockerRuntime;
  let handle: SandboxHandle;
  let channel: SandboxChannel;

  before(async () => {
    // A small sandbox, so the hogs fill it quickly.
    runtime = await testDockerRuntime({ EMULATOR_SANDBOX_MEMORY_MB: "256" });
    handle = await runtime.create({ environmentId: "env_itestoom", owner: "owner", files: [] });
    channel = await runtime.connect(handle);
  });
  after(async () => {
    channel?.close();
    if (runtime) await removeAllSandboxes(runtime);
  });

  /**
   * 30 processes of 20 MiB each in a 256 MiB sandbox: each is smaller than the executor (about 50 MiB),
   * so by size alone the OOM killer would take the executor first. Prints how many were killed.
   */
  const hogs = (lowerFirst: boolean): string => `pids=()
for i in $(seq 30); do
  python3 -c '
import time
if ${lowerFirst ? "True" : "False"}:
    try:
        open("/proc/self/oom_score_adj", "w").write("0")
    except OSError:
        pass
x = bytearray(20 * 2**20)
time.sleep(4)' &
  pids+=($!)
done
killed=0
for pid in "\${pids[@]}"; do wait $pid || killed=$((killed + 1)); done
echo "killed: $killed"`;

  it("puts the sandbox user's commands first in line for the OOM killer, and the guards last", async () => {
    // The executor stands at 1000 itself for the moment of a spawn (this command's own, too): wait for
    // it to be back, without spawning anything through it meanwhile.
    const adjustments = await sh(
      channel,
      `cat /proc/self/oom_score_adj
for _ in $(seq 50); do executor=$(cat /proc/$PPID/oom_score_adj); [ "$executor" = 0 ] && break; sleep 0.1; done
echo "$executor"; cat /proc/1/oom_score_adj`,
    );
    assert.deepEqual(adjustments.trim().split("\n"), ["1000", "0", "0"], "a command, the executor, the container's init");
    const raise = await run(channel, "echo 1000 > /proc/$PPID/oom_score_adj");
    assert.notEqual(raise.exitCode, 0, "a command made the executor the OOM killer's first choice");
    assert.match(raise.stderr.toString(), /Permission denied/);
  });

  const oomUnderGvisor = unlessGvisor(
    "the memory limit is the host cgroup's on the whole sandbox, gVisor's kernel included: the host's OOM killer stops the sandbox as a whole, never one process in it",
  );

  it("kills a hog, not the executor, when the sandbox runs out of memory", oomUnderGvisor, async () => {
    const pid = (await channel.ping()).pid;
    const result = await run(channel, hogs(false), 60_000);
    assert.equal(result.exitCode, 0, result.stderr.toString());
    const killed = Number(/killed: (\d+)/.exec(result.stdout.toString())?.[1]);
    assert.ok(killed > 0, `no hog was killed, so memory never ran out: ${result.stdout}`);
    assert.equal((await channel.ping()).pid, pid, "the executor was killed");
    assert.equal(await runtime.isAlive(handle), true);
    assert.equal(await sh(channel, "echo still here"), "still here\n");
  });

  it("keeps a command from lowering its OOM adjustment, so hogs that try still go first", oomUnderGvisor, async (t) => {
    if (!runtime.pinsOomAdjustment) {
      // Pinning takes CAP_SYS_RESOURCE, which an engine can only grant if it holds it itself.
      t.skip("this Docker engine cannot grant CAP_SYS_RESOURCE, so commands may lower their adjustment (docs/security.md#memory)");
      return;
    }
    const lower = await run(channel, "echo 0 > /proc/self/oom_score_adj");
    assert.notEqual(lower.exitCode, 0);
    assert.match(lower.stderr.toString(), /Permission denied/);
    const pid = (await channel.ping()).pid;
    const result = await run(channel, hogs(true), 60_000);
    assert.match(result.stdout.toString(), /killed: [1-9]/);
    assert.equal((await channel.ping()).pid, pid, "the executor was killed");
  });
});

describe("an executor that stops answering, through the SDK", { timeout: 300_000 }, () => {
  // The deadlines are short so that the tests are quick; under gVisor an executor takes longer to start
  // and answer its first ping (every system call goes through its kernel), so they and the bounds that
  // follow from them are three times as long.
  const SLOWER = UNDER_GVISOR ? 3 : 1;
  const KEY = "isolation-key";
  const AGENT = "antigravity-preview-05-2026";
  let emulator: EmulatorProcess;
  let ai: GoogleGenAI;
  let work: string;
  let httpGate: http.Server;
  const docker = new Docker();

  const script = (calls: unknown[]): string => `\`\`\`tool_calls\n${JSON.stringify(calls)}\n\`\`\``;
  const results = (steps: unknown): Array<{ result: string; is_error: boolean }> =>
    (steps as Array<Record<string, any>>).filter((step) => step.type.endsWith("_result")) as Array<{ result: string; is_error: boolean }>;
  const runIn = (environment: string, code: string) =>
    ai.interactions.create({ agent: AGENT, input: script([{ name: "code_execution", args: { code } }]), environment });
  const containerOf = async (environmentId: string): Promise<Docker.Container> => {
    const [container] = await docker.listContainers({ filters: { label: [`dev.interactions-emulator.environment=${environmentId}`] } });
    assert.ok(container, `no container for ${environmentId}`);
    return docker.getContainer(container.Id);
  };
  const stopAsRoot = async (container: Docker.Container, pid: string): Promise<void> => {
    assert.equal((await execAsRoot(container, ["kill", "-STOP", pid])).exitCode, 0, "kill -STOP as root failed");
  };
  /** A new environment, and the pid of the executor serving it (the parent of a command it runs). */
  const environmentWithExecutor = async (): Promise<{ environment: string; executorPid: string; container: Docker.Container }> => {
    const created = await ai.interactions.create({
      agent: AGENT,
      input: script([{ name: "code_execution", args: { code: "echo $PPID" } }]),
      environment: { type: "remote" },
    });
    const environment = created.environment_id!;
    const executorPid = results(created.steps)[0]!.result.trim();
    assert.match(executorPid, /^\d+$/);
    return { environment, executorPid, container: await containerOf(environment) };
  };
  const getEnvironment = async (id: string): Promise<number> =>
    (await fetch(`${emulator.url}/v1beta/environments/${id}`, { headers: { "x-goog-api-key": KEY } })).status;

  before(async () => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), "emu-isolation-"));
    const gate = path.join(work, "gate");
    fs.mkdirSync(gate);
    fs.writeFileSync(path.join(gate, "hooks.json"), gateConfig("/workspace/.agents/deny-gate.sh"));
    fs.writeFileSync(path.join(gate, "deny-gate.sh"), GATE_SCRIPT, { mode: 0o755 });
    fs.mkdirSync(path.join(work, "httpgate"));
    fs.writeFileSync(path.join(work, "httpgate", "hooks.json"), HTTP_GATE_CONFIG);
    // The HTTP gate, on this machine's loopback, reached through the egress proxy as httpgate.example.com.
    httpGate = http.createServer((request, response) => {
      let body = "";
      request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
      request.on("end", () => {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(
          JSON.stringify(body.includes("forbidden-marker") ? { decision: "deny", reason: "blocked over HTTP" } : { decision: "allow" }),
        );
      });
    });
    await new Promise<void>((resolve) => httpGate.listen(0, "127.0.0.1", resolve));
    emulator = await startEmulatorProcess({
      EMULATOR_TOOL_TIMEOUT_SECONDS: String(4 * SLOWER),
      EMULATOR_EXECUTOR_GRACE_SECONDS: String(2 * SLOWER),
      EMULATOR_EXECUTOR_FILE_SECONDS: String(4 * SLOWER),
      EMULATOR_REPO_MAP: `https://hooks.example.com/=${work}/`,
      EMULATOR_EGRESS_HOST_MAP: `httpgate.example.com=127.0.0.1:${(httpGate.address() as AddressInfo).port}`,
    });
    ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
  });
  after(async () => {
    await emulator?.destroy();
    httpGate?.closeAllConnections();
    httpGate?.close();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it("kill -STOP $PPID from code_execution changes nothing: the interaction completes and the next one runs", async () => {
    const first = await ai.interactions.create({ agent: AGENT, input: "Run `true`", environment: { type: "remote" } });
    const environment = first.environment_id!;
    const started = Date.now();
    const stopped = await runIn(environment, 'kill -STOP $PPID; echo "kill exit $?"');
    assert.equal(stopped.status, "completed");
    const [result] = results(stopped.steps);
    assert.match(result!.result, /kill exit 1/);
    assert.match(result!.result, /Operation not permitted/);
    const next = await runIn(environment, "echo next");
    assert.equal(results(next.steps)[0]!.result, "next\n");
    assert.ok(Date.now() - started < 20_000 * SLOWER, `took ${Date.now() - started} ms`);
  });

  it("fails a call to a wedged executor with UNAVAILABLE at its deadline; GET answers, the next interaction runs", async () => {
    const { environment, executorPid, container } = await environmentWithExecutor();

    const started = Date.now();
    const running = runIn(environment, "echo started; sleep 30");
    await new Promise((resolve) => setTimeout(resolve, 1000));
    // A wedge the sandbox user cannot cause any more, made by hand: the executor stops answering.
    await stopAsRoot(container, executorPid);
    const environmentStatus = getEnvironment(environment);
    const failed = await running;
    const tookMs = Date.now() - started;
    assert.equal(failed.status, "failed");
    assert.equal((failed as { errors?: Array<{ code: string }> }).errors?.[0]?.code, "service_unavailable");
    // The command's own timeout (4 s) plus the grace (2 s), plus start-up and slack on a loaded machine.
    assert.ok(tookMs < 15_000 * SLOWER, `the interaction took ${tookMs} ms to fail`);
    assert.ok([200, 503].includes(await environmentStatus), "GET of the environment did not answer properly");

    // The stopped executor is ended; a new one serves the environment, files and all.
    const next = await runIn(environment, "echo next; test -d /workspace && echo workspace");
    assert.equal(next.status, "completed");
    assert.equal(results(next.steps)[0]!.result, "next\nworkspace\n");
    assert.equal(await getEnvironment(environment), 200);
    const { output } = await execAsRoot(container, ["sh", "-c", `test -d /proc/${executorPid} && echo alive || echo gone`]);
    assert.match(output, /gone/, "the wedged executor is still there");
  });

  it("ends a cancelled interaction whose executor stopped answering within the grace", async () => {
    const { environment, executorPid, container } = await environmentWithExecutor();
    const background = await ai.interactions.create({
      agent: AGENT,
      input: script([{ name: "code_execution", args: { code: "sleep 30" } }]),
      environment,
      background: true,
    });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await stopAsRoot(container, executorPid);
    const started = Date.now();
    const response = await fetch(`${emulator.url}/v1beta/interactions/${background.id}/cancel`, {
      method: "POST",
      headers: { "x-goog-api-key": KEY },
    });
    const cancelled = (await response.json()) as { status: string };
    const tookMs = Date.now() - started;
    assert.equal(response.status, 200);
    assert.ok(["cancelled", "failed"].includes(cancelled.status), `status ${cancelled.status}`);
    // Without deadlines this waited 10 s and cancelled nothing.
    assert.ok(tookMs < 8_000 * SLOWER, `cancel took ${tookMs} ms`);
  });

  it("lets a read-only HTTP gate deny while sandbox code holds hundreds of idle connections to the egress port", async () => {
    const first = await ai.interactions.create({
      agent: AGENT,
      input: script([{ name: "code_execution", args: { code: HOLD_CONNECTIONS } }]),
      environment: {
        type: "remote",
        sources: [{ type: "repository", source: "https://hooks.example.com/httpgate", target: "workspace/.agents" }],
      },
    });
    // All the sandbox may have open: the executor closed the rest as it accepted them.
    assert.equal(results(first.steps)[0]!.result, "holding 256\n");
    const environment = first.environment_id!;
    const denied = await runIn(environment, "touch /workspace/forbidden-marker");
    const [result] = results(denied.steps);
    assert.equal(result?.result, 'Tool call denied by hook "gate": blocked over HTTP');
    assert.equal(result?.is_error, true);
    const check = await runIn(environment, "ls -a /workspace; pgrep -fc hold-connections.py");
    assert.doesNotMatch(results(check.steps)[0]!.result, /forbidden/, "the denied command ran");
    assert.match(results(check.steps)[0]!.result, /\n[1-9]\d*\n$/, "the connections' holder had stopped");
  });

  it("keeps the egress port out of the sandbox's reach while its executor is replaced: files and tools go on", async (t) => {
    const { environment, executorPid, container } = await environmentWithExecutor();
    const grabbing = await runIn(environment, GRAB_PORT);
    if (!UNDER_GVISOR) assert.equal(results(grabbing.steps)[0]!.result, "refused: Address already in use\n");
    // The executor ends (as a reaped wedged executor, or an engine's hiccup, would): the next call starts
    // another, which must get the port back while the loop above keeps trying to take it.
    assert.equal((await execAsRoot(container, ["kill", "-KILL", executorPid])).exitCode, 0, "kill -KILL as root failed");
    // Until the emulator has seen that executor end, a call can still meet it: a 503, which the SDK retries.
    let listing: Response;
    let body: string;
    for (let attempt = 1; ; attempt++) {
      listing = await fetch(`${emulator.url}/v1beta/environments/${environment}/files/tmp`, { headers: { "x-goog-api-key": KEY } });
      body = await listing.text();
      if (listing.status !== 503 || attempt === 20) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    if (UNDER_GVISOR) {
      // gVisor's kernel lets any user join a port bound with SO_REUSEPORT, so the port is not held there
      // (docs/security.md#gvisor): whoever binds first keeps it, and a taken port is a clear, final 400.
      t.diagnostic(`under gVisor: ${listing.status} ${body.slice(0, 200)}`);
      if (listing.status !== 200) {
        assert.equal(listing.status, 400, body);
        assert.match(body, /"status":"FAILED_PRECONDITION"/);
        assert.match(body, /Retrying will not help/);
        return;
      }
    }
    assert.equal(listing.status, 200, body);
    assert.match(body, /grab-port\.out/);
    const next = await runIn(environment, "cat /tmp/grab-port.out; pgrep -fc grab-port.py");
    assert.equal(next.status, "completed");
    // Still trying, and never got it: a bind of the address or of the wildcard one is refused throughout.
    if (!UNDER_GVISOR) assert.equal(results(next.steps)[0]!.result, "refused: Address already in use\n1\n");
  });

  it("lets a read-only gate deny through a pkill loop a previous call left behind: the denied command never runs", async () => {
    const first = await ai.interactions.create({
      agent: AGENT,
      input: script([{ name: "code_execution", args: { code: START_KILLER } }]),
      environment: {
        type: "remote",
        sources: [{ type: "repository", source: "https://hooks.example.com/gate", target: "workspace/.agents" }],
      },
    });
    assert.equal(results(first.steps)[0]!.result, "hunting\n");
    const environment = first.environment_id!;
    const denied = await runIn(environment, "touch /workspace/forbidden-marker");
    const [result] = results(denied.steps);
    assert.equal(result?.is_error, true);
    assert.equal(result?.result, 'Tool call denied by hook "gate": blocked by the gate, as uid 1001');
    const check = await runIn(environment, "ls -a /workspace; pgrep -fc killer.sh");
    assert.doesNotMatch(results(check.steps)[0]!.result, /forbidden/, "the denied command ran");
    assert.match(results(check.steps)[0]!.result, /\n[1-9]\d*\n$/, "the loop had stopped");
  });
});
