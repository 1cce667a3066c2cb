// `interactions-emulator start [--port N] [--host H] [--data-dir DIR]`: what `npm start` does once the
// code is built, for an installed package: no build step at run time. It needs a Docker engine (it
// says how to start one when none answers) and prepares the sandbox image with its progress shown,
// then prints the URL, in the same "listening on" line as `npm start`, and serves until SIGINT/SIGTERM.

import { loadConfig } from "../common/config.js";
import { startEmulator } from "../emulator.js";
import { readyLines } from "../ready-lines.js";
import type { CliIo } from "./hooks-try.js";
import { EXIT } from "./usage.js";

export interface StartOptions {
  port?: string;
  host?: string;
  dataDir?: string;
}

export async function startCommand(options: StartOptions, io: CliIo): Promise<number> {
  const config = loadConfig({
    ...process.env,
    ...(options.port !== undefined ? { PORT: options.port } : {}),
    ...(options.host !== undefined ? { HOST: options.host } : {}),
    ...(options.dataDir !== undefined ? { EMULATOR_DATA_DIR: options.dataDir } : {}),
  });
  // A signal during start-up ends the process as it would `npm start` (nothing is running yet).
  const emulator = await startEmulator(config, { progress: (line) => io.out(`${line}\n`) });
  for (const line of readyLines(emulator.url, config.EMULATOR_DATA_DIR)) io.out(`${line}\n`);
  return new Promise<number>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      io.out(`${signal}: shutting down; sandboxes keep running and are found again at the next start\n`);
      emulator.close().then(
        () => resolve(EXIT.ok),
        (error: unknown) => {
          io.err(`error while shutting down: ${(error as Error).message}\n`);
          resolve(EXIT.failed);
        },
      );
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
}
