// Who ChannelHookHost asks the sandbox to run a handler as: the hooks user for a handler of a read-only
// configuration (which sandbox code cannot signal), the sandbox user for any other, since sandbox code
// can rewrite that configuration anyway and must never get the hooks user to run what it wrote.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ChannelHookHost } from "../../server/hooks/channel-hook-host.js";
import { FakeSandboxChannel } from "../support/fake-sandbox-channel.js";

function hostOver(channel: FakeSandboxChannel): ChannelHookHost {
  return new ChannelHookHost(channel, { cwd: "/workspace", env: {} });
}

const command = { command: "gate", stdin: Buffer.from("{}"), timeoutMs: 1000, maxOutputBytes: 100 };
const post = { url: "https://hooks.example.com/", headers: {}, body: Buffer.from("{}"), timeoutMs: 1000, maxBodyBytes: 100 };

describe("ChannelHookHost: who runs a handler", () => {
  it("runs command and HTTP handlers of a read-only configuration as the hooks user, the others as the sandbox user", async () => {
    const channel = new FakeSandboxChannel();
    const host = hostOver(channel);
    await host.runCommand({ ...command, fromReadOnlyConfig: true });
    await host.runCommand({ ...command, fromReadOnlyConfig: false });
    await host.postJson({ ...post, fromReadOnlyConfig: true });
    await host.postJson({ ...post, fromReadOnlyConfig: false });
    assert.deepEqual(
      channel.commands.map((request) => [request.argv[0], request.runAs]),
      [
        ["bash", "hooks"],
        ["bash", "sandbox"],
        ["curl", "hooks"],
        ["curl", "sandbox"],
      ],
    );
  });

  it("takes a configuration on a read-only mount as read-only, except in the kernel's pseudo file systems", async () => {
    const channel = new FakeSandboxChannel();
    for (const path of ["/workspace/.agents/hooks.json", "/.agents/hooks.json", "/proc/sys/hooks.json"]) channel.files.set(path, "{}");
    channel.readOnlyFiles.add("/workspace/.agents/hooks.json").add("/proc/sys/hooks.json");
    const host = hostOver(channel);
    const readOnlyOf = async (path: string) => {
      const read = await host.readConfig(path, 1024);
      assert.equal(read.status, "found");
      return read.status === "found" ? read.readOnly : null;
    };
    assert.equal(await readOnlyOf("/workspace/.agents/hooks.json"), true);
    assert.equal(await readOnlyOf("/.agents/hooks.json"), false);
    assert.equal(await readOnlyOf("/proc/sys/hooks.json"), false);
  });
});
