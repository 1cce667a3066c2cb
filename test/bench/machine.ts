// What the benchmark ran on, recorded with its figures (a ratio from another machine means little).

import { spawnSync } from "node:child_process";
import os from "node:os";
import type Docker from "dockerode";
import { projectRoot } from "../../server/common/paths.js";
import type { Machine } from "./results.js";

export async function describeThisMachine(docker: Docker): Promise<Omit<Machine, "loadAtEnd">> {
  const cpus = os.cpus();
  const version = await docker.version().catch(() => ({ Version: "unknown" }));
  return {
    cpus: cpus.length,
    cpuModel: (cpus[0]?.model ?? "unknown CPU").replace(/\s+/g, " ").trim(),
    memoryGiB: os.totalmem() / 1024 ** 3,
    os: `${os.type()} ${os.release()}`,
    node: process.versions.node,
    docker: version.Version,
    loadAtStart: os.loadavg()[0] ?? 0,
  };
}

export function currentLoad(): number {
  return os.loadavg()[0] ?? 0;
}

/** The commit measured, with "-dirty" when the work tree has changes. */
export function currentCommit(): string {
  const git = (args: string[]) => spawnSync("git", args, { cwd: projectRoot, encoding: "utf8" });
  const head = git(["rev-parse", "--short", "HEAD"]);
  if (head.status !== 0) return "unknown";
  const dirty = git(["status", "--porcelain", "--untracked-files=no"]).stdout.trim() !== "";
  return `${head.stdout.trim()}${dirty ? "-dirty" : ""}`;
}
