// Costs that should stay flat as work grows (issue 11, part 3), each printed as a series: the cost of a
// tool call with 1, 10 and 50 live environments and with a hooks.json of 1 and of 50 rules; reading and
// resuming an interaction of 2 and of 200 steps; the memory of an idle environment, in the emulator
// process and in its container.

import Docker from "dockerode";
import { LABEL_ENVIRONMENT } from "../../server/sandbox/docker/labels.js";
import { type ApiClient, commandScript, type Interaction } from "./api-client.js";
import type { EmulatorUnderTest } from "./emulator-under-test.js";
import type { FigureBook } from "./figures.js";
import { environmentWithHooks } from "./hooks-files.js";
import { createEnvironment, perCallCost } from "./interaction-measures.js";
import { checkHooksRan } from "./part-interactions.js";
import type { Series } from "./results.js";
import { measurePair, type Stats } from "./stats.js";

const PER_CALL_RUNS = 8;
/** Tool calls of the long interaction: with its input and its answer, 200 steps. */
const LONG_CALLS = 99;

/** Runs `task` over `items`, `concurrency` at a time (the engine creates containers side by side). */
async function inBatches<T, R>(items: T[], concurrency: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}

/**
 * The memory a container uses, as `docker stats` shows it: usage without the page cache the kernel can
 * drop (inactive_file on cgroup v2, total_inactive_file on v1). MiB.
 */
async function containerMemoryMiB(docker: Docker, id: string): Promise<number> {
  const stats = await docker.getContainer(id).stats({ stream: false, "one-shot": true });
  const memory = stats.memory_stats as { usage?: number; stats?: Record<string, number> };
  const inactive = memory.stats?.["inactive_file"] ?? memory.stats?.["total_inactive_file"] ?? 0;
  return ((memory.usage ?? Number.NaN) - inactive) / 1048576;
}

async function stepsSeries(book: FigureBook, series: Series[], api: ApiClient): Promise<void> {
  const environment = await createEnvironment(api);
  const short = await api.interact({ input: "hello", environment });
  const long = await api.interact({ input: commandScript("true", LONG_CALLS), environment });
  const [shortSteps, longSteps] = [short, long].map((interaction: Interaction) => interaction.steps?.length ?? 0) as [number, number];
  const get = (interaction: Interaction) => () => api.request("GET", `/v1beta/interactions/${interaction.id}`);
  const resume = (interaction: Interaction) => () => api.interact({ input: "hello", previous_interaction_id: interaction.id });
  const gets = await measurePair(
    50,
    { label: `GET of an interaction of ${shortSteps} steps`, once: get(short) },
    { label: `GET of an interaction of ${longSteps} steps`, once: get(long) },
  );
  const resumes = await measurePair(
    20,
    { label: `resume (previous_interaction_id) of ${shortSteps} steps`, once: resume(short) },
    { label: `resume (previous_interaction_id) of ${longSteps} steps`, once: resume(long) },
  );
  book.addTable("Interactions of few and of many steps: reading and resuming them (in turns)", [...gets, ...resumes]);
  const ids = { getShort: "series.get_interaction.steps_short.p50_ms", getLong: "series.get_interaction.steps_200.p50_ms" };
  book.addStats(ids.getShort, gets[0]);
  book.addStats(ids.getLong, gets[1]);
  book.addStats("series.resume_interaction.steps_short.p50_ms", resumes[0]);
  book.addStats("series.resume_interaction.steps_200.p50_ms", resumes[1]);
  series.push(
    {
      title: "GET of an interaction, p50, as its steps grow",
      points: [
        { at: `${shortSteps} steps`, figure: ids.getShort },
        { at: `${longSteps} steps`, figure: ids.getLong },
      ],
      growth: true,
    },
    {
      title: "resume (previous_interaction_id, no tool call), p50, as the previous one's steps grow",
      points: [
        { at: `${shortSteps} steps`, figure: "series.resume_interaction.steps_short.p50_ms" },
        { at: `${longSteps} steps`, figure: "series.resume_interaction.steps_200.p50_ms" },
      ],
      growth: true,
    },
  );
  await api.request("DELETE", `/v1beta/environments/${environment}`);
}

