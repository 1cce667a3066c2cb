// The swarm runtime's files that the sandbox user cannot move itself (server/sandbox/swarm/swarm-files.ts),
// on the real three-node test swarm, reached as swarm-runtime.test.ts reaches it (a relay on the overlay):
// a fork holds its source's files with their owners and modes and is independent of it; a snapshot's
// export puts back into a new sandbox as it was; a repository source (a read-only tree) and a system file
// are root's, and the sandbox user can neither change nor delete them; an export past maxBytes is refused
// with the Docker runtime's error; and through the HTTP API of two emulators in this process, a fork and a
// state file imported into the other. Every byte goes through the sandbox's channel.

import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { after, before, describe, it } from "node:test";
import Docker from "dockerode";
import { loadConfig } from "../../server/common/config.js";
import { tarBuffer } from "../../server/common/tar.js";
import { startEmulator } from "../../server/emulator.js";
import { SAVED_FOLDERS } from "../../server/sandbox/layout.js";
import { type SandboxChannel, SandboxFilesTooLargeError, type SandboxHandle } from "../../server/sandbox/runtime.js";
import { SwarmRuntime } from "../../server/sandbox/swarm/swarm-runtime.js";
import { HOOKS_UID, SANDBOX_UID } from "../../server/sandbox/docker/tar.js";
import { type OverlayRelay, startOverlayRelay } from "../support/overlay-relay.js";
import { type SwarmCluster, testRuntimeOptions, up, swarmUnavailable } from "../support/swarm-cluster.js";
import { run } from "../support/swarm-layout.js";

const INSTANCE = "swarmfiles";
const API_KEY = "swarm-files-key";

async function runs(channel: SandboxChannel, command: string, runAs?: "hooks"): Promise<string> {
  const result = await channel.run({ argv: ["bash", "-c", command], timeoutMs: 20_000, maxOutputBytes: 65_536, runAs });
  assert.equal(result.exitCode, 0, result.stderr.toString());
  return result.stdout.toString().trim();
}

/** What each of the paths is: owner, mode and content (or the error), one line each. */
const describePaths = (paths: string[]) => paths.map((each) => `echo "$(stat -c '%u %a' ${each} 2>&1) $(cat ${each} 2>&1)"`).join("; ");

const SOURCE_FILES = ["/workspace/data.txt", "/workspace/deep/run.sh", "/home/sandbox/.config", "/home/hooks/own"];

