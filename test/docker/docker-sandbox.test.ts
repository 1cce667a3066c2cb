// The Docker runtime against a real engine: how a sandbox is made, what it may do, and the built-in
// tools running in it.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import Docker from "dockerode";
import { GVISOR_HOST_TASKS_BASE, GVISOR_HOST_TASKS_PER_PROCESS } from "../../server/sandbox/docker/container-runtime.js";
import type { DockerRuntime } from "../../server/sandbox/docker/docker-runtime.js";
import type { SandboxChannel, SandboxHandle } from "../../server/sandbox/runtime.js";
import { runTool } from "../../server/tools/tool-runner.js";
import { removeAllSandboxes, testDockerRuntime } from "../support/docker-fixture.js";

let runtime: DockerRuntime;
let handle: SandboxHandle;
let channel: SandboxChannel;

const limits = { timeoutMs: 10_000, maxOutputBytes: 64 * 1024 };

async function sh(script: string): Promise<string> {
  const result = await channel.run({ argv: ["bash", "-c", script], timeoutMs: 10_000, maxOutputBytes: 1 << 20 });
  assert.equal(result.exitCode, 0, `${script}\n${result.stderr.toString()}`);
  return result.stdout.toString("utf8");
}

before(async () => {
  runtime = await testDockerRuntime();
  handle = await runtime.create({
    environmentId: "env_itestsources",
    owner: "owner",
    files: [
      { path: "/.agents/hooks.json", content: Buffer.from('{"a":{}}'), mode: 0o644 },
      { path: "/.agents/hooks-scripts/gate.py", content: Buffer.from("#!/usr/bin/env python3\nprint('ok')\n"), mode: 0o755 },
      { path: "/workspace/private/employees.json", content: Buffer.from('{"employees":[]}'), mode: 0o644 },
      { path: "/workspace/data.bin", content: Buffer.from([0, 1, 2, 255]), mode: 0o644 },
      { path: "/tmp/notes/n.txt", content: Buffer.from("n"), mode: 0o644 },
      { path: "/skills/pdf/SKILL.md", content: Buffer.from("# skill"), mode: 0o644 },
    ],
  });
  channel = await runtime.connect(handle);
});

after(async () => {
  channel?.close();
  await removeAllSandboxes(runtime);
});

