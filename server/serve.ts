// Serving the emulator until interrupted: what `npm start` runs (server/bootstrap/cli.mjs calls serve()
// once its checks are done; `node dist/server/main.js` does the same).

import { loadConfig } from "./common/config.js";
import { startEmulator } from "./emulator.js";
import { readyLines } from "./ready-lines.js";

export async function serve(): Promise<void> {
  const config = loadConfig();
  const emulator = await startEmulator(config);
  for (const line of readyLines(emulator.url, config.EMULATOR_DATA_DIR)) console.log(line);
  const stop = (signal: string) => {
    console.log(`${signal}: shutting down; sandboxes keep running and are found again at the next start`);
    emulator.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", () => stop("SIGINT"));
  process.once("SIGTERM", () => stop("SIGTERM"));
}

/** serve(), ending the process with a line saying why when the emulator cannot start. */
export function serveOrExit(): void {
  serve().catch((error: unknown) => {
    console.error(`emulator failed to start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
