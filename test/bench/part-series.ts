// Costs that should stay flat as work grows (issue 11, part 3), each printed as a series: the cost of a
// tool call with 1, 10 and 50 live environments and with a hooks.json of 1 and of 50 rules; reading and
// resuming an interaction of 2 and of 200 steps; the memory of an idle environment, in the emulator
// process and in its container.

import Docker from "dockerode";
import { inBatches } from "./bounded.js";
import { type ApiClient, commandScript, type Interaction } from "./api-client.js";
import type { EmulatorUnderTest } from "./emulator-under-test.js";
import type { FigureBook } from "./figures.js";
import { environmentWithHooks } from "./hooks-files.js";
import { createEnvironment, perCallCost } from "./interaction-measures.js";
import { checkHooksRan } from "./part-interactions.js";
import type { Series } from "./results.js";
import { containerMemory } from "./sandbox-memory.js";
import { measurePair, type Stats } from "./stats.js";

const PER_CALL_RUNS = 8;
/** Tool calls of the long interaction: with its input and its answer, 200 steps. */
const LONG_CALLS = 99;

async function stepsSeries(book: FigureBook, series: Series[], api: ApiClient): Promise<void> {
  const environment = await createEnvironment(api);
  const short = await api.interact({ input: "hello", environment });
  const long = await api.interact({ input: commandScript("true", LONG_CALLS), environment });
  // The steps GET returns: the create answer's (the run's own) and the input's user_input step.
  const [shortSteps, longSteps] = [short, long].map((interaction: Interaction) => (interaction.steps?.length ?? 0) + 1) as [number, number];
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
    const cost = await perCallCost(api, environment, PER_CALL_RUNS, `\`true\`, hooks.json of ${rules} rule${rules === 1 ? "" : "s"}`);
    const figure = `series.per_tool_call.hooks_json_${rules}_rules.ms`;
    book.add(figure, `one tool call with a hooks.json of ${rules} rule${rules === 1 ? "" : "s"} (one matching)`, cost.perUnitMs, "ms");
    points.push({ at: `${rules} rule${rules === 1 ? "" : "s"}`, figure });
    rows.push(cost.few, cost.many);
    await api.request("DELETE", `/v1beta/environments/${environment}`);
  }
  book.addTable("Tool calls with a hooks.json of 1 and of 50 rules, one of them matching (1 call vs 41, in turns)", rows);
  series.push({ title: "one tool call, as hooks.json grows (one command hook runs either way)", points, growth: true });
}

/**
 * In an emulator of its own (started with the memory probe): the emulator's memory with 1 environment
 * and with 50, each read right after a full garbage collection, the memory of idle containers, then the
 * cost of a tool call with 50 live environments, 10 and 1 (deleting idle ones in between). The 49 are
 * created and deleted once before the first reading: until then the process's RSS still holds what its
 * start-up allocated (the image check), which the allocator hands back during the first creations; the
 * second round shows what environments keep.
 */
async function liveEnvironmentsSeries(
  book: FigureBook,
  series: Series[],
  emulator: EmulatorUnderTest,
  api: ApiClient,
  progress: (line: string) => void,
): Promise<void> {
  const docker = new Docker();
  const measured = await createEnvironment(api);
  const createOthers = () =>
    inBatches(
      Array.from({ length: 49 }, () => undefined),
      4,
      () => createEnvironment(api),
    );
  const remove = (ids: string[]) => inBatches(ids, 4, (id) => api.request("DELETE", `/v1beta/environments/${id}`));
  progress("49 more environments, created and deleted once, then created again and left idle…");
  await remove(await createOthers());
  const before = await emulator.memoryAfterCollection();
  const others = await createOthers();
  const after = await emulator.memoryAfterCollection();
  // Every sandbox of this emulator is idle now (no tool call has run yet): five of them, whichever they are
  // (a warm-pool container that became an environment may carry another label).
  const idleContainers = (await emulator.runningContainers()).slice(0, 5);
  const containerMiB = await Promise.all(idleContainers.map(async (info) => (await containerMemory(docker, info.Id)).usedMiB));

  const costs = new Map<number, number>();
  const rows: Stats[] = [];
  const perCall = async (live: number) => {
    const cost = await perCallCost(api, measured, PER_CALL_RUNS, `\`true\`, ${live} live environment${live === 1 ? "" : "s"}`);
    costs.set(live, cost.perUnitMs);
    rows.push(cost.few, cost.many);
  };
  await perCall(50);
  await remove(others.slice(9));
  await perCall(10);
  await remove(others.slice(0, 9));
  await perCall(1);
  book.addTable("Tool calls with 50, 10 and 1 live environments (measured in that order; 1 call vs 41, in turns)", rows);

  const points: Series["points"] = [];
  for (const live of [1, 10, 50]) {
    const figure = `series.per_tool_call.live_environments_${live}.ms`;
    book.add(figure, `one tool call with ${live} live environment${live === 1 ? "" : "s"}`, costs.get(live)!, "ms");
    points.push({ at: `${live} live`, figure });
  }
  series.push({ title: "one tool call, as live environments grow", points, growth: true });

  book.add(
    "memory.server_rss_per_idle_environment.kib",
    "emulator RSS per idle environment (after a full GC)",
    ((after.rssMiB - before.rssMiB) * 1024) / 49,
    "KiB",
  );
  book.add(
    "memory.server_heap_per_idle_environment.kib",
    "emulator JS heap per idle environment (after a full GC)",
    ((after.heapUsedMiB - before.heapUsedMiB) * 1024) / 49,
    "KiB",
  );
  book.add("memory.server_rss_with_1_environment.mib", "emulator RSS with 1 environment (after a full GC)", before.rssMiB, "MiB");
  book.add("memory.server_rss_with_50_environments.mib", "emulator RSS with 50 environments (after a full GC)", after.rssMiB, "MiB");
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
      { at: "emulator RSS (growth ÷ 49)", figure: "memory.server_rss_per_idle_environment.kib" },
      { at: "of which JS heap", figure: "memory.server_heap_per_idle_environment.kib" },
      { at: "its container", figure: "memory.container_per_idle_environment.mib" },
    ],
    growth: false,
  });
}

export async function seriesPart(
  book: FigureBook,
  series: Series[],
  start: (settings: Record<string, string>, options?: { memoryProbe?: boolean }) => Promise<EmulatorUnderTest>,
  progress: (line: string) => void,
): Promise<void> {
  progress("an emulator for the series: steps, hooks.json rules…");
  const emulator = await start({});
  try {
    const api = emulator.client("bench-series");
    await stepsSeries(book, series, api);
    await hooksSeries(book, series, api);
  } finally {
    await emulator.destroy();
  }
  progress("an emulator for live environments and their memory…");
  const fresh = await start({}, { memoryProbe: true });
  try {
    await liveEnvironmentsSeries(book, series, fresh, fresh.client("bench-series-live"), progress);
  } finally {
    await fresh.destroy();
  }
}