describe("a Docker sandbox", () => {
  it("has the sources in place, owned by the sandbox user, with their content", async () => {
    const owners = await sh(
      "stat -c '%n %U %a' /.agents /.agents/hooks.json /.agents/hooks-scripts /.agents/hooks-scripts/gate.py /workspace/private /workspace/private/employees.json /tmp/notes/n.txt /skills /skills/pdf/SKILL.md",
    );
    assert.deepEqual(owners.trim().split("\n"), [
      "/.agents sandbox 755",
      "/.agents/hooks.json sandbox 644",
      "/.agents/hooks-scripts sandbox 755",
      "/.agents/hooks-scripts/gate.py sandbox 755",
      "/workspace/private sandbox 755",
      "/workspace/private/employees.json sandbox 644",
      "/tmp/notes/n.txt sandbox 644",
      "/skills sandbox 755",
      "/skills/pdf/SKILL.md sandbox 644",
    ]);
    assert.equal((await channel.readFile("/workspace/private/employees.json", 1024)).content.toString(), '{"employees":[]}');
    assert.deepEqual([...(await channel.readFile("/workspace/data.bin", 1024)).content], [0, 1, 2, 255]);
    assert.equal(await sh("python3 /.agents/hooks-scripts/gate.py && /.agents/hooks-scripts/gate.py"), "ok\nok\n");
  });

  it("loads LANG's locale (C.UTF-8) from glibc's archive, one mapped file, not the compiled folder's files", async () => {
    // grep sets its locale from LANG at start, then reads its own mappings.
    assert.equal(await sh('echo "$LANG"; localedef --list-archive'), "C.UTF-8\nC.utf8\n");
    assert.equal(await sh("locale 2>&1 >/dev/null"), "", "every LC_ category set without a warning");
    assert.deepEqual((await sh("grep -o '/usr/lib/locale/[^ ]*' /proc/self/maps | sort -u")).trim().split("\n"), [
      "/usr/lib/locale/locale-archive",
    ]);
  });

  it("gives each command SHELL as a login does, its user's shell from /etc/passwd, unless the request names one", async () => {
    // printenv, not bash's $SHELL: bash sets that variable from /etc/passwd itself when the environment has none.
    const shellOf = async (request: { runAs?: "hooks"; env?: Record<string, string> }) => {
      const result = await channel.run({ argv: ["sh", "-c", "printenv SHELL || echo none"], ...request, ...limits });
      return result.stdout.toString();
    };
    const passwdShell = (uid: number) => sh(`awk -F: '$3 == ${uid} { print $7; exit }' /etc/passwd`);
    assert.equal(await passwdShell(1000), "/bin/bash\n");
    assert.equal(await shellOf({}), await passwdShell(1000));
    assert.equal(await shellOf({ runAs: "hooks" }), await passwdShell(1001));
    assert.equal(await shellOf({ env: { SHELL: "/bin/sh" } }), "/bin/sh\n");
  });

  it("leaves the image's own folders to root", async () => {
    assert.equal(await sh("stat -c '%U' / /tmp /etc"), "root\nroot\nroot\n");
  });

  it("runs everything as the unprivileged user, with no capabilities and no new privileges", async () => {
    assert.equal(await sh("id -u; id -g"), "1000\n1000\n");
    const status = await sh("grep -E '^(CapEff|CapPrm)' /proc/self/status");
    assert.match(status, /CapPrm:\s+0000000000000000/);
    assert.match(status, /CapEff:\s+0000000000000000/);
    // prctl(PR_GET_NO_NEW_PRIVS) rather than /proc/self/status, whose NoNewPrivs line gVisor's kernel lacks.
    assert.equal(await sh(`python3 -c "import ctypes; print(ctypes.CDLL(None).prctl(39, 0, 0, 0, 0))"`), "1\n");
  });

  it("has no network but loopback", async () => {
    const interfaces = await sh("tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '");
    assert.deepEqual(interfaces.trim().split("\n"), ["lo"]);
    const curl = await channel.run({
      argv: ["curl", "-sS", "--max-time", "3", "http://1.1.1.1/"],
      timeoutMs: 10_000,
      maxOutputBytes: 4096,
    });
    assert.notEqual(curl.exitCode, 0);
  });

  it("carries labels and resource limits on its container", async () => {
    const info = await new Docker().getContainer(handle.sandboxId).inspect();
    assert.equal(info.Config.Labels["dev.interactions-emulator.environment"], "env_itestsources");
    assert.equal(info.HostConfig.NetworkMode, "none");
    assert.deepEqual(info.HostConfig.CapDrop, ["ALL"]);
    // Root's processes (the keep-alive, the executor) keep only what starting commands as another user,
    // pinning their OOM adjustment and the disk guard's reading take (the latter two where the engine can grant them).
    assert.deepEqual(info.HostConfig.CapAdd, [
      "SETUID",
      "SETGID",
      ...(runtime.pinsOomAdjustment ? ["SYS_RESOURCE"] : []),
      ...(runtime.guardSeesLockedFolders ? ["DAC_OVERRIDE"] : []),
    ]);
    assert.deepEqual(info.HostConfig.SecurityOpt, ["no-new-privileges"]);
    assert.equal(info.HostConfig.Memory, 1024 * 1024 * 1024);
    // Under gVisor the cgroup bounds its kernel's host tasks, RLIMIT_NPROC the sandbox's processes (container-runtime.ts).
    assert.equal(info.HostConfig.PidsLimit, runtime.underGvisor ? 256 * GVISOR_HOST_TASKS_PER_PROCESS + GVISOR_HOST_TASKS_BASE : 256);
    assert.equal(info.HostConfig.NanoCpus, 1e9);
    assert.equal(info.Config.User, "0:0");
  });

  it("refuses to let tools write into system folders", async () => {
    const result = await runTool(channel, { name: "write_file", args: { path: "/etc/evil", content: "x" } }, limits);
    assert.equal(result.isError, true);
    assert.match(result.result, /EACCES|permission denied/i);
  });

  it("is started again with its files when its container had stopped", async () => {
    const extra = await runtime.create({
      environmentId: "env_itestrestart",
      owner: "owner",
      files: [{ path: "/workspace/kept.txt", content: Buffer.from("kept"), mode: 0o644 }],
    });
    await new Docker().getContainer(extra.sandboxId).stop({ t: 0 });
    assert.equal(await runtime.isAlive(extra), false);
    assert.equal(await runtime.ensureRunning(extra), true);
    const revived = await runtime.connect(extra);
    assert.equal((await revived.readFile("/workspace/kept.txt", 100)).content.toString(), "kept");
    revived.close();
    await runtime.remove(extra);
    assert.equal(await runtime.ensureRunning(extra), false);
  });

  it("is gone, container and all, after remove", async () => {
    const extra = await runtime.create({ environmentId: "env_itestremove", owner: "owner", files: [] });
    assert.equal(await runtime.isAlive(extra), true);
    await runtime.remove(extra);
    assert.equal(await runtime.isAlive(extra), false);
    assert.equal(
      (await runtime.list()).some((h) => h.environmentId === "env_itestremove"),
      false,
    );
  });
});

