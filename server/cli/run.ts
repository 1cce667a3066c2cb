// The command line's dispatcher: `interactions-emulator hooks check|try|coverage`, `state export|import`, `start`, `help`, `--version`.
// Returns the exit status rather than exiting, so tests can run it in-process.

import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { projectRoot } from "../common/paths.js";
import { checkHooksFile, formatCheckReport } from "./hooks-check.js";
import { hooksCoverage } from "./hooks-coverage.js";
import { hooksTry, type CliIo } from "./hooks-try.js";
import { startCommand } from "./start.js";
import { stateCommand } from "./state.js";
import { EXIT, USAGE, UsageError } from "./usage.js";

export const processIo: CliIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

export async function runCli(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  try {
    return await dispatch(argv, io);
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      io.err(`error: ${(error as Error).message}\n\n${USAGE}`);
      return EXIT.usage;
    }
    io.err(`error: ${(error as Error).message}\n`);
    return EXIT.failed;
  }
}

async function dispatch(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === "help" || command === "--help" || command === "-h") {
    io.out(USAGE);
    return EXIT.ok;
  }
  if (command === "--version" || command === "-v") {
    const manifest = JSON.parse(fs.readFileSync(path.join(projectRoot, "package.json"), "utf8")) as { version: string };
    io.out(`${manifest.version}\n`);
    return EXIT.ok;
  }
  if (command === "start") {
    const { values } = parseArgs({
      args: [...rest],
      options: { port: { type: "string" }, host: { type: "string" }, "data-dir": { type: "string" } },
      strict: true,
    });
    return startCommand({ port: values.port, host: values.host, dataDir: values["data-dir"] }, io);
  }
  if (command === "hooks") {
    const [subcommand, ...args] = rest;
    if (subcommand === "check") {
      const { values, positionals } = parseArgs({ args, options: { json: { type: "boolean" } }, allowPositionals: true, strict: true });
      if (positionals.length > 1) throw new UsageError("hooks check takes one file");
      const report = await checkHooksFile(positionals[0] ?? path.join(".agents", "hooks.json"));
      io.out(values.json ? `${JSON.stringify(report, null, 2)}\n` : formatCheckReport(report));
      return report.errors > 0 ? EXIT.failed : EXIT.ok;
    }
    if (subcommand === "try") {
      const { values } = parseArgs({
        args,
        options: {
          call: { type: "string" },
          dir: { type: "string" },
          at: { type: "string" },
          emulator: { type: "string" },
          "api-key": { type: "string" },
          json: { type: "boolean" },
        },
        strict: true,
      });
      if (values.call === undefined) throw new UsageError('hooks try needs --call \'{"name": "<tool>", "args": {...}}\'');
      const at = values.at ?? "root";
      if (at !== "root" && at !== "workspace")
        throw new UsageError(`--at is "root" (/.agents) or "workspace" (/workspace/.agents), not ${JSON.stringify(at)}`);
      return hooksTry(
        { call: values.call, dir: values.dir ?? ".", at, emulator: values.emulator, apiKey: values["api-key"], json: values.json ?? false },
        io,
      );
    }
    if (subcommand === "coverage") {
      const { values } = parseArgs({
        args,
        options: {
          emulator: { type: "string" },
          key: { type: "string" },
          environment: { type: "string" },
          since: { type: "string" },
          "fail-on-unexercised": { type: "boolean" },
          "fail-on-unmatched-tools": { type: "boolean" },
          json: { type: "boolean" },
        },
        strict: true,
      });
      return hooksCoverage(
        {
          emulator: values.emulator,
          key: values.key,
          environment: values.environment,
          since: values.since,
          failOnUnexercised: values["fail-on-unexercised"] ?? false,
          failOnUnmatchedTools: values["fail-on-unmatched-tools"] ?? false,
          json: values.json ?? false,
        },
        io,
      );
    }
    throw new UsageError(
      subcommand === undefined ? "hooks needs a command: check, try or coverage" : `unknown hooks command ${JSON.stringify(subcommand)}`,
    );
  }
  if (command === "state") {
    const [action, ...args] = rest;
    if (action !== "export" && action !== "import") {
      throw new UsageError(
        action === undefined ? "state needs a command: export or import" : `unknown state command ${JSON.stringify(action)}`,
      );
    }
    const { values } = parseArgs({
      args,
      options: {
        emulator: { type: "string" },
        key: { type: "string" },
        out: { type: "string" },
        in: { type: "string" },
        "include-secrets": { type: "boolean" },
        passphrase: { type: "string" },
      },
      strict: true,
    });
    const file = action === "export" ? values.out : values.in;
    if (values.emulator === undefined) throw new UsageError(`state ${action} needs --emulator URL`);
    const key = values.key ?? process.env.GEMINI_API_KEY;
    if (key === undefined) throw new UsageError(`state ${action} needs --key K (or GEMINI_API_KEY)`);
    if (file === undefined) throw new UsageError(`state ${action} needs ${action === "export" ? "--out" : "--in"} FILE`);
    if (action === "import" && values["include-secrets"]) throw new UsageError("--include-secrets is for state export");
    return stateCommand(
      {
        action,
        emulator: values.emulator,
        key,
        file,
        includeSecrets: values["include-secrets"] ?? false,
        passphrase: values.passphrase ?? (process.env.EMULATOR_STATE_PASSPHRASE || undefined),
      },
      io,
    );
  }
  throw new UsageError(command === undefined ? "a command is needed" : `unknown command ${JSON.stringify(command)}`);
}
