// Timing loops of the benchmark and the statistics it reports. Every loop is bounded by its run count.

export interface Stats {
  label: string;
  runs: number;
  mean: number;
  p50: number;
  p95: number;
}

/** Mean, median and 95th percentile (nearest rank) of durations in milliseconds. */
export function summarize(label: string, values: number[]): Stats {
  if (values.length === 0) throw new Error(`no measurements for ${label}`);
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
  return { label, runs: sorted.length, mean: sorted.reduce((a, b) => a + b, 0) / sorted.length, p50: at(0.5), p95: at(0.95) };
}

/** The value at quantile `q` (0–1) of `values` by nearest rank, as summarize() reads its p50 and p95. */
export function quantile(values: number[], q: number): number {
  if (values.length === 0) throw new Error("no values to take a quantile of");
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** A distribution as a sandbox service is judged by it (issue 31): median and p99, with the ends. */
export interface Distribution {
  runs: number;
  min: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export function distribution(values: number[]): Distribution {
  return {
    runs: values.length,
    min: quantile(values, 0),
    p50: quantile(values, 0.5),
    p90: quantile(values, 0.9),
    p99: quantile(values, 0.99),
    max: quantile(values, 1),
  };
}

export function elapsedMs(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** `once` run `runs` times after one uncounted warm-up run. */
export async function measure(label: string, runs: number, once: () => Promise<unknown>): Promise<Stats> {
  await once();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    await once();
    times.push(elapsedMs(start));
  }
  return summarize(label, times);
}

export interface Measured {
  label: string;
  once: () => Promise<unknown>;
}

/**
 * Two measurements taken in turns, run by run (and which goes first alternating), so both see the same
 * load on a busy machine; one uncounted warm-up run each.
 */
export async function measurePair(runs: number, a: Measured, b: Measured): Promise<[Stats, Stats]> {
  await a.once();
  await b.once();
  const times: [number[], number[]] = [[], []];
  for (let i = 0; i < runs; i++) {
    for (const index of i % 2 === 0 ? [0, 1] : [1, 0]) {
      const start = process.hrtime.bigint();
      await [a, b][index]!.once();
      times[index]!.push(elapsedMs(start));
    }
  }
  return [summarize(a.label, times[0]), summarize(b.label, times[1])];
}

/**
 * The cost of one more unit of work: an interaction with `many` tool calls against one with `few`,
 * measured in turns, median against median, divided by the calls between them. What both share (HTTP,
 * store, the final answer) cancels out.
 */
export async function perUnitCost(
  runs: number,
  few: { units: number; once: () => Promise<unknown> },
  many: { units: number; once: () => Promise<unknown> },
  label: string,
): Promise<{ perUnitMs: number; few: Stats; many: Stats }> {
  const [fewStats, manyStats] = await measurePair(
    runs,
    { label: `${label}: ${few.units} call${few.units === 1 ? "" : "s"}`, once: few.once },
    { label: `${label}: ${many.units} calls`, once: many.once },
  );
  return { perUnitMs: (manyStats.p50 - fewStats.p50) / (many.units - few.units), few: fewStats, many: manyStats };
}
