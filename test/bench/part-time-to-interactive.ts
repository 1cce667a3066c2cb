// Time to interactive (issue 31), by ComputeSDK's method: from the request that creates an environment
// until a first command has run in it (POST /v1beta/environments, then an interaction running `true`
// there), 100 runs each: sequential (one after another), staggered (one started every 100 ms whatever
// the others do) and in bursts of 20 at once (five, the pool refilled in between). The references, in
// the same run: `docker run --rm true` of the sandbox image one after another, and the engine's own
// burst: 20 containers of the image created and started at once (no network, as sandboxes), each timed
// until its `true` has exited: what the pool's refill cannot beat.

import Docker from "dockerode";
import { LABEL_INSTANCE } from "../../server/sandbox/docker/labels.js";
import { commandScript, type ApiClient } from "./api-client.js";
import { inBatches, sleep, withDeadline } from "./bounded.js";
import { dockerRunRm } from "./docker-floor.js";
import type { EmulatorUnderTest } from "./emulator-under-test.js";
import type { TimeToInteractive } from "./charts.js";
import { FIGURE, type FigureBook } from "./figures.js";
import { createEnvironment } from "./interaction-measures.js";
import { distribution, elapsedMs, quantile } from "./stats.js";

export const TTI_RUNS = 100;
export const BURST = 20;
const STAGGER_MS = 100;
const RUN_DEADLINE_MS = 60_000;
const ENGINE_BURSTS = 3;
const DOCKER_RUNS = 12;

interface Run {
  ms: number;
  environmentId: string;
}

async function oneRun(api: ApiClient): Promise<Run> {
  const start = process.hrtime.bigint();
  const environmentId = await createEnvironment(api);
  await api.interact({ input: commandScript("true", 1), environment: environmentId });
  return { ms: elapsedMs(start), environmentId };
}

const bounded = (api: ApiClient) => withDeadline(oneRun(api), RUN_DEADLINE_MS, "an environment until its first command");

/** The engine's own burst: `count` containers of `image` created and started at once; ms until each `true` exited. */
async function engineBurst(docker: Docker, image: string, instance: string, count: number): Promise<{ times: number[]; wallMs: number }> {
  const start = process.hrtime.bigint();
  const containers: Docker.Container[] = [];
  try {
    const times = await Promise.all(
      Array.from({ length: count }, async () => {
        const container = await docker.createContainer({
          Image: image,
          Cmd: ["true"],
          Labels: { [LABEL_INSTANCE]: instance },
          HostConfig: { NetworkMode: "none" },
        });
        containers.push(container);
        const exited = container.wait({ condition: "not-running" });
        await container.start();
        await exited;
        return elapsedMs(start);
      }),
    );
    return { times, wallMs: elapsedMs(start) };
  } finally {
    await inBatches(containers, 4, (container) =>
      withDeadline(container.remove({ force: true }), 30_000, "removing a container").catch(() => undefined),
    );
  }
}

