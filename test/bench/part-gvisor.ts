// What gVisor costs (docs/security.md#gvisor): the same work on a sandbox under runc and one under runsc,
// in turns in the same run, so each cost is a ratio on this machine at this moment: a command through
// the executor channel, a code_execution tool call (python), a file read, and a cold sandbox (create,
// start, the executor's first ping, remove). Skipped, with a note, when the engine has no runsc.

import Docker from "dockerode";
import { loadConfig } from "../../server/common/config.js";
import { dockerRuntimeFor } from "../../server/emulator.js";
import type { DockerRuntime } from "../../server/sandbox/docker/docker-runtime.js";
import type { SandboxChannel, SandboxHandle } from "../../server/sandbox/runtime.js";
import { runTool } from "../../server/tools/tool-runner.js";
import type { FigureBook } from "./figures.js";
import { measurePair, type Stats } from "./stats.js";

const MIB = 1024 * 1024;

interface Side {
  name: "runc" | "runsc";
  runtime: DockerRuntime;
  handle: SandboxHandle;
  channel: SandboxChannel;
}

export async function gvisorPart(
  book: FigureBook,
  notes: string[],
  instance: string,
  dataDir: string,
  progress: (line: string) => void,
): Promise<void> {
  const info = (await new Docker().info()) as { Runtimes?: Record<string, unknown> };
  if (!Object.keys(info.Runtimes ?? {}).includes("runsc")) {
    notes.push("gvisor: not measured, the Docker engine has no runtime runsc (docs/setup.md#gvisor)");
    return;
  }
  progress("gVisor: a sandbox under runc and one under runsc, in turns…");
  const sides: Side[] = [];
  try {
    for (const name of ["runc", "runsc"] as const) {
      const runtime = dockerRuntimeFor(
        loadConfig({ ...process.env, EMULATOR_INSTANCE: instance, EMULATOR_DATA_DIR: dataDir, EMULATOR_SANDBOX_RUNTIME: name }),
      );
      await runtime.prepare(() => undefined);
      const handle = await runtime.create({ environmentId: `env_bench${name}`, owner: "bench", files: [] });
      sides.push({ name, runtime, handle, channel: await runtime.connect(handle) });
    }
    const [runc, runsc] = sides as [Side, Side];
    for (const side of sides)
      await side.channel.run({ argv: ["bash", "-c", "head -c 1048576 /dev/zero > /tmp/1mib"], timeoutMs: 10_000, maxOutputBytes: MIB });

    const pair = (runs: number, what: string, once: (side: Side) => () => Promise<unknown>) =>
      measurePair(runs, { label: `${what}: runc`, once: once(runc) }, { label: `${what}: runsc (gVisor)`, once: once(runsc) });
    const limits = { timeoutMs: 20_000, maxOutputBytes: MIB };
    const rows: Array<{ id: string; stats: [Stats, Stats] }> = [
      {
        id: "run_true",
        stats: await pair(100, "executor channel: run `true`", (side) => () => side.channel.run({ argv: ["true"], ...limits })),
      },
      {
        id: "tool_call_python",
        stats: await pair(
          20,
          "code_execution: python `print(1)`",
          (side) => () => runTool(side.channel, { name: "code_execution", args: { code: "print(1)", language: "python" } }, limits),
        ),
      },
      {
        id: "read_file_1mib",
        stats: await pair(30, "executor channel: readFile (1 MiB)", (side) => () => side.channel.readFile("/tmp/1mib", 2 * MIB)),
      },
      {
        id: "new_sandbox",
        stats: await pair(6, "cold sandbox: create + start + ping + remove", (side) => async () => {
          const created = await side.runtime.create({ environmentId: `env_benchcold${side.name}${Date.now()}`, owner: "bench", files: [] });
          const fresh = await side.runtime.connect(created);
          fresh.close();
          await side.runtime.remove(created);
        }),
      },
    ];
    book.addTable(
      "gVisor (runsc) vs runc, measured in turns",
      rows.flatMap((row) => row.stats),
    );
    for (const { id, stats } of rows) {
      book.add(`gvisor.${id}.runc.p50_ms`, stats[0].label, stats[0].p50, "ms");
      book.add(`gvisor.${id}.runsc.p50_ms`, stats[1].label, stats[1].p50, "ms");
      book.add(
        `gvisor.${id}.ratio`,
        `${stats[1].label.replace(/: runsc \(gVisor\)$/, "")}: runsc / runc (medians)`,
        stats[1].p50 / stats[0].p50,
        "×",
      );
    }
  } finally {
    for (const side of sides) {
      side.channel.close();
      await side.runtime.remove(side.handle).catch(() => undefined);
    }
  }
}
