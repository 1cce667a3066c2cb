// The goals measured through the HTTP API of an emulator started as `npm start` starts it: an
// interaction without a tool call, the cost of one tool call (without and with a command hook), and a
// new environment from the warm pool (the default) and without it (EMULATOR_POOL_SIZE=0).

import Docker from "dockerode";
import { configSchema } from "../../server/common/config.js";
import { type ApiClient, commandScript } from "./api-client.js";
import { readCpu } from "./cpu-accounting.js";
import { spawnCostInContainer } from "./docker-floor.js";
import type { EmulatorUnderTest } from "./emulator-under-test.js";
import { FIGURE, type FigureBook } from "./figures.js";
import { environmentWithHooks } from "./hooks-files.js";
import {
  cpuPerCall,
  createEnvironment,
  MANY_CALLS,
  newEnvironmentCost,
  perCallCost,
  perCallCostInTurns,
  perFileCallCost,
} from "./interaction-measures.js";
import { measure } from "./stats.js";

/** Whether this build has a warm-pool setting at all (issue 11, part 1). */
export const POOL_SETTING = "EMULATOR_POOL_SIZE";
const poolSettingExists = POOL_SETTING in configSchema.shape;

const POOL_FILL_TIMEOUT_MS = 30_000;

/** How many command hooks ran and exited 0 in a hook trace (GET /emulator/interactions/{id}/hooks). */
function commandHooksRun(trace: unknown): number {
  if (Array.isArray(trace)) return trace.reduce((sum: number, item) => sum + commandHooksRun(item), 0);
  if (typeof trace !== "object" || trace === null) return 0;
  const record = trace as Record<string, unknown>;
  const own = record["kind"] === "command" && record["exit_code"] === 0 ? 1 : 0;
  return own + Object.values(record).reduce((sum: number, value) => sum + commandHooksRun(value), 0);
}

/** Fails unless every one of the interaction's `calls` tool calls ran its command hook: a measurement without them would be of something else. */
export async function checkHooksRan(api: ApiClient, environmentId: string, calls: number): Promise<void> {
  const interaction = await api.interact({ input: commandScript("true", calls), environment: environmentId });
  const trace = await api.request("GET", `/emulator/interactions/${interaction.id}/hooks`);
  const ran = commandHooksRun(trace);
  if (ran !== calls) throw new Error(`the hooks.json of ${environmentId} ran ${ran} command hooks for ${calls} calls`);
}