export async function timeToInteractivePart(
  book: FigureBook,
  start: (settings: Record<string, string>) => Promise<EmulatorUnderTest>,
  pool: number | undefined,
  progress: (line: string) => void,
): Promise<TimeToInteractive> {
  const docker = new Docker();
  // Staggered runs may pile up: the quotas are no bound here (each run deletes its environment once done).
  const limits = { EMULATOR_MAX_ENVIRONMENTS: String(TTI_RUNS + 10), EMULATOR_MAX_ENVIRONMENTS_PER_KEY: String(TTI_RUNS + 10) };
  const emulator = await start(pool === undefined ? limits : { ...limits, EMULATOR_POOL_SIZE: String(pool) });
  try {
    const api = emulator.client("bench-tti", 4 * BURST);
    const poolFull = async () => {
      for (const deadline = Date.now() + RUN_DEADLINE_MS; Date.now() < deadline; await sleep(50)) {
        const state = await emulator.pool();
        if (state === null || state.ready >= state.size) return state?.size ?? 0;
      }
      throw new Error(`the pool did not fill within ${RUN_DEADLINE_MS / 1000} s`);
    };
    const size = await poolFull();
    /** Looks at each run's container (pooled or made for it: `cold` gets its time), then deletes its environment: untimed. */
    const settle = async (runs: Run[], cold: number[] = []) => {
      let fromPool = 0;
      await inBatches(runs, 4, async (run) => {
        if ((await emulator.pooledLabelOf(run.environmentId)) === "false") cold.push(run.ms);
        else fromPool++;
        await withDeadline(api.request("DELETE", `/v1beta/environments/${run.environmentId}`), RUN_DEADLINE_MS, "deleting an environment");
      });
      return fromPool;
    };

    progress(`time to interactive: ${TTI_RUNS} environments one after another (pool of ${size})…`);
    await settle([await bounded(api)]);
    const sequential: Run[] = [];
    const sequentialCold: number[] = [];
    let sequentialFromPool = 0;
    for (let run = 0; run < TTI_RUNS; run++) {
      const one = await bounded(api);
      sequential.push(one);
      sequentialFromPool += await settle([one], sequentialCold);
    }

    progress(`time to interactive: ${TTI_RUNS} environments, one started every ${STAGGER_MS} ms…`);
    await poolFull();
    let staggeredFromPool = 0;
    const staggeredCold: number[] = [];
    const staggeredStart = process.hrtime.bigint();
    let lastStaggeredAnswer = 0;
    const staggeredRuns = await Promise.all(
      Array.from({ length: TTI_RUNS }, async (_, index) => {
        await sleep(index * STAGGER_MS);
        const run = await bounded(api);
        lastStaggeredAnswer = Math.max(lastStaggeredAnswer, elapsedMs(staggeredStart));
        staggeredFromPool += await settle([run], staggeredCold);
        return run;
      }),
    );

    // Environments ready per second over the whole staggered stretch (from the first start to the last answer).
    const staggeredRate = (TTI_RUNS * 1000) / lastStaggeredAnswer;
    progress(`time to interactive: ${TTI_RUNS / BURST} bursts of ${BURST} at once…`);
    const burst: number[] = [];
    for (let round = 0; round < TTI_RUNS / BURST; round++) {
      await poolFull();
      const runs = await Promise.all(Array.from({ length: BURST }, () => bounded(api)));
      burst.push(...runs.map((run) => run.ms));
      await settle(runs);
    }

    progress("the references: `docker run --rm true` one after another, the engine's own burst of 20…");
    const image = (
      await docker
        .getContainer(`iemu-${emulator.instance}-${sequential[0]!.environmentId}`)
        .inspect()
        .catch(() => null)
    )?.Config.Image;
    const anyImage = image ?? (await emulator.runningContainers())[0]?.Image;
    if (!anyImage) throw new Error("no sandbox container to take the image from");
    await dockerRunRm(docker, anyImage, { [LABEL_INSTANCE]: emulator.instance });
    const runs: number[] = [];
    for (let run = 0; run < DOCKER_RUNS; run++) {
      const started = process.hrtime.bigint();
      await withDeadline(dockerRunRm(docker, anyImage, { [LABEL_INSTANCE]: emulator.instance }), RUN_DEADLINE_MS, "docker run --rm true");
      runs.push(elapsedMs(started));
    }
    const bursts: Array<{ p99: number; perSecond: number }> = [];
    for (let round = 0; round < ENGINE_BURSTS; round++) {
      const { times, wallMs } = await withDeadline(engineBurst(docker, anyImage, emulator.instance, BURST), 120_000, "the engine's burst");
      bursts.push({ p99: quantile(times, 0.99), perSecond: (BURST * 1000) / wallMs });
    }

    const dockerRun = distribution(runs);
    const ideal = quantile(
      bursts.map((one) => one.p99),
      0.5,
    );
    const perSecond = quantile(
      bursts.map((one) => one.perSecond),
      0.5,
    );
    const seq = distribution(sequential.map((run) => run.ms));
    const stag = distribution(staggeredRuns.map((run) => run.ms));
    const bur = distribution(burst);
    const row = (label: string, d: ReturnType<typeof distribution>) =>
      `${label.padEnd(44)} p50 ${d.p50.toFixed(1).padStart(7)} ms · p90 ${d.p90.toFixed(1).padStart(7)} · p99 ${d.p99.toFixed(1).padStart(7)} · max ${d.max.toFixed(1).padStart(7)} (${d.runs} runs)`;
    book.addNote(`Time to interactive: create until a first command has run (pool of ${size})`, [
      row(`  sequential (${sequentialFromPool} of ${TTI_RUNS} from the pool)`, seq),
      row(`  staggered, every ${STAGGER_MS} ms (${staggeredFromPool} from the pool)`, stag),
      `    (the ${TTI_RUNS} staggered were ready at ${staggeredRate.toFixed(1)}/s from the first start to the last answer)`,
      row(`  bursts of ${BURST} at once`, bur),
      row("  docker run --rm true, one after another", dockerRun),
      `  the engine's own burst of ${BURST} (create + start, --network none, until \`true\` exited): p99 ${ideal.toFixed(1)} ms, ${perSecond.toFixed(1)} containers/s (median of ${ENGINE_BURSTS})`,
    ]);
    const modes = [
      [
        "sequential",
        seq,
        sequentialFromPool,
        sequentialCold,
        FIGURE.ttiSequentialP50,
        FIGURE.ttiSequentialP99,
        FIGURE.ttiSequentialFromPool,
        FIGURE.ttiSequentialColdP50,
      ],
      [
        "staggered",
        stag,
        staggeredFromPool,
        staggeredCold,
        FIGURE.ttiStaggeredP50,
        FIGURE.ttiStaggeredP99,
        FIGURE.ttiStaggeredFromPool,
        FIGURE.ttiStaggeredColdP50,
      ],
    ] as const;
    for (const [mode, stats, fromPool, cold, p50, p99, share, coldP50] of modes) {
      book.add(p50, `time to interactive, ${mode}, p50`, stats.p50, "ms");
      book.add(p99, `time to interactive, ${mode}, p99`, stats.p99, "ms");
      book.add(share, `time to interactive, ${mode}: share of runs from the pool`, fromPool / TTI_RUNS, "share", "higher");
      if (cold.length > 0) book.add(coldP50, `time to interactive, ${mode}: runs the pool could not serve, p50`, quantile(cold, 0.5), "ms");
    }
    book.add(
      FIGURE.ttiStaggeredRate,
      "time to interactive, staggered: environments ready per second over the stretch",
      staggeredRate,
      "per s",
      "higher",
    );
    book.add(FIGURE.ttiBurstP50, "time to interactive, bursts of 20, p50", bur.p50, "ms");
    book.add(FIGURE.ttiBurstP99, "time to interactive, bursts of 20, p99", bur.p99, "ms");
    book.add(FIGURE.ttiPoolSize, "the warm pool's size (EMULATOR_POOL_SIZE)", size, "count", "higher");
    book.add(FIGURE.ttiDockerRun, "docker run --rm true, one after another, p50", dockerRun.p50, "ms");
    book.add(FIGURE.ttiBurstIdeal, "the engine's burst of 20 (create + start until `true` exited), p99", ideal, "ms");
    book.add(
      FIGURE.engineCreatesPerSecond,
      "the engine's burst of 20: containers created and run per second",
      perSecond,
      "per s",
      "higher",
    );
    return {
      sequential: sequential.map((run) => run.ms),
      staggered: staggeredRuns.map((run) => run.ms),
      burst,
      dockerRunP50: dockerRun.p50,
      engineBurstP99: ideal,
    };
  } finally {
    await emulator.destroy();
  }
}
