// What the idle-sandbox goal's bound is made of (test/bench/sandbox-memory.ts): the engine's memory
// stats read as `docker stats` reads them, on cgroup v1 and v2, and the /proc listing of a sandbox's
// processes, each given its role.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { containerMemoryOf, parseProcessList, rssByRole } from "../bench/sandbox-memory.js";

const EXECUTOR = "/usr/libexec/interactions-emulator/sandbox-executor";
const MIB = 1048576;

/** One block of LIST_PROCESSES_SCRIPT's output: `== /proc/<pid>`, the status, the command line, a newline. */
function block(pid: number, name: string, rssKiB: number | undefined, argv: string[]): string {
  const status = [`Name:\t${name}`, "State:\tS (sleeping)", ...(rssKiB === undefined ? [] : [`VmRSS:\t    ${rssKiB} kB`]), "Threads:\t1"];
  return `== /proc/${pid}\n${status.join("\n")}\n${argv.map((arg) => `${arg}\0`).join("")}\n`;
}

describe("bench: an idle sandbox's memory", () => {
  it("reads the container's memory as docker stats does, on cgroup v2 and v1", () => {
    const v2 = containerMemoryOf({ usage: 10 * MIB, stats: { anon: 4 * MIB, file: 5 * MIB, inactive_file: 3 * MIB } });
    assert.deepEqual(v2, { usedMiB: 7, anonymousMiB: 4, pageCacheMiB: 2 });
    const v1 = containerMemoryOf({
      usage: 6 * MIB,
      stats: { rss: 2 * MIB, total_rss: 2 * MIB, cache: 3 * MIB, total_cache: 3 * MIB, inactive_file: MIB, total_inactive_file: MIB },
    });
    assert.deepEqual(v1, { usedMiB: 5, anonymousMiB: 2, pageCacheMiB: 2 });
  });

  it("lists the processes from /proc with their RSS and command line, leaving out one gone meanwhile", () => {
    const output = [
      block(1, "docker-init", 680, ["/sbin/docker-init", "--", "sleep", "infinity"]),
      block(7, "sleep", 1700, ["sleep", "infinity"]),
      "== /proc/12\n\n",
      block(20, "sandbox-executo", 3300, [EXECUTOR, "--identity", "sandbox=1000:1000:/home/sandbox", "--disk-limit-mb", "512"]),
      block(27, "sandbox-executo", 3100, [EXECUTOR, "--file-worker", "sandbox", "--identity", "sandbox=1000:1000:/home/sandbox"]),
      block(30, "bash", undefined, ["bash", "-c", "sleep 1"]),
    ].join("");
    const processes = parseProcessList(output);
    assert.deepEqual(
      processes.map((process) => [process.pid, process.argv[0], process.rssKiB]),
      [
        [1, "/sbin/docker-init", 680],
        [7, "sleep", 1700],
        [20, EXECUTOR, 3300],
        [27, EXECUTOR, 3100],
        [30, "bash", 0],
      ],
    );
    const rss = rssByRole(processes, EXECUTOR);
    assert.deepEqual(Object.fromEntries(Object.entries(rss).map(([role, value]) => [role, Math.round(value * 1024)])), {
      executor: 3300,
      fileWorker: 3100,
      keepAlive: 1700,
      init: 680,
      other: 0,
    });
    // The keep-alive of a sandbox that holds its egress port is the executor's binary with --hold-port.
    const holding = rssByRole(parseProcessList(block(7, "sandbox-executo", 3156, [EXECUTOR, "--hold-port", "127.0.0.1:3128"])), EXECUTOR);
    assert.deepEqual([holding.keepAlive, holding.executor], [3156 / 1024, 0]);
    // A process that is neither (a command left running) is counted, as "other".
    const withCommand = rssByRole(parseProcessList(block(40, "python3", 9216, ["python3", "-c", "..."])), EXECUTOR);
    assert.equal(withCommand.other, 9);
  });
});