/** Waits (bounded) until `full` says the pool is full again; whether it did. */
async function untilPoolFull(full: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + POOL_FILL_TIMEOUT_MS;
  while (!(await full())) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/**
 * A new environment from the pool. The pool is detected, not assumed: the build must have the setting,
 * and with its default the emulator must keep warm sandboxes. Where /health reports the pool (size and
 * ready: started, channel open), each run waits until it is full again; otherwise until the instance's
 * running containers are back where they were, steady for half a second (a replacement not ready yet
 * then makes the figure slower, never faster). After each run the environment's container must be one
 * the pool made (its "pooled" label), else the figure would be a cold create's and is not given.
 */
async function fromPool(book: FigureBook, reasons: Record<string, string>, emulator: EmulatorUnderTest, api: ApiClient): Promise<void> {
  if (!poolSettingExists) {
    reasons[FIGURE.newEnvironmentFromPool] = `no pool in this build (no ${POOL_SETTING} setting)`;
    return;
  }
  const reported = await emulator.pool();
  let full: () => Promise<boolean>;
  let size: number;
  if (reported) {
    size = reported.size;
    full = async () => {
      const pool = await emulator.pool();
      return pool !== null && pool.ready >= pool.size;
    };
  } else {
    // Filled: some warm containers, and no change for 3 s (a pool may start its containers one by one).
    const warm = await emulator.settleContainers((count) => count > 0, 3000, POOL_FILL_TIMEOUT_MS);
    size = warm.held ? warm.count : 0;
    full = async () => (await emulator.settleContainers((count) => count >= size, 500, POOL_FILL_TIMEOUT_MS)).held;
  }
  if (size === 0) {
    reasons[FIGURE.newEnvironmentFromPool] = reported
      ? `the default ${POOL_SETTING} is 0: no pool to measure`
      : `no pool in this build: with the default ${POOL_SETTING} no warm container of the emulator's instance appeared within ${POOL_FILL_TIMEOUT_MS / 1000} s of its start`;
    return;
  }
  let cold = 0;
  const stats = await newEnvironmentCost(api, 8, `new environment from the pool (${size} warm): run \`true\``, {
    beforeEach: async () => {
      if (!(await untilPoolFull(full))) throw new Error(`the pool did not fill to ${size} within ${POOL_FILL_TIMEOUT_MS / 1000} s`);
    },
    afterEach: async (environmentId) => {
      if ((await emulator.pooledLabelOf(environmentId)) === "false") cold++;
    },
  });
  // Let the last replacement start before the next measurements share the machine with it.
  await untilPoolFull(full);
  if (cold > 0) {
    reasons[FIGURE.newEnvironmentFromPool] = `${cold} of ${stats.runs + 1} new environments were created cold although the pool was full`;
    book.addTable("A new environment, whole interaction, with the warm pool (default settings): NOT all from the pool", [stats]);
    return;
  }
  book.addTable("A new environment, whole interaction, from the warm pool (default settings)", [
    { ...stats, figure: FIGURE.newEnvironmentFromPool },
  ]);
}

/**
 * Where a tool call's CPU goes (emulator, sandbox, Docker engine), without and with one command hook:
 * the profile behind the bound of the tool-call goals (goals.ts).
 */
async function cpuProfileOfCalls(
  book: FigureBook,
  emulator: EmulatorUnderTest,
  api: ApiClient,
  plain: string,
  hooked: string,
): Promise<void> {
  const docker = new Docker();
  const rows: Array<{ label: string; environmentId: string; emulator: string; sandbox: string; executor: string; engine: string }> = [
    {
      label: "`true`",
      environmentId: plain,
      emulator: FIGURE.cpuPerCallEmulator,
      sandbox: FIGURE.cpuPerCallSandbox,
      executor: FIGURE.cpuPerCallExecutor,
      engine: FIGURE.cpuPerCallEngine,
    },
    {
      label: "`true` with one command hook",
      environmentId: hooked,
      emulator: FIGURE.cpuPerHookedCallEmulator,
      sandbox: FIGURE.cpuPerHookedCallSandbox,
      executor: FIGURE.cpuPerHookedCallExecutor,
      engine: FIGURE.cpuPerHookedCallEngine,
    },
  ];
  const lines: string[] = [];
  for (const row of rows) {
    const { label } = row;
    const container = `iemu-${emulator.instance}-${row.environmentId}`;
    const cpu = await cpuPerCall(api, row.environmentId, 10, () => readCpu(docker, emulator.process.pid, container));
    book.add(row.emulator, `CPU per tool call ${label}: the emulator`, cpu.emulatorMs, "ms");
    book.add(row.sandbox, `CPU per tool call ${label}: its sandbox`, cpu.sandboxMs, "ms");
    book.add(row.executor, `CPU per tool call ${label}: of its sandbox's, the executor's own processes`, cpu.executorMs, "ms");
    book.add(row.engine, `CPU per tool call ${label}: the Docker engine`, cpu.engineMs, "ms");
    lines.push(
      `  ${label.padEnd(30)} wall ${cpu.wallMs.toFixed(2)} ms · CPU: emulator ${cpu.emulatorMs.toFixed(2)} ms, sandbox ${cpu.sandboxMs.toFixed(2)} ms (the executor's own processes ${cpu.executorMs.toFixed(2)} ms), Docker engine ${cpu.engineMs.toFixed(2)} ms`,
    );
  }
  book.addNote(`Where a tool call's CPU goes (${MANY_CALLS}-call interactions, 10 of each, per call)`, lines);
}

export async function interactionGoalsPart(
  book: FigureBook,
  reasons: Record<string, string>,
  notes: string[],
  start: (settings: Record<string, string>) => Promise<EmulatorUnderTest>,
  progress: (line: string) => void,
): Promise<void> {
  progress("an emulator with the default settings: the pool, interactions, tool calls…");
  const emulator = await start({});
  try {
    const api = emulator.client("bench-goals");
    await fromPool(book, reasons, emulator, api);

    const noTool = await measure("interaction without a tool call (no environment)", 200, () => api.interact({ input: "hello" }));
    book.addTable("An interaction without a tool call (HTTP, validation, store, answer)", [{ ...noTool, figure: FIGURE.noToolCall }]);

    const plain = await createEnvironment(api);
    // The spawn the call is compared with, in the call's own container and in turns with its rounds
    // (issue 31's line: a tool call against a `bash -c true` spawn in the container).
    const docker = new Docker();
    // A container taken from the pool gets its environment's name just after the take.
    await emulator.process.namesSettled();
    const call = await perCallCostInTurns(api, plain, 12, "`true` in a reused environment", {
      label: "`bash -c true` in its container: per spawn, 100 a round",
      once: () => spawnCostInContainer(docker, `iemu-${emulator.instance}-${plain}`, 100),
    });
    const hooked = await createEnvironment(api, environmentWithHooks(1));
    await checkHooksRan(api, hooked, 2);
    const hookedCall = await perCallCost(api, hooked, 12, "`true` with one command hook");
    // A file tool: its hooks' files confirmed and read after in its own request, as a command's.
    await api.interact({ input: commandScript("printf 0123456789 > /workspace/10b.txt", 1), environment: plain });
    const fileCall = await perFileCallCost(api, plain, "10b.txt", 12, "`read_file` of 10 bytes");
    book.addTable(`Tool calls inside an interaction (1 call vs ${MANY_CALLS}, in turns)`, [
      call.few,
      call.many,
      { ...call.reference, figure: FIGURE.spawnBesideCall },
      hookedCall.few,
      hookedCall.many,
      fileCall.few,
      fileCall.many,
    ]);
    book.add(FIGURE.perCall, "one tool call `true` inside an interaction", call.perUnitMs, "ms");
    book.add(FIGURE.perCallOneHook, "one tool call `true` with one command hook", hookedCall.perUnitMs, "ms");
    book.add(FIGURE.perFileCall, "one `read_file` call of 10 bytes inside an interaction", fileCall.perUnitMs, "ms");
    await cpuProfileOfCalls(book, emulator, api, plain, hooked);
  } finally {
    await emulator.destroy();
  }

  progress(`an emulator with ${POOL_SETTING}=0: a new environment without the pool…`);
  const cold = await start({ [POOL_SETTING]: "0" });
  try {
    const api = cold.client("bench-cold");
    const idle = await cold.settleContainers(() => true, 1000, 5000);
    if (idle.count > 0)
      notes.push(`with ${POOL_SETTING}=0 the emulator still kept ${idle.count} containers running while it had no environment`);
    const stats = await newEnvironmentCost(api, 8, "new environment without the pool: run `true`");
    book.addTable(`A new environment, whole interaction, without the pool (${POOL_SETTING}=0)`, [
      { ...stats, figure: FIGURE.newEnvironmentWithoutPool },
    ]);
  } finally {
    await cold.destroy();
  }
}
