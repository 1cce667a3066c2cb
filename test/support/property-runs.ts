// How the property tests run fast-check: bounded and reproducible. Every property runs with a fixed
// seed by default, so CI sees the same inputs on every run and a failure there reproduces here; a
// failure prints its seed and shrink path, and FC_SEED replays it (or FC_SEED=random explores new
// inputs). FC_RUNS_SCALE multiplies every property's run count for a longer soak (FC_RUNS_SCALE=20).

import type { Parameters } from "fast-check";

const DEFAULT_SEED = 0x9e3779b1 | 0;

function seedFromEnvironment(): number {
  const raw = process.env.FC_SEED?.trim();
  if (raw === undefined || raw === "") return DEFAULT_SEED;
  if (raw === "random") return (Date.now() ^ (Math.random() * 0x100000000)) | 0;
  const seed = Number(raw);
  if (!Number.isInteger(seed)) throw new Error(`FC_SEED must be an integer or "random", not ${JSON.stringify(raw)}`);
  return seed | 0;
}

function scaleFromEnvironment(): number {
  const raw = process.env.FC_RUNS_SCALE?.trim();
  if (raw === undefined || raw === "") return 1;
  const scale = Number(raw);
  if (!Number.isFinite(scale) || scale <= 0) throw new Error(`FC_RUNS_SCALE must be a positive number, not ${JSON.stringify(raw)}`);
  return scale;
}

const seed = seedFromEnvironment();
const scale = scaleFromEnvironment();

/** Parameters for fc.assert: `numRuns` runs (scaled by FC_RUNS_SCALE), the shared seed. */
export function runs<T>(numRuns: number): Parameters<T> {
  return { seed, numRuns: Math.max(1, Math.round(numRuns * scale)) };
}
