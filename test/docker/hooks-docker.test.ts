// The hooks conformance suite against a real sandbox: hooks.json written into the container at the
// documented paths, every command and HTTP request made inside it.

import { ChannelHookHost } from "../../server/hooks/channel-hook-host.js";
import { SandboxFileError } from "../../server/sandbox/runtime.js";
import { removeAllSandboxes, testDockerRuntime } from "../support/docker-fixture.js";
import { hooksConformanceSuite } from "../support/hooks-conformance.js";

hooksConformanceSuite("Docker sandbox", async () => {
  const runtime = await testDockerRuntime();
  const handle = await runtime.create({ environmentId: "env_hooksconformance", owner: "owner", files: [] });
  const channel = await runtime.connect(handle);
  const scratchDir = "/workspace/hooks-scratch";
  const mkdir = await channel.run({ argv: ["mkdir", "-p", scratchDir], timeoutMs: 10_000, maxOutputBytes: 4096 });
  if (mkdir.exitCode !== 0) throw new Error(`mkdir ${scratchDir}: ${mkdir.stderr.toString()}`);
  // The suite's scripted HTTP server runs on the sandbox's own loopback, which the egress proxy rightly
  // refuses; these rows test the hook semantics of HTTP answers, so curl is told to go direct (as an
  // environment's `env` could). HTTP hooks through the real proxy are covered end to end
  // (test/e2e/seed-egress.test.ts).
  const host = new ChannelHookHost(channel, { cwd: "/workspace", env: { NO_PROXY: "127.0.0.1", no_proxy: "127.0.0.1" } });
  const removeConfig = async (path: string): Promise<void> => {
    try {
      await channel.deleteFile(path, false);
    } catch (error) {
      if (!(error instanceof SandboxFileError && error.code === "ENOENT")) throw error;
    }
  };
  return {
    host,
    channel,
    scratchDir,
    writeConfig: (path, text) => channel.writeFile(path, Buffer.from(text)),
    removeConfig,
    linkConfig: async (linkPath, targetPath) => {
      await removeConfig(linkPath);
      const linked = await channel.run({
        argv: ["bash", "-c", 'mkdir -p "$(dirname "$1")" && ln -s "$2" "$1"', "link", linkPath, targetPath],
        timeoutMs: 10_000,
        maxOutputBytes: 4096,
      });
      if (linked.exitCode !== 0) throw new Error(`ln -s ${targetPath} ${linkPath}: ${linked.stderr.toString()}`);
    },
    teardown: async () => {
      channel.close();
      await removeAllSandboxes(runtime);
    },
  };
});