describe("built-in tools in a Docker sandbox", () => {
  it("code_execution runs bash in /workspace and reports stdout", async () => {
    const result = await runTool(channel, { name: "code_execution", args: { code: "pwd; echo hi", language: "bash" } }, limits);
    assert.deepEqual([result.result, result.isError, result.errorText], ["/workspace\nhi\n", false, undefined]);
  });

  it("code_execution runs python", async () => {
    const result = await runTool(channel, { name: "code_execution", args: { code: "print(6*7)", language: "python" } }, limits);
    assert.equal(result.result, "42\n");
  });

  it("code_execution reports a non-zero exit status and stderr as an error", async () => {
    const result = await runTool(
      channel,
      { name: "code_execution", args: { code: "echo out; echo oops >&2; exit 3", language: "bash" } },
      limits,
    );
    assert.equal(result.isError, true);
    assert.equal(result.exitCode, 3);
    assert.equal(result.errorText, "oops\n");
    assert.match(result.result, /^out\noops\n\n\[exit status 3\]$/);
  });

  it("code_execution kills a command that outlives its deadline", async () => {
    const result = await runTool(
      channel,
      { name: "code_execution", args: { code: "echo started; sleep 30", language: "bash" } },
      { ...limits, timeoutMs: 500 },
    );
    assert.equal(result.isError, true);
    assert.match(result.result, /started[\s\S]*killed: the command ran longer than/);
  });

  it("code_execution caps what it keeps of a flood of output", async () => {
    const result = await runTool(
      channel,
      { name: "code_execution", args: { code: "head -c 3000000 /dev/zero | tr '\\0' a", language: "bash" } },
      limits,
    );
    assert.equal(result.isError, false);
    assert.match(result.result, /\[stdout truncated: kept 65536 of 3000000 bytes\]/);
  });

  it("write_file creates parents and read_file reads it back, relative paths from /workspace", async () => {
    const wrote = await runTool(channel, { name: "write_file", args: { path: "deep/er/a.txt", content: "hello" } }, limits);
    assert.deepEqual([wrote.isError, wrote.result], [false, "Wrote 5 bytes to /workspace/deep/er/a.txt."]);
    const read = await runTool(channel, { name: "read_file", args: { path: "/workspace/deep/er/a.txt" } }, limits);
    assert.deepEqual([read.isError, read.result], [false, "hello"]);
  });

  it("read_file of a missing file is an error naming the path", async () => {
    const read = await runTool(channel, { name: "read_file", args: { path: "/workspace/missing.txt" } }, limits);
    assert.equal(read.isError, true);
    assert.match(read.result, /missing\.txt/);
    assert.equal(read.errorText, read.result);
  });

  it("read_file shows binary content as base64 with a note", async () => {
    const read = await runTool(channel, { name: "read_file", args: { path: "/workspace/data.bin" } }, limits);
    assert.equal(read.result, "[binary file, 4 bytes, shown as base64]\nAAEC/w==");
  });

  it("list_files lists names, types and sizes, and fails on a missing folder", async () => {
    const listed = await runTool(channel, { name: "list_files", args: { path: "/workspace/private" } }, limits);
    assert.deepEqual([listed.isError, listed.result], [false, "employees.json (16 bytes)"]);
    const root = await runTool(channel, { name: "list_files", args: { path: "." } }, limits);
    assert.match(root.result, /^private\/$/m);
    const missing = await runTool(channel, { name: "list_files", args: { path: "/nowhere" } }, limits);
    assert.equal(missing.isError, true);
  });

  it("delete_file removes a file, and a folder only when asked to", async () => {
    await runTool(channel, { name: "write_file", args: { path: "/workspace/gone/x.txt", content: "x" } }, limits);
    const folder = await runTool(channel, { name: "delete_file", args: { path: "/workspace/gone" } }, limits);
    assert.equal(folder.isError, true);
    assert.match(folder.result, /recursive/);
    const file = await runTool(channel, { name: "delete_file", args: { path: "/workspace/gone/x.txt" } }, limits);
    assert.deepEqual([file.isError, file.result], [false, "Deleted /workspace/gone/x.txt."]);
    const recursive = await runTool(channel, { name: "delete_file", args: { path: "/workspace/gone", recursive: true } }, limits);
    assert.equal(recursive.isError, false);
    assert.equal(await sh("test -e /workspace/gone && echo present || echo absent"), "absent\n");
  });
});

