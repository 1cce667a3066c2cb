// Issue 32's bench line: a tool call in a sandbox on another node of a Swarm against one on the
// emulator's own node (docs/benchmarks.md, docs/scale-out.md). On the three-node test swarm
// (test/support/swarm-cluster.ts): the runtime reaches the tasks through a relay container on the
// manager, attached to the overlay (test/support/overlay-relay.ts), where the deployed emulator runs
// (deploy/swarm.yml); one sandbox is pinned to the manager, one to a worker, and the same
// `code_execution` of `true` runs in each, in turns, as does the channel's bare `true`. Both sides pass
// through the same relay, so what differs is the overlay's hop between machines.
// Not measured, with the reason, where the test swarm cannot come up (it needs root and dockerd, ip,
// nsenter, unshare). The test swarm is one per machine, and up() removes any other: run this part while
// no swarm test (test/docker/swarm-*.test.ts) runs.

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Docker from "dockerode";
import type { SandboxChannel, SandboxHandle } from "../../server/sandbox/runtime.js";
import { SwarmRuntime } from "../../server/sandbox/swarm/swarm-runtime.js";
import { runTool } from "../../server/tools/tool-runner.js";
import { type OverlayRelay, startOverlayRelay } from "../support/overlay-relay.js";
import { type SwarmCluster, swarmUnavailable, testRuntimeOptions, up } from "../support/swarm-cluster.js";
import { FIGURE, type FigureBook } from "./figures.js";
import { measurePair } from "./stats.js";

const CALLS = 100;
const CHANNEL_RUNS = 200;
const LIMITS = { timeoutMs: 20_000, maxOutputBytes: 1024 * 1024 };

/** Why the test swarm cannot come up on this machine, or null. */
interface Side {
  runtime: SwarmRuntime;
  handle: SandboxHandle;
  channel: SandboxChannel;
}

export async function swarmPart(
  book: FigureBook,
  reasons: Record<string, string>,
  dataDirs: string[],
  progress: (line: string) => void,
): Promise<void> {
  const why = swarmUnavailable();
  if (why) {
    reasons[FIGURE.swarmCallOtherNode] = `not measured: ${why}`;
    return;
  }
  progress("swarm: a three-node test swarm, a sandbox on the emulator's node and one on another…");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "emu-bench-swarm-"));
  // Also the run's to remove: an interrupted run never reaches this part's own clean-up below.
  dataDirs.push(dataDir);
  let cluster: SwarmCluster | null = null;
  let relay: OverlayRelay | null = null;
  const sides: Side[] = [];
  try {
    cluster = await up({ progress: (line) => progress(`swarm: ${line}`) });
    const manager = new Docker({ socketPath: cluster.managerSocket });
    relay = await startOverlayRelay(manager, cluster.images[0]!, cluster.overlay, { "dev.interactions-emulator.bench": "relay" });
    // The relay runs on the manager (nodes[0]): the emulator's own node.
    for (const node of [cluster.nodes[0]!, cluster.nodes[1]!]) {
      const runtime = new SwarmRuntime({
        ...testRuntimeOptions(cluster, "benchswarm", dataDir),
        constraints: [`node.hostname==${node.name}`],
        taskStartMs: 60_000,
        docker: manager,
        dial: relay.dial,
      });
      await runtime.prepare(() => undefined);
      const handle = await runtime.create({ environmentId: `env_benchswarm${sides.length}`, owner: "bench", files: [] });
      sides.push({ runtime, handle, channel: await runtime.connect(handle) });
    }
    const [own, other] = sides as [Side, Side];
    const call = (side: Side) => () => runTool(side.channel, { name: "code_execution", args: { code: "true" } }, LIMITS);
    const calls = await measurePair(
      CALLS,
      { label: "swarm: code_execution `true`, sandbox on the emulator's node", once: call(own) },
      { label: "swarm: code_execution `true`, sandbox on another node", once: call(other) },
    );
    const trues = await measurePair(
      CHANNEL_RUNS,
      { label: "swarm: executor channel `true`, emulator's node", once: () => own.channel.run({ argv: ["true"], ...LIMITS }) },
      { label: "swarm: executor channel `true`, another node", once: () => other.channel.run({ argv: ["true"], ...LIMITS }) },
    );
    book.addTable("The swarm runtime: a sandbox on the emulator's node vs on another node, in turns", [...calls, ...trues]);
    book.add(FIGURE.swarmCallOwnNode, calls[0].label, calls[0].p50, "ms");
    book.add(FIGURE.swarmCallOtherNode, calls[1].label, calls[1].p50, "ms");
    book.add(FIGURE.swarmChannelOwnNode, trues[0].label, trues[0].p50, "ms");
    book.add(FIGURE.swarmChannelOtherNode, trues[1].label, trues[1].p50, "ms");
  } catch (error) {
    reasons[FIGURE.swarmCallOtherNode] = `not measured: the test swarm failed (${(error as Error).message})`;
  } finally {
    for (const side of sides) {
      side.channel.close();
      side.runtime.close();
      await side.runtime.remove(side.handle).catch(() => undefined);
    }
    await relay?.remove();
    await cluster?.down();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
