// hooks.json is read afresh before every call (docs/hooks.md#discovery), even though a file that reads
// as before is no longer sent over the channel again: what proves it unchanged is its content, never its
// metadata. These rewrites keep the inode, the size and the modification time (or, through a shared
// mapping, every time), and the next call must still run what the file says now.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ChannelHookHost } from "../../server/hooks/channel-hook-host.js";
import { runPostToolHooks, runPreToolHooks } from "../../server/hooks/engine.js";
import type { DockerRuntime } from "../../server/sandbox/docker/docker-runtime.js";
import type { SandboxChannel } from "../../server/sandbox/runtime.js";
import Docker from "dockerode";
import { execAsRoot, removeAllSandboxes, testDockerRuntime } from "../support/docker-fixture.js";
import { bash } from "../support/tool-calls.js";

const CONFIG = "/workspace/.agents/hooks.json";
const ENVIRONMENT_ID = "env_hooksfreshness";

/** Two configurations of the same length: one denies code_execution, the other read_file. */
const denying = (tool: "code_execution" | "read_file_____") =>
  JSON.stringify({
    gate: {
      pre_tool_execution: [{ matcher: tool, hooks: [{ type: "command", command: `echo '{"decision":"deny","reason":"gate"}'` }] }],
    },
  });

describe("hooks.json freshness through the channel", { timeout: 300_000 }, () => {
  let runtime: DockerRuntime;
  let channel: SandboxChannel;
  let host: ChannelHookHost;
  let container: Docker.Container;

  before(async () => {
    runtime = await testDockerRuntime();
    const handle = await runtime.create({ environmentId: ENVIRONMENT_ID, owner: "owner", files: [] });
    container = new Docker().getContainer(handle.sandboxId);
    channel = await runtime.connect(handle);
    host = new ChannelHookHost(channel, { cwd: "/workspace", env: {} });
  });
  after(async () => {
    channel?.close();
    if (runtime) await removeAllSandboxes(runtime);
  });

  /** Runs `script` with $1 the config's path and $2 `text`. */
  const sh = async (script: string, text = ""): Promise<string> => {
    const result = await channel.run({ argv: ["bash", "-c", script, "sh", CONFIG, text], timeoutMs: 10_000, maxOutputBytes: 65536 });
    assert.equal(result.exitCode, 0, result.stderr.toString());
    return result.stdout.toString();
  };
  const decision = async (): Promise<string> => (await runPreToolHooks(host, bash("true"), ENVIRONMENT_ID)).decision;

  it("sees a rewrite that keeps the inode, the size and the modification time", async () => {
    assert.equal(denying("code_execution").length, denying("read_file_____").length);
    await channel.writeFile(CONFIG, Buffer.from(denying("code_execution")));
    assert.equal(await decision(), "deny");
    assert.equal(await decision(), "deny", "an unchanged file must keep its hooks");
    const before = await sh('stat -c "%i %s %Y.%y" "$1"');
    await sh(`t=$(stat -c %y "$1"); printf '%s' "$2" > "$1"; touch -d "$t" "$1"`, denying("read_file_____"));
    assert.equal(await sh('stat -c "%i %s %Y.%y" "$1"'), before, "the rewrite changed the metadata: the test would prove nothing");
    assert.equal(await decision(), "allow");
  });

  it("sees the post hooks of a file rewritten during the call, and the pre hooks of the next", async () => {
    await channel.writeFile(CONFIG, Buffer.from(denying("code_execution")));
    assert.equal(await decision(), "deny");
    const post = JSON.stringify({ seen: { post_tool_execution: [{ matcher: "*", hooks: [{ type: "command", command: "true" }] }] } });
    await sh(`printf '%s' "$2" > "$1"`, post);
    const trace = await runPostToolHooks(host, bash("true"), ENVIRONMENT_ID, undefined);
    assert.deepEqual(
      trace.handlers.map((handler) => handler.group),
      ["seen"],
    );
    assert.equal(await decision(), "allow");
    await sh('rm "$1"');
    assert.equal((await runPreToolHooks(host, bash("true"), ENVIRONMENT_ID)).trace.files[1]?.status, "missing");
  });

  it("reads the files around a command as the sandbox user, as the file worker would", async () => {
    // Root's files: one only root may read, one its group (0, which the executor is in and the sandbox
    // user is not) may read. Read by the executor as itself, both would be read.
    const root = "/workspace/root-only.json";
    const group = "/workspace/group-root.json";
    const made = await execAsRoot(container, [
      "sh",
      "-c",
      `echo '{}' > ${root} && chmod 600 ${root} && echo '{}' > ${group} && chmod 640 ${group}`,
    ]);
    assert.equal(made.exitCode, 0, made.output);
    const paths = [root, group];
    const apart = await channel.readFiles(paths, 1024);
    assert.deepEqual(
      apart.map((read) => (read.ok ? "read" : read.code)),
      ["EACCES", "EACCES"],
    );
    const around = await channel.run({
      argv: ["true"],
      timeoutMs: 10_000,
      maxOutputBytes: 1024,
      unlessChanged: { paths, maxBytes: 1024, tokens: apart.map((read) => read.token ?? "") },
      readAfter: { paths, maxBytes: 1024 },
    });
    assert.equal(around.exitCode, 0, "the files read before the command were not the same as read apart");
    assert.deepEqual(
      around.readsAfter?.map((read) => (read.ok ? "read" : `${read.code} ${read.message}`)),
      apart.map((read) => (read.ok ? "read" : `${read.code} ${read.message}`)),
    );
  });
});