async function hooksSeries(book: FigureBook, series: Series[], api: ApiClient): Promise<void> {
  const points: Series["points"] = [];
  const rows: Stats[] = [];
  for (const rules of [1, 50]) {
    const environment = await createEnvironment(api, environmentWithHooks(rules));
    await checkHooksRan(api, environment, 2);
    const cost = await perCallCost(api, environment, PER_CALL_RUNS, `\`true\`, hooks.json of ${rules} rules`);
    const figure = `series.per_tool_call.hooks_json_${rules}_rules.ms`;
    book.add(figure, `one tool call with a hooks.json of ${rules} rules (one matching)`, cost.perUnitMs, "ms");
    points.push({ at: `${rules} rule${rules === 1 ? "" : "s"}`, figure });
    rows.push(cost.few, cost.many);
    await api.request("DELETE", `/v1beta/environments/${environment}`);
  }
  book.addTable("Tool calls with a hooks.json of 1 and of 50 rules, one of them matching (1 call vs 41, in turns)", rows);
  series.push({ title: "one tool call, as hooks.json grows (one command hook runs either way)", points, growth: true });
}

async function liveEnvironmentsSeries(
  book: FigureBook,
  series: Series[],
  emulator: EmulatorUnderTest,
  api: ApiClient,
  progress: (line: string) => void,
): Promise<void> {
  const docker = new Docker();
  const measured = await createEnvironment(api);
  const costs = new Map<number, number>();
  const rows: Stats[] = [];
  const perCall = async (live: number) => {
    const cost = await perCallCost(api, measured, PER_CALL_RUNS, `\`true\`, ${live} live environments`);
    costs.set(live, cost.perUnitMs);
    rows.push(cost.few, cost.many);
  };
  await perCall(1);
  const rssBefore = emulator.rssMiB();
  progress("49 more environments, idle…");
  const others = await inBatches(
    Array.from({ length: 49 }, () => undefined),
    4,
    () => createEnvironment(api),
  );
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const rssAfter = emulator.rssMiB();
  const idleContainers = (await emulator.runningContainers()).filter((info) =>
    others.slice(0, 5).includes(info.Labels[LABEL_ENVIRONMENT] ?? ""),
  );
  const containerMiB = await Promise.all(idleContainers.map((info) => containerMemoryMiB(docker, info.Id)));
  await perCall(50);
  await inBatches(others.slice(9), 4, (id) => api.request("DELETE", `/v1beta/environments/${id}`));
  await perCall(10);
  book.addTable("Tool calls with 1, 50 and 10 live environments (measured in that order; 1 call vs 41, in turns)", rows);

  const points: Series["points"] = [];
  for (const live of [1, 10, 50]) {
    const figure = `series.per_tool_call.live_environments_${live}.ms`;
    book.add(figure, `one tool call with ${live} live environments`, costs.get(live)!, "ms");
    points.push({ at: `${live} live`, figure });
  }
  series.push({ title: "one tool call, as live environments grow", points, growth: true });

  book.add(
    "memory.server_rss_per_idle_environment.mib",
    "emulator RSS per idle environment (49 created)",
    (rssAfter - rssBefore) / 49,
    "MiB",
  );
  book.add("memory.server_rss_with_1_environment.mib", "emulator RSS with 1 environment", rssBefore, "MiB");
  book.add("memory.server_rss_with_50_environments.mib", "emulator RSS with 50 environments", rssAfter, "MiB");
  if (containerMiB.length > 0) {
    book.add(
      "memory.container_per_idle_environment.mib",
      `container memory of an idle environment (docker stats, mean of ${containerMiB.length})`,
      containerMiB.reduce((a, b) => a + b, 0) / containerMiB.length,
      "MiB",
    );
  }
  series.push({
    title: "memory of one idle environment",
    points: [
      { at: "emulator process (RSS growth ÷ 49)", figure: "memory.server_rss_per_idle_environment.mib" },
      { at: "its container", figure: "memory.container_per_idle_environment.mib" },
    ],
    growth: false,
  });
}

export async function seriesPart(
  book: FigureBook,
  series: Series[],
  start: (settings: Record<string, string>) => Promise<EmulatorUnderTest>,
  progress: (line: string) => void,
): Promise<void> {
  progress("an emulator for the series: steps, hooks.json rules, live environments, memory…");
  const emulator = await start({});
  try {
    const api = emulator.client("bench-series");
    await stepsSeries(book, series, api);
    await hooksSeries(book, series, api);
    await liveEnvironmentsSeries(book, series, emulator, emulator.client("bench-series-live"), progress);
  } finally {
    await emulator.destroy();
  }
}
