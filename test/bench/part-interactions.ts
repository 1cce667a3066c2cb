// The goals measured through the HTTP API of an emulator started as `npm start` starts it: an
// interaction without a tool call, the cost of one tool call (without and with a command hook), and a
// new environment from the warm pool (the default) and without it (EMULATOR_POOL_SIZE=0).

import { configSchema } from "../../server/common/config.js";
import { type ApiClient, commandScript } from "./api-client.js";
import type { EmulatorUnderTest } from "./emulator-under-test.js";
import { FIGURE, type FigureBook } from "./figures.js";
import { environmentWithHooks } from "./hooks-files.js";
import { createEnvironment, MANY_CALLS, newEnvironmentCost, perCallCost } from "./interaction-measures.js";
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

/**
 * A new environment from the pool. The pool is detected, not assumed: the build must have the setting,
 * and with the default size warm containers must appear while no environment exists. Before each run
 * the pool is given time to refill (the container count back where it was, steady for half a second);
 * a replacement whose channel is not ready yet makes the figure slower, never faster.
 */
async function fromPool(book: FigureBook, reasons: Record<string, string>, emulator: EmulatorUnderTest, api: ApiClient): Promise<void> {
  if (!poolSettingExists) {
    reasons[FIGURE.newEnvironmentFromPool] = `no pool in this build (no ${POOL_SETTING} setting)`;
    return;
  }
  const warm = await emulator.settleContainers((count) => count > 0, 1000, POOL_FILL_TIMEOUT_MS);
  if (!warm.held) {
    reasons[FIGURE.newEnvironmentFromPool] =
      `no pool in this build: with the default ${POOL_SETTING} no warm container appeared within ${POOL_FILL_TIMEOUT_MS / 1000} s of start`;
    return;
  }
  const stats = await newEnvironmentCost(api, 8, `new environment from the pool (${warm.count} warm): run \`true\``, async () => {
    const refilled = await emulator.settleContainers((count) => count === warm.count, 500, POOL_FILL_TIMEOUT_MS);
    if (!refilled.held)
      throw new Error(`the pool did not refill to ${warm.count} containers within ${POOL_FILL_TIMEOUT_MS / 1000} s (${refilled.count})`);
  });
  book.addTable("A new environment, whole interaction, from the warm pool (default settings)", [
    { ...stats, figure: FIGURE.newEnvironmentFromPool },
  ]);
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
    const call = await perCallCost(api, plain, 12, "`true` in a reused environment");
    const hooked = await createEnvironment(api, environmentWithHooks(1));
    await checkHooksRan(api, hooked, 2);
    const hookedCall = await perCallCost(api, hooked, 12, "`true` with one command hook");
    book.addTable(`Tool calls inside an interaction (1 call vs ${MANY_CALLS}, in turns)`, [
      call.few,
      call.many,
      hookedCall.few,
      hookedCall.many,
    ]);
    book.add(FIGURE.perCall, "one tool call `true` inside an interaction", call.perUnitMs, "ms");
    book.add(FIGURE.perCallOneHook, "one tool call `true` with one command hook", hookedCall.perUnitMs, "ms");
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
    const stats = await newEnvironmentCost(api, 8, "new environment without the pool: run `true`", async () => undefined);
    book.addTable(`A new environment, whole interaction, without the pool (${POOL_SETTING}=0)`, [
      { ...stats, figure: FIGURE.newEnvironmentWithoutPool },
    ]);
  } finally {
    await cold.destroy();
  }
}
