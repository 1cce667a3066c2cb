// The hooks conformance suite against a fast fake: config files live in memory, and commands (and the
// HTTP hooks' curl) run on this machine through a local executor in a temporary folder.

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { executorBinaryPath as executorPath } from "../../server/common/paths.js";
import { ChannelHookHost } from "../../server/hooks/channel-hook-host.js";
import type { HookConfigRead } from "../../server/hooks/hook-host.js";
import { spawnLocalExecutor } from "../support/local-executor.js";
import { hooksConformanceSuite } from "../support/hooks-conformance.js";

/** Config files by path, and symlinks between those paths, in memory. */
class InMemoryConfigFiles {
  private readonly files = new Map<string, string>();
  private readonly links = new Map<string, string>();

  write(path: string, text: string): void {
    this.links.delete(path);
    this.files.set(path, text);
  }

  remove(path: string): void {
    this.files.delete(path);
    this.links.delete(path);
  }

  link(linkPath: string, targetPath: string): void {
    this.files.delete(linkPath);
    this.links.set(linkPath, targetPath);
  }

  read(path: string, maxBytes: number): HookConfigRead {
    const realPath = this.links.get(path) ?? path;
    const text = this.files.get(realPath);
    if (text === undefined) return { status: "missing" };
    const bytes = Buffer.byteLength(text);
    if (bytes > maxBytes) return { status: "unreadable", realPath, error: `${bytes} bytes, more than the ${maxBytes}-byte limit` };
    return { status: "found", realPath, text, bytes, readOnly: false };
  }
}

hooksConformanceSuite("fake host (config in memory, commands on this machine)", async () => {
  const scratchDir = await mkdtemp(join(tmpdir(), "hooks-conformance-"));
  const executor = spawnLocalExecutor(executorPath, { cwd: scratchDir });
  const configs = new InMemoryConfigFiles();
  const host = new ChannelHookHost(executor.channel, {
    cwd: scratchDir,
    env: {},
    readConfig: async (path, maxBytes) => configs.read(path, maxBytes),
  });
  return {
    host,
    channel: executor.channel,
    scratchDir,
    writeConfig: async (path, text) => configs.write(path, text),
    removeConfig: async (path) => configs.remove(path),
    linkConfig: async (linkPath, targetPath) => configs.link(linkPath, targetPath),
    teardown: async () => {
      await executor.stop();
      await rm(scratchDir, { recursive: true, force: true });
    },
  };
});
