// The benchmark's command line: `npm run bench -- [--only goals,table,series,gvisor,tti,density,concurrency,swarm]
// [--density N] [--pool N] [--no-charts] [--check] [--no-save] [--baseline FILE] [--readme]`. Pure, unit-tested (test/unit/bench-results.test.ts).

export const PARTS = ["goals", "table", "series", "gvisor", "tti", "density", "concurrency", "swarm"] as const;

/** Live environments the density part aims for (issue 31: 1,000 on the 24 GiB, 2-core machine). */
export const DEFAULT_DENSITY = 1000;
export type Part = (typeof PARTS)[number];

export interface BenchOptions {
  parts: Set<Part>;
  /** Exit non-zero when a measured goal is missed (off by default: a slow or busy machine is no failure). */
  check: boolean;
  /** Write bench/results/<time>.json and latest.json. */
  save: boolean;
  /** The results file to compare with; default bench/results/latest.json as it was before this run. */
  baseline?: string;
  /** Also print the goal lines in their short form (docs/benchmarks.md), with the machine. */
  readme: boolean;
  /** Live idle environments the density part creates at most (`--density N`). */
  density: number;
  /** EMULATOR_POOL_SIZE of the time-to-interactive part's emulator; its default when absent. */
  pool?: number;
  /** Render the charts (docs/images/) when the parts they show ran. */
  charts: boolean;
  help: boolean;
}

export const USAGE = `usage: npm run bench -- [options]
  --only PARTS     run only these parts, comma-separated (default: all):
                     goals   what the goal lines need (docker exec/run, a spawn, the channel, interactions, new environments)
                     table   the other measurements of the table (file operations, identities, whole interactions, egress)
                     series  costs as work grows (live environments, hooks.json rules, steps, memory)
                     gvisor  a sandbox under runsc vs runc, in turns (a command, a tool call, a file read, a cold
                             sandbox); a note instead when the engine has no runsc
                     tti     time to interactive: create until a first command has run, 100 runs each sequential,
                             staggered (one every 100 ms), in bursts of 20; docker run and the engine's own burst
                     density live idle environments, up to --density (memory, engine, tasks, descriptors stop it)
                     concurrency  1, 10, 50, 200 interactions at once, each in its own environment: tool calls/s,
                             p50/p99, /health meanwhile; the machine's bash -c true spawns/s
                     swarm   a tool call in a sandbox on another node of the three-node test swarm vs one on
                             the emulator's own node (needs root; not measured otherwise; not while a
                             test/docker/swarm-*.test.ts runs: the test swarm is one per machine)
  --density N      live environments the density part aims for (default ${DEFAULT_DENSITY})
  --pool N         EMULATOR_POOL_SIZE of the tti part's emulator (default: the emulator's default)
  --no-charts      do not render docs/images/bench-*.png
  --check          exit 1 when a measured goal is missed (by default the run only reports)
  --no-save        do not write bench/results/<time>.json and latest.json
  --baseline FILE  compare with this results file instead of bench/results/latest.json
  --readme         also print the goal lines in their short form (docs/benchmarks.md), with the machine
  --help           this text`;

export function parseOptions(argv: string[]): BenchOptions {
  const options: BenchOptions = {
    parts: new Set(PARTS),
    check: false,
    save: true,
    readme: false,
    density: DEFAULT_DENSITY,
    charts: true,
    help: false,
  };
  const count = (name: string, value: string, min: number, max: number) => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < min || parsed > max)
      throw new Error(`${name}: "${value}" is not a whole number from ${min} to ${max}\n${USAGE}`);
    return parsed;
  };
  let only: Set<Part> | null = null;
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index]!;
    const [name, inline] = argument.startsWith("--") && argument.includes("=") ? argument.split(/=(.*)/s, 2) : [argument, undefined];
    const optionValue = () => {
      const value = inline ?? argv[++index];
      if (value === undefined || value === "") throw new Error(`${name} needs a value\n${USAGE}`);
      return value;
    };
    switch (name) {
      case "--only":
        only ??= new Set();
        for (const part of optionValue().split(",")) {
          const trimmed = part.trim();
          if (!(PARTS as readonly string[]).includes(trimmed))
            throw new Error(`--only: "${trimmed}" is not one of ${PARTS.join(", ")}\n${USAGE}`);
          only.add(trimmed as Part);
        }
        break;
      case "--check":
        options.check = true;
        break;
      case "--no-save":
        options.save = false;
        break;
      case "--baseline":
        options.baseline = optionValue();
        break;
      case "--readme":
        options.readme = true;
        break;
      case "--density":
        options.density = count(name, optionValue(), 1, 5000);
        break;
      case "--pool":
        options.pool = count(name, optionValue(), 0, 16);
        break;
      case "--no-charts":
        options.charts = false;
        break;
      case "--help":
      case "-h":
        options.help = true;
        break;
      default:
        throw new Error(`unknown option ${argument}\n${USAGE}`);
    }
  }
  if (only) options.parts = only;
  return options;
}