describe("a Docker sandbox's egress settings", () => {
  // With the socket channel the CA files are mounted read-only from the data folder; with the exec
  // stream (gVisor, an engine on another machine) they are written into the container before it starts.
  for (const [channel, how] of [
    ["socket", "mounted read-only"],
    ["exec", "written into the container"],
  ] as const) {
    it(`points every proxy variable at the executor's listener and trusts the emulator's CA, root-owned (${channel} channel: ${how})`, async () => {
      const caRuntime = await testDockerRuntime({ EMULATOR_CHANNEL: channel });
      try {
        const fakeCa = "-----BEGIN CERTIFICATE-----\nTESTCAONLY\n-----END CERTIFICATE-----\n";
        await caRuntime.trustCertificate(fakeCa);
        const created = await caRuntime.create({ environmentId: `env_itesttrust${channel}`, owner: "owner", files: [] });
        const inside = await caRuntime.connect(created);
        const run = async (script: string) =>
          (await inside.run({ argv: ["bash", "-c", script], timeoutMs: 10_000, maxOutputBytes: 1 << 20 })).stdout.toString("utf8");
        assert.equal(
          await run('echo $HTTP_PROXY $HTTPS_PROXY $http_proxy $https_proxy "[$NO_PROXY]"'),
          "http://127.0.0.1:3128 http://127.0.0.1:3128 http://127.0.0.1:3128 http://127.0.0.1:3128 []\n",
        );
        assert.equal(await run("tail -n 3 /etc/ssl/certs/ca-certificates.crt"), fakeCa);
        assert.match(
          await run("grep -c 'BEGIN CERTIFICATE' /etc/ssl/certs/ca-certificates.crt"),
          /^\d{3}\n$/,
          "the system roots are still there",
        );
        assert.equal(await run("cat $NODE_EXTRA_CA_CERTS"), fakeCa);
        assert.equal(
          await run(
            "stat -c '%U %a' /etc/ssl/certs/ca-certificates.crt /usr/local/share/ca-certificates/interactions-emulator.crt /etc /etc/ssl /usr/local/share/ca-certificates",
          ),
          "root 644\nroot 644\nroot 755\nroot 755\nroot 755\n",
        );
        // Which of the two: the mount table says, and a mounted file cannot be written even by its owner.
        const mounts = await run(
          'awk \'$5 == "/etc/ssl/certs/ca-certificates.crt" || $5 == "/usr/local/share/ca-certificates/interactions-emulator.crt" { print $5, substr($6, 1, 2) }\' /proc/self/mountinfo',
        );
        assert.equal(
          mounts,
          channel === "socket"
            ? "/etc/ssl/certs/ca-certificates.crt ro\n/usr/local/share/ca-certificates/interactions-emulator.crt ro\n"
            : "",
        );
        inside.close();
      } finally {
        await removeAllSandboxes(caRuntime);
      }
    });
  }
});
