// The benchmark's command line: `npm run bench -- [--only goals,table,series,gvisor] [--check] [--no-save]
// [--baseline FILE] [--readme]`. Pure, unit-tested (test/unit/bench-results.test.ts).

export const PARTS = ["goals", "table", "series", "gvisor"] as const;
export type Part = (typeof PARTS)[number];

export interface BenchOptions {
  parts: Set<Part>;
  /** Exit non-zero when a measured goal is missed (off by default: a slow or busy machine is no failure). */
  check: boolean;
  /** Write bench/results/<time>.json and latest.json. */
  save: boolean;
  /** The results file to compare with; default bench/results/latest.json as it was before this run. */
  baseline?: string;
  /** Also print the goal lines as the README shows them, with the machine. */
  readme: boolean;
  help: boolean;
}

export const USAGE = `usage: npm run bench -- [options]
  --only PARTS     run only these parts, comma-separated (default: all):
                     goals   what the goal lines need (docker exec/run, a spawn, the channel, interactions, new environments)
                     table   the other measurements of the table (file operations, identities, whole interactions, egress)
                     series  costs as work grows (live environments, hooks.json rules, steps, memory)
                     gvisor  a sandbox under runsc vs runc, in turns (a command, a tool call, a file read, a cold
                             sandbox); a note instead when the engine has no runsc
  --check          exit 1 when a measured goal is missed (by default the run only reports)
  --no-save        do not write bench/results/<time>.json and latest.json
  --baseline FILE  compare with this results file instead of bench/results/latest.json
  --readme         also print the goal lines as README.md shows them, with the machine
  --help           this text`;

export function parseOptions(argv: string[]): BenchOptions {
  const options: BenchOptions = { parts: new Set(PARTS), check: false, save: true, readme: false, help: false };
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
