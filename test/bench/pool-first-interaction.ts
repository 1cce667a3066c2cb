// The warm pool's figure (issue 11, part 1): a new environment's whole first interaction through the
// official SDK (create the environment, run one `true` tool call, answer), taken from the pool and
// created cold, beside `docker run --rm true` on the same engine, in turns so that all three see the same
// load. Two emulators run as `npm start` runs them: one with EMULATOR_POOL_SIZE=1, one with 0.
//   node --enable-source-maps dist/test/bench/pool-first-interaction.js [runs]
// Traffic goes only to loopback and to the containers the emulators create; both are destroyed at the end.

import { execFile } from "node:child_process";
import { promisify } from "node:util";
import Docker from "dockerode";
import { GoogleGenAI } from "@google/genai";
import { LABEL_POOLED } from "../../server/sandbox/docker/labels.js";
import { startEmulatorProcess, type EmulatorProcess } from "../support/emulator-process.js";

const run = promisify(execFile);
const AGENT = "antigravity-preview-05-2026";
const KEY = "pool-bench-key";
const INPUT = '```tool_calls\n[{"name": "code_execution", "args": {"code": "true"}}]\n```';

const runs = Number(process.argv[2] ?? 9);
const docker = new Docker();

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** One new environment's first interaction; says whether its container came from the pool. */
async function firstInteraction(emulator: EmulatorProcess): Promise<{ ms: number; pooled: boolean }> {
  const ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: emulator.url } });
  const started = process.hrtime.bigint();
  const interaction = await ai.interactions.create({ agent: AGENT, input: INPUT, environment: { type: "remote" } } as never);
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const { status, environment_id: id } = interaction as { status?: string; environment_id?: string };
  if (status !== "completed" || !id) throw new Error(`the interaction ended ${status}: ${JSON.stringify(interaction)}`);
  const [container] = await docker.listContainers({ all: true, filters: { name: [`iemu-${emulator.instance}-${id}`] } });
  const pooled = container?.Labels[LABEL_POOLED] === "true";
  await ai.environments.delete(id);
  return { ms, pooled };
}

function summary(label: string, values: number[]): { label: string; p50: number; mean: number; min: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    label,
    p50: sorted[Math.floor(sorted.length / 2)]!,
    mean: values.reduce((a, b) => a + b, 0) / values.length,
    min: sorted[0]!,
  };
}

async function main(): Promise<void> {
  const withPool = await startEmulatorProcess({ EMULATOR_POOL_SIZE: "1" });
  const withoutPool = await startEmulatorProcess({ EMULATOR_POOL_SIZE: "0" });
  try {
    await waitFor("the pool to fill", async () => (await withPool.pool())?.ready === 1);
    // The sandbox image itself, so `docker run` starts the same image the pool does.
    const sandboxImage = (await docker.getContainer((await withPool.pooledSandboxes())[0]!).inspect()).Config.Image;
    const dockerRunTrue = async (): Promise<number> => {
      const started = process.hrtime.bigint();
      await run("docker", ["run", "--rm", "--network", "none", sandboxImage, "true"]);
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    const times = { pooled: [] as number[], cold: [] as number[], dockerRun: [] as number[] };
    // Warm-up, not counted: each path once.
    await firstInteraction(withoutPool);
    await firstInteraction(withPool);
    await dockerRunTrue();
    for (let i = 0; i < runs; i++) {
      // The replacement of the previous take is started and connected before the next one is timed.
      await waitFor("the pool to refill", async () => (await withPool.pool())?.ready === 1);
      const order = [0, 1, 2].map((k) => (k + i) % 3);
      for (const which of order) {
        if (which === 0) {
          const result = await firstInteraction(withPool);
          if (!result.pooled) throw new Error("the pooled emulator created a sandbox cold although its pool was full");
          times.pooled.push(result.ms);
        } else if (which === 1) {
          const result = await firstInteraction(withoutPool);
          if (result.pooled) throw new Error("an emulator without a pool took a pooled sandbox");
          times.cold.push(result.ms);
        } else {
          times.dockerRun.push(await dockerRunTrue());
        }
      }
    }
    const rows = [
      summary("new environment's first interaction, from the pool", times.pooled),
      summary("new environment's first interaction, cold", times.cold),
      summary("docker run --rm true", times.dockerRun),
    ];
    console.log(`# ${runs} runs each, in turns; ms`);
    for (const row of rows)
      console.log(
        `${row.label.padEnd(55)} p50 ${row.p50.toFixed(0).padStart(5)}  mean ${row.mean.toFixed(0).padStart(5)}  min ${row.min.toFixed(0).padStart(5)}`,
      );
    const reference = rows[2]!.p50;
    console.log(`from the pool: ${(rows[0]!.p50 / reference).toFixed(2)}× docker run --rm true (goal ≤ 0.2×)`);
    console.log(`cold:          ${(rows[1]!.p50 / reference).toFixed(2)}× docker run --rm true (goal ≤ 1.2×)`);
  } finally {
    await withPool.destroy();
    await withoutPool.destroy();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
