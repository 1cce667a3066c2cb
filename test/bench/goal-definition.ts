// What a goal line is (goals.ts, goals-scale.ts): a ratio or rate computed from figures of one run,
// with what bounds it where it is missed; and the way its numbers are written. Pure: no I/O.

export type Relation = ">=" | "<=" | "<";

export interface GoalOutcome {
  id: string;
  title: string;
  short: string;
  status: "PASS" | "FAIL" | "not measured";
  /** The ratio (×), rate (MB/s), time (ms) or memory (MiB) measured; absent when not measured. */
  value?: number;
  relation: Relation;
  target: number;
  unit: "×" | "MB/s" | "ms" | "MiB" | "%" | "count";
  /** Said after the value: "faster", "the spawn", … */
  reading?: string;
  /** How the value was computed, with the figures it came from; or why it was not measured. */
  detail: string;
  /** For a missed goal: what bounds it, from floors and a CPU profile measured in the same run. */
  bound?: string;
  /** The bench part that measures it (`--only`). */
  part: GoalPart;
}

/** The parts whose figures goal lines are computed from (options.ts). */
export type GoalPart = "goals" | "tti" | "density" | "concurrency" | "swarm";

export interface Goal {
  id: string;
  /** The part that measures it; "goals" when absent. */
  part?: GoalPart;
  title: string;
  /** The title in a few words, for the short lines. */
  short: string;
  relation: Relation;
  target: number;
  unit: GoalOutcome["unit"];
  /** Said after a ratio: "faster", "the spawn", … */
  reading?: string;
  /** The figure IDs the value needs, in the order `compute` takes them. */
  inputs: string[];
  compute: (...values: number[]) => { value: number; detail: string };
  /**
   * What bounds the goal where it is missed, said from other figures of the run (its floors, where the
   * CPU went): issue 11 asks for the bound, with the profile that shows it, rather than a looser goal.
   */
  bound?: { inputs: string[]; explain: (...values: number[]) => string };
}

export const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 1)} ms`;
export const us = (value: number) => `${value.toFixed(0)} µs`;
export const times = (value: number) => `${value.toFixed(value < 1 ? 2 : 1)}×`;
export const mib = (value: number) => `${value.toFixed(1)} MiB`;
export const mbs = (value: number) => `${value.toFixed(0)} MB/s`;
