// Other work on the machine during a benchmark run (test/bench/other-work.ts): the processes that are
// neither the run's (its descendants), the engine's (its daemons, the shims and what runs under them),
// the kernel's threads nor the first process; compared with themselves by pid and start time.

import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { describe, it } from "node:test";
import { type ProcessStat, readProcesses } from "../bench/cpu-accounting.js";
import { otherWork, otherWorkCpuMs } from "../bench/other-work.js";

const RUN = 500;

function stat(name: string, parentPid: number, cpuMs: number, startTicks = 1): ProcessStat {
  return { name, parentPid, startTicks, cpuMs, ownCpuMs: cpuMs };
}

/** A machine: init, the kernel's threads, the engine with a shim and a sandbox, this run with an emulator, a shell of other work with a test. */
function machine(changes: Record<number, ProcessStat> = {}): Map<number, ProcessStat> {
  const all = new Map<number, ProcessStat>([
    [1, stat("init", 0, 9_000)],
    [2, stat("kthreadd", 0, 50)],
    [40, stat("kworker/0:1", 2, 700)],
    [100, stat("dockerd", 1, 5_000)],
    [101, stat("containerd", 100, 3_000)],
    [300, stat("containerd-shim-runc-v2", 1, 400)],
    [301, stat("sandbox-executor", 300, 80)],
    [302, stat("bash", 301, 10)],
    [450, stat("npm run bench", 1, 200)],
    [RUN, stat("node", 450, 60_000)],
    [501, stat("node", RUN, 90_000)],
    [700, stat("bash", 1, 30)],
    [701, stat("node", 700, 1_000)],
  ]);
  for (const [pid, value] of Object.entries(changes)) all.set(Number(pid), value);
  return all;
}

describe("bench: other work on the machine", () => {
  it("counts neither the run's processes, the engine's, the kernel's threads nor init", () => {
    assert.deepEqual(
      [...otherWork(machine(), RUN).keys()].sort((a, b) => a - b),
      [450, 700, 701],
    );
  });

  it("counts what other work used between two readings, a process born since in full, a reused pid as new", () => {
    const before = otherWork(machine(), RUN);
    const after = otherWork(
      machine({
        // The run, the engine and the sandbox worked hard: none of it is other work.
        [RUN]: stat("node", 450, 120_000),
        [101]: stat("containerd", 100, 9_000),
        [302]: stat("bash", 301, 5_000),
        [701]: stat("node", 700, 1_400),
        [702]: stat("node", 700, 250),
        [450]: stat("a new process in pid 450", 1, 50, 99),
      }),
      RUN,
    );
    assert.equal(otherWorkCpuMs(before, after), 400 + 250 + 50);
  });

  it("finds an orphaned process as other work and a child of the run's as the run's, on this machine", async (t) => {
    const orphan = spawnSync("sh", ["-c", "sleep 30 >/dev/null 2>&1 & echo $!"], { encoding: "utf8" });
    const orphanPid = Number(orphan.stdout.trim());
    const child = spawn("sh", ["-c", "sleep 30"], { stdio: "ignore" });
    t.after(() => {
      process.kill(orphanPid, "SIGKILL");
      child.kill("SIGKILL");
    });
    const all = readProcesses();
    assert.ok(all, "/proc can be read");
    // Inside a container every process descends from the engine's shim: nothing there is other work.
    if (!otherWork(all, -1).has(process.pid)) return t.skip("this test runs under the engine's shim (in a container)");
    assert.ok(all.has(orphanPid) && all.get(orphanPid)?.parentPid !== process.pid, "the orphan was reparented");
    const others = otherWork(all, process.pid);
    assert.ok(others.has(orphanPid));
    assert.ok(!others.has(child.pid ?? 0));
    assert.ok(!others.has(process.pid));
  });
});
