// Serving the emulator until interrupted: what `npm start` runs (server/bootstrap/cli.mjs calls serve()
// once its checks are done; `node dist/server/main.js` does the same).

import { loadConfig } from "./common/config.js";
import { startEmulator } from "./emulator.js";
import { readyLines } from "./ready-lines.js";

export async function serve(): Promise<void> {
  outliveLogReaders();
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

/**
 * A reader of the emulator's output that goes away (`npm start | head`, a parent process that died)
 * must not end it: Node.js reports the broken pipe as an 'error' on process.stdout, which without a
 * listener ended the process at its next line, mid-start or mid-shutdown, leaving its lease and
 * containers on the engine. The emulator goes on serving; what it could not write is dropped.
 */
function outliveLogReaders(): void {
  for (const stream of [process.stdout, process.stderr]) stream.on("error", () => undefined);
}

/** serve(), ending the process with a line saying why when the emulator cannot start. */
export function serveOrExit(): void {
  serve().catch((error: unknown) => {
    console.error(`emulator failed to start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