describe("the swarm runtime's forks, snapshots and repository sources", { skip: swarmUnavailable() }, () => {
  let cluster: SwarmCluster;
  let relay: OverlayRelay;
  let manager: Docker;
  let runtime: SwarmRuntime;
  let dataDir: string;
  let source: SandboxHandle;
  let sourceChannel: SandboxChannel;
  const handles: SandboxHandle[] = [];
  const channels: SandboxChannel[] = [];

  before(async () => {
    cluster = await up({ progress: () => undefined });
    manager = new Docker({ socketPath: cluster.managerSocket });
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "iemu-swarm-files-"));
    relay = await startOverlayRelay(manager, cluster.images[0]!, cluster.overlay, { "dev.interactions-emulator.test": "relay" });
    runtime = new SwarmRuntime({
      ...testRuntimeOptions(cluster, INSTANCE, dataDir),
      taskStartMs: 60_000,
      docker: manager,
      dial: relay.dial,
      forkMaxBytes: 1024 * 1024,
    });
    await runtime.prepare(() => undefined);
    source = await create({
      environmentId: "env_files0",
      owner: "test",
      files: [{ path: "/workspace/data.txt", content: Buffer.from("from the request\n"), mode: 0o644 }],
    });
    sourceChannel = await connect(source);
    // Files of the sandbox user's and the hooks user's, with modes only their owners can read.
    await runs(
      sourceChannel,
      "chmod 640 /workspace/data.txt && mkdir -p /workspace/deep && printf 'echo deep\\n' > /workspace/deep/run.sh && chmod 750 /workspace/deep/run.sh && printf 'cfg\\n' > /home/sandbox/.config && chmod 600 /home/sandbox/.config",
    );
    await runs(sourceChannel, "printf 'hooks\\n' > /home/hooks/own && chmod 600 /home/hooks/own", "hooks");
  });

  after(async () => {
    for (const channel of channels) channel.close();
    for (const handle of handles) await runtime?.remove(handle).catch(() => undefined);
    runtime?.close();
    await relay?.remove();
    await cluster?.down();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    const left = (await run(["ip", "netns", "list"])).split("\n").filter((line) => line.includes("iemu-swarm"));
    assert.deepEqual(left, [], "the test swarm's namespaces outlived down()");
  });

  async function create(spec: Parameters<SwarmRuntime["create"]>[0]): Promise<SandboxHandle> {
    const handle = await runtime.create(spec);
    handles.push(handle);
    return handle;
  }

  async function connect(handle: SandboxHandle): Promise<SandboxChannel> {
    const channel = await runtime.connect(handle);
    channels.push(channel);
    return channel;
  }

  // The last one only its owner can read: copied as root, and kept the hooks user's.
  const expected = [
    `${SANDBOX_UID} 640 from the request`,
    `${SANDBOX_UID} 750 echo deep`,
    `${SANDBOX_UID} 600 cfg`,
    `${HOOKS_UID} 600 hooks`,
  ].join("\n");

  it("forks an environment: its files with their owners and modes, and the two independent after", async () => {
    const fork = await runtime.fork(source, { environmentId: "env_files1", owner: "test", files: [] });
    handles.push(fork);
    const forkChannel = await connect(fork);
    assert.equal(await runs(forkChannel, describePaths(SOURCE_FILES.slice(0, 3))), expected.split("\n").slice(0, 3).join("\n"));
    assert.equal(await runs(forkChannel, describePaths(["/home/hooks/own"]), "hooks"), `${HOOKS_UID} 600 hooks`);
    // Still the hooks user's alone: the sandbox user cannot read it in the fork either.
    assert.match(await runs(forkChannel, "cat /home/hooks/own 2>&1 || true"), /Permission denied/);
    await runs(forkChannel, "echo fork > /workspace/only-in-fork && echo changed > /workspace/data.txt");
    await runs(sourceChannel, "echo source > /workspace/only-in-source");
    assert.equal(
      await runs(sourceChannel, "cat /workspace/data.txt; ls /workspace/only-in-fork 2>&1 || true"),
      "from the request\nls: cannot access '/workspace/only-in-fork': No such file or directory",
    );
    assert.equal(
      await runs(forkChannel, "ls /workspace/only-in-source 2>&1 || true"),
      "ls: cannot access '/workspace/only-in-source': No such file or directory",
    );
  });

  it("exports a sandbox's files (a snapshot's) and puts them back in a new sandbox as they were", async () => {
    const tar = await runtime.exportFiles(source, SAVED_FOLDERS, 1024 * 1024);
    const restored = await create({ environmentId: "env_files2", owner: "test", files: [], restore: () => Readable.from([tar]) });
    const channel = await connect(restored);
    assert.equal(await runs(channel, describePaths(SOURCE_FILES.slice(0, 3))), expected.split("\n").slice(0, 3).join("\n"));
    assert.equal(await runs(channel, describePaths(["/home/hooks/own"]), "hooks"), `${HOOKS_UID} 600 hooks`);
  });

  it("places a repository source and a system file as root's, which the sandbox user can neither change nor delete", async () => {
    const tree = await tarBuffer([
      { header: { name: "./", type: "directory", mode: 0o555, uid: 0, gid: 0 } },
      { header: { name: "lib/", type: "directory", mode: 0o555, uid: 0, gid: 0 } },
      { header: { name: "lib/code.py", mode: 0o444, uid: 0, gid: 0 }, content: Buffer.from("print('repo')\n") },
      { header: { name: "README", type: "symlink", linkname: "lib/code.py", mode: 0o777, uid: 0, gid: 0 } },
    ]);
    const handle = await create({
      environmentId: "env_files3",
      owner: "test",
      files: [{ path: "/etc/iemu-files-test.conf", content: Buffer.from("system\n"), mode: 0o644, system: true }],
      readOnlyTrees: [
        { path: "/repo", tar: tree },
        { path: "/workspace/ro/src", tar: tree },
      ],
    });
    const channel = await connect(handle);
    assert.equal(
      await runs(channel, `${describePaths(["/repo", "/repo/lib/code.py", "/etc/iemu-files-test.conf"])}; readlink /repo/README`),
      "0 555 cat: /repo: Is a directory\n0 444 print('repo')\n0 644 system\nlib/code.py",
    );
    const attempts = await runs(
      channel,
      [
        "echo x >> /repo/lib/code.py",
        "rm -f /repo/lib/code.py",
        "touch /repo/new",
        "rm -rf /repo/lib",
        "chmod 777 /repo/lib/code.py",
        "echo x >> /etc/iemu-files-test.conf",
        // Not a mount: a tree in the work folder, or the folder holding it, could be renamed away but for /workspace's sticky bit.
        "mv /workspace/ro/src /workspace/ro/moved",
        "mv /workspace/ro /workspace/moved",
        "rm -rf /workspace/ro",
      ]
        .map((command) => `(${command}) 2>/dev/null && echo "allowed: ${command}" || echo refused`)
        .join("; "),
    );
    assert.deepEqual(attempts.split("\n"), Array(9).fill("refused"));
    assert.equal(
      await runs(channel, "cat /repo/lib/code.py; ls /repo; cat /workspace/ro/src/lib/code.py"),
      "print('repo')\nREADME\nlib\nprint('repo')",
    );
    // The sandbox user's own files in the work folder are still theirs to move and delete.
    assert.equal(
      await runs(
        channel,
        "echo mine > /workspace/mine && mv /workspace/mine /workspace/moved && rm /workspace/moved && stat -c '%U %a' /workspace",
      ),
      "root 1775",
    );
  });

  it("refuses an export past maxBytes with the Docker runtime's error", async () => {
    await runs(sourceChannel, "head -c 1500000 /dev/urandom > /workspace/big.bin");
    await assert.rejects(runtime.exportFiles(source, ["/workspace"], 64 * 1024), (error: unknown) => {
      assert.ok(error instanceof SandboxFilesTooLargeError, String(error));
      assert.match(error.message, /the sandbox's files pass 65536 bytes/);
      return true;
    });
    await assert.rejects(
      runtime.fork(source, { environmentId: "env_files4", owner: "test", files: [] }).then((fork) => handles.push(fork)),
      /pass .* bytes, the most a fork copies/,
    );
    await runs(sourceChannel, "rm /workspace/big.bin");
  });
  /** An emulator in this process on a swarm runtime of its own (instance and data folder), as deploy/swarm.yml runs one. */
  async function startApi(suffix: string) {
    const instance = `${INSTANCE}${suffix}`;
    const apiData = fs.mkdtempSync(path.join(dataDir, `${suffix}-`));
    const apiRuntime = new SwarmRuntime({
      ...testRuntimeOptions(cluster, instance, apiData),
      taskStartMs: 60_000,
      docker: manager,
      dial: relay.dial,
    });
    const config = loadConfig({ PORT: "0", HOST: "127.0.0.1", EMULATOR_INSTANCE: instance, EMULATOR_DATA_DIR: apiData });
    const emulator = await startEmulator(config, { runtime: apiRuntime, progress: () => undefined });
    return {
      emulator,
      rest: async (method: string, route: string, body?: string | Buffer, type = "application/json") => {
        const response = await fetch(`${emulator.url}${route}`, {
          method,
          headers: { "x-goog-api-key": API_KEY, ...(body === undefined ? {} : { "content-type": type }) },
          body: typeof body === "string" || body === undefined ? body : new Uint8Array(body),
        });
        const text = await response.text();
        return { status: response.status, text, json: (text.startsWith("{") ? JSON.parse(text) : {}) as Record<string, unknown> };
      },
      /** A channel to the sandbox of an environment (by its ID). */
      sandboxOf: async (environmentId: string) => {
        const handle = (await apiRuntime.list()).find((each) => each.environmentId === environmentId);
        assert.ok(handle, `no sandbox for ${environmentId}`);
        const channel = await apiRuntime.connect(handle);
        channels.push(channel);
        return channel;
      },
      close: async () => {
        await emulator.close();
        for (const handle of await apiRuntime.list()) await apiRuntime.remove(handle).catch(() => undefined);
        apiRuntime.close();
      },
    };
  }

  it("through the API: a fork of an environment with a source, and a state file of both imported elsewhere", async () => {
    const source = await startApi("api");
    let target: Awaited<ReturnType<typeof startApi>> | undefined;
    try {
      const created = await source.rest(
        "POST",
        "/v1/environments",
        JSON.stringify({ sources: [{ type: "inline", target: "workspace/notes/plan.md", content: "# the plan\n" }] }),
      );
      assert.equal(created.status, 200, created.text);
      const original = created.json.id as string;
      await runs(await source.sandboxOf(original), "echo later > /home/sandbox/later.txt");

      const forked = await source.rest("POST", "/v1/environments", JSON.stringify({ from_environment: original }));
      assert.equal(forked.status, 200, forked.text);
      const fork = forked.json.id as string;
      assert.equal(
        await runs(
          await source.sandboxOf(fork),
          "cat /workspace/notes/plan.md /home/sandbox/later.txt; stat -c %u /workspace/notes/plan.md",
        ),
        `# the plan\nlater\n${SANDBOX_UID}`,
      );

      const exported = await fetch(`${source.emulator.url}/emulator/state`, { headers: { "x-goog-api-key": API_KEY } });
      assert.equal(exported.status, 200, await exported.clone().text());
      const file = Buffer.from(await exported.arrayBuffer());
      target = await startApi("import");
      const imported = await target.rest("POST", "/emulator/state", file, "application/gzip");
      assert.equal(imported.status, 200, imported.text);
      for (const id of [original, fork])
        assert.equal(await runs(await target.sandboxOf(id), "cat /workspace/notes/plan.md /home/sandbox/later.txt"), "# the plan\nlater");
    } finally {
      await source.close();
      await target?.close();
    }
  });
});
