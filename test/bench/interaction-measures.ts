// Measurements through the emulator's HTTP API, shared by the goals and the series.

import { type ApiClient, commandScript, toolCallsScript } from "./api-client.js";
import { type CpuReading, cpuPerUnit } from "./cpu-accounting.js";
import { elapsedMs, perUnitCost, type Stats, summarize } from "./stats.js";

/** Calls in the longer interaction of a per-call measurement; the shorter has one. */
export const MANY_CALLS = 41;

/**
 * What one `true` tool call costs inside an interaction in `environmentId`: interactions of 1 and of
 * 41 calls in turns, the difference of their medians over 40. The HTTP request, the store and the final
 * answer are in both, so what is left is the call: its steps and events, the hooks, the channel, the spawn.
 * `script` gives the input of `count` calls (default: `true` commands).
 */
export async function perCallCost(
  api: ApiClient,
  environmentId: string,
  runs: number,
  label: string,
  script: (count: number) => string = (count) => commandScript("true", count),
): Promise<{ perUnitMs: number; few: Stats; many: Stats }> {
  const interaction = (count: number) => () => api.interact({ input: script(count), environment: environmentId });
  return perUnitCost(runs, { units: 1, once: interaction(1) }, { units: MANY_CALLS, once: interaction(MANY_CALLS) }, label);
}

/** perCallCost for a file tool: `read_file` calls of `path` (a small file) instead of commands. */
export function perFileCallCost(
  api: ApiClient,
  environmentId: string,
  path: string,
  runs: number,
  label: string,
): Promise<{ perUnitMs: number; few: Stats; many: Stats }> {
  return perCallCost(api, environmentId, runs, label, (count) => toolCallsScript("read_file", { path }, count));
}

/**
 * perCallCost, with a reference taken in the same rounds: each round runs the 1-call interaction, the
 * 41-call one and `reference` (a spawn loop in the environment's own container), in an order that
 * rotates, so that the machine's drift between minutes touches the call and its reference alike.
 */
export async function perCallCostInTurns(
  api: ApiClient,
  environmentId: string,
  runs: number,
  label: string,
  reference: { label: string; once: () => Promise<number> },
): Promise<{ perUnitMs: number; few: Stats; many: Stats; reference: Stats }> {
  const interaction = (count: number) => () => api.interact({ input: commandScript("true", count), environment: environmentId });
  const steps: Array<() => Promise<number>> = [timed(interaction(1)), timed(interaction(MANY_CALLS)), reference.once];
  for (const step of steps) await step();
  const times: number[][] = [[], [], []];
  for (let round = 0; round < runs; round++) {
    for (let turn = 0; turn < steps.length; turn++) {
      const index = (round + turn) % steps.length;
      times[index]!.push(await steps[index]!());
    }
  }
  const few = summarize(`${label}: 1 call`, times[0]!);
  const many = summarize(`${label}: ${MANY_CALLS} calls`, times[1]!);
  return { perUnitMs: (many.p50 - few.p50) / (MANY_CALLS - 1), few, many, reference: summarize(reference.label, times[2]!) };
}

/** `once`'s wall time in milliseconds. */
function timed(once: () => Promise<unknown>): () => Promise<number> {
  return async () => {
    const start = process.hrtime.bigint();
    await once();
    return elapsedMs(start);
  };
}

/**
 * A whole interaction that runs `true` in a new environment (create, start, channel, the call, the
 * answer), `runs` times after one warm-up; each environment is deleted after its run, untimed.
 * `beforeEach` may wait for the emulator to be ready again (a pool refilled), `afterEach` look at the
 * environment; both untimed.
 */
export async function newEnvironmentCost(
  api: ApiClient,
  runs: number,
  label: string,
  hooks: { beforeEach?: () => Promise<void>; afterEach?: (environmentId: string) => Promise<void> } = {},
): Promise<Stats> {
  const times: number[] = [];
  for (let run = 0; run <= runs; run++) {
    await hooks.beforeEach?.();
    const start = process.hrtime.bigint();
    const interaction = await api.interact({ input: commandScript("true", 1), environment: { type: "remote" } });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (run > 0) times.push(ms);
    await hooks.afterEach?.(interaction.environment_id!);
    await api.request("DELETE", `/v1beta/environments/${interaction.environment_id}`);
  }
  return summarize(label, times);
}

/** A new, empty environment (or one with `body`'s sources); its ID. */
export async function createEnvironment(api: ApiClient, body: Record<string, unknown> = {}): Promise<string> {
  return (await api.request<{ id: string }>("POST", "/v1beta/environments", body)).id;
}

/**
 * Where the CPU of one tool call goes: `rounds` interactions of MANY_CALLS `true` calls in the
 * environment, with the emulator's process, the environment's container and the Docker engine read
 * before and after (cpu-accounting.ts); per call.
 */
export async function cpuPerCall(
  api: ApiClient,
  environmentId: string,
  rounds: number,
  read: () => Promise<CpuReading>,
): Promise<CpuReading & { wallMs: number }> {
  const interaction = () => api.interact({ input: commandScript("true", MANY_CALLS), environment: environmentId });
  await interaction();
  const before = await read();
  const start = process.hrtime.bigint();
  for (let round = 0; round < rounds; round++) await interaction();
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6 / (rounds * MANY_CALLS);
  return { ...cpuPerUnit(before, await read(), rounds * MANY_CALLS), wallMs };
}
